// Which devices compile tile kernels here: the CPU always; OpenCL where a
// driver (PoCL in CI) is installed; CUDA and HIP where their drivers are.
#pragma once

#include <optional>
#include <string>

#include "tack/tile/compile.h"
#include "tack/tile/lib.h"

namespace tack::tile {

// Why `device` cannot compile and run tile kernels here, or nullopt when it can.
inline std::optional<std::string> missing_backend(const std::string& device) {
  if (device == "cpu") return std::nullopt;
  try {
    compile(device, lib::copy(8, 32));
    return std::nullopt;
  } catch (const Error& e) {
    return "no " + device + " backend here: " + e.what();
  }
}

}  // namespace tack::tile
