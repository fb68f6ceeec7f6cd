// Prefix sums along rows of an f32 matrix.
#pragma once

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

enum class ScanKind { inclusive, exclusive };

// Y[r, c] = X[r, 0] + ... + X[r, c] (inclusive) or + X[r, c - 1] (exclusive,
// 0 for c = 0), added left to right: the running total is a value carried
// through a serial region.
inline Kernel scan(ScanKind kind) {
  return tile_kernel(kind == ScanKind::inclusive ? "inclusive_scan" : "exclusive_scan",
                     [kind](TensorView<float, 2> X, TensorView<float, 2> Y) {
                       for (auto r : parallel(X.shape(0), exec::block)) {
                         Tile<float> total = 0.0f;
                         for (auto c : serial(X.shape(1))) {
                           Tile<float> x = X[{r, c}];
                           if (kind == ScanKind::exclusive) Y(r, c).store(total);
                           total = total + x;
                           if (kind == ScanKind::inclusive) Y(r, c).store(total);
                         }
                       }
                     });
}

}  // namespace tack::tile::lib
