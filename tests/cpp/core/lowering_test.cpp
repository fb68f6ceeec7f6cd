// Lowering: the parallel loop's shape, evaluation-order temporaries,
// inlining, and diagnostics with positions.
#include <gtest/gtest.h>

#include "ir/verify.h"
#include "test_support.h"

namespace tack {
namespace {

using testing::array_of;
using testing::scalar_of;
using testing::typed_kernel;

syntax::Diagnostic diagnostic_of(const std::string& text, std::vector<driver::ParamFacts> params,
                                 std::shared_ptr<testing::TestResolver> r = nullptr) {
    try {
        typed_kernel(text, params, r);
    } catch (const syntax::CompileError& e) {
        return e.diagnostic();
    }
    ADD_FAILURE() << "no diagnostic for:\n" << text;
    return {};
}

TEST(Lowering, RangeStartAndStepShapeTheIterationSpace) {
    auto k = typed_kernel(
        "def k(a):\n"
        "    for i in range(3, len(a), 2):\n"
        "        a[i] = 1\n",
        {array_of(DType::I32)});
    ASSERT_EQ(k->dims.size(), 1u);
    EXPECT_NE(k->dims[0].step, nullptr);
    EXPECT_EQ(k->vars[k->dims[0].var].type, DType::I64);
}

TEST(Lowering, NdindexGivesOneDimensionPerTarget) {
    auto k = typed_kernel(
        "def k(a):\n"
        "    for i, j in tack.ndindex(a.shape[0], (1, a.shape[1] - 1)):\n"
        "        a[i, j] = 1\n",
        {array_of(DType::I32, 2)});
    EXPECT_EQ(k->dims.size(), 2u);
}

TEST(Lowering, InlinedFunctionsGetTheirOwnOrigin) {
    auto r = std::make_shared<testing::TestResolver>();
    r->device_functions["bad"] =
        "def bad(x):\n"
        "    return x + undefined_name\n";
    auto d = diagnostic_of(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = bad(a[i])\n",
        {array_of(DType::I32)}, r);
    EXPECT_EQ(d.kind, syntax::ErrorKind::Name);
    EXPECT_EQ(d.function, "bad");
    EXPECT_EQ(d.function_kind, "device function");
    EXPECT_EQ(d.span.line, 2);
    EXPECT_EQ(d.span.col, 16);
}

TEST(Lowering, StoresOutsideTheParallelLoopAreRejected) {
    auto d = diagnostic_of(
        "def k(a):\n"
        "    a[0] = 1\n"
        "    for i in range(len(a)):\n"
        "        a[i] = 1\n",
        {array_of(DType::I32)});
    EXPECT_EQ(d.kind, syntax::ErrorKind::Unsupported);
    EXPECT_EQ(d.span.line, 2);
    EXPECT_NE(d.message.find("outside the parallel loop"), std::string::npos);
}

TEST(Lowering, BreakFromTheParallelLoopIsRejectedWithAHint) {
    auto d = diagnostic_of(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        break\n",
        {array_of(DType::I32)});
    EXPECT_EQ(d.span.line, 3);
    EXPECT_EQ(d.span.col, 9);
    EXPECT_NE(d.hint.find("continue"), std::string::npos);
}

TEST(Lowering, WrongIndexCountNamesTheArray) {
    auto d = diagnostic_of(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        a[i, i, i] = 1\n",
        {array_of(DType::I32, 2)});
    EXPECT_EQ(d.kind, syntax::ErrorKind::Type);
    EXPECT_NE(d.message.find("array 'a' has 2 dimensions"), std::string::npos);
}

TEST(Lowering, ScalarParametersAssignedInTheLoopAreLocalizedPerIteration) {
    auto k = typed_kernel(
        "def k(a, value):\n"
        "    for i in range(len(a)):\n"
        "        value = value + 1\n"
        "        a[i] = value\n",
        {array_of(DType::I32), scalar_of(DType::I32)});
    // The body starts by seeding a fresh local from the parameter.
    auto* seed = k->body.front()->as<ir::Assign>();
    ASSERT_NE(seed, nullptr);
    EXPECT_EQ(k->vars[seed->var].role, ir::VarRole::Local);
    auto* from = seed->value->as<ir::VarRef>();
    ASSERT_NE(from, nullptr);
    EXPECT_EQ(k->vars[from->var].role, ir::VarRole::Param);
}

}  // namespace
}  // namespace tack
