// Pass 1 of lowering TileIR to Tack's kernel IR: find the launch nest.
//
// A compiled kernel is one launch over a flat parallel iteration space. The
// kernel body must therefore be pure scalar operations (extents, index
// arithmetic: they become the kernel IR prologue) around exactly one
// `parallel` region. Directly nested `parallel` regions join the launch's
// iteration space (the kernel IR's multi-dimensional parallel loop) while
//   - the inner extent is computed from the prologue alone (pure scalar
//     operations over values defined outside the nest), and
//   - everything else in the outer body writes no memory before the inner
//     region and nothing after it is used or has an effect, so running the
//     outer body's prefix once per inner iteration changes nothing.
// The first level that breaks a condition ends the nest; its inner parallel
// regions lower to sequential loops instead. A kernel whose top level is
// anything else (no parallel region, two of them, memory effects or other
// regions outside them) runs as a launch of one iteration: its whole body in
// order, which every region's semantics allows.
#pragma once

#include <string>
#include <vector>

#include "tack/tile/ir.h"

namespace tack::tile::lower {

struct LaunchNest {
  // Top-level operations other than the nest root, in order (all pure scalars).
  std::vector<const Operation*> prologue;
  // The parallel regions of the launch, outermost first; empty for a launch
  // of one iteration running the whole body.
  std::vector<const Operation*> levels;
};

LaunchNest find_launch_nest(const Kernel& kernel);

// The plan as comment lines for tools: which parallel regions form the
// iteration space, which operations form the prologue.
std::string describe(const Kernel& kernel, const LaunchNest& nest);

// True for an operation that computes a rank-0 value from its operands alone
// (no memory, no region): what may run in the prologue.
bool is_pure_scalar(const Operation& op);

// Whether `op` or an operation inside it stores to a kernel parameter.
bool writes_memory(const Operation& op);

}  // namespace tack::tile::lower
