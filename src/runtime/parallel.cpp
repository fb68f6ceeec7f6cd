#include "runtime/parallel.h"

#include <omp.h>

#include <algorithm>

namespace tack::runtime {

int worker_count() {
    static int n = omp_get_max_threads();
    return n;
}

void parallel_for(int64_t n, ChunkFn fn, void* ctx) {
    if (n <= 0) return;
    int workers = worker_count();
    // A few chunks per worker balance uneven iterations (Mandelbrot rows)
    // without paying per-iteration scheduling.
    int64_t chunks = std::min<int64_t>(n, int64_t{workers} * 4);
    if (workers <= 1 || chunks <= 1) {
        fn(ctx, 0, n);
        return;
    }
    int64_t per = n / chunks, extra = n % chunks;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < chunks; ++c) {
        int64_t begin = c * per + std::min(c, extra);
        int64_t end = begin + per + (c < extra ? 1 : 0);
        fn(ctx, begin, end);
    }
}

}  // namespace tack::runtime
