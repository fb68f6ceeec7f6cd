// The backends this build has, by the device names users select.
#pragma once

#include <string>
#include <vector>

#include "backends/backend.h"

namespace tack::backends {

// The backend named `name` ("cpu", "opencl", "cuda"), started on first use; null,
// with the reason in `why_not` (what is missing and how to get it), when
// this build or this machine cannot run it.
Backend* find_backend(const std::string& name, std::string* why_not);

// Every backend name this build knows, in order of preference, and those
// that start on this machine.
const std::vector<std::string>& known_backends();
std::vector<std::string> available_backends();

// The backends find_backend has handed out so far, in the order first
// asked: those a process has used, which starts no other.
std::vector<Backend*> started_backends();

}  // namespace tack::backends
