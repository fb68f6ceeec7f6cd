// How many SIMD lanes the CPU's SPMD body gets (codegen::plan_lanes): two
// host registers of the widest type the body computes values in, at most
// 16, where indices and loop variables do not count; the scalar
// program, with the reason, for too little SIMD width and for local arrays
// whose per-lane copies would overflow a thread's stack; and whether the
// lanes pay for the body's work (codegen::why_lanes_do_not_pay), as
// emit_llvm counts it.
#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emit_llvm.h"
#include "codegen/llvm/lane_cost.h"
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

TEST(CpuLanes, StraightBodiesRunFourRegistersOfGroupsPerTurn) {
    EXPECT_EQ(plan(kCopy, {array_of(DType::F32), array_of(DType::F32)}, 256).straight_groups, 2);
    EXPECT_EQ(plan(kCopy, {array_of(DType::F32), array_of(DType::F32)}, 512).straight_groups, 4);
    EXPECT_EQ(plan(kCopy, {array_of(DType::F64), array_of(DType::F64)}, 256).straight_groups, 2);
    EXPECT_EQ(plan(kCopy, {array_of(DType::F64), array_of(DType::F64)}, 512).straight_groups, 2);
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

TEST(LaneCost, VectorWorkPaysForAFewLaneByLaneOperations) {
    codegen::LaneWork arithmetic;
    arithmetic.in_vectors = 12;
    arithmetic.calls = 1;
    EXPECT_FALSE(codegen::why_lanes_do_not_pay(arithmetic, 16));
    codegen::LaneWork call_alone;
    call_alone.in_vectors = 3;
    call_alone.calls = 1;
    auto why = codegen::why_lanes_do_not_pay(call_alone, 16);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("3 operations in vectors against 1 calls"), std::string::npos) << *why;
    codegen::LaneWork divisions;
    divisions.in_vectors = 4;
    divisions.divisions = 1;
    EXPECT_FALSE(codegen::why_lanes_do_not_pay(divisions, 16));
    codegen::LaneWork atomics;
    atomics.in_vectors = 6;
    atomics.serial = 1;
    EXPECT_TRUE(codegen::why_lanes_do_not_pay(atomics, 16));
    codegen::LaneWork gathers;
    gathers.in_vectors = 41;
    gathers.scattered = 16;
    EXPECT_TRUE(codegen::why_lanes_do_not_pay(gathers, 16));
    // Fewer lanes save less of the same work.
    codegen::LaneWork borderline;
    borderline.in_vectors = 7;
    borderline.calls = 1.75;
    EXPECT_FALSE(codegen::why_lanes_do_not_pay(borderline, 16));
    EXPECT_TRUE(codegen::why_lanes_do_not_pay(borderline, 2));
}

// The module emit_llvm chose, and what it says of the choice.
codegen::LanePlan chosen(const std::string& text, std::vector<driver::ParamFacts> params, bool always) {
    auto k = typed_kernel(text, params);
    llvm::LLVMContext ctx;
    codegen::EntryNames names;
    codegen::EmitOptions options;
    options.lanes = 16;
    options.always_lanes = always;
    codegen::LanePlan plan;
    auto m = codegen::emit_llvm(*k, ctx, "k", options, &names, nullptr, &plan);
    // The scalar program's body has no lanes function beside it.
    EXPECT_EQ(m->getFunction("k.body.scalar") != nullptr, plan.lanes > 1);
    return plan;
}

const char* kHistogram =
    "def k(keys, counts):\n"
    "    for i in range(len(keys)):\n"
    "        tack.atomic_add(counts, keys[i], 1)\n";

// Given a ScalarBodyModule, the scalar program that runs what does not fill
// a group is that module's one function, external, and the lanes module
// only declares it (jit_compile compiles the two on two threads); where the
// lanes do not pay, the one module is the scalar program and the other
// stays empty.
TEST(CpuLanes, TheScalarProgramCanBeAModuleOfItsOwn) {
    auto k = typed_kernel(kCopy, {array_of(DType::F32), array_of(DType::F32)});
    llvm::LLVMContext ctx, scalar_ctx;
    codegen::EntryNames names;
    codegen::EmitOptions options;
    options.lanes = 16;
    codegen::ScalarBodyModule apart;
    apart.context = &scalar_ctx;
    auto m = codegen::emit_llvm(*k, ctx, "k", options, &names, nullptr, nullptr, &apart);
    ASSERT_TRUE(apart.module);
    llvm::Function* declared = m->getFunction("k.body.scalar");
    ASSERT_NE(declared, nullptr);
    EXPECT_TRUE(declared->isDeclaration());
    llvm::Function* defined = apart.module->getFunction("k.body.scalar");
    ASSERT_NE(defined, nullptr);
    EXPECT_FALSE(defined->isDeclaration());
    EXPECT_TRUE(defined->hasExternalLinkage());
    EXPECT_EQ(&defined->getContext(), &scalar_ctx);
    for (const llvm::Function& f : *apart.module)
        EXPECT_TRUE(f.isDeclaration() || f.getName() == "k.body.scalar") << f.getName().str();

    auto histogram = typed_kernel(kHistogram, {array_of(DType::I32), array_of(DType::I32)});
    codegen::ScalarBodyModule unused;
    unused.context = &scalar_ctx;
    codegen::LanePlan plan;
    auto scalar = codegen::emit_llvm(*histogram, ctx, "h", options, &names, nullptr, &plan, &unused);
    EXPECT_EQ(plan.lanes, 1);
    EXPECT_FALSE(unused.module);
    EXPECT_EQ(scalar->getFunction("h.body.scalar"), nullptr);
}

TEST(LaneCost, EmitLlvmRunsTheScalarProgramWhereTheLanesDoNotPay) {
    auto by_cost = chosen(kHistogram, {array_of(DType::I32), array_of(DType::I32)}, false);
    EXPECT_EQ(by_cost.lanes, 1);
    EXPECT_NE(by_cost.why_scalar.find("the lanes would not pay"), std::string::npos) << by_cost.why_scalar;
    EXPECT_EQ(chosen(kHistogram, {array_of(DType::I32), array_of(DType::I32)}, true).lanes, 16);
    EXPECT_EQ(chosen(kCopy, {array_of(DType::F32), array_of(DType::F32)}, false).lanes, 16);
}

TEST(LaneCost, WorkInsideSequentialLoopsCountsMore) {
    // One call per iteration beside a loop of arithmetic: the loop's
    // operations count kLoopWeight times, and the lanes pay.
    auto loop = chosen(
        "def k(a, b):\n"
        "    for i in range(len(a)):\n"
        "        s = a[i]\n"
        "        for j in range(4):\n"
        "            s = s * a[i] + 1.0\n"
        "        b[i] = math.sin(s)\n",
        {array_of(DType::F32), array_of(DType::F32)}, false);
    EXPECT_EQ(loop.lanes, 16) << loop.why_scalar;
    auto flat = chosen(
        "def k(a, b):\n"
        "    for i in range(len(a)):\n"
        "        b[i] = math.sin(a[i])\n",
        {array_of(DType::F32), array_of(DType::F32)}, false);
    EXPECT_EQ(flat.lanes, 1);
}

}  // namespace
}  // namespace tack
