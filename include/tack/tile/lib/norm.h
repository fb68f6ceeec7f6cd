// Row normalizations over f32 matrices.
#pragma once

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

// Y[r, :] = (X[r, :] - mean) / sqrt(var + eps) * G + B with the mean and the
// (biased) variance of the row, computed in two passes over blocks of
// `width` columns so that the variance never subtracts nearly equal sums.
inline Kernel layer_norm(float eps = 1e-5f, int64_t width = 32) {
  return tile_kernel("layer_norm", [eps, width](TensorView<float, 2> X, TensorView<float, 1> G, TensorView<float, 1> B,
                                                TensorView<float, 2> Y) {
    Index cols = X.shape(1), blocks = ceil_div(cols, width);
    Tile<float> n = cast<float>(cols);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> total = 0.0f;
      for (auto b : reduce(blocks)) total = total + sum(X[{r, span(b * width, width)}], 0);
      Tile<float> mean = total / n;
      Tile<float> squares = 0.0f;
      for (auto b : reduce(blocks)) {
        Tile<float> d = select(in_range(b * width, width, cols), X[{r, span(b * width, width)}] - mean, 0.0f);
        squares = squares + sum(d * d, 0);
      }
      Tile<float> scale = 1.0f / sqrt(squares / n + eps);
      for (auto b : parallel(blocks)) {
        Tile<float> x = X[{r, span(b * width, width)}];
        Tile<float> g = G[{span(b * width, width)}];
        Tile<float> beta = B[{span(b * width, width)}];
        Y(r, span(b * width, width)).store((x - mean) * scale * g + beta);
      }
    }
  });
}

// Y[r, :] = X[r, :] / sqrt(mean(X[r, :]^2) + eps) * G.
inline Kernel rms_norm(float eps = 1e-5f, int64_t width = 32) {
  return tile_kernel("rms_norm", [eps, width](TensorView<float, 2> X, TensorView<float, 1> G, TensorView<float, 2> Y) {
    Index cols = X.shape(1), blocks = ceil_div(cols, width);
    Tile<float> n = cast<float>(cols);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> squares = 0.0f;
      for (auto b : reduce(blocks)) {
        Tile<float> x = X[{r, span(b * width, width)}];
        squares = squares + sum(x * x, 0);
      }
      Tile<float> scale = 1.0f / sqrt(squares / n + eps);
      for (auto b : parallel(blocks))
        Y(r, span(b * width, width)).store(X[{r, span(b * width, width)}] * scale * G[{span(b * width, width)}]);
    }
  });
}

}  // namespace tack::tile::lib
