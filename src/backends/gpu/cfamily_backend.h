// The runtime of every backend whose kernels the C-family emitter prints
// (codegen/cfamily): a Backend over a gpu::Device.
//
// A variant compiles to one program with the three entry points of
// cfamily/abi.h. A launch brings its arrays' device copies up to date,
// sets the shared argument list once, runs count as one work item (on the
// Beside queue when it reads no memory, so the host learns the count
// without waiting for earlier launches), then body over the count in groups
// of kGroupSize, then result; it reads the debug record and the print
// buffer back after a launch that has them. Arrays keep their storage's
// copy in a gpu::Memory beside the host bytes (runtime/device_copy.h).
//
// OpenCL, CUDA and HIP differ only by their Identity and their Device.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/gpu/device.h"
#include "codegen/cfamily/dialect.h"

namespace tack::backends::gpu {

struct Identity {
    const char* name = "";          // "opencl": the device name users select
    const char* display_name = "";  // "OpenCL": for messages
    codegen::cfamily::Dialect dialect = codegen::cfamily::Dialect::OpenCL;
    Capabilities capabilities;
    // Passed to the device compiler after the dialect's own options (CUDA:
    // the device's architecture).
    std::vector<std::string> extra_options;
};

// A backend running on `device`, which must outlive it. Its target
// description is the backend's name, then the device's description.
std::unique_ptr<Backend> make_cfamily_backend(Device& device, Identity identity);

}  // namespace tack::backends::gpu
