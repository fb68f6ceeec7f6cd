#include "runtime/debug_checks.h"

#include <cstring>

extern "C" void tack_rt_bounds_failure(void* state, int32_t access, const int64_t* values) {
    auto* s = static_cast<tack::runtime::DebugState*>(state);
    int32_t expected = 0;
    if (s->failed.compare_exchange_strong(expected, 1)) {
        s->access = access;
        std::memcpy(s->values, values, sizeof s->values);
    }
}
