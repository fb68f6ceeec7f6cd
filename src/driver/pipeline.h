// The compiler pipeline, as a script: source -> syntax tree -> kernel IR
// template -> typed variant -> LLVM -> machine code. `tackc --ir` and
// inspect("ir") print the IR after each pass through the observer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/llvm/jit.h"
#include "frontend/lower.h"
#include "ir/ir.h"
#include "syntax/ast.h"

namespace tack::driver {

using PassObserver = std::function<void(const char* pass, const ir::Kernel& k)>;

// Lowering: validation, resolution, inlining, iteration-state localization.
// The template is cached and never mutated afterwards.
std::unique_ptr<ir::Kernel> build_template(const syntax::FunctionDef& fn, std::shared_ptr<frontend::Resolver> resolver,
                                           const std::vector<frontend::ParamShape>& shapes,
                                           const PassObserver& observe = {});

// The facts a variant bakes in about one parameter.
struct ParamFacts {
    bool is_array = false;  // a kernel parameter that is an array (local arrays are not parameters)
    DType dtype = DType::I32;
    int ndim = 0;
    bool contiguous = true;
    std::vector<int> element_shape;  // arrays of vector or matrix elements
    bool soa = false;                // their layout: a structure of arrays
    bool texture = false;            // a 3D texture's f32 snapshot, (depth, height, width)
};

// A typed copy of the template for these argument facts.
std::unique_ptr<ir::Kernel> specialize(const ir::Kernel& tmpl, const std::vector<ParamFacts>& params,
                                       DType float_precision, const PassObserver& observe = {});

#ifdef TACK_WITH_LLVM
// Emits and JIT-compiles a typed kernel. `unique_prefix` names its symbols.
codegen::CompiledCpuKernel compile_cpu(const ir::Kernel& typed, const std::string& unique_prefix, bool keep_ir,
                                       const codegen::EmitOptions& options = {},
                                       std::vector<codegen::DebugAccess>* debug_accesses = nullptr);
// The runtime's functions that CPU kernels call (print, debug reports),
// for the JIT to link them.
const codegen::HostSymbols& host_symbols();

// The LLVM IR of a typed kernel, optimized as compile_cpu would.
std::string llvm_ir(const ir::Kernel& typed, bool optimized, const codegen::EmitOptions& options = {});
#endif

}  // namespace tack::driver
