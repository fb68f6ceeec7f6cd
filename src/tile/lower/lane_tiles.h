// Lowering in workgroups: the tiles each lane can hold in its registers.
//
// In workgroups a tile's element e belongs to lane e % lanes: every loop
// over a tile's elements runs it there (emitter.h). A tile that every
// operation writes and reads element by element, each element at its own
// position (elementwise operations, casts, selects, loads and stores of its
// own shape), is never touched by another lane. It needs neither shared
// memory nor a barrier: each lane keeps its ceil(elements / lanes) elements
// in registers. Any other access keeps a tile in shared memory: a
// broadcast, reshape, extract, mma or reduce reading it, a yield or seed
// carrying it, or a region whose lanes run apart (bound to exec::thread)
// reading it. One exception: a reduce the lanes merge as a tree
// (emit_reduce.cpp) whose contribution k is element k of a tile of as
// many elements as its domain computes that contribution on lane k, the
// element's own, so `extract` there reads by element too.
#pragma once

#include <unordered_set>

#include "tack/tile/ir.h"

namespace tack::tile::lower {

// The tiles of `kernel` that groups of `lanes` lanes keep in registers.
std::unordered_set<const Value*> lane_tiles(const Kernel& kernel, int64_t lanes);

// Whether every state of reduce `op` is a scalar.
bool scalar_states(const Operation& op);

// Whether reduce `op` has scalar states, and a body and combiners of
// scalar operations that write no memory: code a lane can run on one
// contribution, and that can be emitted once per contribution.
bool scalar_code(const Operation& op);

// Whether the lanes can merge reduce `op` as the ordered tree, the shared
// budget aside: a tree policy, a constant domain of 2 or more
// contributions, scalar states, and a body and combiners of scalar
// operations that write no memory; 0 if not, else the domain's extent.
int64_t tree_over_lanes(const Operation& op);

// Whether `op` is one loop over its result's elements writing element i at
// i: elementwise operations, select, cast, iota, broadcast, reshape,
// extract, load.
bool writes_by_element(const Operation& op);

}  // namespace tack::tile::lower
