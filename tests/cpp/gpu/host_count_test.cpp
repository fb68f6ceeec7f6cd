// HostCount: which kernels' counts the host works out, and that its counts
// and refusals are Python's: len(range(start, end, step)) for each
// dimension, computed here in 128-bit integers, their product, a step that
// is not positive refused, and a product past 2^63 - 1 refused unless a
// dimension is empty; and that it leaves the count to the device wherever a
// bound's arithmetic, or a local's on the way to it, would wrap.
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
    // A local divided before the loop; a bound that reads an array; one
    // computed from a float; a division, a shift.
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

TEST(HostCount, FollowsAssignmentsToLocalsBeforeTheLoop) {
    const auto o = array_of(DType::I32), n = scalar_of(DType::I64);
    runtime::Array a50 = runtime::Array::empty({50}, DType::I32);
    auto count = [&](const std::optional<HostCount>& plan, std::vector<int64_t> scalars) {
        std::vector<LaunchArg> args(1 + scalars.size());
        args[0].array = &a50;
        for (size_t i = 0; i < scalars.size(); ++i) args[1 + i].bits = static_cast<uint64_t>(scalars[i]);
        codegen::LaunchRefusal refusal;
        return plan->count(args.data(), args.size(), &refusal);
    };
    const auto length = plan_of("def k(o):\n    n = len(o)\n    for i in range(n):\n        o[i] = 1\n", {o});
    ASSERT_TRUE(length);
    EXPECT_EQ(count(length, {}), std::optional<int64_t>(50));
    // A chain: each local reads the one before.
    const auto chain = plan_of("def k(o, n0):\n    m = n0 - 1\n    k = m * 2\n    for i in range(m, k):\n        o[0] = 1\n",
                               {o, n});
    ASSERT_TRUE(chain);
    EXPECT_EQ(count(chain, {10}), std::optional<int64_t>(9));  // range(9, 18)
    // A local reassigned: a read takes the value assigned last before it,
    // k keeps m's first value and the bound reads m's second.
    const auto again = plan_of("def k(o, a):\n    m = len(o)\n    k = m - 3\n    m = 2\n    k = k * a\n"
                               "    for i in range(m, k):\n        o[0] = 1\n",
                               {o, n});
    ASSERT_TRUE(again);
    EXPECT_EQ(count(again, {1}), std::optional<int64_t>(45));  // range(2, 47)
    EXPECT_EQ(count(again, {2}), std::optional<int64_t>(92));  // range(2, 94)
    // Tuple and chained assignments go through lowering temporaries.
    const auto tuple = plan_of("def k(o, a):\n    lo, hi = 1, len(o)\n    p = q = a\n"
                               "    for i in range(lo + p, hi - q):\n        o[0] = 1\n",
                               {o, n});
    ASSERT_TRUE(tuple);
    EXPECT_EQ(count(tuple, {4}), std::optional<int64_t>(41));  // range(5, 46)
    // The body's assignments come after the count: the bound reads the
    // prologue's value.
    const auto body = plan_of("def k(o):\n    m = len(o)\n    for i in range(m):\n        m = 3\n        o[i] = m\n", {o});
    ASSERT_TRUE(body);
    EXPECT_EQ(count(body, {}), std::optional<int64_t>(50));
}

TEST(HostCount, ALocalsTypeDecidesWhetherItsValueIsExact) {
    // The device wraps a value its local's type does not hold; the host
    // leaves those counts to it.
    const auto narrow = plan_of("def k(o):\n    m = tack.i8(len(o))\n    for i in range(m):\n        o[i] = 1\n",
                                {array_of(DType::I32)});
    ASSERT_TRUE(narrow);
    for (int64_t extent : {0, 100, 127, 128, 255, 300}) {
        runtime::Array a = runtime::Array::empty({extent}, DType::I32);
        LaunchArg args[1] = {{&a, 0}};
        codegen::LaunchRefusal refusal;
        const std::optional<int64_t> want = extent <= 127 ? std::optional<int64_t>(extent) : std::nullopt;
        EXPECT_EQ(narrow->count(args, 1, &refusal), want) << extent;
    }
    // m is u8 throughout: m + 1 past 255 wraps on the device.
    const auto byte = plan_of("def k(o, a):\n    m = tack.u8(a)\n    m = m + tack.u8(1)\n"
                              "    for i in range(m):\n        o[i] = 1\n",
                              {array_of(DType::I32), scalar_of(DType::I64)});
    ASSERT_TRUE(byte);
    EXPECT_EQ(count_of(*byte, {0}).count, std::optional<int64_t>(1));
    EXPECT_EQ(count_of(*byte, {254}).count, std::optional<int64_t>(255));
    EXPECT_EQ(count_of(*byte, {255}).count, std::nullopt);
    EXPECT_EQ(count_of(*byte, {256}).count, std::nullopt);
    EXPECT_EQ(count_of(*byte, {-1}).count, std::nullopt);
    // With an int literal m joins to i32: u8(a) widens to it and m + 1 is
    // 256.
    const auto joined = plan_of("def k(o, a):\n    m = tack.u8(a)\n    m = m + 1\n    for i in range(m):\n        o[i] = 1\n",
                                {array_of(DType::I32), scalar_of(DType::I64)});
    ASSERT_TRUE(joined);
    EXPECT_EQ(count_of(*joined, {255}).count, std::optional<int64_t>(256));
    EXPECT_EQ(count_of(*joined, {256}).count, std::nullopt);
}

// `stmt` (typed) placed before the loop of a kernel the host plans.
std::optional<HostCount> plan_with(ir::StmtPtr stmt) {
    auto k = testing::codegen_kernel("def k(o, a):\n    for i in range(a):\n        o[i] = 1\n",
                                     {array_of(DType::I32), scalar_of(DType::I64)});
    EXPECT_TRUE(HostCount::plan(*k));
    k->prologue.push_back(std::move(stmt));
    return HostCount::plan(*k);
}

ir::ExprPtr typed_int(uint64_t bits, DType t) {
    auto c = std::make_unique<ir::IntConst>();
    c->bits = bits;
    c->type = t;
    return c;
}

TEST(HostCount, LeavesToTheDeviceProloguesItCannotFollow) {
    const auto o = array_of(DType::I32), n = scalar_of(DType::I64);
    auto refused = [&](const std::string& prologue) {
        return !plan_of("def k(o, a):\n" + prologue + "    for i in range(m):\n        o[i] = 1\n", {o, n});
    };
    EXPECT_FALSE(refused("    m = a\n"));  // the kernel the others change
    EXPECT_TRUE(refused("    m = o[0]\n"));                                  // a load
    EXPECT_TRUE(refused("    m = len(o) >> 0\n"));                           // a shift
    EXPECT_TRUE(refused("    m = len(o) // 1\n"));                           // a division
    EXPECT_TRUE(refused("    m = len(o) if len(o) < a else a\n"));           // a conditional
    EXPECT_TRUE(refused("    m = a\n    if a > 3:\n        m = 3\n"));      // an if
    EXPECT_TRUE(refused("    m = 0\n    while m < a:\n        m = m + 1\n"));  // a while
    EXPECT_TRUE(refused("    m = a\n    while a > 3:\n        m = 3\n"));  // a while that may assign
    EXPECT_TRUE(refused("    s = 2.0 * a\n    m = tack.i64(s)\n"));       // a float on the way
    // (A local read before any assignment reaches it is refused before
    // this, by the front end: test_names.py.)
    // A device function's call.
    auto resolver = std::make_shared<testing::CodegenResolver>();
    resolver->device_functions["twice"] = "def twice(v):\n    return v * 2\n";
    EXPECT_FALSE(HostCount::plan(*testing::typed_kernel(
        "def k(o, a):\n    m = twice(a)\n    for i in range(m):\n        o[i] = 1\n", {o, n}, resolver)));
    // A store and a print, which the front end keeps out of the prologue
    // but the host does not rely on.
    auto store = std::make_unique<ir::Store>();
    store->array = 0;
    store->indices.push_back(typed_int(0, DType::I32));
    store->value = typed_int(1, DType::I32);
    EXPECT_FALSE(plan_with(std::move(store)));
    auto print = std::make_unique<ir::Print>();
    print->args.push_back(typed_int(1, DType::I32));
    print->groups.push_back(0);
    EXPECT_FALSE(plan_with(std::move(print)));
}

// What the statements before the loop compute besides the bounds' values
// is the device's: a float, an expression evaluated and dropped, a branch
// that assigns other variables, a parameter reassigned (followed as the
// value assigned), a variable assigned under a branch and then again.
TEST(HostCount, FollowsTheBoundsThroughProloguesThatComputeMore) {
    const auto o = array_of(DType::I32), n = scalar_of(DType::I64);
    auto count = [&](const std::string& prologue, int64_t a) {
        auto plan = plan_of("def k(o, a):\n" + prologue + "    for i in range(m):\n        o[i] = 1\n", {o, n});
        EXPECT_TRUE(plan) << prologue;
        return plan ? count_of(*plan, {a}).count : std::nullopt;
    };
    for (int64_t a : {0, 5, 1000}) {
        EXPECT_EQ(count("    len(o)\n    m = a\n", a), a);
        EXPECT_EQ(count("    s = 2.0 * a\n    m = a\n", a), a);
        EXPECT_EQ(count("    a = a + 1\n    m = a\n", a), a + 1);
        EXPECT_EQ(count("    x = 0\n    if a > 3:\n        x = 1\n    m = a - 1\n", a), std::max<int64_t>(a - 1, 0));
        EXPECT_EQ(count("    m = 0\n    if a > 3:\n        m = 3\n    m = a * 2\n", a), 2 * a);
        EXPECT_EQ(count("    w = 0\n    while w < a:\n        w = w + 1\n    m = a + 7\n", a), a + 7);
    }
    // test_compiler_contract.py's prologue_bounds, which OpenCL runs through
    // this plan, and branch_bound, whose bound a branch assigns.
    const std::vector<driver::ParamFacts> params = {o, array_of(DType::F32), n, n};
    EXPECT_TRUE(plan_of("def prologue_bounds(a, x, lo, s):\n    scale = 1.0 / len(a)\n    flag = 0\n"
                        "    if lo > 2:\n        flag = 1\n    lo = lo * 2 - lo\n    first = lo\n"
                        "    if s > 100:\n        first = 0\n    first = lo * 1\n    last = len(a) - 1\n"
                        "    for i in range(first, last, s):\n        a[i] = i + 1\n",
                        params));
    EXPECT_FALSE(plan_of("def branch_bound(a, x, lo, s):\n    first = 0\n    if lo > 2:\n        first = lo\n"
                         "    for i in range(first, len(a)):\n        a[i] = i + 1\n",
                         params));
}

TEST(HostCount, ABoundWithItsLocalsProgramsPastTheLimitIsLeftToTheDevice) {
    // k's program doubles with each `k = k + k`: 31 steps after four, 63
    // after five.
    const auto o = array_of(DType::I32), n = scalar_of(DType::I64);
    auto doubled = [&](int times, const std::string& end) {
        std::string text = "def k(o, a):\n    k = a\n";
        for (int t = 0; t < times; ++t) text += "    k = k + k\n";
        return plan_of(text + "    for i in range(" + end + "):\n        o[0] = 1\n", {o, n});
    };
    const auto four = doubled(4, "k");
    ASSERT_TRUE(four);
    EXPECT_EQ(count_of(*four, {3}).count, std::optional<int64_t>(48));
    EXPECT_FALSE(doubled(4, "k + 1"));
    EXPECT_FALSE(doubled(5, "k"));
    EXPECT_FALSE(doubled(12, "k"));
}

TEST(HostCount, BoundsThroughLocalsCountAsPythonsRange) {
    // lo and hi go through lowering temporaries (a tuple assignment), t is
    // an i32 local, hi is reassigned from itself.
    const auto plan = plan_of("def k(o, a, b, c):\n"
                              "    n = len(o)\n"
                              "    lo, hi = a - 1, min(b, n * 4)\n"
                              "    t = tack.i32(c)\n"
                              "    t = t + 1\n"
                              "    hi = hi + lo\n"
                              "    for i in range(lo, hi, t):\n"
                              "        o[0] = 1\n",
                              {array_of(DType::I32), scalar_of(DType::I64), scalar_of(DType::I64), scalar_of(DType::I64)});
    ASSERT_TRUE(plan);
    runtime::Array o = runtime::Array::empty({50}, DType::I32);
    std::mt19937_64 rng(13);
    const int64_t edges[] = {INT64_MIN,     INT64_MIN + 1, -(int64_t(1) << 40), INT32_MIN - int64_t(1), INT32_MIN,
                             -3,            -2,            -1,                  0,                      1,
                             2,             5,             INT32_MAX - 1,       INT32_MAX,              int64_t(1) << 31,
                             int64_t(1) << 40, INT64_MAX - 1, INT64_MAX};
    auto pick = [&]() -> int64_t {
        switch (rng() % 3) {
            case 0: return edges[rng() % std::size(edges)];
            case 1: return int64_t(rng() % 401) - 200;
            default: return int64_t(rng());
        }
    };
    auto in = [](Wide x, int bits) { return x >= -(Wide(1) << (bits - 1)) && x < (Wide(1) << (bits - 1)); };
    int exact = 0, left = 0, refused = 0;
    for (int trial = 0; trial < 30000; ++trial) {
        const int64_t a = pick(), b = pick(), c = pick();
        LaunchArg args[4] = {{&o, 0}, {nullptr, uint64_t(a)}, {nullptr, uint64_t(b)}, {nullptr, uint64_t(c)}};
        codegen::LaunchRefusal refusal;
        auto got = plan->count(args, 4, &refusal);
        // Each local's value in 128 bits; one its type does not hold wraps
        // on the device, which then gives the count.
        const Wide lo = Wide(a) - 1, t = Wide(c) + 1, hi = std::min<Wide>(b, 200) + lo;
        if (!in(lo, 64) || !in(c, 32) || !in(t, 32) || !in(hi, 64)) {
            EXPECT_EQ(got, std::nullopt) << a << " " << b << " " << c;
            ++left;
            continue;
        }
        ASSERT_TRUE(got) << a << " " << b << " " << c;
        if (t <= 0) {
            ++refused;
            EXPECT_EQ(*got, -1);
            EXPECT_EQ(refusal.reason, codegen::LaunchRefusal::StepNotPositive);
            EXPECT_EQ(refusal.dim, 0);
            EXPECT_EQ(Wide(refusal.step), t);
            continue;
        }
        ++exact;
        EXPECT_EQ(Wide(*got), python_len(lo, hi, t)) << a << " " << b << " " << c;  // hi - lo is at most 200
    }
    EXPECT_GT(exact, 1000);
    EXPECT_GT(left, 1000);
    EXPECT_GT(refused, 100);
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
