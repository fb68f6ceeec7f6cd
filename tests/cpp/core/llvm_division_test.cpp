// The control flow emit_llvm gives LLVM around integer division: a
// divisor that can trap (0, and -1 when signed) takes a branch to the
// special value; a constant divisor other than 0 and -1 needs none, so a
// tile kernel's index arithmetic (divisions by its tiles' extents) reaches
// LLVM as straight code. Values are the same either way
// (test_integer_division.py checks them); this is the form.
#include <gtest/gtest.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cctype>
#include <string>
#include <vector>

#include "codegen/llvm/emit_llvm.h"
#include "test_support.h"

namespace tack {
namespace {

using testing::array_of;
using testing::typed_kernel;

// The names of the blocks of the kernel's body, without their numbers.
std::vector<std::string> body_blocks(const std::string& text, const std::vector<driver::ParamFacts>& params) {
    auto k = typed_kernel(text, params);
    llvm::LLVMContext ctx;
    codegen::EntryNames names;
    auto m = codegen::emit_llvm(*k, ctx, "k", {}, &names);
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

TEST(LlvmDivision, AConstantDivisorNeedsNoBranch) {
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

}  // namespace
}  // namespace tack
