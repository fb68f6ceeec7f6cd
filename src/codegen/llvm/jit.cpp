#include "codegen/llvm/jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>

#include "runtime/print.h"
#include "syntax/source.h"

namespace tack::codegen {

namespace {

constexpr const char* kPass = "jit";

std::string to_string(llvm::Error err) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << err;
    return os.str();
}

struct Jit {
    std::unique_ptr<llvm::orc::LLJIT> lljit;
    std::unique_ptr<llvm::TargetMachine> tm;
    std::mutex mutex;
};

Jit& jit() {
    static Jit* instance = [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        auto* j = new Jit();
        auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
        if (!jtmb) syntax::internal_error(kPass, "cannot detect the host: " + to_string(jtmb.takeError()));
        jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
        auto tm = jtmb->createTargetMachine();
        if (!tm) syntax::internal_error(kPass, "no target machine: " + to_string(tm.takeError()));
        j->tm = std::move(*tm);
        auto built = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
        if (!built) syntax::internal_error(kPass, "cannot create the JIT: " + to_string(built.takeError()));
        j->lljit = std::move(*built);
        // Kernels call the C math library (sinf, pow, ...) of this process.
        auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            j->lljit->getDataLayout().getGlobalPrefix());
        if (!gen) syntax::internal_error(kPass, "no process symbol generator: " + to_string(gen.takeError()));
        j->lljit->getMainJITDylib().addGenerator(std::move(*gen));
        // The runtime's helpers, which the extension module does not export.
        llvm::orc::SymbolMap runtime_symbols;
        runtime_symbols[j->lljit->mangleAndIntern("tack_rt_print")] = {
            llvm::orc::ExecutorAddr::fromPtr(&tack_rt_print), llvm::JITSymbolFlags::Exported};
        if (auto err = j->lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime_symbols))))
            syntax::internal_error(kPass, "cannot define runtime symbols: " + to_string(std::move(err)));
        return j;
    }();
    return *instance;
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm) {
    m.setDataLayout(tm.createDataLayout());
    m.setTargetTriple(tm.getTargetTriple().str());
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    llvm::PassBuilder pb(&tm, pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    auto mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(m, mam);
}

}  // namespace

std::string host_cpu_description() {
    std::string s = llvm::sys::getHostCPUName().str();
    for (auto& f : llvm::sys::getHostCPUFeatures())
        if (f.second) s += "," + f.first().str();
    return s;
}

std::string optimize_and_print(llvm::Module& m) {
    Jit& j = jit();
    {
        std::lock_guard<std::mutex> lock(j.mutex);
        optimize(m, *j.tm);
    }
    std::string s;
    llvm::raw_string_ostream os(s);
    m.print(os, nullptr);
    return os.str();
}

CompiledCpuKernel jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                              const EntryNames& names, bool keep_ir) {
    Jit& j = jit();
    std::lock_guard<std::mutex> lock(j.mutex);
    optimize(*m, *j.tm);
    CompiledCpuKernel out;
    if (keep_ir) {
        llvm::raw_string_ostream os(out.optimized_ir);
        m->print(os, nullptr);
    }
    auto& dylib = j.lljit->getMainJITDylib();
    auto tracker = dylib.createResourceTracker();
    if (auto err = j.lljit->addIRModule(tracker, llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
        syntax::internal_error(kPass, "cannot add module: " + to_string(std::move(err)));
    auto lookup = [&](const std::string& name) -> void* {
        if (name.empty()) return nullptr;
        auto sym = j.lljit->lookup(name);
        if (!sym) syntax::internal_error(kPass, "symbol " + name + " not found: " + to_string(sym.takeError()));
        return sym->toPtr<void*>();
    };
    out.count = reinterpret_cast<CountFn>(lookup(names.count));
    out.body = reinterpret_cast<BodyFn>(lookup(names.body));
    out.result = reinterpret_cast<ResultFn>(lookup(names.result));
    // The tracker owns the code; releasing it removes the code from the JIT.
    auto* held = new llvm::orc::ResourceTrackerSP(tracker);
    out.owner = std::shared_ptr<void>(held, [](void* p) {
        auto* t = static_cast<llvm::orc::ResourceTrackerSP*>(p);
        std::lock_guard<std::mutex> lock(jit().mutex);
        if (auto err = (*t)->remove()) llvm::consumeError(std::move(err));
        delete t;
    });
    return out;
}

}  // namespace tack::codegen
