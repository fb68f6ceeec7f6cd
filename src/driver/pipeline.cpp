#include "driver/pipeline.h"

#include "analysis/infer_types.h"
#include "ir/verify.h"
#include "transforms/localize_iteration_state.h"

#ifdef TACK_WITH_LLVM
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/llvm/emit_llvm.h"
#include "runtime/debug_checks.h"
#include "runtime/print.h"
#endif

namespace tack::driver {

std::unique_ptr<ir::Kernel> build_template(const syntax::FunctionDef& fn, std::shared_ptr<frontend::Resolver> resolver,
                                           const std::vector<frontend::ParamShape>& shapes,
                                           const PassObserver& observe) {
    auto k = frontend::lower_kernel(fn, std::move(resolver), shapes);
    ir::verify(*k, ir::Stage::Lowered, "lower_kernel");
    if (observe) observe("lower_kernel", *k);

    transforms::localize_iteration_state(*k);
    ir::verify(*k, ir::Stage::Lowered, "localize_iteration_state");
    if (observe) observe("localize_iteration_state", *k);
    return k;
}

std::unique_ptr<ir::Kernel> specialize(const ir::Kernel& tmpl, const std::vector<ParamFacts>& params,
                                       DType float_precision, const PassObserver& observe) {
    auto k = ir::clone(tmpl);
    // Local arrays follow the call parameters and keep their declared facts.
    for (size_t i = 0; i < params.size(); ++i) {
        k->params[i].dtype = params[i].dtype;
        k->params[i].ndim = params[i].ndim;
        k->params[i].contiguous = params[i].contiguous;
        k->params[i].element_shape = params[i].element_shape;
        k->params[i].soa = params[i].soa;
    }
    analysis::infer_types(*k, float_precision);
    ir::verify(*k, ir::Stage::Typed, "infer_types");
    if (observe) observe("infer_types", *k);
    return k;
}

#ifdef TACK_WITH_LLVM
const codegen::HostSymbols& host_symbols() {
    static const codegen::HostSymbols symbols = {
        {"tack_rt_print", reinterpret_cast<void*>(&tack_rt_print)},
        {"tack_rt_bounds_failure", reinterpret_cast<void*>(&tack_rt_bounds_failure)},
    };
    return symbols;
}

codegen::CompiledCpuKernel compile_cpu(const ir::Kernel& typed, const std::string& unique_prefix, bool keep_ir,
                                       const codegen::EmitOptions& options,
                                       std::vector<codegen::DebugAccess>* debug_accesses) {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    codegen::EntryNames names;
    auto m = codegen::emit_llvm(typed, *ctx, unique_prefix, options, &names, debug_accesses);
    return codegen::jit_compile(std::move(m), std::move(ctx), names, host_symbols(), keep_ir);
}

std::string llvm_ir(const ir::Kernel& typed, bool optimized, const codegen::EmitOptions& options) {
    llvm::LLVMContext ctx;
    codegen::EntryNames names;
    auto m = codegen::emit_llvm(typed, ctx, "tack.inspect", options, &names);
    if (optimized) return codegen::optimize_and_print(*m);
    std::string s;
    llvm::raw_string_ostream os(s);
    m->print(os, nullptr);
    return os.str();
}
#endif

}  // namespace tack::driver
