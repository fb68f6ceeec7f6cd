#include "runtime/parallel.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>

// oneTBB rather than OpenMP: the calling thread takes chunks itself, so a
// launch never waits at a barrier for a worker that the OS has not
// scheduled. On shared, busy cores an OpenMP launch measured 11-24 ms where
// oneTBB stayed near 8 us (bench/run.py --parallel-runtime).

namespace tack::runtime {

int worker_count() {
    static int n = tbb::this_task_arena::max_concurrency();
    return n;
}

void parallel_for(int64_t n, ChunkFn fn, void* ctx) {
    if (n <= 0) return;
    int workers = worker_count();
    // A few chunks per worker balance uneven iterations (Mandelbrot rows)
    // without paying per-iteration scheduling.
    int64_t chunks = std::min<int64_t>(n, int64_t{workers} * 4);
    // A handful of iterations runs on the calling thread: handing them to a
    // worker costs a wake-up, and on busy shared cores a scheduling quantum.
    constexpr int64_t kInlineBelow = 64;
    if (workers <= 1 || chunks <= 1 || n < kInlineBelow) {
        fn(ctx, 0, n);
        return;
    }
    int64_t per = n / chunks, extra = n % chunks;
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, chunks, 1),
        [&](const tbb::blocked_range<int64_t>& r) {
            for (int64_t c = r.begin(); c < r.end(); ++c) {
                int64_t begin = c * per + std::min(c, extra);
                int64_t end = begin + per + (c < extra ? 1 : 0);
                fn(ctx, begin, end);
            }
        },
        tbb::simple_partitioner());
}

}  // namespace tack::runtime
