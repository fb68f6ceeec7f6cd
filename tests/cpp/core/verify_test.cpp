// The verifier names the pass and the node it rejects.
#include <gtest/gtest.h>

#include "ir/verify.h"
#include "test_support.h"

namespace tack {
namespace {

using namespace ir;

std::unique_ptr<Kernel> minimal_kernel() {
    auto k = std::make_unique<Kernel>();
    k->name = "k";
    Param a;
    a.name = "a";
    a.kind = ParamKind::Array;
    a.ndim = 1;
    k->params.push_back(a);
    ParallelDim d;
    d.var = k->add_var("i", VarRole::LoopVar);
    auto zero = std::make_unique<IntConst>();
    d.start = std::move(zero);
    auto len = std::make_unique<ArrayDim>();
    len->array = 0;
    d.end = std::move(len);
    k->dims.push_back(std::move(d));
    return k;
}

std::string failure_of(const Kernel& k, Stage stage) {
    try {
        verify(k, stage, "test_pass");
    } catch (const syntax::CompileError& e) {
        return e.what();
    }
    return "";
}

TEST(Verify, AcceptsAMinimalKernel) { EXPECT_EQ(failure_of(*minimal_kernel(), Stage::Lowered), ""); }

TEST(Verify, RejectsBreakOutsideALoop) {
    auto k = minimal_kernel();
    k->body.push_back(std::make_unique<Break>());
    auto msg = failure_of(*k, Stage::Lowered);
    EXPECT_NE(msg.find("test_pass"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Break outside a loop"), std::string::npos) << msg;
}

TEST(Verify, RejectsUndefinedLocals) {
    auto k = minimal_kernel();
    auto a = std::make_unique<Assign>();
    a->var = 42;
    a->value = std::make_unique<IntConst>();
    k->body.push_back(std::move(a));
    EXPECT_NE(failure_of(*k, Stage::Lowered).find("undefined local %42"), std::string::npos);
}

TEST(Verify, RejectsStoresToScalars) {
    auto k = minimal_kernel();
    Param s;
    s.name = "s";
    k->params.push_back(s);
    auto st = std::make_unique<Store>();
    st->array = 1;
    st->value = std::make_unique<IntConst>();
    st->indices.push_back(std::make_unique<IntConst>());
    k->body.push_back(std::move(st));
    EXPECT_NE(failure_of(*k, Stage::Lowered).find("not an array"), std::string::npos);
}

TEST(Verify, TypedStageRequiresEveryType) {
    auto k = minimal_kernel();
    auto msg = failure_of(*k, Stage::Typed);
    EXPECT_NE(msg.find("has no type"), std::string::npos) << msg;
}

TEST(Verify, TypedStageRejectsOperandMismatch) {
    auto k = testing::typed_kernel(
        "def k(a, b):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = a[i] + b[i]\n",
        {testing::array_of(DType::F32), testing::array_of(DType::F32)});
    EXPECT_EQ(failure_of(*k, Stage::Typed), "");
    // Break the agreement of a stored value and its array.
    k->params[0].dtype = DType::F64;
    EXPECT_NE(failure_of(*k, Stage::Typed).find("stored value has type f32, expected f64"), std::string::npos);
}

}  // namespace
}  // namespace tack
