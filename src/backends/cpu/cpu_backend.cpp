#include "backends/cpu/cpu_backend.h"

#include <atomic>
#include <cstring>
#include <optional>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/llvm/abi.h"
#include "codegen/llvm/emit_llvm.h"
#include "codegen/llvm/jit.h"
#include "runtime/debug_checks.h"
#include "runtime/parallel.h"
#include "runtime/print.h"
#include "runtime/race_shadow.h"
#include "support/byte_codec.h"
#ifdef TACK_WITH_TILE
#include "backends/tile_kernel.h"
#endif

namespace tack::backends {

namespace {

// The runtime's functions that CPU kernels call by name, which the
// extension module does not export; the JIT links them.
const codegen::HostSymbols& host_symbols() {
    static const codegen::HostSymbols symbols = {
        {"tack_rt_print", reinterpret_cast<void*>(&tack_rt_print)},
        {"tack_rt_bounds_failure", reinterpret_cast<void*>(&tack_rt_bounds_failure)},
        {"tack_rt_race_access", reinterpret_cast<void*>(&tack_rt_race_access)},
    };
    return symbols;
}

class CpuExecutable final : public Executable {
public:
    CpuExecutable(codegen::CompiledCpuKernel code, int64_t lanes) : code(std::move(code)), lanes(lanes) {}
    std::string serialize() const override {
        // The entry names, the lanes, then the relocatable objects (the
        // scalar program's empty where it is in the first).
        if (code.object.empty()) return {};
        support::ByteWriter out;
        out.str(code.entry_names.count);
        out.str(code.entry_names.body);
        out.str(code.entry_names.result);
        out.u32(static_cast<uint32_t>(lanes));
        out.str(code.object);
        out.str(code.scalar_object);
        return out.take();
    }
    codegen::CompiledCpuKernel code;
    // Iterations per SIMD group of the body (1: the scalar program): the
    // launch's chunks are whole groups (runtime::parallel_for's quantum).
    int64_t lanes = 1;
};

struct Chunks {
    codegen::BodyFn body;
    void** argv;
};

void run_chunk(void* ctx, int64_t begin, int64_t end) {
    auto* c = static_cast<Chunks*>(ctx);
    c->body(c->argv, begin, end);
}


class CpuBackend final : public Backend {
public:
    const char* name() const override { return "cpu"; }
    const char* display_name() const override { return "CPU"; }
    const Capabilities& capabilities() const override { return capabilities_; }
    const std::string& target_description() override { return codegen::target_description(); }

    Compiled compile(const ir::Kernel& typed, const CompileOptions& options) override {
        Compiled out;
        auto ctx = std::make_unique<llvm::LLVMContext>();
        codegen::EntryNames names;
        codegen::LanePlan chosen;
        codegen::EmitOptions emit = emit_options(typed, options);
        // With lanes, the scalar program that runs what does not fill a
        // group compiles beside the lanes body, in a context of its own.
        std::unique_ptr<llvm::LLVMContext> scalar_ctx;
        codegen::ScalarBodyModule scalar;
        if (emit.lanes > 1) {
            scalar_ctx = std::make_unique<llvm::LLVMContext>();
            scalar.context = scalar_ctx.get();
        }
        auto m = codegen::emit_llvm(typed, *ctx, options.symbol_prefix, emit, &names, &out.debug_accesses, &chosen,
                                    scalar_ctx ? &scalar : nullptr);
        out.code = std::make_unique<CpuExecutable>(
            codegen::jit_compile(std::move(m), std::move(ctx), names, host_symbols(), false, &scalar), chosen.lanes);
        return out;
    }

    std::unique_ptr<Executable> load(const std::string& bytes, std::string* error) override {
        support::ByteReader in(bytes);
        codegen::EntryNames names;
        names.count = in.str();
        names.body = in.str();
        names.result = in.str();
        int64_t lanes = in.u32();
        std::string object = in.str();
        std::string scalar_object = in.str();
        if (!in.complete() || lanes < 1 || lanes > 64) {
            *error = "malformed CPU code";
            return nullptr;
        }
        auto code = codegen::load_object(std::move(object), std::move(scalar_object), names, host_symbols(), error);
        if (!code) return nullptr;
        return std::make_unique<CpuExecutable>(std::move(*code), lanes);
    }

    // The race detector's view of the launch's arrays (`slots`: their
    // ArrayArgs, by parameter).
    static std::vector<runtime::RaceArray> race_arrays(const LaunchRequest& request, const codegen::ArrayArg* slots) {
        std::vector<runtime::RaceArray> out(request.count);
        for (size_t i = 0; i < request.count; ++i) {
            const runtime::Array* a = request.args[i].array;
            if (!a) continue;
            runtime::RaceArray& r = out[i];
            r.data = slots[i].data;
            r.itemsize = size_of(a->dtype());
            r.ndim = a->ndim();
            r.shape = slots[i].shape;
            r.strides = slots[i].strides;
            r.component_stride = slots[i].component_stride;
            r.components = a->element().components();
        }
        if (request.written)
            for (int w : *request.written) out.at(static_cast<size_t>(w)).written = true;
        return out;
    }

    LaunchOutcome launch(const Executable& executable, const LaunchRequest& request) override {
        const auto& cpu = static_cast<const CpuExecutable&>(executable);
        const auto& code = cpu.code;
        size_t n = request.count;
        // Each parameter is a pointer to its ArrayArg or to its value, then
        // (debug variants) the debug state.
        constexpr size_t kInline = 16;
        void* argv_small[kInline + 1];
        codegen::ArrayArg arrays_small[kInline];
        std::vector<void*> argv_big;
        std::vector<codegen::ArrayArg> arrays_big;
        void** argv = argv_small;
        codegen::ArrayArg* arrays = arrays_small;
        if (n > kInline) {
            argv_big.resize(n + 1);
            arrays_big.resize(n);
            argv = argv_big.data();
            arrays = arrays_big.data();
        }
        for (size_t i = 0; i < n; ++i) {
            const LaunchArg& a = request.args[i];
            if (!a.array) {
                argv[i] = const_cast<uint64_t*>(&a.bits);
                continue;
            }
            const runtime::Array& arr = *a.array;
            codegen::ArrayArg& slot = arrays[i];
            // A count-only launch reads no element: the host storage as it is.
            slot.data = request.count_only ? arr.address() : arr.data();
            for (int d = 0; d < arr.ndim(); ++d) {
                slot.shape[d] = arr.shape()[d];
                slot.strides[d] = arr.strides()[d];
            }
            slot.component_stride = arr.element().component_stride;
            argv[i] = &slot;
        }
        runtime::DebugState debug_state;
        std::optional<runtime::RaceShadow> races;
        if (request.races && !request.count_only) {
            debug_state.races = &races.emplace(n);
            races->share_overlapping(race_arrays(request, arrays));
        }
        argv[n] = &debug_state;

        LaunchOutcome out;
        int64_t count = code.count(argv, &out.refusal);
        if (count < 0) return out;
        out.count = count;
        if (request.count_only) return out;
        if (count > 0) {
            Chunks chunks{code.body, argv};
            runtime::Caller* caller = request.caller;
            runtime::StopCheck stop{[](void* c) { return static_cast<runtime::Caller*>(c)->interrupted(); }, caller};
            // Chunks start on a row's whole groups: the rows' length from count().
            const int64_t row = out.refusal.ndims > 1 ? int64_t(out.refusal.counts[out.refusal.ndims - 1][0]) : 0;
            if (!runtime::parallel_for(count, run_chunk, &chunks, caller ? &stop : nullptr, cpu.lanes, row))
                throw runtime::Interrupted();
        }
        if (code.result) {
            out.has_result = true;
            code.result(argv, &out.result_bits);
        }
        if (request.debug && debug_state.failed.load()) {
            out.debug_failure = debug_state.access;
            std::memcpy(out.debug_values, debug_state.values, sizeof out.debug_values);
        }
        if (races && races->raced()) {
            const runtime::RaceReport& r = races->report();
            out.race_sites[0] = r.site[0];
            out.race_sites[1] = r.site[1];
            out.race_scalar = r.element;
        }
        if (races) out.race_unchecked = races->unchecked();
        return out;
    }

#ifdef TACK_WITH_TILE
    std::unique_ptr<tile::CompiledKernel> create_tile_kernel(const tile::Kernel& kernel,
                                                            const tile::CompileOptions& options,
                                                            std::shared_ptr<CodeStore> store) override {
        tile::CompileOptions o = options;
        if (o.mma_block[0] <= 0 || o.mma_block[1] <= 0) {
            std::array<int, 2> block = codegen::host_mma_block();
            o.mma_block[0] = block[0];
            o.mma_block[1] = block[1];
        }
        return std::make_unique<TileKernel>(*this, kernel, o, std::move(store));
    }
#endif

    std::shared_ptr<runtime::DeviceCopy> device_copy(size_t) override { return nullptr; }
    void synchronize() override {}

    std::vector<std::string> inspect_modes() const override { return {"llvm", "llvm-unoptimized"}; }

    std::string inspect(const std::string& mode, const ir::Kernel& typed, const CompileOptions& options) override {
        llvm::LLVMContext ctx;
        codegen::EntryNames names;
        codegen::LanePlan plan;
        auto m = codegen::emit_llvm(typed, ctx, "tack.inspect", emit_options(typed, options, &plan), &names, nullptr,
                                    &plan);
        std::string s = plan.lanes > 1 ? "; tack cpu code: spmd, " + std::to_string(plan.lanes) + " lanes\n"
                                       : "; tack cpu code: scalar, " + plan.why_scalar + "\n";
        if (mode == "llvm") return s + codegen::optimize_and_print(*m);
        llvm::raw_string_ostream os(s);
        m->print(os, nullptr);
        return os.str();
    }

private:
    // The SPMD body's lanes (`plan` receives them, or why the body is the
    // scalar program); where they would not pay, emit_llvm replaces them.
    static codegen::EmitOptions emit_options(const ir::Kernel& typed, const CompileOptions& o,
                                             codegen::LanePlan* plan = nullptr) {
        codegen::LanePlan lanes =
            o.lanes == CpuLanes::Never
                ? codegen::LanePlan{1, "SPMD is off (tack.set_cpu_spmd(False) or TACK_CPU_SPMD=0)"}
                : codegen::plan_lanes(typed, codegen::host_vector_bits());
        if (plan) *plan = lanes;
        codegen::EmitOptions e;
        e.debug = o.debug;
        e.races = o.debug && o.races;
        e.noalias = o.noalias;
        e.lanes = lanes.lanes;
        if (e.races) {
            // The shadow records one iteration per call: the scalar program.
            lanes = codegen::LanePlan{1, "debug mode's race detection runs the scalar program"};
            if (plan) *plan = lanes;
            e.lanes = 1;
        }
        e.straight_groups = lanes.straight_groups;
        e.always_lanes = o.lanes == CpuLanes::Always;
        return e;
    }
    Capabilities capabilities_ = [] {
        Capabilities c;
        c.race_detection = true;
        c.unit_stride_variants = true;
        return c;
    }();
};

}  // namespace

Backend* cpu_backend() {
    static CpuBackend backend;
    return &backend;
}

}  // namespace tack::backends
