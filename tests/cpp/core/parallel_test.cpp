// The CPU runtime's parallel loop under a chosen thread count: every index
// runs exactly once, and a long launch runs on exactly that many threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/parallel.h"

namespace tack::runtime {
namespace {

struct Counts {
    std::vector<std::atomic<int>> hits;
    explicit Counts(size_t n) : hits(n) {}
};

void count_chunk(void* ctx, int64_t begin, int64_t end) {
    auto& c = *static_cast<Counts*>(ctx);
    for (int64_t i = begin; i < end; ++i) c.hits[static_cast<size_t>(i)].fetch_add(1);
}

// Each chunk sleeps a little: the launch lasts long enough that every
// thread of the pool claims a part, however busy the machine.
void slow_chunk(void*, int64_t begin, int64_t end) {
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (end - begin)));
}

class ThreadCount : public ::testing::Test {
protected:
    void TearDown() override { set_worker_count(before_); }
    int before_ = worker_count();
};

TEST_F(ThreadCount, EveryIndexRunsOnceAtEveryCount) {
    for (int threads : {1, 2, 3, 8}) {
        set_worker_count(threads);
        EXPECT_EQ(worker_count(), threads);
        for (int64_t n : {int64_t{1}, int64_t{63}, int64_t{64}, int64_t{1000}, int64_t{100003}}) {
            Counts c(static_cast<size_t>(n));
            EXPECT_TRUE(parallel_for(n, count_chunk, &c));
            for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c.hits[static_cast<size_t>(i)].load(), 1) << threads << " " << i;
        }
    }
}

TEST_F(ThreadCount, ALongLaunchRunsOnThatManyThreads) {
    for (int threads : {1, 2, 4}) {
        set_worker_count(threads);
        // Half a second of wall time at any count: time for the workers
        // oneTBB starts on first use to join on a loaded machine.
        ASSERT_TRUE(parallel_for(2500 * threads, slow_chunk, nullptr));
        EXPECT_EQ(last_launch_threads(), threads);
    }
}

// Chunks of a quantum: each begins at a multiple of it and all but the one
// that ends at n are whole multiples, however the grain grows or shrinks.
struct Quanta {
    int64_t quantum = 1, n = 0;
    std::atomic<int> misplaced{0}, slow{0};
    std::vector<std::atomic<int>> hits;
    Quanta(int64_t q, int64_t n) : quantum(q), n(n), hits(static_cast<size_t>(n)) {}
};

void quantum_chunk(void* ctx, int64_t begin, int64_t end) {
    auto& q = *static_cast<Quanta*>(ctx);
    if (begin % q.quantum != 0 || (end != q.n && (end - begin) % q.quantum != 0)) q.misplaced.fetch_add(1);
    for (int64_t i = begin; i < end; ++i) q.hits[static_cast<size_t>(i)].fetch_add(1);
    // The first chunks slow enough that the grain shrinks, the rest fast,
    // so that it grows again.
    if (q.slow.fetch_add(1) < 4) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

TEST_F(ThreadCount, ChunksAreWholeQuanta) {
    for (int threads : {1, 2, 3}) {
        set_worker_count(threads);
        for (int64_t quantum : {int64_t{1}, int64_t{8}, int64_t{16}, int64_t{7}})
            for (int64_t n : {int64_t{64}, int64_t{512}, int64_t{1000}, int64_t{100003}}) {
                Quanta q(quantum, n);
                EXPECT_TRUE(parallel_for(n, quantum_chunk, &q, nullptr, quantum));
                EXPECT_EQ(q.misplaced.load(), 0) << threads << " threads, quantum " << quantum << ", n " << n;
                for (int64_t i = 0; i < n; ++i)
                    ASSERT_EQ(q.hits[static_cast<size_t>(i)].load(), 1) << threads << " " << quantum << " " << i;
            }
    }
}

// Chunks of rows: with `row`, every chunk starts at a row's start or a
// multiple of the quantum from it, so no whole group of a row is cut in
// two, and every index still runs once.
struct Rows {
    int64_t quantum = 1, row = 0;
    std::atomic<int> cut{0}, slow{0}, chunks{0};
    std::vector<std::atomic<int>> hits;
    Rows(int64_t q, int64_t row, int64_t n) : quantum(q), row(row), hits(static_cast<size_t>(n)) {}
};

void row_chunk(void* ctx, int64_t begin, int64_t end) {
    auto& r = *static_cast<Rows*>(ctx);
    r.chunks.fetch_add(1);
    const int64_t whole = r.row / r.quantum * r.quantum;  // a row's groups end here
    for (int64_t edge : {begin, end}) {
        const int64_t at = edge % r.row;
        if (at % r.quantum != 0 && at < whole) r.cut.fetch_add(1);
    }
    for (int64_t i = begin; i < end; ++i) r.hits[static_cast<size_t>(i)].fetch_add(1);
    if (r.slow.fetch_add(1) < 4) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

TEST_F(ThreadCount, ChunksStartOnARowsWholeGroups) {
    for (int threads : {1, 2, 3}) {
        set_worker_count(threads);
        for (int64_t row : {int64_t{98}, int64_t{17}, int64_t{1000}, int64_t{33}})
            for (int64_t rows : {int64_t{1}, int64_t{4}, int64_t{37}, int64_t{1000}}) {
                const int64_t n = row * rows;
                Rows r(16, row, n);
                EXPECT_TRUE(parallel_for(n, row_chunk, &r, nullptr, 16, row));
                EXPECT_EQ(r.cut.load(), 0) << threads << " threads, rows of " << row << ", " << rows << " rows";
                for (int64_t i = 0; i < n; ++i)
                    ASSERT_EQ(r.hits[static_cast<size_t>(i)].load(), 1) << threads << " " << row << " " << i;
                if (n >= 64 * 16 && threads > 1) {
                    EXPECT_GT(r.chunks.load(), 1);  // still divided
                }
            }
    }
}

// Rows so many that padding them would pass 2^63 - 1 iterations: the
// chunks are then counted over the bare iterations, and the launch runs
// (here until the stop check ends it after its first chunks).
void first_chunks(void* ctx, int64_t begin, int64_t end) {
    auto& ran = *static_cast<std::atomic<int64_t>*>(ctx);
    if (begin == 0 && end > 0) ran.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(11));
}

TEST_F(ThreadCount, RowsTooManyToPadStillRun) {
    set_worker_count(1);
    const int64_t row = 17, n = INT64_MAX / row * row;
    std::atomic<int64_t> ran{0};
    StopCheck stop{[](void*) { return true; }, nullptr};
    EXPECT_FALSE(parallel_for(n, first_chunks, &ran, &stop, 16, row));
    EXPECT_EQ(ran.load(), 1);
}

TEST_F(ThreadCount, FewerThanOneThreadIsRefused) {
    EXPECT_THROW(set_worker_count(0), std::invalid_argument);
    EXPECT_THROW(set_worker_count(-3), std::invalid_argument);
}

}  // namespace
}  // namespace tack::runtime
