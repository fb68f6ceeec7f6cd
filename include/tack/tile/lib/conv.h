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
// row is a parallel iteration; its taps are a serial loop in order (c, ky,
// kx), each tap one input row segment times one weight per channel (the row
// loaded once for all of them) accumulated by `mma` with k = 1: every
// output element is acc = fma(W[f, c, ky, kx], X[...], acc) tap after tap
// from acc = 0, the same whatever the block, and the same steps as matmul's
// over conv2d_columns' matrix. Taps that fall into the padding load zeros through
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
            for (auto t : serial(W.shape(1) * kh * kw)) {
              Index c = t / (kh * kw), ky = t % (kh * kw) / kw, kx = t % kw;
              Tile<float> w = W[{span(fb * cfg.filters, cfg.filters), c, ky, kx}];
              Tile<float> row = X[{n, c, y + ky - cfg.padding, span(xb * cfg.width + kx - cfg.padding, cfg.width)}];
              acc = mma(reshape(w, {cfg.filters, 1}), reshape(row, {1, cfg.width}), acc);
            }
            Y(n, span(fb * cfg.filters, cfg.filters), y, span(xb * cfg.width, cfg.width)).store(acc);
          }
        }
      }
    }
  });
}

struct Conv2dColumnsConfig {
  int64_t kh = 3, kw = 3;               // the filters' extents
  int64_t pad_h = 0, pad_w = 0;         // zeros before and after each row and column
  int64_t stride_h = 1, stride_w = 1;   // steps between windows
  int64_t dilation_h = 1, dilation_w = 1;  // steps between a window's taps
  int64_t width = 32;                   // output columns per tile where stride_w is 1
};

// The convolution's input windows as matrices, one per image (im2col):
// Cols[n, (c * KH + ky) * KW + kx, y, x] =
//   X[n, c, y * sh + ky * dh - ph, x * sw + kx * dw - pw],
// zeros in the padding, for Cols: N x (C*KH*KW) x OH x OW. With each image's
// Cols contiguous as a (C*KH*KW) x (OH*OW) matrix B and the filters as
// A = W reshaped to F x (C*KH*KW), matmul(A, B) is the image's output,
// F x (OH*OW), with the bits of conv2d (stride and dilation 1): the same
// products in the same order. Each `width` columns of one row of one window
// are a parallel iteration copying one input row segment; with a column
// stride above 1 the window's columns are not consecutive input elements,
// and each iteration copies one.
inline Kernel conv2d_columns(Conv2dColumnsConfig cfg = {}) {
  return tile_kernel("conv2d_columns", [cfg](TensorView<float, 4> X, TensorView<float, 4> Cols) {
    const int64_t width = cfg.stride_w == 1 ? cfg.width : 1;
    for (auto n : parallel(Cols.shape(0))) {
      for (auto t : parallel(Cols.shape(1))) {
        for (auto y : parallel(Cols.shape(2))) {
          for (auto xb : parallel(ceil_div(Cols.shape(3), width))) {
            Index c = t / (cfg.kh * cfg.kw), ky = t % (cfg.kh * cfg.kw) / cfg.kw, kx = t % cfg.kw;
            Index row = y * cfg.stride_h + ky * cfg.dilation_h - cfg.pad_h;
            Index column = xb * (width * cfg.stride_w) + kx * cfg.dilation_w - cfg.pad_w;
            Tile<float> segment = X[{n, c, row, span(column, width)}];
            Cols(n, t, y, span(xb * width, width)).store(segment);
          }
        }
      }
    }
  });
}

}  // namespace tack::tile::lib
