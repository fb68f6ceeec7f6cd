// Splits [0, n) into chunks run on all cores.
#pragma once

#include <cstdint>

namespace tack::runtime {

using ChunkFn = void (*)(void* ctx, int64_t begin, int64_t end);

// Asked on the calling thread between its chunks, at most every few
// milliseconds once the launch has run that long: true stops the launch.
struct StopCheck {
    bool (*poll)(void* ctx) = nullptr;
    void* ctx = nullptr;
};

// Runs fn over [0, n) in chunks, on the calling thread alone when one chunk
// suffices. Every chunk but the last is a multiple of `quantum` iterations,
// so every chunk starts at a multiple of it (the CPU's SPMD code passes its
// lanes: a chunk then starts on a whole group wherever the rows are whole
// groups, and no group is cut in two). With `row` (the iterations of the
// innermost dimension of a launch of several, where that is more than a
// quantum and not a multiple of it) chunks start at a multiple of `quantum`
// from the start of a row instead, or at a row's start: the chunks are cut
// from the rows each padded to a whole number of quanta, the padding run by
// no one. Returns after every chunk that started has finished: true when
// all of [0, n) ran, false when `stop` ended the launch early.
bool parallel_for(int64_t n, ChunkFn fn, void* ctx, const StopCheck* stop = nullptr, int64_t quantum = 1,
                  int64_t row = 0);

// Threads a launch runs on (the calling thread and its helpers): every core
// the process may use unless set_worker_count chose another number.
int worker_count();
// Sets the thread count for launches from now on; n >= 1 (more threads than
// cores are started as asked). Launches already running keep theirs.
void set_worker_count(int n);
// How many threads ran at least one chunk in the most recent launch that
// parallel_for divided (launches run inline on the caller are not counted).
int last_launch_threads();

}  // namespace tack::runtime
