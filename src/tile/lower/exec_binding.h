// Pass 2 of lowering TileIR to Tack's kernel IR: bind the launch nest to the
// launch's dimensions.
//
// Execution binding is a layout map. The nest's iteration space is the
// coordinate space of its levels' run-time extents (E_0, ..., E_{L-1}),
// outermost first, each extent a symbol of the layout algebra. A binding
// composes three typed remaps of that space, in this order:
//   split    level l by a constant factor f (CompileOptions::nest_split):
//            its mode becomes (f, C_l), C_l = ceil(E_l / f) a symbol of its
//            own, so the level is two parts, outer q in [0, C_l) and inner
//            r in [0, f), and its index is q * f + r. The split space has
//            f * C_l - E_l points past the level, which run nothing (a
//            guard); it is a bijection only where f divides E_l, which a
//            run-time extent never lets the prover see, so the guard is
//            what makes it exact;
//   permute  the launch runs the parts in an order of its own, outermost
//            first (CompileOptions::nest_order; the identity by default),
//            so the innermost launch dimension, the one a backend's SIMD
//            lanes or adjacent threads walk, may be any part;
//   fuse     consecutive dimensions, so ordered, become one whose index
//            runs the innermost of them fastest (CompileOptions::nest_fuse).
// Split and fuse together reshape the nest. Its layout maps a point of the
// split space to the launch's linear index (the innermost part fastest;
// fusing consecutive dimensions keeps that index): each part's stride is
// the product of the extents of the parts the launch runs inside it. The
// lowering uses a binding only when the prover proves that layout a
// bijection onto [0, product of the parts' extents) for every value of the
// extents, so every point runs exactly once and, the guard keeping the
// points inside the nest (f * C_l >= E_l by C_l's definition), every
// iteration of the nest runs exactly once; otherwise it keeps one launch
// dimension per level in the nest's order, and the reason says why. In a
// fused dimension each part's coordinate comes back from its index x by the
// part's stride d within it: (x / d) mod extent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tack/tile/compile.h"
#include "tack/tile/layout.h"
#include "tile/lower/launch_nest.h"

namespace tack::tile::lower {

// One dimension of the split space: a whole level, or the outer or inner
// part of a split one.
struct ExecPart {
  enum class Role { whole, outer, inner };
  size_t level = 0;
  Role role = Role::whole;
  IntTuple extent = 1;  // the level's extent symbol, C_l's symbol, or the factor
};

struct ExecBinding {
  std::vector<SymbolId> extents;  // per level, outermost first: its extent's symbol
  std::vector<int64_t> split;     // per level: its factor (1: whole)
  std::vector<ExecPart> parts;    // in the launch's order, outermost first
  std::vector<size_t> groups;     // the launch's dimensions: counts of consecutive parts
  std::optional<Layout> layout;   // split-space coordinates -> launch index (when proven)
  IntTuple size = 1;              // the launch's iteration count, guarded points included
  std::string why;                // the binding and the prover's reason, or why none

  bool is_split() const;
};

// The binding of `nest` that `options` (nest_split, nest_order, nest_fuse)
// asks for, where the prover proves its layout; else one launch dimension per
// level in order. Throws Error, naming `kernel`, for a split factor below 0
// or one for a level the nest does not have, an order that is not a
// permutation of the split space's parts, and fused counts that do not add
// up to them.
ExecBinding bind_nest(const Kernel& kernel, const LaunchNest& nest, const CompileOptions& options);

// The binding as a comment line for tools.
std::string describe(const ExecBinding& binding);

}  // namespace tack::tile::lower
