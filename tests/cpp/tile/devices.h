// Which devices compile tile kernels here: the CPU where Tack was built with
// its LLVM backend; OpenCL where a driver (PoCL in CI) is installed; CUDA
// and HIP where their drivers are (scripts/device-check.sh).
#pragma once

#include <optional>
#include <string>

#include "tack/tile/compile.h"
#include "tack/tile/lib.h"

namespace tack::tile {

// Why `device` cannot compile and run tile kernels here, or nullopt when it can.
inline std::optional<std::string> missing_backend(const std::string& device) {
  try {
    compile(device, lib::copy(8, 32));
    return std::nullopt;
  } catch (const Error& e) {
    return "no " + device + " backend here: " + e.what();
  }
}

// A test variant: a device, optionally with a suffix saying how its kernels
// compile ("opencl_groups", "cuda_groups": every kernel in workgroups;
// "cpu_lanes", "cpu_split_fused": the tests' own CPU forms).
inline std::string variant_device(const std::string& variant) { return variant.substr(0, variant.find('_')); }
inline bool variant_in_groups(const std::string& variant) {
  const std::string suffix = "_groups";
  return variant.size() > suffix.size() && variant.compare(variant.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace tack::tile
