// Direct LLVM generation refuses workgroup primitives as the driver does
// (contract, "Workgroups and synchronization"): the CPU has no workgroups,
// and a kernel containing one anywhere, even where it never runs, is an
// UnsupportedError naming the kernel, the CPU backend and the primitives.
#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emit_llvm.h"
#include "test_support.h"

namespace tack {
namespace {

using testing::array_of;
using testing::typed_kernel;

TEST(CpuWorkgroups, DirectGenerationRefusesEveryPrimitiveWhereverItStands) {
    auto k = typed_kernel(
        "def k(a):\n"
        "    for i in range(len(a)):\n"
        "        if i > 1000000000:\n"
        "            tack.barrier()\n"
        "        a[i] = tack.f32(tack.thread_id())\n",
        {array_of(DType::F32)});
    llvm::LLVMContext ctx;
    codegen::EntryNames names;
    try {
        codegen::emit_llvm(*k, ctx, "k", {}, &names);
        FAIL() << "emit_llvm accepted a barrier";
    } catch (const syntax::CompileError& e) {
        const auto& d = e.diagnostic();
        EXPECT_EQ(d.kind, syntax::ErrorKind::Unsupported);
        EXPECT_EQ(d.span.line, 4);
        EXPECT_EQ(d.construct, "barrier");
        EXPECT_NE(d.message.find("tack.barrier() needs workgroups, which the CPU backend does not have (the kernel "
                                 "uses tack.barrier(), tack.thread_id())"),
                  std::string::npos)
            << d.message;
    }
}

}  // namespace
}  // namespace tack
