// The process's LLVM ORC JIT for CPU kernels.
//
// Modules are optimized with the new pass manager for the host CPU (O3, no
// fast-math), compiled, and looked up. Each compiled variant keeps the
// resource tracker that owns its code, so code never outlives the JIT that
// made it.
#pragma once

#include <memory>
#include <string>

#include "codegen/llvm/abi.h"
#include "codegen/llvm/emit_llvm.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tack::codegen {

struct CompiledCpuKernel {
    CountFn count = nullptr;
    BodyFn body = nullptr;
    ResultFn result = nullptr;
    std::string optimized_ir;  // kept only when asked for
    std::shared_ptr<void> owner;  // releases the code
};

// The host CPU's name and features, for cache keys and messages.
std::string host_cpu_description();

// Optimizes and compiles `m`. `keep_ir` keeps the optimized IR text.
CompiledCpuKernel jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                              const EntryNames& names, bool keep_ir);

// Optimizes `m` in place as jit_compile would and prints it.
std::string optimize_and_print(llvm::Module& m);

}  // namespace tack::codegen
