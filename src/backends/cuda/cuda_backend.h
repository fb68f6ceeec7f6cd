// The CUDA backend: kernels printed as CUDA C++ (codegen/cfamily), compiled
// by NVRTC (nvrtc.h) and run through the driver API (cuda_api.h), both
// loaded at run time.
//
// What exists today is the way in: the driver and NVRTC are found, the
// device is named, and everything missing is reported by name. Launching
// kernels on the device is not built yet, so the backend never starts; a
// request for it says why, and on a machine with a GPU, that the launch
// path is what is missing.
#pragma once

#include <string>

#include "backends/backend.h"

namespace tack::backends {

// The process's CUDA backend; null, with the reason in `why_not`: no
// driver, no device, no NVRTC, or (on a machine with all three) no launch
// path yet.
Backend* cuda_backend(std::string* why_not);

}  // namespace tack::backends
