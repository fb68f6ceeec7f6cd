#include "backends/hip/hip_backend.h"

#include <cstdlib>

#include "backends/gpu/driver_backend.h"

namespace tack::backends {

gpu::Identity hip_identity(const gpu::DriverDevice&) {
    gpu::Identity id;
    id.name = "hip";
    id.display_name = "HIP";
    id.dialect = codegen::cfamily::Dialect::Hip;
    if (const char* arch = std::getenv("TACK_HIP_ARCH"); arch && *arch)
        id.extra_options = {std::string("--offload-arch=") + arch};
    id.capabilities.max_iterations = (uint64_t{1} << 32) - 256;
    id.capabilities.max_iterations_text = "2^32 - 256";
    return id;
}

Backend* hip_backend(std::string* why_not) {
    return gpu::driver_backend(gpu::kHipVendor, gpu::kHiprtc, hip_identity, why_not);
}

}  // namespace tack::backends
