// Row gather and scatter over f32 matrices with int64 row indices.
#pragma once

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

// Out[i, :] = Src[Idx[i], :]. A row index outside Src reads zeros.
inline Kernel gather_rows(int64_t width = 32) {
  return tile_kernel("gather_rows", [width](TensorView<float, 2> Src, TensorView<int64_t, 1> Idx, TensorView<float, 2> Out) {
    for (auto i : parallel(Out.shape(0), exec::block)) {
      Index from = Idx[{i}];
      for (auto b : parallel(ceil_div(Out.shape(1), width)))
        Out(i, span(b * width, width)).store(Src[{from, span(b * width, width)}]);
    }
  });
}

// Out[Idx[i], :] = Src[i, :]. Indices must be distinct (parallel iterations
// may not write the same element); an index outside Out writes nothing.
inline Kernel scatter_rows(int64_t width = 32) {
  return tile_kernel("scatter_rows", [width](TensorView<float, 2> Src, TensorView<int64_t, 1> Idx, TensorView<float, 2> Out) {
    for (auto i : parallel(Src.shape(0), exec::block)) {
      Index to = Idx[{i}];
      for (auto b : parallel(ceil_div(Src.shape(1), width)))
        Out(to, span(b * width, width)).store(Src[{i, span(b * width, width)}]);
    }
  });
}

}  // namespace tack::tile::lib
