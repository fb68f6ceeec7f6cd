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

// Whether the kernel has a collective (a barrier or a block reduction), so
// that every lane of each workgroup must take part: its launches need
// complete groups.
bool needs_complete_groups(const ir::Kernel& k);

// What to do instead on a target without workgroups.
inline constexpr const char* kWithoutWorkgroupsHint =
    "workgroup primitives run on GPU backends; on the CPU use local_array and atomics";

// Refuses a kernel with any use on a target without workgroups: an
// UnsupportedError at the first use naming the kernel, the target
// ("the CPU backend") and every primitive the kernel uses, with `hint`.
void require_no_workgroups(const ir::Kernel& k, const std::string& target, const std::string& hint);

}  // namespace tack::analysis
