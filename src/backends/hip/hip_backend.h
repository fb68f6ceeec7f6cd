// The HIP backend: kernels printed as HIP (codegen/cfamily), compiled by
// hipRTC to an AMD code object and run through the HIP runtime's module
// API, both loaded at run time (backends/gpu), over the same driver table
// as CUDA.
//
// hipRTC compiles for the architecture of the current device unless
// TACK_HIP_ARCH names one (gfx90a, gfx942). The longest launch is
// 2^32 - 256 iterations: HIP counts a grid's work items in 32 bits.
#pragma once

#include <string>

#include "backends/backend.h"
#include "backends/gpu/cfamily_backend.h"
#include "backends/gpu/driver_device.h"

namespace tack::backends {

// The process's HIP backend; null, with the reason in `why_not`: no HIP
// runtime, no AMD GPU, or no hipRTC.
Backend* hip_backend(std::string* why_not);

gpu::Identity hip_identity(const gpu::DriverDevice& device);

}  // namespace tack::backends
