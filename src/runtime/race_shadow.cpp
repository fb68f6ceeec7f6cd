#include "runtime/race_shadow.h"

#include <cstdlib>

#include "runtime/debug_checks.h"

namespace tack::runtime {

// One element's accesses so far: its writer, up to two distinct readers and
// up to two distinct atomic updaters. Two of a kind are enough: a later
// access conflicts with the kind if any recorded iteration differs from its
// own, and of two distinct iterations at least one does. Iterations are kept
// plus one, so that zeroed memory means "none".
struct RaceShadow::Entry {
    enum Slot { Writer, Reader, Reader2, Updater, Updater2, Slots };
    uint32_t lock;
    int32_t site[Slots];
    int64_t iteration[Slots];
};

namespace {

struct EntryLock {
    explicit EntryLock(uint32_t& word) : lock(word) {
        while (lock.exchange(1, std::memory_order_acquire)) {
            while (lock.load(std::memory_order_relaxed)) {
            }
        }
    }
    ~EntryLock() { lock.store(0, std::memory_order_release); }
    std::atomic_ref<uint32_t> lock;
};

}  // namespace

RaceShadow::RaceShadow(size_t params) : shadows_(params) {}

RaceShadow::~RaceShadow() {
    for (auto& s : shadows_) std::free(s.load());
}

// Allocated at an array's first checked access: calloc's zero pages cost
// only where the launch touches them.
RaceShadow::Entry* RaceShadow::shadow_for(int32_t array, int64_t scalars) {
    Entry* e = shadows_[array].load(std::memory_order_acquire);
    if (e) return e;
    std::lock_guard<std::mutex> hold(allocating_);
    e = shadows_[array].load(std::memory_order_relaxed);
    if (e || unchecked_.load() == array) return e;
    e = static_cast<Entry*>(std::calloc(static_cast<size_t>(scalars), sizeof(Entry)));
    if (!e) {
        int32_t none = -1;
        unchecked_.compare_exchange_strong(none, array);
        return nullptr;
    }
    shadows_[array].store(e, std::memory_order_release);
    return e;
}

void RaceShadow::conflict(int32_t array, int64_t scalar, int32_t site, int64_t iteration, int32_t other_site,
                          int64_t other_iteration) {
    int32_t expected = 0;
    if (!raced_.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) return;
    report_.array = array;
    report_.element = scalar;
    report_.site[0] = other_site;
    report_.iteration[0] = other_iteration - 1;
    report_.site[1] = site;
    report_.iteration[1] = iteration - 1;
    raced_.store(1, std::memory_order_release);
}

void RaceShadow::access(int32_t array, int64_t scalar, int64_t scalars, int64_t iteration, int32_t site,
                        RaceUse use) {
    if (array < 0 || static_cast<size_t>(array) >= shadows_.size() || scalars <= 0) return;
    Entry* shadow = shadow_for(array, scalars);
    if (!shadow || scalar < 0 || scalar >= scalars) return;
    Entry& e = shadow[scalar];
    const int64_t self = iteration + 1;
    EntryLock hold(e.lock);
    // The first recorded access of another iteration among `slots`.
    auto check = [&](std::initializer_list<int> slots) {
        for (int s : slots)
            if (e.iteration[s] != 0 && e.iteration[s] != self) {
                conflict(array, scalar, site, self, e.site[s], e.iteration[s]);
                return;
            }
    };
    auto record = [&](int first, int second) {
        if (e.iteration[first] == self || e.iteration[second] == self) return;
        int s = e.iteration[first] == 0 ? first : e.iteration[second] == 0 ? second : -1;
        if (s < 0) return;
        e.iteration[s] = self;
        e.site[s] = site;
    };
    using S = Entry::Slot;
    switch (use) {
        case RaceUse::Read:
            check({S::Writer, S::Updater, S::Updater2});
            record(S::Reader, S::Reader2);
            break;
        case RaceUse::Write:
            check({S::Writer, S::Reader, S::Reader2, S::Updater, S::Updater2});
            record(S::Writer, S::Writer);
            break;
        case RaceUse::Atomic:
            check({S::Writer, S::Reader, S::Reader2});
            record(S::Updater, S::Updater2);
            break;
    }
}

}  // namespace tack::runtime

extern "C" void tack_rt_race_access(void* state, int32_t array, int64_t scalar, int64_t scalars, int64_t iteration,
                                    int32_t site, int32_t use) {
    auto* s = static_cast<tack::runtime::DebugState*>(state);
    if (s->races) s->races->access(array, scalar, scalars, iteration, site, static_cast<tack::runtime::RaceUse>(use));
}
