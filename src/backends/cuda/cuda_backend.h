// The CUDA backend: kernels printed as CUDA C++ (codegen/cfamily),
// compiled by NVRTC to a cubin for the device's compute capability, and run
// through the CUDA driver API, both loaded at run time (backends/gpu).
//
// Launches: one thread per iteration with a 64-bit index, in blocks of 256;
// the longest launch is the device's largest gridDim.x times 256
// iterations (2^31 - 1 blocks on every GPU since compute capability 3.0).
#pragma once

#include <string>

#include "backends/backend.h"
#include "backends/gpu/cfamily_backend.h"
#include "backends/gpu/driver_device.h"

namespace tack::backends {

// The process's CUDA backend; null, with the reason in `why_not`: no
// driver (or only the toolkit's stub), no device, or no NVRTC.
Backend* cuda_backend(std::string* why_not);

// What the CUDA backend is on `device`: its options name the device's
// architecture (-arch=sm_XY), its limit the device's grid.
gpu::Identity cuda_identity(const gpu::DriverDevice& device);

}  // namespace tack::backends
