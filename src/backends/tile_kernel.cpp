#include "backends/tile_kernel.h"

#include <atomic>

#include "analysis/effects.h"
#include "tack/tile/printer.h"
#include "tile/lower/lower.h"

namespace tack::backends {

namespace {

std::string store_key(const tile::Kernel& kernel, const tile::CompileOptions& o, const tile::LoweringTarget& target,
                      CpuLanes lanes) {
    auto list = [](const auto& v) {
        std::string s;
        for (auto x : v) s += " " + std::to_string(x);
        return s;
    };
    std::string key = "tile kernel\n" + tile::print(kernel);
    key += "\nsimd_lanes " + std::to_string(o.simd_lanes) + "\noverlap_stages " + std::to_string(o.overlap_stages);
    key += "\nmma_block " + std::to_string(o.mma_block[0]) + " " + std::to_string(o.mma_block[1]);
    key += "\nworkgroups " + std::to_string(static_cast<int>(o.workgroups));
    key += "\nnest_split" + list(o.nest_split) + "\nnest_order" + list(o.nest_order) + "\nnest_fuse" + list(o.nest_fuse);
    key += "\ntarget " + std::to_string(target.workgroup_lanes) + " " + std::to_string(target.shared_bytes);
    key += "\nlanes " + std::to_string(static_cast<int>(lanes)) + "\n";
    return key;
}

}  // namespace

TileKernel::TileKernel(Backend& backend, const tile::Kernel& kernel, const tile::CompileOptions& tile_options,
                       std::shared_ptr<CodeStore> store)
    : backend_(backend), name_(kernel.name()), device_(backend.name()), store_(std::move(store)) {
    static std::atomic<uint64_t> next{0};
    tile::LoweringTarget target;
    if (backend.capabilities().workgroups)
        target = tile::LoweringTarget{ir::kWorkgroupLanes, backend.capabilities().tile_shared_bytes};
    tile::lower::Lowered lowered = tile::lower::lower(kernel, tile_options, target);
    workgroups_ = lowered.workgroups;
    std::unique_ptr<ir::Kernel> typed = std::move(lowered.kernel);
    for (unsigned i = 0; i < kernel.num_params(); ++i) {
        ranks_.push_back(kernel.param(i)->type().rank());
        dtypes_.push_back(typed->params[i].dtype);
    }
    written_ = analysis::effects_of(*typed).written;
    options_.symbol_prefix = "tack.tile." + std::to_string(next++);
    options_.lanes = tile_options.simd_lanes ? CpuLanes::WherePaying : CpuLanes::Never;
    if (store_) store_key_ = store_key(kernel, tile_options, target, options_.lanes);
    // The backend compiles at the first launch, for the strides it gets.
    typed_ = std::move(typed);
}

const Executable& TileKernel::code_for(uint32_t unit) const {
    if (!backend_.capabilities().unit_stride_variants) unit = 0;
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<Executable>& code = code_[unit];
    if (code) return *code;
    const std::string key = store_key_ + "unit " + std::to_string(unit) + "\n";
    if (store_) code = store_->load(backend_, name_, key);
    if (!code) {
        std::unique_ptr<ir::Kernel> k = ir::clone(*typed_);
        for (size_t i = 0; i < ranks_.size(); ++i) k->params[i].unit_inner_stride = (unit >> i) & 1;
        CompileOptions options = options_;
        options.symbol_prefix += ".u" + std::to_string(unit);
        code = backend_.compile(*k, options).code;
        if (store_) store_->store(backend_, name_, key, *code);
    }
    return *code;
}

void TileKernel::argument_mismatch(size_t i, const std::string& what) const {
    throw tile::Error("launch @" + name_ + ": argument #" + std::to_string(i) + " is " + what +
                      ", but its parameter is a rank-" + std::to_string(ranks_[i]) + " " +
                      std::string(name_of(dtypes_[i])) + " tensor.");
}

void TileKernel::launch(const std::vector<tile::HostTensor>& args) const {
    if (args.size() != ranks_.size())
        throw tile::Error("launch @" + name_ + ": the kernel takes " + std::to_string(ranks_.size()) +
                          " tensors, not " + std::to_string(args.size()) + ".");
    std::vector<runtime::Array> views;
    for (size_t i = 0; i < args.size(); ++i) {
        const tile::HostTensor& t = args[i];
        DType dtype = tile::lower::memory_dtype(t.elem);
        if (t.shape.rank() != ranks_[i] || dtype != dtypes_[i])
            argument_mismatch(i, "a rank-" + std::to_string(t.shape.rank()) + " " +
                                     std::string(tile::scalar_name(t.elem)) + " tensor");
        std::vector<int64_t> shape, strides;
        for (int d = 0; d < t.shape.rank(); ++d) {
            if (t.shape[d] < 0)
                throw tile::Error("launch @" + name_ + ": argument #" + std::to_string(i) + " has a negative extent.");
            shape.push_back(t.shape[d]);
            strides.push_back(t.strides[size_t(d)]);
        }
        char* first = static_cast<char*>(t.data) + t.offset * int64_t(size_of(dtype));
        views.push_back(runtime::Array::external(first, dtype, shape, strides, false, nullptr));
        // On a device the span gets a copy there, filled from the host at launch.
        auto& storage = *views.back().storage();
        storage.device = backend_.device_copy(storage.bytes);
    }
    launch(views);
    // The device's bytes back into the host memory the kernel wrote.
    for (int w : written_) views[size_t(w)].data();
}

void TileKernel::launch(const std::vector<runtime::Array>& views) const {
    if (views.size() != ranks_.size())
        throw tile::Error("launch @" + name_ + ": the kernel takes " + std::to_string(ranks_.size()) +
                          " tensors, not " + std::to_string(views.size()) + ".");
    std::vector<LaunchArg> args(views.size());
    uint32_t unit = 0;
    for (size_t i = 0; i < views.size(); ++i) {
        const runtime::Array& v = views[i];
        // (The argument's description only where it is wrong: a launch of a
        // small kernel costs a few microseconds, which strings would double.)
        if ((v.element().shape.empty() ? v.ndim() : -1) != ranks_[i] || v.dtype() != dtypes_[i])
            argument_mismatch(i, v.describe());
        if (v.storage()->device_name() != device_)
            throw tile::Error("launch @" + name_ + ": argument #" + std::to_string(i) + " lives on '" +
                              v.storage()->device_name() + "', and the kernel was compiled for '" + device_ + "'.");
        args[i].array = &v;
        // Its last axis's elements adjacent (any stride does for one element).
        const auto& shape = v.shape();
        if (!shape.empty() && (shape.back() <= 1 || v.strides().back() == 1) && i < 32) unit |= 1u << i;
    }
    LaunchRequest request;
    request.args = args.data();
    request.count = args.size();
    request.written = &written_;
    LaunchOutcome outcome = backend_.launch(code_for(unit), request);
    if (outcome.refusal.reason != codegen::LaunchRefusal::None)
        throw tile::Error("launch @" + name_ + ": " + refusal_text(backend_, outcome.refusal) + ".");
}

}  // namespace tack::backends
