// 2-D convolution over f32 tensors.
#pragma once

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

struct Conv2dConfig {
  int64_t padding = 0;  // zeros added on every side of H and W
  int64_t width = 32;   // output columns per tile
};

// Y[n, f, y, x] = sum over c, ky, kx of X[n, c, y + ky - p, x + kx - p] * W[f, c, ky, kx]
// for X: NxCxHxW, W: FxCxKHxKW, Y: NxFxOHxOW with stride 1 (OH = H + 2p - KH + 1).
// Each output row segment is a parallel iteration; its taps are one reduce
// region. Taps that fall into the padding load zeros through masked views
// with negative origins.
inline Kernel conv2d(Conv2dConfig cfg = {}) {
  return tile_kernel("conv2d", [cfg](TensorView<float, 4> X, TensorView<float, 4> W, TensorView<float, 4> Y) {
    Index kh = W.shape(2), kw = W.shape(3);
    for (auto n : parallel(Y.shape(0))) {
      for (auto f : parallel(Y.shape(1))) {
        for (auto y : parallel(Y.shape(2))) {
          for (auto xb : parallel(ceil_div(Y.shape(3), cfg.width))) {
            Tile<float> acc = full<float>({cfg.width}, 0.0f);
            for (auto t : reduce(W.shape(1) * kh * kw)) {
              Index c = t / (kh * kw), ky = t % (kh * kw) / kw, kx = t % kw;
              Tile<float> w = W[{f, c, ky, kx}];
              Tile<float> row = X[{n, c, y + ky - cfg.padding, span(xb * cfg.width + kx - cfg.padding, cfg.width)}];
              acc = acc + w * row;
            }
            Y(n, f, y, span(xb * cfg.width, cfg.width)).store(acc);
          }
        }
      }
    }
  });
}

}  // namespace tack::tile::lib
