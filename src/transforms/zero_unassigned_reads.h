// Gives each local that the parallel body may read before the iteration
// has assigned it the value zero of its type at the top of every
// iteration.
//
// The front end refuses a read that no assignment can reach (CPython would
// raise UnboundLocalError whenever it ran). A read that an assignment
// reaches on some paths only -- one under a branch, or one carried around
// a sequential loop from an earlier trip -- is allowed, and on the paths
// where nothing was assigned it would otherwise see what an earlier
// iteration left in the local on the CPU (which runs a chunk's iterations
// in one frame) and zero on a GPU. With this pass it sees zero on every
// backend, and each iteration owns its locals. Runs after types.
#pragma once

#include "ir/ir.h"

namespace tack::transforms {

void zero_unassigned_reads(ir::Kernel& typed);

}  // namespace tack::transforms
