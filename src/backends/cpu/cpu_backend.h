// The CPU backend: LLVM code for the host, linked by the process's ORC JIT,
// run on every core by the runtime's parallel loop.
#pragma once

#include "backends/backend.h"

namespace tack::backends {

// The process's CPU backend, or null in a build without LLVM.
Backend* cpu_backend();

}  // namespace tack::backends
