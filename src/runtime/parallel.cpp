#include "runtime/parallel.h"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

// oneTBB rather than OpenMP: the calling thread takes chunks itself, so a
// launch never waits at a barrier for a worker that the OS has not
// scheduled. On shared, busy cores an OpenMP launch measured 11-24 ms where
// oneTBB stayed near 8 us (bench/run.py --parallel-runtime).
//
// Chunks are claimed from a shared cursor and sized by how long they take:
// a chunk under 1 ms doubles the next ones, one over 16 ms halves them. Uneven
// iterations (Mandelbrot rows) balance, and a long launch stays divided
// into chunks of milliseconds, between which the calling thread can notice
// an interrupt.
//
// Chunks are whole quanta (the SPMD body's group of lanes). A launch of
// several dimensions whose innermost rows are not whole groups has its
// chunks cut from the rows padded to whole groups: counted over the bare
// iterations, a chunk of 16 could start two lanes before a row's end and
// run both rows' pieces one iteration at a time.

namespace tack::runtime {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kGrowBelow = std::chrono::milliseconds(1);
constexpr auto kShrinkAbove = std::chrono::milliseconds(16);
constexpr auto kPollEvery = std::chrono::milliseconds(10);

struct Launch {
    int64_t n;  // the chunks' space: the iterations, or the padded rows'
    ChunkFn fn;
    void* ctx;
    int64_t max_grain;
    int64_t quantum;  // every grain is a multiple of it
    // Where rows are padded: a row's iterations and its padded length (a
    // multiple of quantum); 0: no padding, the chunks are iterations.
    int64_t row = 0, padded_row = 0;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> grain;
    std::atomic<bool> stopped{false};
    std::atomic<int> threads{0};  // that ran a chunk
};

// Claims and runs chunks until none is left or the launch is stopped; the
// calling thread (`stop` set) also polls for an interrupt.
void work(Launch& l, const StopCheck* stop) {
    auto last_poll = Clock::now();
    bool counted = false;
    for (;;) {
        if (l.stopped.load(std::memory_order_relaxed)) return;
        int64_t g = l.grain.load(std::memory_order_relaxed);
        int64_t begin = l.next.load(std::memory_order_relaxed), end;
        do {
            if (begin >= l.n) return;
            end = begin + std::min(g, l.n - begin);
        } while (!l.next.compare_exchange_weak(begin, end, std::memory_order_relaxed));
        if (!counted) {
            counted = true;
            l.threads.fetch_add(1, std::memory_order_relaxed);
        }
        auto t0 = Clock::now();
        if (l.padded_row) {
            // The padded rows' [begin, end) as iterations: a position's row,
            // and its offset in the row where it is not in the padding.
            auto iteration = [&](int64_t p) { return p / l.padded_row * l.row + std::min(p % l.padded_row, l.row); };
            const int64_t first = iteration(begin), last = iteration(end);
            if (first < last) l.fn(l.ctx, first, last);
        } else {
            l.fn(l.ctx, begin, end);
        }
        auto t1 = Clock::now();
        if (t1 - t0 < kGrowBelow && g < l.max_grain)
            l.grain.compare_exchange_weak(g, std::min(g * 2, l.max_grain), std::memory_order_relaxed);
        else if (t1 - t0 > kShrinkAbove && g > l.quantum)
            l.grain.compare_exchange_weak(g, std::max(l.quantum, g / 2 / l.quantum * l.quantum),
                                          std::memory_order_relaxed);
        if (stop && t1 - last_poll >= kPollEvery) {
            last_poll = t1;
            if (stop->poll(stop->ctx)) {
                l.stopped.store(true, std::memory_order_relaxed);
                return;
            }
        }
    }
}

int default_workers() {
    static int n = tbb::this_task_arena::max_concurrency();
    return n;
}

// A thread count other than the cores': an arena of that many slots, and,
// when it exceeds the cores, permission for oneTBB to start the extra
// workers (its default stops at the core count).
struct Pool {
    explicit Pool(int n)
        : allow(n > default_workers()
                    ? std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, n)
                    : nullptr),
          arena(n) {}
    std::unique_ptr<tbb::global_control> allow;
    tbb::task_arena arena;
};

std::mutex pool_mutex;
std::shared_ptr<Pool> pool;  // null: the default arena, every core
std::atomic<int> workers{0};  // 0: default_workers()
std::atomic<int> last_threads{0};

}  // namespace

int worker_count() {
    int n = workers.load(std::memory_order_relaxed);
    return n ? n : default_workers();
}

void set_worker_count(int n) {
    if (n < 1) throw std::invalid_argument("the thread count must be at least 1, not " + std::to_string(n));
    default_workers();  // measured before any global_control changes it
    std::lock_guard<std::mutex> lock(pool_mutex);
    pool = n == default_workers() ? nullptr : std::make_shared<Pool>(n);
    workers.store(n, std::memory_order_relaxed);
}

int last_launch_threads() { return last_threads.load(std::memory_order_relaxed); }

bool parallel_for(int64_t n, ChunkFn fn, void* ctx, const StopCheck* stop, int64_t quantum, int64_t row) {
    if (n <= 0) return true;
    // A handful of iterations runs as one chunk on the calling thread:
    // handing them to a worker costs a wake-up, and on busy shared cores a
    // scheduling quantum.
    constexpr int64_t kInlineBelow = 64;
    if (n < kInlineBelow) {
        fn(ctx, 0, n);
        return true;
    }
    std::shared_ptr<Pool> own;
    int threads;
    {
        std::lock_guard<std::mutex> lock(pool_mutex);
        own = pool;
        threads = worker_count();
    }
    Launch l;
    l.n = n;
    l.fn = fn;
    l.ctx = ctx;
    // (Every count below 2^63: rows within a quantum of it, and padded rows
    // that would pass it, keep the bare iterations.)
    const bool pad = quantum > 1 && row > quantum && row % quantum != 0 && row <= INT64_MAX - quantum && n % row == 0;
    const int64_t padded_row = pad ? (row / quantum + 1) * quantum : 0;
    if (pad && n / row <= INT64_MAX / padded_row) {
        l.row = row;
        l.padded_row = padded_row;
        l.n = n / row * padded_row;
    }
    // At least four chunks per worker balance the load; the first chunks are
    // small so a long launch measures itself early. Grains are whole quanta,
    // and doubling or halving (to no less than one quantum) keeps them so.
    l.quantum = std::max<int64_t>(1, quantum);
    auto whole = [&](int64_t g) { return (std::max<int64_t>(1, g) + l.quantum - 1) / l.quantum * l.quantum; };
    l.max_grain = whole(l.n / (int64_t{threads} * 4));
    l.grain = whole(l.n / (int64_t{threads} * 256));
    // An arena whose slots other launches hold runs `run` on one of its
    // threads while the caller waits: only the caller may poll `stop`
    // (Python's signal check needs the caller's thread state).
    const auto caller = std::this_thread::get_id();
    auto run = [&] {
        const StopCheck* polls = std::this_thread::get_id() == caller ? stop : nullptr;
        if (threads <= 1) {
            work(l, polls);
            return;
        }
        tbb::task_group helpers;
        for (int w = 1; w < threads; ++w) helpers.run([&l] { work(l, nullptr); });
        work(l, polls);
        helpers.wait();
    };
    if (own) own->arena.execute(run);
    else run();
    last_threads.store(l.threads.load(std::memory_order_relaxed), std::memory_order_relaxed);
    return !l.stopped.load(std::memory_order_relaxed);
}

}  // namespace tack::runtime
