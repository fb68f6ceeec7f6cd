// Debug mode's bounds reports. Compiled kernels call tack_rt_bounds_failure
// for an out-of-range access; the first report of a launch is kept and the
// call raises IndexError afterwards. The race detector's shadow
// (runtime/race_shadow.h) hangs off the same state.
#pragma once

#include <atomic>
#include <cstdint>

namespace tack::runtime {

class RaceShadow;

struct DebugState {
    std::atomic<int32_t> failed{0};
    int32_t access = -1;   // which checked access (codegen::DebugAccess index)
    int64_t values[16] = {};  // the indices, then the extents from slot 8
    RaceShadow* races = nullptr;  // debug launches of race-checking code
};

}  // namespace tack::runtime

extern "C" {
void tack_rt_bounds_failure(void* state, int32_t access, const int64_t* values);
}
