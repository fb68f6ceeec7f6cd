// What every backend's compiled code and the driver agree on, whatever the
// target: the most dimensions an array has, and how a kernel's count entry
// explains a launch it refuses.
#pragma once

#include <cstdint>

namespace tack::codegen {

inline constexpr int kMaxDims = 8;

// Why a launch is refused: by count(), a parallel range whose step is not
// positive, or more iterations than the 64-bit flat index counts; by a
// backend with workgroups, a count that leaves a workgroup incomplete in a
// kernel with barriers or block reductions, or a device whose groups cannot
// hold the lanes the kernel was generated for. Every field is 64 bits wide,
// so generated code addresses them as words.
struct LaunchRefusal {
    enum Reason : int64_t { None = 0, StepNotPositive = 1, TooManyIterations = 2, PartialGroup = 3, GroupTooLarge = 4 };
    int64_t reason = None;
    int64_t dim = 0;                // StepNotPositive: the dimension, and its step
    int64_t step = 0;
    int64_t ndims = 0;              // TooManyIterations: each dimension's trip count,
    uint64_t counts[kMaxDims][2]{};  // low and high 64 bits; a CPU launch that
                                     // runs (reason None): each count's low bits
    // PartialGroup: the launch's count in counts[0][0] (ndims 1) and the
    // group size in `step`. GroupTooLarge: the group size in `step` and the
    // device's largest group in counts[0][0].
};
static_assert(sizeof(LaunchRefusal) == (4 + 2 * kMaxDims) * sizeof(int64_t));

// A kernel whose launches need complete workgroups of `group` lanes: true,
// with the PartialGroup refusal in *r, when a positive `count` leaves the
// last group incomplete.
inline bool refuse_partial_group(int64_t count, int64_t group, LaunchRefusal* r) {
    if (count <= 0 || count % group == 0) return false;
    *r = LaunchRefusal{};
    r->reason = LaunchRefusal::PartialGroup;
    r->step = group;
    r->ndims = 1;
    r->counts[0][0] = static_cast<uint64_t>(count);
    return true;
}

}  // namespace tack::codegen
