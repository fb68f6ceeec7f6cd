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
//
// Each written array has a shadow of its own, by scalar position, unless
// its memory overlaps another array argument's (two views of one buffer,
// the same array passed twice): then the overlapping arrays share one
// shadow, by address, so that a write through one view and a read or write
// of the same bytes through another conflict as accesses through one
// array do.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tack::runtime {

// How an access uses its element; the numbering is the one compiled code
// passes (codegen::DebugAccess::RaceUse).
enum class RaceUse : int32_t { Read = 0, Write = 1, Atomic = 2 };

// An array argument as the detector sees its memory: the pointer compiled
// code indexes, extents and strides (in scalars), and its elements.
struct RaceArray {
    const char* data = nullptr;  // null: the parameter is not an array
    int itemsize = 0;
    int ndim = 0;
    const int64_t* shape = nullptr;
    const int64_t* strides = nullptr;
    int64_t component_stride = 1;
    int components = 1;
    bool written = false;  // the kernel may store to it or update it atomically
};

// The first conflict of a launch: the access found in the shadow, then the
// access that found it, each by its site and flat iteration number.
struct RaceReport {
    int32_t array = -1;       // the parameter of the access that found the conflict
    int64_t element = -1;     // its scalar's row-major position: element * components + component
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

    // The launch's array arguments, by parameter (before any access): arrays
    // whose bytes overlap a written array's are checked in a shadow they
    // share; a read-only array that overlaps no written one is not checked.
    // Without this call every reported array has a shadow of its own.
    void share_overlapping(const std::vector<RaceArray>& arrays);

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
    // Arrays whose memory overlaps: one shadow over [lo, hi), an entry per
    // `granule` bytes (the smallest scalar among them).
    struct Group {
        uintptr_t lo = 0, hi = 0;
        int granule = 1;
    };

    // The shadow in `slot` (a parameter, or params + a group) of `entries`.
    Entry* shadow_for(int32_t slot, int64_t entries);
    void record(Entry& e, int32_t array, int64_t scalar, uint64_t self, RaceUse use);
    void conflict(int32_t array, int64_t scalar, uint64_t found, uint64_t self);

    uint32_t epoch_;
    size_t params_;
    std::vector<std::atomic<Entry*>> shadows_;  // by parameter, then by group
    std::vector<RaceArray> arrays_;             // after share_overlapping
    std::vector<int32_t> group_of_;             // by parameter: a group, -1 alone, -2 not checked
    std::vector<Group> groups_;
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
