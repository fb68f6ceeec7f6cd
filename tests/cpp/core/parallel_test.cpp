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

TEST_F(ThreadCount, FewerThanOneThreadIsRefused) {
    EXPECT_THROW(set_worker_count(0), std::invalid_argument);
    EXPECT_THROW(set_worker_count(-3), std::invalid_argument);
}

}  // namespace
}  // namespace tack::runtime
