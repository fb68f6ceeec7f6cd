// Sorting rows of an f32 matrix.
#pragma once

#include "tack/tile/lib/common.h"
#include "tack/tile/lib/order.h"

namespace tack::tile::lib {

// Y[r, :] is row r of X in increasing order (NaN last, equal values by
// lower position: a stable sort) and I[r, :] the positions they came from.
// Each element's final place is the number of elements that precede it,
// counted in blocks of `width`; the element is then scattered there. Full
// sort is a permutation of the row, so it is written through memory.
inline Kernel sort(int64_t width = 32) {
  return tile_kernel("sort", [width](TensorView<float, 2> X, TensorView<float, 2> Y, TensorView<int64_t, 2> I) {
    Index cols = X.shape(1);
    for (auto r : parallel(X.shape(0), exec::block)) {
      for (auto i : parallel(cols)) {
        Tile<float> x = X[{r, i}];
        Index place = int64_t(0);
        for (auto b : reduce(ceil_div(cols, width))) {
          Index j = positions(b * width, width);
          Tile<bool> earlier = in_range(b * width, width, cols) & before_ascending(X[{r, span(b * width, width)}], j, x, i);
          place = place + sum(cast<int64_t>(earlier), 0);
        }
        Y(r, place).store(x);
        I(r, place).store(i);
      }
    }
  });
}

}  // namespace tack::tile::lib
