// Which array parameters a kernel may write, and which of them are targets
// of atomic updates.
//
// Dispatch checks each call against the answer beyond the variant key: a
// written parameter bound to a read-only array is refused, an atomic target
// whose data is not aligned to its elements is refused, and only written
// arrays decide whether a call may take the disjoint-storage variant. Every
// ir::Store and ir::Atomic to an array parameter counts, wherever it stands
// in the prologue, the body or the epilogue; local arrays are not parameters.
//
// Runs after lowering. On a template the written parameters are already
// right (a first call's disjointness is decided there, without compiling);
// the atomic targets' element sizes read the parameter dtypes, which only a
// typed variant has.
#pragma once

#include <utility>
#include <vector>

#include "ir/ir.h"

namespace tack::analysis {

struct Effects {
    std::vector<int> written;                         // array parameters stored to or updated atomically, ascending
    std::vector<std::pair<int, int>> atomic_targets;  // parameter, element size in bytes, ascending
};

Effects effects_of(const ir::Kernel& k);

// Whether the statements before the parallel loop or its range bounds touch
// array memory: load an array or texture element (local arrays excepted),
// update one atomically, or print. When false they read only scalars and
// extents, so a launch's count can be computed without the arrays' data:
// beside queued work, or on the host.
bool count_reads_memory(const ir::Kernel& k);

}  // namespace tack::analysis
