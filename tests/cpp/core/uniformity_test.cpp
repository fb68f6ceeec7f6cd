// The workgroup participation proof: which values are uniform across a
// workgroup, and which collectives not every lane is proven to reach.
// Each expectation follows from the contract's rules ("Workgroups and
// synchronization"), not from a recorded run.
#include <gtest/gtest.h>

#include "analysis/uniformity.h"
#include "test_support.h"

namespace tack {
namespace {

using analysis::check_participation;
using analysis::Participation;
using testing::array_of;
using testing::scalar_of;
using testing::typed_kernel;

// Kernels take an f32 array `a`, an i32 array `b` and an i32 scalar `n`.
const std::vector<driver::ParamFacts> kParams = {array_of(DType::F32), array_of(DType::I32), scalar_of(DType::I32)};

std::string kernel(const std::string& body) {
    return "def k(a, b, n):\n    for i in range(len(a)):\n" + body;
}

Participation check(const std::string& text, std::shared_ptr<testing::TestResolver> resolver = nullptr) {
    auto k = typed_kernel(text, kParams, std::move(resolver));
    return check_participation(*k);
}

void expect_proven(const Participation& p) {
    EXPECT_TRUE(p.has_collectives);
    EXPECT_FALSE(p.failure.has_value()) << p.failure->primitive << " at line " << p.failure->span.line << ": "
                                        << p.failure->reason;
}

void expect_rejected(const Participation& p, const std::string& primitive, int line, const std::string& reason) {
    EXPECT_TRUE(p.has_collectives);
    ASSERT_TRUE(p.failure.has_value());
    EXPECT_EQ(p.failure->primitive, primitive);
    EXPECT_EQ(p.failure->span.line, line);
    EXPECT_NE(p.failure->reason.find(reason), std::string::npos) << p.failure->reason;
}

const std::string kDivergentCondition = "under a condition that differs between lanes";
const std::string kDivergentLoop = "in a loop that lanes of a workgroup leave at different iterations";
const std::string kPartialContinue = "after a `continue` that only some lanes";

int var_named(const ir::Kernel& k, const std::string& name) {
    int found = -1;
    for (size_t v = 0; v < k.vars.size(); ++v)
        if (k.vars[v].name == name) {
            EXPECT_EQ(found, -1) << "two variables named " << name;
            found = static_cast<int>(v);
        }
    EXPECT_NE(found, -1) << "no variable named " << name;
    return found;
}

// ------------------------------------------------------------------ labels

TEST(UniformityLabels, ArgumentsAndTheirArithmeticAreUniformLanesAndLoadsVary) {
    auto k = typed_kernel(kernel("        x = a[i]\n"
                                 "        y = n * 2\n"
                                 "        a[i] = x + tack.f32(y)\n"),
                          kParams);
    auto p = check_participation(*k);
    auto& vars = p.labels.varying_vars;
    ASSERT_EQ(vars.size(), k->vars.size());
    EXPECT_FALSE(vars[var_named(*k, "n")]);
    EXPECT_TRUE(vars[var_named(*k, "i")]);
    EXPECT_TRUE(vars[var_named(*k, "x")]);
    EXPECT_FALSE(vars[var_named(*k, "y")]);
    EXPECT_FALSE(p.has_collectives);
    EXPECT_FALSE(p.failure.has_value());
    // The parallel extent, len(a), is a shape query.
    EXPECT_FALSE(p.labels.varying(*k->dims[0].end));
}

TEST(UniformityLabels, ConstantsShapeQueriesAndCollectiveResultsAreUniform) {
    auto k = typed_kernel(kernel("        x = len(a) + 1\n"
                                 "        y = tack.block_max(a[i])\n"
                                 "        z = tack.thread_id()\n"
                                 "        a[i] = tack.f32(x) + y + tack.f32(z)\n"),
                          kParams);
    auto p = check_participation(*k);
    EXPECT_FALSE(p.labels.varying_vars[var_named(*k, "x")]);
    EXPECT_FALSE(p.labels.varying_vars[var_named(*k, "y")]);
    EXPECT_TRUE(p.labels.varying_vars[var_named(*k, "z")]);
}

TEST(UniformityLabels, AssignmentsUnderAVaryingBranchVary) {
    auto k = typed_kernel(kernel("        x = 0\n"
                                 "        if a[i] > 0.0:\n"
                                 "            x = n\n"
                                 "        y = n\n"
                                 "        if n > 3:\n"
                                 "            y = 2 * n\n"
                                 "        a[i] = tack.f32(x + y)\n"),
                          kParams);
    auto p = check_participation(*k);
    EXPECT_TRUE(p.labels.varying_vars[var_named(*k, "x")]);
    EXPECT_FALSE(p.labels.varying_vars[var_named(*k, "y")]);
}

TEST(UniformityLabels, ASequentialLoopVariableVariesWithItsBounds) {
    auto k = typed_kernel(kernel("        for j in range(n):\n"
                                 "            a[i] = a[i] + 1.0\n"
                                 "        for m in range(b[i]):\n"
                                 "            a[i] = a[i] + 1.0\n"),
                          kParams);
    auto p = check_participation(*k);
    EXPECT_FALSE(p.labels.varying_vars[var_named(*k, "j")]);
    EXPECT_TRUE(p.labels.varying_vars[var_named(*k, "m")]);
}

TEST(UniformityLabels, ALoopVariableVariesWhenSomeLanesLeaveTheLoopEarly) {
    // Lanes that break at different iterations keep different values of j
    // (which the language does not let a kernel read after the loop).
    auto k = typed_kernel(kernel("        for j in range(n):\n"
                                 "            if a[i] > tack.f32(j):\n"
                                 "                break\n"
                                 "        for m in range(n):\n"
                                 "            if n > 3:\n"
                                 "                break\n"),
                          kParams);
    auto p = check_participation(*k);
    EXPECT_TRUE(p.labels.varying_vars[var_named(*k, "j")]);
    EXPECT_FALSE(p.labels.varying_vars[var_named(*k, "m")]);
}

// The CPU's SIMD lanes: the innermost dimension's variable is the lane
// index, the outer ones are uniform within a group, and a load of a
// parameter array follows its indices (lanes read in lockstep).
TEST(SimdLaneLabels, TheInnermostDimensionVariesAndLoadsFollowTheirIndices) {
    auto k = typed_kernel("def k(a, b, n):\n"
                          "    for r, c in tack.ndindex(n, len(a)):\n"
                          "        x = a[r]\n"
                          "        y = a[c]\n"
                          "        z = b[r] + n\n"
                          "        a[c] = x + y + tack.f32(z)\n",
                          kParams);
    auto labels = analysis::simd_lane_labels(*k);
    EXPECT_FALSE(labels.varying_vars[var_named(*k, "r")]);
    EXPECT_TRUE(labels.varying_vars[var_named(*k, "c")]);
    EXPECT_FALSE(labels.varying_vars[var_named(*k, "x")]);
    EXPECT_TRUE(labels.varying_vars[var_named(*k, "y")]);
    EXPECT_FALSE(labels.varying_vars[var_named(*k, "z")]);
    // The workgroup rule keeps every load varying.
    auto p = check_participation(*k);
    EXPECT_TRUE(p.labels.varying_vars[var_named(*k, "x")]);
}

TEST(SimdLaneLabels, LocalArraysAreEachLanesOwn) {
    auto k = typed_kernel(kernel("        t = tack.local_array(4, tack.f32)\n"
                                 "        t[0] = a[i]\n"
                                 "        x = t[0]\n"
                                 "        a[i] = x\n"),
                          kParams);
    auto labels = analysis::simd_lane_labels(*k);
    EXPECT_TRUE(labels.varying_vars[var_named(*k, "x")]);
}

TEST(SimdLaneLabels, UniformLoadsUnderAVaryingConditionVary) {
    auto k = typed_kernel(kernel("        x = 0.0\n"
                                 "        if a[i] > 0.0:\n"
                                 "            x = a[0]\n"
                                 "        y = a[n]\n"
                                 "        a[i] = x + y\n"),
                          kParams);
    auto labels = analysis::simd_lane_labels(*k);
    EXPECT_TRUE(labels.varying_vars[var_named(*k, "x")]);
    EXPECT_FALSE(labels.varying_vars[var_named(*k, "y")]);
}

// ---------------------------------------------------------------- accepted

TEST(UniformityParticipation, BarrierAtTheTopOfTheBody) {
    expect_proven(check(kernel("        tack.barrier()\n"
                               "        a[i] = a[i] + 1.0\n")));
}

TEST(UniformityParticipation, BarrierUnderAConditionOnAScalarArgument) {
    expect_proven(check(kernel("        if n > 0:\n"
                               "            tack.barrier()\n"
                               "        a[i] = 1.0\n")));
}

TEST(UniformityParticipation, BarrierInALoopOverAScalarArgument) {
    expect_proven(check(kernel("        for k in range(n):\n"
                               "            tack.barrier()\n"
                               "            a[i] = a[i] + 1.0\n")));
}

TEST(UniformityParticipation, VaryingStoreThatReconvergesBeforeTheBarrier) {
    expect_proven(check(kernel("        s = tack.shared(256, tack.f32)\n"
                               "        if a[i] > 0.0:\n"
                               "            s[tack.thread_id()] = a[i]\n"
                               "        else:\n"
                               "            s[tack.thread_id()] = 0.0\n"
                               "        tack.barrier()\n"
                               "        a[i] = s[(tack.thread_id() + 1) % 256]\n")));
}

TEST(UniformityParticipation, BlockSumInAUniformLoop) {
    expect_proven(check(kernel("        t = 0.0\n"
                               "        for k in range(n):\n"
                               "            t = t + tack.block_sum(a[i])\n"
                               "        a[i] = t\n")));
}

TEST(UniformityParticipation, VaryingLoopsWithoutCollectivesReconvergeBeforeABarrier) {
    expect_proven(check(kernel("        t = 0.0\n"
                               "        for k in range(b[i]):\n"
                               "            t = t + 1.0\n"
                               "            if t > a[i]:\n"
                               "                break\n"
                               "        while t > 10.0:\n"
                               "            t = t - 1.0\n"
                               "        tack.barrier()\n"
                               "        a[i] = t\n")));
}

TEST(UniformityParticipation, ACollectiveResultMayGuardABarrier) {
    expect_proven(check(kernel("        if tack.block_sum(a[i]) > 0.0:\n"
                               "            tack.barrier()\n"
                               "        a[i] = 0.0\n")));
}

TEST(UniformityParticipation, AContinueEveryLaneTakesLeavesTheRestUniform) {
    expect_proven(check(kernel("        if n > 5:\n"
                               "            continue\n"
                               "        tack.barrier()\n"
                               "        a[i] = 0.0\n")));
}

TEST(UniformityParticipation, AContinueInOneBranchDoesNotReachTheOtherBranch) {
    // With a uniform `n > 0`, the lanes in the else branch are all of them.
    expect_proven(check(kernel("        if n > 0:\n"
                               "            if a[i] > 0.0:\n"
                               "                continue\n"
                               "        else:\n"
                               "            tack.barrier()\n"
                               "        a[i] = 1.0\n")));
}

TEST(UniformityParticipation, AContinueInOneBranchReachesWhatFollowsTheBranch) {
    expect_rejected(check(kernel("        if n > 0:\n"
                                 "            if a[i] > 0.0:\n"
                                 "                continue\n"
                                 "        else:\n"
                                 "            a[i] = 2.0\n"
                                 "        tack.barrier()\n")),
                    "barrier", 8, kPartialContinue);
}

TEST(UniformityParticipation, AVaryingExitOfAnInnerLoopDoesNotReachTheOuterOne) {
    expect_proven(check(kernel("        for k in range(n):\n"
                               "            for m in range(n):\n"
                               "                if a[i] > 0.0:\n"
                               "                    break\n"
                               "            tack.barrier()\n")));
}

TEST(UniformityParticipation, SharedArraysAndThreadIdNeedNoParticipation) {
    auto p = check(kernel("        s = tack.shared(256, tack.f32)\n"
                          "        if a[i] > 0.0:\n"
                          "            s[tack.thread_id()] = a[i]\n"
                          "            a[i] = s[tack.thread_id()]\n"));
    EXPECT_FALSE(p.has_collectives);
    EXPECT_FALSE(p.failure.has_value());
}

TEST(UniformityParticipation, AnInlinedBarrierUnderUniformControl) {
    auto resolver = std::make_shared<testing::TestResolver>();
    resolver->device_functions["synced"] = "def synced(x):\n    tack.barrier()\n    return x\n";
    expect_proven(check(kernel("        a[i] = synced(a[i])\n"), resolver));
}

// ---------------------------------------------------------------- rejected

TEST(UniformityParticipation, BarrierUnderALoadedCondition) {
    expect_rejected(check(kernel("        if a[i] > 0.0:\n"
                                 "            tack.barrier()\n")),
                    "barrier", 4, kDivergentCondition);
}

TEST(UniformityParticipation, BarrierUnderAConditionOnTheLaneIndex) {
    expect_rejected(check(kernel("        if i % 2 == 0:\n"
                                 "            tack.barrier()\n")),
                    "barrier", 4, kDivergentCondition);
}

TEST(UniformityParticipation, MathematicallyUniformConditionsAreNotProven) {
    // i // 256 is the same in every lane of a 256-lane group, but the
    // proof does not reason about values.
    expect_rejected(check(kernel("        if i // 256 == 0:\n"
                                 "            tack.barrier()\n")),
                    "barrier", 4, kDivergentCondition);
}

TEST(UniformityParticipation, BarrierInAWhileOnALoadedCondition) {
    expect_rejected(check(kernel("        while a[0] > 0.0:\n"
                                 "            tack.barrier()\n"
                                 "            a[i] = a[i] - 1.0\n")),
                    "barrier", 4, kDivergentLoop);
}

TEST(UniformityParticipation, BarrierInALoopWithAVaryingBreak) {
    // The barrier comes before the break, but lanes that broke out miss it
    // on later iterations.
    expect_rejected(check(kernel("        for k in range(n):\n"
                                 "            tack.barrier()\n"
                                 "            if a[i] > 0.0:\n"
                                 "                break\n")),
                    "barrier", 4, kDivergentLoop);
}

TEST(UniformityParticipation, BlockMinInALoopWithAVaryingContinue) {
    expect_rejected(check(kernel("        for k in range(n):\n"
                                 "            if b[i] == k:\n"
                                 "                continue\n"
                                 "            a[i] = tack.block_min(a[i])\n")),
                    "block_min", 6, kDivergentLoop);
}

TEST(UniformityParticipation, BarrierInALoopWithVaryingBounds) {
    expect_rejected(check(kernel("        for k in range(b[i]):\n"
                                 "            tack.barrier()\n")),
                    "barrier", 4, kDivergentLoop);
}

TEST(UniformityParticipation, BarrierAfterAVaryingContinueOfTheParallelLoop) {
    expect_rejected(check(kernel("        if a[i] > 0.0:\n"
                                 "            continue\n"
                                 "        a[i] = 1.0\n"
                                 "        if n > 0:\n"
                                 "            tack.barrier()\n")),
                    "barrier", 7, kPartialContinue);
}

TEST(UniformityParticipation, ALoopCarriedLoadGuardsABarrierOnTheNextIteration) {
    // On the first pass `t` is 0.0 in every lane; the load after the
    // barrier makes the condition vary from the second iteration on.
    expect_rejected(check(kernel("        t = 0.0\n"
                                 "        for k in range(n):\n"
                                 "            if t > 0.0:\n"
                                 "                tack.barrier()\n"
                                 "            t = a[i]\n")),
                    "barrier", 6, kDivergentCondition);
}

// Groups of 256 lanes run iterations in row-major order, so with an
// innermost extent of exactly 256 each group has one value of the outer
// index: a condition on it is uniform. Any other innermost extent (or step)
// mixes outer values within a group.
TEST(UniformityParticipation, TheOuterIndexOfAGroupWideInnermostDimensionIsUniform) {
    expect_proven(check("def k(a, b, n):\n"
                        "    for g, lane in tack.ndindex(n, 256):\n"
                        "        if g % 2 == 0:\n"
                        "            tack.barrier()\n"
                        "        for t in range(g):\n"
                        "            tack.barrier()\n"));
}

TEST(UniformityParticipation, TheOuterIndexVariesUnlessTheInnermostDimensionIsOneGroup) {
    for (const char* inner : {"128", "512", "n"})
        expect_rejected(check(std::string("def k(a, b, n):\n"
                                          "    for g, lane in tack.ndindex(n, ") +
                              inner +
                              "):\n"
                              "        if g % 2 == 0:\n"
                              "            tack.barrier()\n"),
                        "barrier", 4, kDivergentCondition);
    expect_rejected(check("def k(a, b, n):\n"
                          "    for g, lane in tack.ndindex(n, 256):\n"
                          "        if lane == 0:\n"
                          "            tack.barrier()\n"),
                    "barrier", 4, kDivergentCondition);
}

TEST(UniformityParticipation, BlockSumInAConditionalExpressionArm) {
    expect_rejected(check(kernel("        x = tack.block_sum(a[i]) if n > 0 else 0.0\n"
                                 "        a[i] = x\n")),
                    "block_sum", 3, "arm of a conditional expression");
}

TEST(UniformityParticipation, BlockSumInTheRightOperandOfAnd) {
    expect_rejected(check(kernel("        if n > 0 and tack.block_sum(a[i]) > 0.0:\n"
                                 "            a[i] = 0.0\n")),
                    "block_sum", 3, "right operand of `and`");
}

TEST(UniformityParticipation, BlockMaxInAWhileCondition) {
    expect_rejected(check(kernel("        while tack.block_max(a[i]) > 1.0:\n"
                                 "            a[i] = a[i] * 0.5\n")),
                    "block_max", 3, "`while` condition");
}

TEST(UniformityParticipation, TheFirstFailureInSourceOrderIsReported) {
    expect_rejected(check(kernel("        tack.barrier()\n"
                                 "        if a[i] > 0.0:\n"
                                 "            a[i] = tack.block_sum(a[i])\n"
                                 "        if i > 3:\n"
                                 "            tack.barrier()\n")),
                    "block_sum", 5, kDivergentCondition);
}

TEST(UniformityParticipation, AnInlinedBarrierUnderAVaryingConditionOfTheFunction) {
    auto resolver = std::make_shared<testing::TestResolver>();
    resolver->device_functions["sync_if_positive"] =
        "def sync_if_positive(x):\n    if x > 0.0:\n        tack.barrier()\n    return x\n";
    auto p = check(kernel("        a[i] = sync_if_positive(a[i])\n"), resolver);
    expect_rejected(p, "barrier", 3, kDivergentCondition);
    EXPECT_NE(p.failure->span.origin, 0);  // in the device function's source
}

TEST(UniformityParticipation, AnInlinedResultReturnedFromAVaryingBranchVaries) {
    auto resolver = std::make_shared<testing::TestResolver>();
    resolver->device_functions["pick"] = "def pick(x, m):\n    if x > 0.0:\n        return m\n    return m + 1\n";
    expect_rejected(check(kernel("        if pick(a[i], n) > 0:\n"
                                 "            tack.barrier()\n"),
                          resolver),
                    "barrier", 4, kDivergentCondition);
}

// Lowering refuses collectives outside the parallel loop (the prologue may
// only bind locals and load arrays), so the analysis's own rule is checked
// on IR moved there by hand.
TEST(UniformityParticipation, LoweringRefusesABarrierBeforeTheParallelLoop) {
    EXPECT_THROW(check("def k(a, b, n):\n    tack.barrier()\n    for i in range(len(a)):\n        a[i] = 1.0\n"),
                 syntax::CompileError);
}

TEST(UniformityParticipation, ABarrierInThePrologueIsOutsideTheBody) {
    auto k = typed_kernel(kernel("        tack.barrier()\n"
                                 "        a[i] = 1.0\n"),
                          kParams);
    ASSERT_EQ(k->body.front()->kind, ir::StmtKind::Eval);
    k->prologue.push_back(std::move(k->body.front()));
    k->body.erase(k->body.begin());
    expect_rejected(check_participation(*k), "barrier", 3, "outside the parallel loop body");
}

}  // namespace
}  // namespace tack
