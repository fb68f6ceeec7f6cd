// Gives every parallel iteration its own copy of each value bound outside
// the loop that the loop body reassigns (scalar parameters included, LC6).
//
// Statements outside the parallel loop run once per chunk on the CPU and
// once per thread on a GPU, so an iteration that reassigns such a local must
// not change what another iteration sees. The body's uses are renamed to a
// fresh local seeded from the outer value at the top of each iteration.
// Runs after lowering, before types.
#pragma once

#include "ir/ir.h"

namespace tack::transforms {

void localize_iteration_state(ir::Kernel& k);

}  // namespace tack::transforms
