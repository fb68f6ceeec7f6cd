// Debug mode's race detector. A launch's iterations run in no defined
// order, so two iterations that touch one array element, one of them with a
// plain store, race: the result depends on the schedule. The shadow keeps,
// for every element of every checked array, which iterations wrote, read
// and atomically updated it, and at which access (a codegen::DebugAccess
// index, the "site"). Compiled debug code calls tack_rt_race_access after
// each in-bounds access to an array the kernel writes; the first conflict of
// a launch is kept, and the driver raises tack.RaceError after the launch.
//
// Conflicts, between two different iterations: write/write, write/read,
// write/atomic and read/atomic. Reads among themselves and atomics among
// themselves do not conflict. The verdict does not depend on the order the
// iterations ran in: whichever of two conflicting accesses comes second
// finds the first in the shadow.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tack::runtime {

// How an access uses its element; the numbering is the one compiled code
// passes (codegen::DebugAccess::RaceUse).
enum class RaceUse : int32_t { Read = 0, Write = 1, Atomic = 2 };

// The first conflict of a launch: the access found in the shadow, then the
// access that found it, each by its site and flat iteration number.
struct RaceReport {
    int32_t array = -1;       // the parameter
    int64_t element = -1;     // the scalar's row-major position: element * components + component
    int32_t site[2] = {-1, -1};
    int64_t iteration[2] = {-1, -1};
};

class RaceShadow {
public:
    // A launch's shadow; the launches of a process number theirs apart.
    explicit RaceShadow(size_t params);
    ~RaceShadow();
    RaceShadow(const RaceShadow&) = delete;
    RaceShadow& operator=(const RaceShadow&) = delete;

    // `scalars` is the array's size in scalars, the same for every access to
    // one parameter in a launch. Sites from 2^16 - 1 and iterations from
    // 2^48 - 1 on are not recorded.
    void access(int32_t array, int64_t scalar, int64_t scalars, int64_t iteration, int32_t site, RaceUse use);

    bool raced() const { return raced_.load(std::memory_order_acquire) != 0; }
    const RaceReport& report() const { return report_; }
    // The parameter whose shadow could not be allocated (checking stopped
    // for it), or -1.
    int32_t unchecked() const { return unchecked_.load(); }

    struct Entry;
    struct Buffer {
        Entry* entries = nullptr;
        int64_t capacity = 0;
    };

private:
    Entry* shadow_for(int32_t array, int64_t scalars);
    void conflict(int32_t array, int64_t scalar, uint64_t found, uint64_t self);

    uint32_t epoch_;
    std::vector<std::atomic<Entry*>> shadows_;
    std::vector<Buffer> borrowed_;
    std::mutex allocating_;
    std::atomic<int32_t> raced_{0};
    std::atomic<int32_t> unchecked_{-1};
    RaceReport report_;
};

}  // namespace tack::runtime

extern "C" {
// `state` is the launch's runtime::DebugState; `use` a RaceUse.
void tack_rt_race_access(void* state, int32_t array, int64_t scalar, int64_t scalars, int64_t iteration, int32_t site,
                         int32_t use);
}
