// How many SIMD lanes the CPU's SPMD body gets (codegen::plan_lanes): two
// host registers of the widest type the body computes values in, at most
// 16, where indices and loop variables do not count; the scalar
// program, with the reason, for too little SIMD width and for local arrays
// whose per-lane copies would overflow a thread's stack.
#include <gtest/gtest.h>

#include "codegen/llvm/emit_llvm.h"
#include "test_support.h"

namespace tack {
namespace {

using testing::array_of;
using testing::typed_kernel;

codegen::LanePlan plan(const std::string& text, std::vector<driver::ParamFacts> params, int bits) {
    auto k = typed_kernel(text, params);
    return codegen::plan_lanes(*k, bits);
}

const char* kCopy =
    "def k(a, b):\n"
    "    for i in range(len(a)):\n"
    "        b[i] = a[i] + a[i]\n";

TEST(CpuLanes, TwoRegistersOfTheWidestValueType) {
    // The parallel index is 64-bit; the values are what count.
    EXPECT_EQ(plan(kCopy, {array_of(DType::F32), array_of(DType::F32)}, 128).lanes, 8);
    EXPECT_EQ(plan(kCopy, {array_of(DType::F32), array_of(DType::F32)}, 256).lanes, 16);
    EXPECT_EQ(plan(kCopy, {array_of(DType::F32), array_of(DType::F32)}, 512).lanes, 16);
    EXPECT_EQ(plan(kCopy, {array_of(DType::F64), array_of(DType::F64)}, 256).lanes, 8);
    EXPECT_EQ(plan(kCopy, {array_of(DType::F64), array_of(DType::F64)}, 512).lanes, 16);
    EXPECT_EQ(plan(kCopy, {array_of(DType::I64), array_of(DType::I64)}, 128).lanes, 4);
    // Narrow types are capped at 16 lanes (and counted at 32 bits).
    EXPECT_EQ(plan(kCopy, {array_of(DType::I8), array_of(DType::I32)}, 512).lanes, 16);
}

TEST(CpuLanes, ArithmeticOnTheIndexCounts) {
    auto p = plan(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = tack.f32(i * i)\n",
        {array_of(DType::F32)}, 256);
    EXPECT_EQ(p.lanes, 8);  // i * i is an i64 value
}

TEST(CpuLanes, NarrowRegistersRunTheScalarProgram) {
    auto n = plan(kCopy, {array_of(DType::F64), array_of(DType::F64)}, 0);
    EXPECT_EQ(n.lanes, 1);
    EXPECT_NE(n.why_scalar.find("no SIMD registers for 64-bit values"), std::string::npos) << n.why_scalar;
}

TEST(CpuLanes, LocalArraysBeyondTheStackBudgetRunTheScalarProgram) {
    auto small = plan(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        t = tack.local_array(1024, tack.f32)\n"
        "        t[0] = a[i]\n"
        "        a[i] = t[0]\n",
        {array_of(DType::F32)}, 256);
    EXPECT_EQ(small.lanes, 16);
    auto big = plan(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        t = tack.local_array(16384, tack.f32)\n"
        "        u = tack.local_array(16384, tack.f32)\n"
        "        v = tack.local_array(16384, tack.f32)\n"
        "        t[0] = a[i]\n"
        "        u[0] = a[i]\n"
        "        v[0] = a[i]\n"
        "        a[i] = t[0] + u[0] + v[0]\n",
        {array_of(DType::F32)}, 256);
    EXPECT_EQ(big.lanes, 1);
    EXPECT_NE(big.why_scalar.find("196608 bytes per iteration"), std::string::npos) << big.why_scalar;
}

}  // namespace
}  // namespace tack
