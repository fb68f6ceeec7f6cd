#include "codegen/llvm/jit.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "codegen/llvm/lower_gathers.h"
#include "codegen/llvm/widen_masks.h"
#include "syntax/source.h"

#ifdef __SIZEOF_INT128__
extern "C" {
__int128 __divti3(__int128, __int128);
__int128 __modti3(__int128, __int128);
unsigned __int128 __udivti3(unsigned __int128, unsigned __int128);
unsigned __int128 __umodti3(unsigned __int128, unsigned __int128);
}
#endif

namespace tack::codegen {

namespace {

constexpr const char* kPass = "jit";
constexpr llvm::CodeGenOptLevel kCodeGenOpt = llvm::CodeGenOptLevel::Aggressive;

std::string to_string(llvm::Error err) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << err;
    return os.str();
}

// The JIT's IR compile layer is never used: objects are emitted by
// emit_object() and added as objects.
class NoIRCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
    NoIRCompiler() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module&) override {
        return llvm::make_error<llvm::StringError>("Tack adds kernels to the JIT as object files",
                                                   llvm::inconvertibleErrorCode());
    }
};

struct Jit {
    std::unique_ptr<llvm::orc::LLJIT> lljit;
    std::optional<llvm::orc::JITTargetMachineBuilder> jtmb;
    std::mutex mutex;  // the JIT's linking
    uint64_t next_dylib = 0;  // names each object's private JITDylib
    bool host_defined = false;  // the driver's host symbols, defined at the first link

    // A target machine for one compile at a time: modules of separate
    // contexts optimize and compile on separate threads, each with a
    // machine of its own. Made on first use (a process that only links
    // cached objects never needs LLVM's code generator) and kept for the
    // next compile.
    std::unique_ptr<llvm::TargetMachine> borrow_target_machine() {
        {
            std::lock_guard<std::mutex> lock(idle_mutex);
            if (!idle.empty()) {
                auto tm = std::move(idle.back());
                idle.pop_back();
                return tm;
            }
        }
        auto made = jtmb->createTargetMachine();
        if (!made) syntax::internal_error(kPass, "no target machine: " + to_string(made.takeError()));
        return std::move(*made);
    }
    void return_target_machine(std::unique_ptr<llvm::TargetMachine> tm) {
        std::lock_guard<std::mutex> lock(idle_mutex);
        idle.push_back(std::move(tm));
    }

private:
    std::mutex idle_mutex;
    std::vector<std::unique_ptr<llvm::TargetMachine>> idle;
};

// A target machine borrowed for one scope.
class BorrowedTargetMachine {
public:
    explicit BorrowedTargetMachine(Jit& j) : j_(j), tm_(j.borrow_target_machine()) {}
    ~BorrowedTargetMachine() { j_.return_target_machine(std::move(tm_)); }
    BorrowedTargetMachine(const BorrowedTargetMachine&) = delete;
    BorrowedTargetMachine& operator=(const BorrowedTargetMachine&) = delete;
    llvm::TargetMachine& operator*() { return *tm_; }

private:
    Jit& j_;
    std::unique_ptr<llvm::TargetMachine> tm_;
};

// Code for the CPU named instead of the host. Its features are listed in
// the builder, as the host's are, so that the target description (and with
// it the disk cache's key) names them.
void target_cpu(llvm::orc::JITTargetMachineBuilder& jtmb, const std::string& cpu) {
    const std::string triple = jtmb.getTargetTriple().str();
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) syntax::internal_error(kPass, "no target for " + triple + ": " + error);
    std::unique_ptr<llvm::MCSubtargetInfo> known(target->createMCSubtargetInfo(triple, "", ""));
    if (!known->isCPUStringValid(cpu))
        throw std::invalid_argument("TACK_CPU_TARGET='" + cpu + "' is not a CPU that LLVM knows for " + triple +
                                    " (e.g. x86-64-v3, znver3, skylake-avx512)");
    // Kernels run on this host: a CPU with arithmetic instructions the host
    // lacks would stop the process at the first one (SIGILL), and a CPU
    // without the host's 64-bit mode cannot run its code (LLVM aborts).
    // System instructions (pku, rdpru, ...), which kernels never use and
    // virtual machines often hide, are not compared.
    static constexpr std::string_view kArithmetic[] = {"sse", "ssse3", "avx", "fma", "f16c", "bmi", "popcnt",
                                                        "lzcnt", "movbe", "cx16", "cmov", "adx", "aes", "pclmul",
                                                        "vpclmulqdq", "gfni", "vaes", "sha", "amx", "xop", "tbm",
                                                        "evex512", "crc32", "neon", "sve", "fp-armv8"};
    auto arithmetic = [](std::string_view feature) {
        for (std::string_view family : kArithmetic)
            if (feature.substr(0, family.size()) == family) return true;
        return false;
    };
    std::unique_ptr<llvm::MCSubtargetInfo> named(target->createMCSubtargetInfo(triple, cpu, ""));
    const llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    std::string lacking;
    for (const llvm::SubtargetFeatureKV& f : named->getAllProcessorFeatures()) {
        auto it = host.find(f.Key);
        if (it == host.end()) continue;
        const bool has = named->getFeatureBits()[f.Value];
        if (it->second && !has && std::string_view(f.Key) == "64bit")
            throw std::invalid_argument("TACK_CPU_TARGET='" + cpu + "' is a 32-bit CPU; this host runs " + triple +
                                        " code (e.g. x86-64-v3, znver3, skylake-avx512)");
        if (has && !it->second && arithmetic(f.Key)) lacking += std::string(lacking.empty() ? "" : ", ") + f.Key;
    }
    if (!lacking.empty())
        throw std::invalid_argument("TACK_CPU_TARGET='" + cpu + "' has instructions this host lacks (" + lacking +
                                    "); name a CPU this host can run, such as " +
                                    llvm::sys::getHostCPUName().str() + " or an older one (x86-64-v3, x86-64-v2)");
    jtmb.setCPU(cpu);
    jtmb.getFeatures() = llvm::SubtargetFeatures();
    auto tm = jtmb.createTargetMachine();
    if (!tm) syntax::internal_error(kPass, "no target machine: " + to_string(tm.takeError()));
    const llvm::MCSubtargetInfo* sti = (*tm)->getMCSubtargetInfo();
    for (const llvm::SubtargetFeatureKV& f : sti->getAllProcessorFeatures())
        if (sti->getFeatureBits()[f.Value]) jtmb.getFeatures().AddFeature(f.Key);
}

Jit& jit() {
    static Jit* instance = [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        auto* j = new Jit();
        auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
        if (!jtmb) syntax::internal_error(kPass, "cannot detect the host: " + to_string(jtmb.takeError()));
        jtmb->setCodeGenOptLevel(kCodeGenOpt);
        if (const char* cpu = std::getenv("TACK_CPU_TARGET"); cpu && *cpu) target_cpu(*jtmb, cpu);
        // Objects are emitted here rather than by the JIT's compile layer, so
        // the target machine is made from the builder after it has settled
        // the relocation and code models its linker expects. Kernels have no
        // static initializers, so no platform runs any.
        llvm::orc::LLJITBuilder builder;
        builder.setJITTargetMachineBuilder(std::move(*jtmb));
        builder.setPlatformSetUp(llvm::orc::setUpInactivePlatform);
        builder.setCompileFunctionCreator(
            [](llvm::orc::JITTargetMachineBuilder)
                -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                return std::make_unique<NoIRCompiler>();
            });
        if (auto err = builder.prepareForConstruction())
            syntax::internal_error(kPass, "cannot configure the JIT: " + to_string(std::move(err)));
        j->jtmb = *builder.getJITTargetMachineBuilder();
        auto built = builder.create();
        if (!built) syntax::internal_error(kPass, "cannot create the JIT: " + to_string(built.takeError()));
        j->lljit = std::move(*built);
        // Kernels call the C math library (sinf, pow, ...) of this process.
        auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            j->lljit->getDataLayout().getGlobalPrefix());
        if (!gen) syntax::internal_error(kPass, "no process symbol generator: " + to_string(gen.takeError()));
        j->lljit->getMainJITDylib().addGenerator(std::move(*gen));
        llvm::orc::SymbolMap support_symbols;
#ifdef __SIZEOF_INT128__
        // 128-bit division (trip counts are computed in 128 bits) lowers to
        // calls into the compiler's support library, which this module links
        // statically and the process need not export.
        for (auto [name, address] : {std::pair{"__divti3", reinterpret_cast<void*>(&__divti3)},
                                     {"__modti3", reinterpret_cast<void*>(&__modti3)},
                                     {"__udivti3", reinterpret_cast<void*>(&__udivti3)},
                                     {"__umodti3", reinterpret_cast<void*>(&__umodti3)}})
            support_symbols[j->lljit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                                               llvm::JITSymbolFlags::Exported};
#endif
        if (auto err = j->lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(support_symbols))))
            syntax::internal_error(kPass, "cannot define support symbols: " + to_string(std::move(err)));
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
    // No SLP vectorizer: LLVM 19's builds shuffles that take lanes from the
    // wrong operand for some blocks of fused multiply-adds on AVX-512 (a
    // tile kernel's two 4x4 products gave wrong sums; docs/backends.md, "The
    // CPU's LLVM pipeline"). Kernels vectorize through the loop vectorizer
    // and the SPMD lanes.
    pto.SLPVectorization = false;
    llvm::PassBuilder pb(&tm, pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    auto mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(m, mam);
    lower_gathers(m, tm);
    widen_masks(m, tm);
}

// What optimize() runs, for target_description(): change both together.
constexpr const char* kPipeline = "new-pm O3, loop vectorization (no SLP), no fast-math, branch-free gathers, wide masks, lanes where they pay";

std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm) {
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
        syntax::internal_error(kPass, "the target machine cannot emit object files");
    pm.run(m);
    return std::string(buffer.data(), buffer.size());
}

}  // namespace

int host_vector_bits() {
    static const int bits = [] {
        const std::vector<std::string>& features = jit().jtmb->getFeatures().getFeatures();
        auto has = [&](const char* f) {
            return std::find(features.begin(), features.end(), std::string("+") + f) != features.end();
        };
        if (has("avx512f")) return 512;
        if (has("avx")) return 256;
        if (has("sse2") || has("neon")) return 128;
        return 0;
    }();
    return bits;
}

std::array<int, 2> host_mma_block() {
#if defined(__aarch64__)
    const bool many_registers = true;
#else
    const bool many_registers = host_vector_bits() == 512;
#endif
    return {4, many_registers ? 4 : 2};
}

const std::string& target_description() {
    static const std::string description = [] {
        // Everything the target machine is made from.
        const llvm::orc::JITTargetMachineBuilder& b = *jit().jtmb;
        std::string s = "llvm " LLVM_VERSION_STRING "; ";
        s += b.getTargetTriple().str() + "; cpu " + b.getCPU() + "; features " + b.getFeatures().getString();
        s += "; reloc " + (b.getRelocationModel() ? std::to_string(static_cast<int>(*b.getRelocationModel())) : "default");
        s += "; code model " + (b.getCodeModel() ? std::to_string(static_cast<int>(*b.getCodeModel())) : "default");
        s += "; codegen opt " + std::to_string(static_cast<int>(kCodeGenOpt));
        s += "; ";
        s += kPipeline;
        return s;
    }();
    return description;
}

std::string optimize_and_print(llvm::Module& m) {
    Jit& j = jit();
    {
        BorrowedTargetMachine tm(j);
        optimize(m, *tm);
    }
    std::string s;
    llvm::raw_string_ostream os(s);
    m.print(os, nullptr);
    return os.str();
}

namespace {

// Optimizes and compiles one module (in a context no other thread uses).
std::string compile_module(Jit& j, llvm::Module& m, std::string* ir) {
    BorrowedTargetMachine tm(j);
    optimize(m, *tm);
    if (ir) {
        llvm::raw_string_ostream os(*ir);
        m.print(os, nullptr);
    }
    return emit_object(m, *tm);
}

}  // namespace

CompiledCpuKernel jit_compile(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                              const EntryNames& names, const HostSymbols& host, bool keep_ir,
                              ScalarBodyModule* scalar) {
    Jit& j = jit();
    // Declared so that the module goes before its context, and the scalar
    // program's thread is waited for before either, on every way out.
    std::unique_ptr<llvm::LLVMContext> context = std::move(ctx);
    std::unique_ptr<llvm::Module> module = std::move(m);
    std::string ir, scalar_ir;
    std::future<std::string> scalar_object;
    if (scalar && scalar->module) {
        // The scalar program on a thread of its own, beside the lanes body
        // (after it, on this thread, where no thread can be started).
        auto compile_scalar = [&j, scalar, keep_ir, &scalar_ir] {
            std::string object = compile_module(j, *scalar->module, keep_ir ? &scalar_ir : nullptr);
            scalar->module.reset();
            return object;
        };
        try {
            scalar_object = std::async(std::launch::async, compile_scalar);
        } catch (const std::system_error&) {
            scalar_object = std::async(std::launch::deferred, compile_scalar);
        }
    }
    std::string object = compile_module(j, *module, keep_ir ? &ir : nullptr);
    std::string scalar_code = scalar_object.valid() ? scalar_object.get() : std::string();
    module.reset();
    context.reset();
    std::string error;
    auto out = load_object(std::move(object), std::move(scalar_code), names, host, &error);
    if (!out) syntax::internal_error(kPass, "cannot link a freshly compiled kernel: " + error);
    out->optimized_ir = std::move(ir) + scalar_ir;
    return std::move(*out);
}

std::optional<CompiledCpuKernel> load_object(std::string object, std::string scalar_object, const EntryNames& names,
                                             const HostSymbols& host, std::string* error) {
    Jit& j = jit();
    std::lock_guard<std::mutex> lock(j.mutex);
    if (!j.host_defined) {
        llvm::orc::SymbolMap symbols;
        for (auto& h : host)
            symbols[j.lljit->mangleAndIntern(h.name)] = {llvm::orc::ExecutorAddr::fromPtr(h.address),
                                                        llvm::JITSymbolFlags::Exported};
        if (auto err = j.lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))))
            syntax::internal_error(kPass, "cannot define host symbols: " + to_string(std::move(err)));
        j.host_defined = true;
    }
    auto& session = j.lljit->getExecutionSession();
    auto dylib = j.lljit->createJITDylib("tack.object." + std::to_string(j.next_dylib++));
    if (!dylib) {
        *error = to_string(dylib.takeError());
        return std::nullopt;
    }
    llvm::orc::JITDylib& jd = *dylib;
    jd.addToLinkOrder(j.lljit->getMainJITDylib());
    auto fail = [&](llvm::Error err) -> std::optional<CompiledCpuKernel> {
        *error = to_string(std::move(err));
        if (auto e = session.removeJITDylib(jd)) llvm::consumeError(std::move(e));
        return std::nullopt;
    };
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object, "tack-kernel-object");
    if (auto err = j.lljit->addObjectFile(jd, std::move(buffer))) return fail(std::move(err));
    if (!scalar_object.empty()) {
        // The lanes body's scalar program, which it calls by name.
        auto scalar = llvm::MemoryBuffer::getMemBufferCopy(scalar_object, "tack-kernel-scalar-object");
        if (auto err = j.lljit->addObjectFile(jd, std::move(scalar))) return fail(std::move(err));
    }

    CompiledCpuKernel out;
    void* entries[3] = {};
    const std::string* entry_names[3] = {&names.count, &names.body, &names.result};
    for (int i = 0; i < 3; ++i) {
        if (entry_names[i]->empty()) continue;
        auto sym = j.lljit->lookup(jd, *entry_names[i]);
        if (!sym) return fail(sym.takeError());
        entries[i] = sym->toPtr<void*>();
    }
    if (!entries[0] || !entries[1]) return fail(llvm::make_error<llvm::StringError>("the object lacks its count or body entry",
                                                        llvm::inconvertibleErrorCode()));
    out.count = reinterpret_cast<CountFn>(entries[0]);
    out.body = reinterpret_cast<BodyFn>(entries[1]);
    out.result = reinterpret_cast<ResultFn>(entries[2]);
    out.object = std::move(object);
    out.scalar_object = std::move(scalar_object);
    out.entry_names = names;
    // The dylib owns the code; releasing it removes the code from the JIT.
    auto* held = new llvm::orc::JITDylibSP(&jd);
    out.owner = std::shared_ptr<void>(held, [](void* p) {
        auto* d = static_cast<llvm::orc::JITDylibSP*>(p);
        {
            std::lock_guard<std::mutex> lock(jit().mutex);
            if (auto err = (*d)->getExecutionSession().removeJITDylib(**d)) llvm::consumeError(std::move(err));
        }
        delete d;
    });
    return out;
}

}  // namespace tack::codegen
