#include "backends/cuda/cuda_backend.h"

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/nvrtc.h"

namespace tack::backends {

Backend* cuda_backend(std::string* why_not) {
    const cuda::CudaApi* api = cuda::cuda_api(why_not);
    if (!api) return nullptr;
    const cuda::Nvrtc* nvrtc = cuda::Nvrtc::process(why_not);
    if (!nvrtc) return nullptr;
    *why_not = "this build of Tack finds a CUDA device (" + cuda::describe_device(*api) + ") and NVRTC " +
               nvrtc->version() + ", but does not launch kernels on CUDA devices yet";
    return nullptr;
}

}  // namespace tack::backends
