// Type annotation: integer promotion, true division, weak float literals,
// joins of assignments, and the explicit casts the pass inserts.
#include <gtest/gtest.h>

#include "analysis/infer_types.h"
#include "test_support.h"

namespace tack {
namespace {

using analysis::promote_int;
using testing::array_of;
using testing::scalar_of;
using testing::typed_kernel;

TEST(PromoteInt, NarrowestTypeHoldingBothRanges) {
    EXPECT_EQ(promote_int(DType::I8, DType::I8), DType::I8);
    EXPECT_EQ(promote_int(DType::I8, DType::I32), DType::I32);
    EXPECT_EQ(promote_int(DType::U8, DType::U32), DType::U32);
    EXPECT_EQ(promote_int(DType::I8, DType::U8), DType::I16);
    EXPECT_EQ(promote_int(DType::I8, DType::U16), DType::I32);
    EXPECT_EQ(promote_int(DType::I16, DType::U32), DType::I64);
    EXPECT_EQ(promote_int(DType::I32, DType::U32), DType::I64);
    EXPECT_EQ(promote_int(DType::I64, DType::U32), DType::I64);
    EXPECT_EQ(promote_int(DType::I64, DType::U8), DType::I64);
}

TEST(PromoteInt, SignedWithU64HasNoCommonType) {
    for (DType s : {DType::I8, DType::I16, DType::I32, DType::I64}) {
        EXPECT_FALSE(promote_int(s, DType::U64).has_value());
        EXPECT_FALSE(promote_int(DType::U64, s).has_value());
    }
    EXPECT_EQ(promote_int(DType::U8, DType::U64), DType::U64);
}

// The type the kernel's only store computes, before its conversion to the
// array's dtype.
DType stored_type(const std::string& expr, std::vector<driver::ParamFacts> params) {
    std::string text = "def k(out, a, b):\n    for i in range(len(out)):\n        out[i] = " + expr + "\n";
    auto k = typed_kernel(text, params);
    auto* st = k->body.back()->as<ir::Store>();
    const ir::Expr* v = st->value.get();
    if (auto* c = v->as<ir::Cast>()) v = c->operand.get();
    return v->dtype();
}

TEST(InferTypes, TrueDivisionOfIntegersIsF32) {
    EXPECT_EQ(stored_type("a[i] / b[i]", {array_of(DType::F64), array_of(DType::I64), array_of(DType::I64)}),
              DType::F32);
}

TEST(InferTypes, FloorDivisionStaysInteger) {
    EXPECT_EQ(stored_type("a[i] // b[i]", {array_of(DType::I64), array_of(DType::I8), array_of(DType::U16)}),
              DType::I32);
}

TEST(InferTypes, IntegerPowerKeepsTheBaseType) {
    EXPECT_EQ(stored_type("a[i] ** b[i]", {array_of(DType::I64), array_of(DType::I8), array_of(DType::U64)}),
              DType::I8);
}

TEST(InferTypes, WeakLiteralTakesTheOtherOperandsFloatType) {
    EXPECT_EQ(stored_type("a[i] * 0.1", {array_of(DType::F64), array_of(DType::F64), array_of(DType::F64)}),
              DType::F64);
    EXPECT_EQ(stored_type("a[i] * 0.1", {array_of(DType::F64), array_of(DType::F32), array_of(DType::F64)}),
              DType::F32);
    // An integer with a weak literal is an f32 value.
    EXPECT_EQ(stored_type("a[i] * 0.1", {array_of(DType::F64), array_of(DType::I64), array_of(DType::F64)}),
              DType::F32);
}

TEST(InferTypes, SignedWithU64IsATypeErrorAtTheOperation) {
    try {
        stored_type("a[i] + b[i]", {array_of(DType::I64), array_of(DType::I32), array_of(DType::U64)});
        FAIL() << "expected a type error";
    } catch (const syntax::CompileError& e) {
        EXPECT_EQ(e.diagnostic().kind, syntax::ErrorKind::Type);
        EXPECT_EQ(e.diagnostic().span.line, 3);
        EXPECT_NE(e.diagnostic().message.find("explicit cast"), std::string::npos);
    }
}

TEST(InferTypes, LocalsTakeTheJoinOfTheirAssignments) {
    auto k = typed_kernel(
        "def k(out, a):\n"
        "    for i in range(len(out)):\n"
        "        s = 0\n"
        "        for j in range(3):\n"
        "            s = s + a[i]\n"
        "        out[i] = s\n",
        {array_of(DType::F32), array_of(DType::F32)});
    for (auto& v : k->vars)
        if (v.name == "s") EXPECT_EQ(v.type, DType::F32);
}

TEST(InferTypes, ConversionsAreExplicitCasts) {
    auto k = typed_kernel(
        "def k(out, a):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = a[i]\n",
        {array_of(DType::I8), array_of(DType::F64)});
    auto* st = k->body.back()->as<ir::Store>();
    auto* c = st->value->as<ir::Cast>();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->to, DType::I8);
    EXPECT_EQ(c->operand->dtype(), DType::F64);
}

}  // namespace
}  // namespace tack
