// The OpenCL backend: kernels printed as OpenCL C (codegen/cfamily), built
// for the process's OpenCL device (device.h) and launched on its one
// in-order queue; arrays keep a buffer on the device beside their host
// storage (runtime/device_copy.h).
#pragma once

#include <string>

#include "backends/backend.h"

namespace tack::backends {

// The process's OpenCL backend, started on first use; null, with the
// reason in `why_not`, when there is no OpenCL or no device.
Backend* opencl_backend(std::string* why_not);

}  // namespace tack::backends
