// Where a kernel uses workgroup primitives: tack.shared arrays, barrier,
// thread_id and the block reductions. The driver refuses such a kernel on
// a backend without workgroups before compiling it, wherever the primitive
// is (nested branches and inlined device functions included, reachable or
// not).
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace tack::analysis {

struct WorkgroupUse {
    std::string primitive;  // "barrier", "thread_id", "block_sum", "shared", ...
    ir::Span span;
};

// Every use, in source order.
std::vector<WorkgroupUse> workgroup_uses(const ir::Kernel& k);

}  // namespace tack::analysis
