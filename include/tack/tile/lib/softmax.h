// Row-wise softmax over f32 matrices.
#pragma once

#include <cmath>

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

// Y[r, :] = exp(X[r, :] - max) / sum(exp(X[r, :] - max)), in blocks of
// `width` columns: a max reduction, a serial sum (blocks in order; a
// reduce's contributions may not write memory) that also stores each
// block's exps in Y, then Y's blocks divided by the sum in parallel (one
// exp per element, not two). Columns past the row's end load -inf, which
// adds nothing to the maximum or the sum, and are not stored.
inline Kernel softmax(int64_t width = 32) {
  return tile_kernel("softmax", [width](TensorView<float, 2> X, TensorView<float, 2> Y) {
    Index blocks = ceil_div(X.shape(1), width);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> m = -INFINITY;
      for (auto b : reduce(blocks)) m = maximum(m, max(X(r, span(b * width, width)).load(-INFINITY), 0));
      Tile<float> s = 0.0f;
      for (auto b : serial(blocks)) {
        Tile<float> e = exp(X(r, span(b * width, width)).load(-INFINITY) - m);
        Y(r, span(b * width, width)).store(e);
        s = s + sum(e, 0);
      }
      for (auto b : parallel(blocks)) Y(r, span(b * width, width)).store(Y(r, span(b * width, width)).load(0.0f) / s);
    }
  });
}

}  // namespace tack::tile::lib
