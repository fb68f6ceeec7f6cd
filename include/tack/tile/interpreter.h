// The TileIR interpreter: the correctness oracle for every planner, lowering
// and autotuned candidate. It executes a kernel on host memory, one operation
// at a time, with the element arithmetic of the IR's types (f32 results are
// rounded to f32 after every operation) and the reduction order each reduce
// region's policy allows:
//   left_fold / right_fold  exactly the serial order;
//   ordered_tree            a balanced pairwise tree over the domain order,
//                           the same for every RunOptions;
//   unordered_tree          contributions shuffled by `seed` (when nonzero),
//                           cut into `threads` contiguous runs, each folded,
//                           and the partial results merged as a tree
//                           (with `scalar_trees`, a reduction of scalar
//                           states is the ordered tree's grouping).
// The seed, when one is given, merges last: seed (+) (tree of contributions),
// so a nonidentity seed counts exactly once.
//
// Iterations of `parallel` run in order; a kernel whose result depends on
// that order breaks parallel's noninterference promise.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tack/tile/ir.h"

namespace tack::tile {

// A non-owning affine view of host memory: element (i0, i1, ...) lives at
// data[offset + i0 * strides[0] + i1 * strides[1] + ...], counted in elements.
// bool elements are stored one per byte.
struct HostTensor {
  void* data = nullptr;
  Scalar elem = Scalar::f32;
  Shape shape;
  std::array<int64_t, kMaxRank> strides{};
  int64_t offset = 0;
};

// A row-major view of `data` (contiguous unless `strides` are given).
template <class T>
HostTensor host_tensor(T* data, Shape shape, std::vector<int64_t> strides = {}, int64_t offset = 0) {
  HostTensor t{const_cast<std::remove_const_t<T>*>(data), scalar_of<std::remove_const_t<T>>(), shape, {}, offset};
  int64_t step = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    t.strides[size_t(i)] = strides.empty() ? step : strides[size_t(i)];
    step *= shape[i];
  }
  return t;
}

struct RunOptions {
  unsigned threads = 1;  // runs an unordered_tree is cut into
  uint64_t seed = 0;     // nonzero: shuffle unordered_tree contributions
  // An unordered_tree whose states are all scalars merges as the ordered
  // tree (one run per contribution): the grouping of compiled kernels in
  // workgroups, whose lanes merge such reductions pairwise.
  bool scalar_trees = false;
};

// Runs `kernel` with `args` bound to its parameters in order. Throws Error
// when an argument does not match its parameter or the kernel faults
// (an integer division by zero, an extract outside its tile).
void interpret(const Kernel& kernel, const std::vector<HostTensor>& args, const RunOptions& options = {});

}  // namespace tack::tile
