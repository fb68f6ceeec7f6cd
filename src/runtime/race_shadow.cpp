#include "runtime/race_shadow.h"

#include <algorithm>
#include <cstdlib>

#include "runtime/array.h"
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

RaceShadow::RaceShadow(size_t params) : params_(params), shadows_(params) {
    epoch_ = next_epoch.fetch_add(1);
    if (epoch_ == 0) epoch_ = next_epoch.fetch_add(1);  // zeroed entries are epoch 0
}

RaceShadow::~RaceShadow() {
    for (auto& b : borrowed_) give_back(b);
}

namespace {

// The bytes [lo, hi) an array's scalars occupy; lo == hi when it has none.
std::pair<uintptr_t, uintptr_t> span_of(const RaceArray& a) {
    int64_t low = 0, high = 0;  // in scalars from data
    for (int d = 0; d < a.ndim; ++d) {
        if (a.shape[d] <= 0) return {0, 0};
        int64_t reach = (a.shape[d] - 1) * a.strides[d];
        (reach < 0 ? low : high) += reach;
    }
    int64_t reach = (a.components - 1) * a.component_stride;
    (reach < 0 ? low : high) += reach;
    auto base = reinterpret_cast<uintptr_t>(a.data);
    return {base + low * a.itemsize, base + (high + 1) * a.itemsize};
}

// Whether two of the array's scalars share memory.
bool overlaps_itself(const RaceArray& a) {
    std::vector<int64_t> extents(a.shape, a.shape + a.ndim), strides(a.strides, a.strides + a.ndim);
    extents.push_back(a.components);
    strides.push_back(a.component_stride);
    return may_overlap_itself(extents, strides);
}

// The address of the scalar at row-major position `scalar`, as compiled
// code computes it.
uintptr_t address_of(const RaceArray& a, int64_t scalar) {
    int64_t element = scalar / a.components;
    int64_t offset = (scalar % a.components) * a.component_stride;
    for (int d = a.ndim - 1; d >= 0; --d) {
        int64_t extent = a.shape[d] > 0 ? a.shape[d] : 1;
        offset += (d == 0 ? element : element % extent) * a.strides[d];
        element /= extent;
    }
    return reinterpret_cast<uintptr_t>(a.data) + offset * a.itemsize;
}

}  // namespace

void RaceShadow::share_overlapping(const std::vector<RaceArray>& arrays) {
    arrays_ = arrays;
    arrays_.resize(params_);
    group_of_.assign(params_, -1);
    // Connected runs of overlapping spans, in address order.
    struct Span {
        uintptr_t lo, hi;
        size_t param;
    };
    std::vector<Span> spans;
    for (size_t p = 0; p < params_; ++p) {
        if (!arrays_[p].data) continue;
        auto [lo, hi] = span_of(arrays_[p]);
        if (lo < hi) spans.push_back({lo, hi, p});
        if (!arrays_[p].written) group_of_[p] = -2;
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
    for (size_t first = 0; first < spans.size();) {
        size_t end = first + 1;
        uintptr_t hi = spans[first].hi;
        bool written = arrays_[spans[first].param].written;
        int granule = arrays_[spans[first].param].itemsize;
        for (; end < spans.size() && spans[end].lo < hi; ++end) {
            hi = std::max(hi, spans[end].hi);
            written = written || arrays_[spans[end].param].written;
            granule = std::min(granule, arrays_[spans[end].param].itemsize);
        }
        // One written array alone is checked by address too where two of
        // its elements share memory (an as_strided view of stride 0).
        if (written && (end - first > 1 || overlaps_itself(arrays_[spans[first].param]))) {
            for (size_t k = first; k < end; ++k) group_of_[spans[k].param] = static_cast<int32_t>(groups_.size());
            groups_.push_back({spans[first].lo, hi, granule});
        }
        first = end;
    }
    shadows_ = std::vector<std::atomic<Entry*>>(params_ + groups_.size());
}

RaceShadow::Entry* RaceShadow::shadow_for(int32_t slot, int64_t entries) {
    Entry* e = shadows_[slot].load(std::memory_order_acquire);
    if (e) return e;
    std::lock_guard<std::mutex> hold(allocating_);
    e = shadows_[slot].load(std::memory_order_relaxed);
    if (e || unchecked_.load() >= 0) return e;
    Buffer b = borrow(entries);
    if (!b.entries) {
        // Report a parameter: the slot's own, or the first of its group.
        int32_t param = slot;
        for (size_t p = 0; p < group_of_.size() && static_cast<size_t>(slot) >= params_; ++p)
            if (group_of_[p] == slot - static_cast<int32_t>(params_)) {
                param = static_cast<int32_t>(p);
                break;
            }
        int32_t none = -1;
        unchecked_.compare_exchange_strong(none, param);
        return nullptr;
    }
    borrowed_.push_back(b);
    shadows_[slot].store(b.entries, std::memory_order_release);
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
    if (array < 0 || static_cast<size_t>(array) >= params_ || scalars <= 0) return;
    if (site < 0 || site >= 0xFFFF || iteration < 0 || static_cast<uint64_t>(iteration) >= kIterationMask) return;
    if (scalar < 0 || scalar >= scalars) return;
    const int32_t group = group_of_.empty() ? -1 : group_of_[array];
    if (group == -2) return;  // read-only, and no written array shares its memory
    const uint64_t self = (static_cast<uint64_t>(site) << kIterationBits) | (static_cast<uint64_t>(iteration) + 1);
    if (group < 0) {
        Entry* shadow = shadow_for(array, scalars);
        if (shadow) record(shadow[scalar], array, scalar, self, use);
        return;
    }
    // By address: the granules the scalar covers (one, unless views of
    // different dtypes share the memory).
    const Group& g = groups_[group];
    const RaceArray& a = arrays_[array];
    Entry* shadow = shadow_for(static_cast<int32_t>(params_) + group,
                               static_cast<int64_t>((g.hi - g.lo + g.granule - 1) / g.granule));
    if (!shadow) return;
    uintptr_t at = address_of(a, scalar) - g.lo;
    for (uintptr_t k = at / g.granule; k <= (at + a.itemsize - 1) / g.granule; ++k)
        record(shadow[k], array, scalar, self, use);
}

void RaceShadow::record(Entry& e, int32_t array, int64_t scalar, uint64_t self, RaceUse use) {
    const uint64_t self_iteration = iteration_of(self);
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
    auto keep = [&](int first, int second) {
        if (iteration_of(e.slot[first]) == self_iteration || iteration_of(e.slot[second]) == self_iteration) return;
        if (e.slot[first] == 0) e.slot[first] = self;
        else if (e.slot[second] == 0) e.slot[second] = self;
    };
    using S = Entry::Slot;
    switch (use) {
        case RaceUse::Read:
            check({S::Writer, S::Updater, S::Updater2});
            keep(S::Reader, S::Reader2);
            break;
        case RaceUse::Write:
            check({S::Writer, S::Reader, S::Reader2, S::Updater, S::Updater2});
            keep(S::Writer, S::Writer);
            break;
        case RaceUse::Atomic:
            check({S::Writer, S::Reader, S::Reader2});
            keep(S::Updater, S::Updater2);
            break;
    }
}

}  // namespace tack::runtime

extern "C" void tack_rt_race_access(void* state, int32_t array, int64_t scalar, int64_t scalars, int64_t iteration,
                                    int32_t site, int32_t use) {
    auto* s = static_cast<tack::runtime::DebugState*>(state);
    if (s->races) s->races->access(array, scalar, scalars, iteration, site, static_cast<tack::runtime::RaceUse>(use));
}
