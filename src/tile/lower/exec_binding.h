// Pass 2 of lowering TileIR to Tack's kernel IR: bind the launch nest to the
// launch's dimensions.
//
// Execution binding is a layout map. The nest's iteration space is the
// coordinate space of its levels' run-time extents (E_0, ..., E_{L-1}),
// outermost first, each extent a symbol of the layout algebra. A binding
// composes two typed remaps of that space:
//   permute  the launch runs the levels in an order of its own, outermost
//            first (CompileOptions::nest_order; the identity by default),
//            so the innermost launch dimension, the one a backend's SIMD
//            lanes or adjacent threads walk, may be any level;
//   fuse     the launch dimensions, so ordered, become one whose index runs
//            the innermost of them fastest (CompileOptions::fuse_nest).
// Its layout maps a point of the nest to the launch's linear index (the
// innermost launch dimension fastest): permutation(shape, order reversed).
// The lowering uses a binding only when the prover proves that layout a
// bijection onto [0, E_0 * ... * E_{L-1}) for every value of the extents,
// so every iteration of the nest runs exactly once; otherwise it keeps one
// launch dimension per level in the nest's order, and the reason says why.
// Fused, each level's coordinate comes back from the launch index i by the
// layout's stride d_k for that level: (i / d_k) mod E_k.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tack/tile/layout.h"
#include "tile/lower/launch_nest.h"

namespace tack::tile::lower {

struct ExecBinding {
  std::vector<size_t> order;      // the nest's levels, outermost launch dimension first
  bool fused = false;             // one launch dimension for all of them
  std::vector<SymbolId> extents;  // per level, outermost first: its extent's symbol
  std::optional<Layout> layout;   // nest coordinates -> launch index (two levels or more)
  IntTuple size = 1;              // the launch's iteration count
  std::string why;                // the binding and the prover's reason, or why none

  // The stride of level k's coordinate in the launch index.
  const IntTuple& stride(size_t level) const { return layout->stride()[level]; }
};

// The binding of `nest` that `order` (empty: the nest's own) and `fuse`
// ask for, where the nest has two levels or more and the prover proves its
// layout; else one launch dimension per level in order. Throws Error, naming
// `kernel`, when `order` is not a permutation of the nest's levels.
ExecBinding bind_nest(const Kernel& kernel, const LaunchNest& nest, const std::vector<int>& order, bool fuse);

// The binding as a comment line for tools.
std::string describe(const ExecBinding& binding);

}  // namespace tack::tile::lower
