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
#include "tile/lower/lower.h"
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
    explicit CpuExecutable(codegen::CompiledCpuKernel code) : code(std::move(code)) {}
    std::string serialize() const override {
        // The entry names, then the relocatable object.
        if (code.object.empty()) return {};
        support::ByteWriter out;
        out.str(code.entry_names.count);
        out.str(code.entry_names.body);
        out.str(code.entry_names.result);
        out.str(code.object);
        return out.take();
    }
    codegen::CompiledCpuKernel code;
};

struct Chunks {
    codegen::BodyFn body;
    void** argv;
};

void run_chunk(void* ctx, int64_t begin, int64_t end) {
    auto* c = static_cast<Chunks*>(ctx);
    c->body(c->argv, begin, end);
}

#ifdef TACK_WITH_TILE
size_t tile_elem_size(tile::Scalar e) {
    switch (e) {
        case tile::Scalar::i1: return 1;
        case tile::Scalar::i32:
        case tile::Scalar::f32: return 4;
        default: return 8;
    }
}

// A tile kernel lowered to kernel IR and compiled like any variant. Its
// launch passes each HostTensor as the array argument of the same position:
// the data pointer moved to the tensor's offset, its extents and strides.
class CpuTileKernel final : public tile::CompiledKernel {
public:
    CpuTileKernel(const tile::Kernel& kernel, codegen::CompiledCpuKernel code)
        : name_(kernel.name()), code_(std::move(code)) {
        for (unsigned i = 0; i < kernel.num_params(); ++i) params_.push_back(kernel.param(i)->type());
    }
    const std::string& name() const override { return name_; }
    const std::string& device() const override { return device_; }

    void launch(const std::vector<tile::HostTensor>& args) const override {
        if (args.size() != params_.size())
            throw tile::Error("launch @" + name_ + ": the kernel takes " + std::to_string(params_.size()) +
                              " tensors, not " + std::to_string(args.size()) + ".");
        std::vector<codegen::ArrayArg> arrays(args.size());
        std::vector<void*> argv(args.size() + 1);
        for (size_t i = 0; i < args.size(); ++i) {
            const tile::HostTensor& t = args[i];
            const tile::Type& p = params_[i];
            if (t.elem != p.elem() || t.shape.rank() != p.rank())
                throw tile::Error("launch @" + name_ + ": argument #" + std::to_string(i) + " is a rank-" +
                                  std::to_string(t.shape.rank()) + " " + std::string(tile::scalar_name(t.elem)) +
                                  " tensor, but its parameter has type " + tile::to_string(p) + ".");
            codegen::ArrayArg& a = arrays[i];
            a.data = static_cast<char*>(t.data) + t.offset * int64_t(tile_elem_size(t.elem));
            for (int d = 0; d < t.shape.rank(); ++d) {
                if (t.shape[d] < 0)
                    throw tile::Error("launch @" + name_ + ": argument #" + std::to_string(i) + " has a negative extent.");
                a.shape[d] = t.shape[d];
                a.strides[d] = t.strides[size_t(d)];
            }
            a.component_stride = 1;
            argv[i] = &a;
        }
        runtime::DebugState debug_state;
        argv[args.size()] = &debug_state;
        codegen::LaunchRefusal refusal;
        int64_t count = code_.count(argv.data(), &refusal);
        if (count < 0) throw tile::Error("launch @" + name_ + ": the launch was refused (its iteration space is too large).");
        if (count > 0) {
            Chunks chunks{code_.body, argv.data()};
            runtime::parallel_for(count, run_chunk, &chunks, nullptr);
        }
    }

private:
    std::string name_;
    std::string device_ = "cpu";
    std::vector<tile::Type> params_;
    codegen::CompiledCpuKernel code_;
};
#endif

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
        auto m = codegen::emit_llvm(typed, *ctx, options.symbol_prefix, emit_options(typed, options), &names,
                                    &out.debug_accesses);
        out.code = std::make_unique<CpuExecutable>(
            codegen::jit_compile(std::move(m), std::move(ctx), names, host_symbols(), false));
        return out;
    }

    std::unique_ptr<Executable> load(const std::string& bytes, std::string* error) override {
        support::ByteReader in(bytes);
        codegen::EntryNames names;
        names.count = in.str();
        names.body = in.str();
        names.result = in.str();
        std::string object = in.str();
        if (!in.complete()) {
            *error = "malformed CPU code";
            return nullptr;
        }
        auto code = codegen::load_object(std::move(object), names, host_symbols(), error);
        if (!code) return nullptr;
        return std::make_unique<CpuExecutable>(std::move(*code));
    }

    LaunchOutcome launch(const Executable& executable, const LaunchRequest& request) override {
        const auto& code = static_cast<const CpuExecutable&>(executable).code;
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
        if (request.debug && !request.count_only) debug_state.races = &races.emplace(n);
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
            if (!runtime::parallel_for(count, run_chunk, &chunks, caller ? &stop : nullptr))
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
    std::unique_ptr<tile::CompiledKernel> create_tile_kernel(const tile::Kernel& kernel) override {
        static std::atomic<uint64_t> next{0};
        std::unique_ptr<ir::Kernel> typed = tile::lower::lower_to_kernel_ir(kernel);
        CompileOptions options;
        options.symbol_prefix = "tack.tile." + std::to_string(next++);
        Compiled compiled = compile(*typed, options);
        auto& code = static_cast<CpuExecutable&>(*compiled.code).code;
        return std::make_unique<CpuTileKernel>(kernel, std::move(code));
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
        return c;
    }();
};

}  // namespace

Backend* cpu_backend() {
    static CpuBackend backend;
    return &backend;
}

}  // namespace tack::backends
