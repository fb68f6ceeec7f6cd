// The control flow emit_llvm gives LLVM: a conditional expression or a
// later `and`/`or` operand that has no effect, cannot fault and costs little
// is a select rather than branches; one that loads, calls or divides by a
// run-time divisor keeps its branches (the contract evaluates only the
// selected arm); a constant divisor other than 0 and -1 needs no branch;
// sequential loops arrive rotated (their test at the latch). Values are
// the same either way; these forms are what keeps the loop passes' time
// down on kernels of thousands of small loops (the tile layer's).
#include <gtest/gtest.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <string>
#include <vector>

#include "codegen/llvm/emit_llvm.h"
#include "test_support.h"

namespace tack {
namespace {

using testing::array_of;
using testing::scalar_of;
using testing::typed_kernel;

// The names of the blocks of the kernel's body, without their numbers.
std::vector<std::string> body_blocks(const std::string& text, const std::vector<driver::ParamFacts>& params,
                                     bool debug = false) {
    auto k = typed_kernel(text, params);
    llvm::LLVMContext ctx;
    codegen::EntryNames names;
    codegen::EmitOptions options;
    options.debug = debug;
    auto m = codegen::emit_llvm(*k, ctx, "k", options, &names);
    std::vector<std::string> out;
    llvm::Function* body = m->getFunction(names.body);
    EXPECT_NE(body, nullptr);
    if (!body) return out;
    for (llvm::BasicBlock& b : *body) {
        std::string name = b.getName().str();
        while (!name.empty() && std::isdigit(static_cast<unsigned char>(name.back()))) name.pop_back();
        out.push_back(name);
    }
    return out;
}

bool has(const std::vector<std::string>& blocks, const std::string& name) {
    for (const std::string& b : blocks)
        if (b == name) return true;
    return false;
}

const std::vector<driver::ParamFacts> kIntArrays = {array_of(DType::I64), array_of(DType::I64)};

TEST(LlvmControlFlow, ConditionalExpressionsOfLocalsAreSelects) {
    auto blocks = body_blocks(
        "def k(x, y):\n"
        "    for i in range(len(x)):\n"
        "        a = x[i]\n"
        "        y[i] = a * 3 + 1 if a > 0 else (a // 4 if a < -8 else -a)\n",
        kIntArrays);
    EXPECT_FALSE(has(blocks, "sel.true"));
    EXPECT_FALSE(has(blocks, "div.special"));
}

TEST(LlvmControlFlow, ArmsThatLoadOrDivideByAVariableKeepTheirBranches) {
    EXPECT_TRUE(has(body_blocks("def k(x, y):\n"
                                "    for i in range(len(x)):\n"
                                "        y[i] = x[i + 1] if i + 1 < len(x) else 0\n",
                                kIntArrays),
                    "sel.true"));
    EXPECT_TRUE(has(body_blocks("def k(x, y):\n"
                                "    for i in range(len(x)):\n"
                                "        a = x[i]\n"
                                "        q = y[i]\n"
                                "        y[i] = a // q if q != 0 else -1\n",
                                kIntArrays),
                    "sel.true"));
    // Debug mode reports a zero divisor: no division is evaluated where the
    // source would not evaluate it.
    EXPECT_TRUE(has(body_blocks("def k(x, y):\n"
                                "    for i in range(len(x)):\n"
                                "        a = x[i]\n"
                                "        y[i] = a // 4 if a > 0 else 0\n",
                                kIntArrays, /*debug=*/true),
                    "sel.true"));
}

TEST(LlvmControlFlow, LaterOperandsOfAndOrAreSelectsWhenTheyMayBeEvaluated) {
    auto plain = body_blocks(
        "def k(x, y):\n"
        "    for i in range(len(x)):\n"
        "        a = x[i]\n"
        "        y[i] = 1 if (a > 0 and a % 3 != 0) or a < -5 else 0\n",
        kIntArrays);
    EXPECT_FALSE(has(plain, "and.rhs"));
    EXPECT_FALSE(has(plain, "or.rhs"));
    auto loads = body_blocks(
        "def k(x, y):\n"
        "    for i in range(len(x)):\n"
        "        y[i] = 1 if i + 1 < len(x) and x[i + 1] > 0 else 0\n",
        kIntArrays);
    EXPECT_TRUE(has(loads, "and.rhs"));
}

TEST(LlvmControlFlow, AConstantDivisorNeedsNoBranch) {
    EXPECT_FALSE(has(body_blocks("def k(x, y):\n"
                                 "    for i in range(len(x)):\n"
                                 "        y[i] = x[i] // 7 + x[i] % -3\n",
                                 kIntArrays),
                     "div.special"));
    // 0 and -1 are the divisors that trap: their branch stays.
    EXPECT_TRUE(has(body_blocks("def k(x, y):\n"
                                "    for i in range(len(x)):\n"
                                "        y[i] = x[i] // -1\n",
                                kIntArrays),
                    "div.special"));
    EXPECT_TRUE(has(body_blocks("def k(x, y):\n"
                                "    for i in range(len(x)):\n"
                                "        y[i] = x[i] // y[i]\n",
                                kIntArrays),
                    "div.special"));
}

TEST(LlvmControlFlow, SequentialLoopsArriveRotated) {
    auto k = typed_kernel(
        "def k(x, y, n):\n"
        "    for i in range(len(x)):\n"
        "        s = 0\n"
        "        for j in range(n):\n"
        "            if j == 5:\n"
        "                continue\n"
        "            s += x[i] * j\n"
        "        y[i] = s\n",
        {array_of(DType::I64), array_of(DType::I64), scalar_of(DType::I64)});
    llvm::LLVMContext ctx;
    codegen::EntryNames names;
    auto m = codegen::emit_llvm(*k, ctx, "k", {}, &names);
    llvm::Function* body = m->getFunction(names.body);
    ASSERT_NE(body, nullptr);
    int latches = 0;
    for (llvm::BasicBlock& b : *body) {
        EXPECT_FALSE(b.getName().starts_with("for.head")) << b.getName().str();
        if (!b.getName().starts_with("for.latch")) continue;
        ++latches;
        // The latch tests the next trip: a conditional branch back to the
        // body or out of the loop.
        auto* br = llvm::dyn_cast<llvm::BranchInst>(b.getTerminator());
        ASSERT_NE(br, nullptr);
        ASSERT_TRUE(br->isConditional());
        EXPECT_TRUE(br->getSuccessor(0)->getName().starts_with("for.body"));
        EXPECT_TRUE(br->getSuccessor(1)->getName().starts_with("for.exit"));
    }
    EXPECT_EQ(latches, 1);
}

}  // namespace
}  // namespace tack
