// Tiled copy between f32 matrices of any strides.
#pragma once

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

// Out[i, j] = In[i, j] over Out's extent, in rows x cols tiles; positions
// outside In read zeros.
inline Kernel copy(int64_t rows = 8, int64_t cols = 32) {
  return tile_kernel("copy", [rows, cols](TensorView<float, 2> In, TensorView<float, 2> Out) {
    for (auto bi : parallel(ceil_div(Out.shape(0), rows), exec::block))
      for (auto bj : parallel(ceil_div(Out.shape(1), cols), exec::block))
        Out(span(bi * rows, rows), span(bj * cols, cols)).store(In[{span(bi * rows, rows), span(bj * cols, cols)}]);
  });
}

}  // namespace tack::tile::lib
