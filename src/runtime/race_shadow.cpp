#include "runtime/race_shadow.h"

#include <algorithm>
#include <cstdlib>

#include "runtime/debug_checks.h"

namespace tack::runtime {

// One element's accesses so far: its writer, up to two distinct readers and
// up to two distinct atomic updaters, each a word of (site << 48) |
// (iteration + 1), zero for none. Two of a kind are enough: a later access
// conflicts with the kind if any recorded iteration differs from its own,
// and of two distinct iterations at least one does. An entry whose epoch is
// not the launch's is empty: buffers pass from launch to launch uncleared.
struct RaceShadow::Entry {
    enum Slot { Writer, Reader, Reader2, Updater, Updater2, Slots };
    uint32_t lock;
    uint32_t epoch;
    uint64_t slot[Slots];
};

namespace {

constexpr int kIterationBits = 48;
constexpr uint64_t kIterationMask = (uint64_t{1} << kIterationBits) - 1;

uint64_t iteration_of(uint64_t word) { return word & kIterationMask; }
int32_t site_of(uint64_t word) { return static_cast<int32_t>(word >> kIterationBits); }

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

// Shadow buffers between launches. A fresh buffer costs a page fault per
// 4 KiB the launch touches, which would dominate a short kernel's checked
// launch; a reused one costs nothing up front. At most kKeptBuffers stay.
constexpr size_t kKeptBuffers = 8;
std::mutex pool_mutex;
std::vector<RaceShadow::Buffer> pool;
std::atomic<uint32_t> next_epoch{1};

RaceShadow::Buffer borrow(int64_t scalars) {
    {
        std::lock_guard<std::mutex> hold(pool_mutex);
        // The smallest kept buffer that fits.
        auto best = pool.end();
        for (auto it = pool.begin(); it != pool.end(); ++it)
            if (it->capacity >= scalars && (best == pool.end() || it->capacity < best->capacity)) best = it;
        if (best != pool.end()) {
            RaceShadow::Buffer b = *best;
            pool.erase(best);
            return b;
        }
    }
    auto* entries = static_cast<RaceShadow::Entry*>(std::calloc(static_cast<size_t>(scalars), sizeof(RaceShadow::Entry)));
    return {entries, entries ? scalars : 0};
}

void give_back(RaceShadow::Buffer b) {
    std::lock_guard<std::mutex> hold(pool_mutex);
    pool.push_back(b);
    if (pool.size() <= kKeptBuffers) return;
    auto smallest = std::min_element(pool.begin(), pool.end(),
                                     [](const auto& x, const auto& y) { return x.capacity < y.capacity; });
    std::free(smallest->entries);
    pool.erase(smallest);
}

}  // namespace

RaceShadow::RaceShadow(size_t params) : shadows_(params) {
    epoch_ = next_epoch.fetch_add(1);
    if (epoch_ == 0) epoch_ = next_epoch.fetch_add(1);  // zeroed entries are epoch 0
}

RaceShadow::~RaceShadow() {
    for (auto& b : borrowed_) give_back(b);
}

RaceShadow::Entry* RaceShadow::shadow_for(int32_t array, int64_t scalars) {
    Entry* e = shadows_[array].load(std::memory_order_acquire);
    if (e) return e;
    std::lock_guard<std::mutex> hold(allocating_);
    e = shadows_[array].load(std::memory_order_relaxed);
    if (e || unchecked_.load() == array) return e;
    Buffer b = borrow(scalars);
    if (!b.entries) {
        int32_t none = -1;
        unchecked_.compare_exchange_strong(none, array);
        return nullptr;
    }
    borrowed_.push_back(b);
    shadows_[array].store(b.entries, std::memory_order_release);
    return b.entries;
}

void RaceShadow::conflict(int32_t array, int64_t scalar, uint64_t found, uint64_t self) {
    int32_t expected = 0;
    if (!raced_.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) return;
    report_.array = array;
    report_.element = scalar;
    report_.site[0] = site_of(found);
    report_.iteration[0] = static_cast<int64_t>(iteration_of(found)) - 1;
    report_.site[1] = site_of(self);
    report_.iteration[1] = static_cast<int64_t>(iteration_of(self)) - 1;
    raced_.store(1, std::memory_order_release);
}

void RaceShadow::access(int32_t array, int64_t scalar, int64_t scalars, int64_t iteration, int32_t site,
                        RaceUse use) {
    if (array < 0 || static_cast<size_t>(array) >= shadows_.size() || scalars <= 0) return;
    if (site < 0 || site >= 0xFFFF || iteration < 0 || static_cast<uint64_t>(iteration) >= kIterationMask) return;
    Entry* shadow = shadow_for(array, scalars);
    if (!shadow || scalar < 0 || scalar >= scalars) return;
    Entry& e = shadow[scalar];
    const uint64_t self_iteration = static_cast<uint64_t>(iteration) + 1;
    const uint64_t self = (static_cast<uint64_t>(site) << kIterationBits) | self_iteration;
    EntryLock hold(e.lock);
    if (e.epoch != epoch_) {
        e.epoch = epoch_;
        std::fill(std::begin(e.slot), std::end(e.slot), 0);
    }
    // The first recorded access of another iteration among `slots`.
    auto check = [&](std::initializer_list<int> slots) {
        for (int s : slots)
            if (e.slot[s] != 0 && iteration_of(e.slot[s]) != self_iteration) {
                conflict(array, scalar, e.slot[s], self);
                return;
            }
    };
    auto record = [&](int first, int second) {
        if (iteration_of(e.slot[first]) == self_iteration || iteration_of(e.slot[second]) == self_iteration) return;
        if (e.slot[first] == 0) e.slot[first] = self;
        else if (e.slot[second] == 0) e.slot[second] = self;
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
