#include "backends/cuda/cuda_backend.h"

#include "backends/gpu/driver_backend.h"
#include "codegen/cfamily/abi.h"

namespace tack::backends {

gpu::Identity cuda_identity(const gpu::DriverDevice& device) {
    gpu::Identity id;
    id.name = "cuda";
    id.display_name = "CUDA";
    id.dialect = codegen::cfamily::Dialect::Cuda;
    id.extra_options = {"-arch=sm_" + std::to_string(device.compute_major()) + std::to_string(device.compute_minor())};
    const uint64_t most = device.max_grid() * codegen::cfamily::kGroupSize;
    id.capabilities.max_iterations = most;
    id.capabilities.max_iterations_text =
        "the device's largest gridDim.x times 256, " + std::to_string(most);
    return id;
}

Backend* cuda_backend(std::string* why_not) {
    return gpu::driver_backend(gpu::kCudaVendor, gpu::kNvrtc, cuda_identity, why_not);
}

}  // namespace tack::backends
