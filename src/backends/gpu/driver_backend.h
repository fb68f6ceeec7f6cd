// A CUDA or HIP backend: the C-family runtime (cfamily_backend.h) over a
// DriverDevice, made once per process and vendor.
#pragma once

#include <memory>
#include <string>

#include "backends/gpu/cfamily_backend.h"
#include "backends/gpu/driver_device.h"

namespace tack::backends::gpu {

// What a vendor's backend is on a given device: its name, dialect,
// limits and the options that name the device's architecture.
using Identify = Identity (*)(const DriverDevice& device);

struct DriverBackend {
    std::unique_ptr<DriverDevice> device;
    std::unique_ptr<Backend> backend;
};

// The backend over device 0 of `api`, compiled for by `compiler`; empty,
// with the reason in `why_not`, when the device cannot be opened.
DriverBackend make_driver_backend(const DriverApi& api, const RuntimeCompiler& compiler, Identify identify,
                                  std::string* why_not);

// The process's backend for `vendor`, made on first use (thread-safe) and
// kept; null with the reason when the driver, a device or the compiler is
// missing. The answer is kept: a later call does not retry.
Backend* driver_backend(const Vendor& vendor, const CompilerSymbols& compiler, Identify identify,
                        std::string* why_not);

}  // namespace tack::backends::gpu
