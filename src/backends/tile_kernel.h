// Tile kernels as every backend runs them: TileIR lowered to kernel IR
// (tile/lower), compiled by the backend as it compiles any variant, and
// launched through Backend::launch, so a tile kernel's arguments reach
// compiled code the way a Python kernel's arrays do, on the CPU or on a
// device.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace tack::backends {

class TileKernel final : public tile::CompiledKernel {
public:
    // Lowers `kernel` for `backend`, which must outlive it; the backend
    // compiles it at the first launch of each stride pattern (code_for),
    // unless `store` holds that code already (then it keeps what it
    // compiles). Throws tile::Error for a construct the lowering refuses.
    TileKernel(Backend& backend, const tile::Kernel& kernel, const tile::CompileOptions& options = {},
               std::shared_ptr<CodeStore> store = nullptr);

    const std::string& name() const override { return name_; }
    const std::string& device() const override { return device_; }
    // Whether each iteration of the launch nest runs in one workgroup
    // (tile/lower/emitter.h, "Workgroups").
    bool in_workgroups() const { return workgroups_; }
    // The parameters the kernel stores to.
    const std::vector<int>& written() const { return written_; }

    // Host memory: on a device, each tensor's span goes to the device and
    // the tensors the kernel writes come back.
    void launch(const std::vector<tile::HostTensor>& args) const override;
    // Views of Tack arrays on this backend, one per parameter, used in place
    // (a device array's bytes stay on the device).
    void launch(const std::vector<runtime::Array>& views) const;

private:
    // Throws tile::Error: argument `i`, described by `what`, does not fit its parameter.
    [[noreturn]] void argument_mismatch(size_t i, const std::string& what) const;
    // The code for arguments whose last axes are unit-strided as `unit`
    // says (bit i: parameter i) where the backend profits
    // (Capabilities::unit_stride_variants), else the one for any strides;
    // each compiled at its first launch.
    const Executable& code_for(uint32_t unit) const;

    Backend& backend_;
    std::string name_, device_;
    std::vector<int> ranks_;
    std::vector<DType> dtypes_;  // of memory: i1 tiles are bytes
    std::vector<int> written_;   // the parameters the kernel stores to
    bool workgroups_ = false;
    std::unique_ptr<ir::Kernel> typed_;  // the lowered kernel, every array strided
    CompileOptions options_;
    std::shared_ptr<CodeStore> store_;
    // What the code depends on besides the stride pattern (and the backend,
    // its target and Tack's build, which the store adds): the TileIR text,
    // which parses back to the same kernel, every tile::CompileOptions field,
    // the lowering target and the lanes choice.
    std::string store_key_;
    mutable std::mutex mutex_;
    mutable std::map<uint32_t, std::unique_ptr<Executable>> code_;  // by `unit`
};

}  // namespace tack::backends
