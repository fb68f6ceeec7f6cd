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
// reading it.
#pragma once

#include <unordered_set>

#include "tack/tile/ir.h"

namespace tack::tile::lower {

std::unordered_set<const Value*> lane_tiles(const Kernel& kernel);

// Whether `op` is one loop over its result's elements writing element i at
// i: elementwise operations, select, cast, iota, broadcast, reshape,
// extract, load.
bool writes_by_element(const Operation& op);

}  // namespace tack::tile::lower
