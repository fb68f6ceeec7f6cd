// The process's LLVM ORC JIT for CPU kernels.
//
// Modules are optimized with the new pass manager for the host CPU (O3, no
// fast-math) and compiled to a relocatable object in memory, which the JIT
// then links. The object bytes are kept so the disk cache can store them and
// a later process can link them without LLVM's optimizer or code generator.
// Each compile borrows a target machine of its own, so modules of separate
// contexts optimize and compile at once on separate threads (two kernels'
// compiles, or a variant's two modules); only linking takes the JIT's lock.
//
// A variant's objects (its module's, and its lanes body's scalar program's
// where that compiled apart) are linked into a JITDylib of their own. An
// object's symbol names are fixed when it is compiled, possibly by another
// process, so two loads of one cached object (two kernels from one cache
// entry, or one kernel created twice) would collide in a shared symbol
// table. The private dylib
// links to the main one for the C library and the runtime's helpers, and
// releasing the variant removes the dylib, so code never outlives the JIT
// that linked it.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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
    std::optional<DType> result_type;  // the kernel's return type; set by the runtime
    std::string optimized_ir;  // kept only when asked for
    std::string object;        // the relocatable object the code was linked from
    std::string scalar_object; // the lanes body's scalar program, where compiled apart (or empty)
    EntryNames entry_names;    // its entry points' symbol names
    std::shared_ptr<void> owner;  // releases the code
};

// The width of the target CPU's SIMD registers in bits (512 with AVX-512,
// 256 with AVX, 128 with SSE2 or NEON), 0 when unknown. The target is the
// host, or the CPU that TACK_CPU_TARGET names (an LLVM CPU name such as
// "x86-64-v3" or "znver3"): code for an older CPU of the host's family,
// which runs on the host, as on every CPU at least as capable.
int host_vector_bits();

// The register block in which a tile kernel's mma accumulates on the target
// CPU (tile::CompileOptions::mma_block): the accumulators and one row of
// each operand in vector registers, 4x4 with the 32 of AVX-512 or NEON
// (24 of them), 4x2 with the 16 of AVX or SSE (14). Measured on Zen 3
// (AVX2): 4x4 spilled and ran 1.4-1.7x slower than 4x2.
std::array<int, 2> host_mma_block();

// Everything object code depends on besides its IR: the target triple, CPU
// and features, relocation and code models, the optimization pipeline and
// LLVM's version. Objects made under one description link and run only
// where the description is the same.
const std::string& target_description();

// Functions of the host process that compiled code calls by name (print,
// debug reports), which the extension module does not export. The driver
// names them: codegen never includes the runtime. Every call passes the same
// list; the JIT defines it when it first links an object.
struct HostSymbol {
    const char* name;
    void* address;
};
using HostSymbols = std::vector<HostSymbol>;

// Optimizes and compiles `m`, and the lanes body's scalar program where
// emit_llvm put it in a module of its own (`scalar`, in its own context: it
// optimizes and compiles on a second thread meanwhile, and is released).
// `keep_ir` keeps the optimized IR text.
CompiledCpuKernel jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                              const EntryNames& names, const HostSymbols& host, bool keep_ir,
                              ScalarBodyModule* scalar = nullptr);

// Links objects made by jit_compile (the scalar program's may be empty), in
// this process or another, and looks up their entry points. Returns nothing
// and sets `error` when the objects cannot be linked; the caller then
// compiles afresh.
std::optional<CompiledCpuKernel> load_object(std::string object, std::string scalar_object, const EntryNames& names,
                                             const HostSymbols& host, std::string* error);

// Optimizes `m` in place as jit_compile would and prints it.
std::string optimize_and_print(llvm::Module& m);

}  // namespace tack::codegen
