// Debug mode's race report: the runtime's first conflict of a launch (two
// access sites and an element) as the message tack.RaceError carries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/debug_access.h"
#include "ir/ir.h"

namespace tack::driver {

// `first` and `second` index `sites` (the earlier recorded access first);
// `scalar` is the element's row-major position times its components plus
// the component, in the array the second access indexes, and `shape` that
// array argument's extents. The two accesses may index different arrays
// that share memory, or elements of one array that share memory
// (`overlaps_itself`: an as_strided view of stride 0).
std::string describe_race(const std::string& kernel, const ir::Kernel& typed,
                          const std::vector<codegen::DebugAccess>& sites, int32_t first, int32_t second,
                          int64_t scalar, const std::vector<int64_t>& shape, bool overlaps_itself = false);

// For an augmented store's source text `a[j] += v`: the atomic call that
// does the same without racing, `tack.atomic_add(a, j, v)`; for `-=`,
// tack.atomic_sub. Empty for any other text.
std::string atomic_rewrite(const std::string& statement);

}  // namespace tack::driver
