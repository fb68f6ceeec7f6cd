// HostCount: which kernels' counts the host works out, and that its counts
// and refusals are Python's: len(range(start, end, step)) for each
// dimension, computed here in 128-bit integers, their product, a step that
// is not positive refused, and a product past 2^63 - 1 refused unless a
// dimension is empty; and that it leaves the count to the device wherever a
// bound's arithmetic would wrap.
#include "backends/gpu/host_count.h"

#include <gtest/gtest.h>

#include <random>

#include "codegen_support.h"
#include "runtime/array.h"

namespace tack::backends::gpu {
namespace {

using testing::array_of;
using testing::scalar_of;
using Wide = __int128;

std::optional<HostCount> plan_of(const std::string& text, const std::vector<driver::ParamFacts>& params) {
    return HostCount::plan(*testing::codegen_kernel(text, params));
}

TEST(HostCount, PlansRangesOfConstantsScalarsAndExtents) {
    const auto o = array_of(DType::I32), o2 = array_of(DType::I32, 2), n = scalar_of(DType::I64);
    EXPECT_TRUE(plan_of("def k(o):\n    for i in range(len(o)):\n        o[i] = 1\n", {o}));
    EXPECT_TRUE(plan_of("def k(o, a, b, c):\n    for i in range(a, b, c):\n        o[i] = 1\n", {o, n, n, n}));
    EXPECT_TRUE(plan_of("def k(o):\n    for i in range(3, len(o), 2):\n        o[i] = 1\n", {o}));
    EXPECT_TRUE(plan_of("def k(o):\n    for i, j in tack.ndindex(o.shape[0], o.shape[1]):\n        o[i, j] = 1\n", {o2}));
    EXPECT_TRUE(plan_of("def k(o, a):\n    for i in range(a):\n        o[i] = 1\n", {o, scalar_of(DType::I32)}));
}

TEST(HostCount, LeavesToTheDeviceRangesItCannotWorkOut) {
    const auto o = array_of(DType::I32), n = scalar_of(DType::I64);
    // Statements before the loop; a bound that reads an array; one computed
    // from a float; a division, a shift.
    EXPECT_FALSE(plan_of("def k(o):\n    m = len(o) // 2\n    for i in range(m):\n        o[i] = 1\n", {o}));
    EXPECT_FALSE(plan_of("def k(o):\n    for i in range(o[0]):\n        o[i] = 1\n", {o}));
    EXPECT_FALSE(plan_of("def k(o, x):\n    for i in range(int(x)):\n        o[i] = 1\n", {o, scalar_of(DType::F32)}));
    EXPECT_FALSE(plan_of("def k(o, a):\n    for i in range(a // 2):\n        o[i] = 1\n", {o, n}));
    EXPECT_FALSE(plan_of("def k(o, a):\n    for i in range(a << 1):\n        o[i] = 1\n", {o, n}));
}

// Python's len(range(start, end, step)) for step > 0.
Wide python_len(Wide start, Wide end, Wide step) { return end > start ? (end - start + step - 1) / step : 0; }

struct Outcome {
    std::optional<int64_t> count;
    codegen::LaunchRefusal refusal;
};

Outcome count_of(const HostCount& plan, std::vector<int64_t> scalars) {
    std::vector<LaunchArg> args(1 + scalars.size());
    for (size_t i = 0; i < scalars.size(); ++i) args[1 + i].bits = static_cast<uint64_t>(scalars[i]);
    Outcome out;
    out.count = plan.count(args.data(), args.size(), &out.refusal);
    return out;
}

TEST(HostCount, OneDimensionCountsAsPythonsRange) {
    const auto plan = plan_of("def k(o, a, b, c):\n    for i in range(a, b, c):\n        o[i] = 1\n",
                              {array_of(DType::I32), scalar_of(DType::I64), scalar_of(DType::I64), scalar_of(DType::I64)});
    ASSERT_TRUE(plan);
    std::mt19937_64 rng(7);
    const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, -3, -1, 0, 1, 2, 3, 7, 1000, INT64_MAX - 1, INT64_MAX};
    auto pick = [&]() -> int64_t {
        switch (rng() % 3) {
            case 0: return edges[rng() % std::size(edges)];
            case 1: return int64_t(rng() % 41) - 20;
            default: return int64_t(rng());
        }
    };
    for (int trial = 0; trial < 20000; ++trial) {
        const int64_t a = pick(), b = pick(), c = pick();
        Outcome got = count_of(*plan, {a, b, c});
        ASSERT_TRUE(got.count) << a << " " << b << " " << c;
        if (c <= 0) {
            EXPECT_EQ(*got.count, -1);
            EXPECT_EQ(got.refusal.reason, codegen::LaunchRefusal::StepNotPositive);
            EXPECT_EQ(got.refusal.dim, 0);
            EXPECT_EQ(got.refusal.step, c);
            continue;
        }
        const Wide want = python_len(a, b, c);
        if (want > INT64_MAX) {
            EXPECT_EQ(*got.count, -1);
            EXPECT_EQ(got.refusal.reason, codegen::LaunchRefusal::TooManyIterations);
            EXPECT_EQ(got.refusal.ndims, 1);
            EXPECT_EQ(Wide(got.refusal.counts[0][0]), want);
        } else {
            EXPECT_EQ(Wide(*got.count), want) << a << " " << b << " " << c;
        }
    }
}

TEST(HostCount, DimensionsMultiplyAndAnEmptyOneIsNeverRefused) {
    const auto plan = plan_of("def k(o, a, b, c):\n    for i, j, l in tack.ndindex(a, b, c):\n        o[0] = 1\n",
                              {array_of(DType::I32), scalar_of(DType::I64), scalar_of(DType::I64), scalar_of(DType::I64)});
    ASSERT_TRUE(plan);
    std::mt19937_64 rng(11);
    const int64_t edges[] = {-5, 0, 1, 2, 3, 1 << 20, int64_t(1) << 31, int64_t(1) << 32, INT64_MAX};
    for (int trial = 0; trial < 5000; ++trial) {
        int64_t e[3];
        for (auto& x : e) x = rng() % 2 ? edges[rng() % std::size(edges)] : int64_t(rng() % 9) - 2;
        Outcome got = count_of(*plan, {e[0], e[1], e[2]});
        ASSERT_TRUE(got.count);
        Wide want = 1;
        bool empty = false;
        for (int64_t x : e) empty = empty || x <= 0;
        for (int64_t x : e) want = want > INT64_MAX ? want : want * Wide(std::max<int64_t>(x, 0));
        if (empty) {
            EXPECT_EQ(*got.count, 0);
        } else if (want > INT64_MAX) {
            EXPECT_EQ(*got.count, -1);
            EXPECT_EQ(got.refusal.reason, codegen::LaunchRefusal::TooManyIterations);
            EXPECT_EQ(got.refusal.ndims, 3);
            for (int d = 0; d < 3; ++d) EXPECT_EQ(got.refusal.counts[d][0], uint64_t(e[d]));
        } else {
            EXPECT_EQ(Wide(*got.count), want);
        }
    }
}

TEST(HostCount, ExtentsComeFromTheArrays) {
    const auto plan = plan_of("def k(o):\n    for i, j in tack.ndindex(o.shape[0], o.shape[1]):\n        o[i, j] = 1\n",
                              {array_of(DType::I32, 2)});
    ASSERT_TRUE(plan);
    runtime::Array a = runtime::Array::empty({3, 5}, DType::I32);
    LaunchArg args[1] = {{&a, 0}};
    codegen::LaunchRefusal refusal;
    EXPECT_EQ(plan->count(args, 1, &refusal), std::optional<int64_t>(15));
}

TEST(HostCount, AValueItsConversionWouldChangeIsLeftToTheDevice) {
    // An i64 scalar converted to the i32 it is declared as: the device wraps
    // it as the kernel says; the host does not guess.
    const auto plan = plan_of("def k(o, a):\n    for i in range(tack.i32(a)):\n        o[i] = 1\n",
                              {array_of(DType::I32), scalar_of(DType::I64)});
    ASSERT_TRUE(plan);
    EXPECT_EQ(count_of(*plan, {int64_t(1) << 40}).count, std::nullopt);
    EXPECT_EQ(count_of(*plan, {12}).count, std::optional<int64_t>(12));
}

TEST(HostCount, BoundsAddSubtractMultiplyAndTakeTheLeastOrGreatest) {
    const auto plan = plan_of("def k(o, a, b, c):\n"
                              "    for i in range(max(a - b, 1), min(len(o) - 1, a * c + 2), c + b):\n"
                              "        o[0] = 1\n",
                              {array_of(DType::I32), scalar_of(DType::I64), scalar_of(DType::I64), scalar_of(DType::I64)});
    ASSERT_TRUE(plan);
    runtime::Array o = runtime::Array::empty({50}, DType::I32);
    std::mt19937_64 rng(5);
    const int64_t edges[] = {INT64_MIN, -(int64_t(1) << 32), -7, -1, 0, 1, 3, 9, int64_t(1) << 32, INT64_MAX};
    int exact = 0, left = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        int64_t v[3];
        for (auto& x : v) x = rng() % 2 ? edges[rng() % std::size(edges)] : int64_t(rng() % 21) - 10;
        const auto [a, b, c] = v;
        LaunchArg args[4] = {{&o, 0}, {nullptr, uint64_t(a)}, {nullptr, uint64_t(b)}, {nullptr, uint64_t(c)}};
        codegen::LaunchRefusal refusal;
        auto got = plan->count(args, 4, &refusal);
        // Each value in 128 bits; where one leaves i64 the device's
        // arithmetic would wrap, and the host must leave the count to it.
        const Wide start = std::max<Wide>(Wide(a) - b, 1), product = Wide(a) * c, step = Wide(c) + b;
        const Wide end = std::min<Wide>(49, product + 2);
        auto in_i64 = [](Wide x) { return x >= INT64_MIN && x <= INT64_MAX; };
        if (!in_i64(Wide(a) - b) || !in_i64(product) || !in_i64(product + 2) || !in_i64(step)) {
            EXPECT_EQ(got, std::nullopt) << a << " " << b << " " << c;
            ++left;
            continue;
        }
        ASSERT_TRUE(got) << a << " " << b << " " << c;
        ++exact;
        if (step <= 0) {
            EXPECT_EQ(*got, -1);
            EXPECT_EQ(refusal.reason, codegen::LaunchRefusal::StepNotPositive);
            EXPECT_EQ(Wide(refusal.step), step);
        } else {
            EXPECT_EQ(Wide(*got), python_len(start, end, step)) << a << " " << b << " " << c;
        }
    }
    EXPECT_GT(exact, 1000);
    EXPECT_GT(left, 1000);
}

TEST(HostCount, RoundTripsThroughItsBytes) {
    const auto plan = plan_of("def k(o, a, c):\n    for i in range(a, len(o), c):\n        o[i] = 1\n",
                              {array_of(DType::I32), scalar_of(DType::I32), scalar_of(DType::I64)});
    ASSERT_TRUE(plan);
    support::ByteWriter out;
    plan->write(out);
    std::string bytes = out.take();
    support::ByteReader in(bytes);
    auto back = HostCount::read(in);
    ASSERT_TRUE(back);
    EXPECT_TRUE(in.complete());
    runtime::Array a = runtime::Array::empty({40}, DType::I32);
    LaunchArg args[3] = {{&a, 0}, {nullptr, uint64_t(uint32_t(-3))}, {nullptr, 4}};
    codegen::LaunchRefusal r1, r2;
    EXPECT_EQ(plan->count(args, 3, &r1), std::optional<int64_t>(11));  // len(range(-3, 40, 4))
    EXPECT_EQ(back->count(args, 3, &r2), std::optional<int64_t>(11));
}

}  // namespace
}  // namespace tack::backends::gpu
