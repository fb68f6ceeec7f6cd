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
    for (auto& v : k->vars) {
        if (v.name == "s") {
            EXPECT_EQ(v.type, DType::F32);
        }
    }
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

// The numbers the front end adds beside a user's integer (IntConst::adopts)
// take that integer's type where theirs cannot be mixed with it, and only
// there: range(n) counts in u64 for a u64 n and in i32 for an i8 one.
TEST(InferTypes, ImplicitRangeStartsAndStepsJoinOnlyWhereTheyCan) {
    auto loop_type = [](DType bound) {
        auto k = typed_kernel(
            "def k(out, n):\n"
            "    for i in range(len(out)):\n"
            "        for j in range(n):\n"
            "            out[i] = 1\n",
            {array_of(DType::I32), scalar_of(bound)});
        for (auto& v : k->vars)
            if (v.name == "j") return *v.type;
        return DType::F64;
    };
    EXPECT_EQ(loop_type(DType::U64), DType::U64);
    EXPECT_EQ(loop_type(DType::I8), DType::I32);
    EXPECT_EQ(loop_type(DType::U32), DType::I64);
    EXPECT_EQ(loop_type(DType::I64), DType::I64);
}

// A runtime index chooses among the components in the type of them all
// together (Select::joins_all), and compares itself, and a matrix's row and
// column each, in its own type.
TEST(InferTypes, ARuntimeComponentChoiceHasTheTypeOfAllTheComponents) {
    std::vector<driver::ParamFacts> p{array_of(DType::F64), array_of(DType::I64), array_of(DType::U64)};
    // i16, u64, f32: no integer type holds the first two; the float takes all.
    EXPECT_EQ(stored_type("tack.vec3(tack.i16(a[i]), b[i], tack.f32(a[i]))[b[i]]", p), DType::F32);
    EXPECT_EQ(stored_type("tack.vec3(tack.f32(a[i]), b[i], tack.f64(a[i]))[a[i]]", p), DType::F64);
    EXPECT_EQ(stored_type("tack.vec2(tack.i8(a[i]), tack.u16(a[i]))[b[i]]", p), DType::I32);
    // A u64 row beside an i64 column.
    EXPECT_EQ(stored_type("tack.mat2(tack.i16(a[i]), b[i], tack.f32(a[i]), 1)[b[i] & tack.u64(1), a[i] & 1]", p),
              DType::F32);
    try {
        stored_type("tack.vec2(tack.i16(a[i]), b[i])[a[i]]", p);
        FAIL() << "an i16 and a u64 alone have no common type";
    } catch (const syntax::CompileError& e) {
        EXPECT_NE(e.diagnostic().message.find("explicit cast"), std::string::npos);
        EXPECT_EQ(e.diagnostic().span.line, 3);
    }
}

}  // namespace
}  // namespace tack
