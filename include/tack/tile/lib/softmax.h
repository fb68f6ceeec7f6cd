// Row-wise softmax over f32 matrices.
#pragma once

#include <cmath>

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

// Y[r, :] = exp(X[r, :] - max) / sum(exp(X[r, :] - max)), in blocks of
// `width` columns: a max reduction, a sum reduction, then the normalized
// blocks in parallel. Columns past the row's end load -inf, which adds
// nothing to either reduction.
inline Kernel softmax(int64_t width = 32) {
  return tile_kernel("softmax", [width](TensorView<float, 2> X, TensorView<float, 2> Y) {
    Index blocks = ceil_div(X.shape(1), width);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> m = -INFINITY;
      for (auto b : reduce(blocks)) m = maximum(m, max(X(r, span(b * width, width)).load(-INFINITY), 0));
      Tile<float> s = 0.0f;
      for (auto b : reduce(blocks)) s = s + sum(exp(X(r, span(b * width, width)).load(-INFINITY) - m), 0);
      for (auto b : parallel(blocks)) {
        Tile<float> e = exp(X(r, span(b * width, width)).load(-INFINITY) - m);
        Y(r, span(b * width, width)).store(e / s);
      }
    }
  });
}

}  // namespace tack::tile::lib
