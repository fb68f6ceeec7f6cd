// Splits [0, n) into chunks run on all cores.
#pragma once

#include <cstdint>

namespace tack::runtime {

using ChunkFn = void (*)(void* ctx, int64_t begin, int64_t end);

// Runs fn over [0, n) in chunks, on the calling thread alone when one chunk
// suffices. Returns after every chunk has run.
void parallel_for(int64_t n, ChunkFn fn, void* ctx);

int worker_count();

}  // namespace tack::runtime
