// 2-D convolution over f32 tensors.
#pragma once

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

struct Conv2dConfig {
  int64_t padding = 0;  // zeros added on every side of H and W
  int64_t width = 32;   // output columns per tile
  int64_t filters = 1;  // output channels per tile, sharing each loaded input row
};

// Y[n, f, y, x] = sum over c, ky, kx of X[n, c, y + ky - p, x + kx - p] * W[f, c, ky, kx]
// for X: NxCxHxW, W: FxCxKHxKW, Y: NxFxOHxOW with stride 1 (OH = H + 2p - KH + 1).
// Each block of `filters` output channels by `width` columns of one output
// row is a parallel iteration; its taps are one reduce region, each tap one
// input row segment times one weight per channel (the row loaded once for
// all of them), added in tap order: each output element's sum is the same
// whatever the block. Taps that fall into the padding load zeros through
// masked views with negative origins; channels past F load zero weights and
// store nothing.
inline Kernel conv2d(Conv2dConfig cfg = {}) {
  return tile_kernel("conv2d", [cfg](TensorView<float, 4> X, TensorView<float, 4> W, TensorView<float, 4> Y) {
    Index kh = W.shape(2), kw = W.shape(3);
    for (auto n : parallel(Y.shape(0))) {
      for (auto fb : parallel(ceil_div(Y.shape(1), cfg.filters))) {
        for (auto y : parallel(Y.shape(2))) {
          for (auto xb : parallel(ceil_div(Y.shape(3), cfg.width))) {
            Tile<float> acc = full<float>({cfg.filters, cfg.width}, 0.0f);
            for (auto t : reduce(W.shape(1) * kh * kw)) {
              Index c = t / (kh * kw), ky = t % (kh * kw) / kw, kx = t % kw;
              Tile<float> w = W[{span(fb * cfg.filters, cfg.filters), c, ky, kx}];
              Tile<float> row = X[{n, c, y + ky - cfg.padding, span(xb * cfg.width + kx - cfg.padding, cfg.width)}];
              acc = acc + reshape(w, {cfg.filters, 1}) * reshape(row, {1, cfg.width});
            }
            Y(n, span(fb * cfg.filters, cfg.filters), y, span(xb * cfg.width, cfg.width)).store(acc);
          }
        }
      }
    }
  });
}

}  // namespace tack::tile::lib
