#include "runtime/parallel.h"

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <chrono>

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

namespace tack::runtime {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kGrowBelow = std::chrono::milliseconds(1);
constexpr auto kShrinkAbove = std::chrono::milliseconds(16);
constexpr auto kPollEvery = std::chrono::milliseconds(10);

struct Launch {
    int64_t n;
    ChunkFn fn;
    void* ctx;
    int64_t max_grain;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> grain;
    std::atomic<bool> stopped{false};
};

// Claims and runs chunks until none is left or the launch is stopped; the
// calling thread (`stop` set) also polls for an interrupt.
void work(Launch& l, const StopCheck* stop) {
    auto last_poll = Clock::now();
    for (;;) {
        if (l.stopped.load(std::memory_order_relaxed)) return;
        int64_t g = l.grain.load(std::memory_order_relaxed);
        int64_t begin = l.next.load(std::memory_order_relaxed), end;
        do {
            if (begin >= l.n) return;
            end = begin + std::min(g, l.n - begin);
        } while (!l.next.compare_exchange_weak(begin, end, std::memory_order_relaxed));
        auto t0 = Clock::now();
        l.fn(l.ctx, begin, end);
        auto t1 = Clock::now();
        if (t1 - t0 < kGrowBelow && g < l.max_grain)
            l.grain.compare_exchange_weak(g, std::min(g * 2, l.max_grain), std::memory_order_relaxed);
        else if (t1 - t0 > kShrinkAbove && g > 1)
            l.grain.compare_exchange_weak(g, g / 2, std::memory_order_relaxed);
        if (stop && t1 - last_poll >= kPollEvery) {
            last_poll = t1;
            if (stop->poll(stop->ctx)) {
                l.stopped.store(true, std::memory_order_relaxed);
                return;
            }
        }
    }
}

}  // namespace

int worker_count() {
    static int n = tbb::this_task_arena::max_concurrency();
    return n;
}

bool parallel_for(int64_t n, ChunkFn fn, void* ctx, const StopCheck* stop) {
    if (n <= 0) return true;
    int workers = worker_count();
    // A handful of iterations runs as one chunk on the calling thread:
    // handing them to a worker costs a wake-up, and on busy shared cores a
    // scheduling quantum.
    constexpr int64_t kInlineBelow = 64;
    if (n < kInlineBelow) {
        fn(ctx, 0, n);
        return true;
    }
    Launch l;
    l.n = n;
    l.fn = fn;
    l.ctx = ctx;
    // At least four chunks per worker balance the load; the first chunks are
    // small so a long launch measures itself early.
    l.max_grain = std::max<int64_t>(1, n / (int64_t{workers} * 4));
    l.grain = std::max<int64_t>(1, n / (int64_t{workers} * 256));
    if (workers <= 1) {
        work(l, stop);
    } else {
        tbb::task_group helpers;
        for (int w = 1; w < workers; ++w) helpers.run([&l] { work(l, nullptr); });
        work(l, stop);
        helpers.wait();
    }
    return !l.stopped.load(std::memory_order_relaxed);
}

}  // namespace tack::runtime
