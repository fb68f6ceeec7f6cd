#include "backends/registry.h"

#include <algorithm>
#include <mutex>

#ifdef TACK_WITH_LLVM
#include "backends/cpu/cpu_backend.h"
#endif
#ifdef TACK_WITH_OPENCL
#include "backends/opencl/opencl_backend.h"
#endif
#include "backends/cuda/cuda_backend.h"
#include "backends/hip/hip_backend.h"

namespace tack::backends {

namespace {

std::mutex started_mutex;
std::vector<Backend*>& started() {
    static std::vector<Backend*> backends;
    return backends;
}

Backend* start_backend(const std::string& name, std::string* why_not) {
    if (name == "cpu") {
#ifdef TACK_WITH_LLVM
        return cpu_backend();
#else
        *why_not = "this build of Tack has no CPU backend (it was built without LLVM)";
        return nullptr;
#endif
    }
    if (name == "opencl") {
#ifdef TACK_WITH_OPENCL
        return opencl_backend(why_not);
#else
        *why_not = "this build of Tack has no OpenCL backend (it was built without the OpenCL headers, Debian's "
                   "opencl-c-headers)";
        return nullptr;
#endif
    }
    // The drivers and runtime compilers are opened at run time: every
    // build has these two.
    if (name == "cuda") return cuda_backend(why_not);
    if (name == "hip") return hip_backend(why_not);
    *why_not = "Tack has no backend named '" + name + "'";
    size_t colon = name.find(':');
    std::string prefix = name.substr(0, colon);
    for (const auto& known : known_backends())
        if (colon != std::string::npos && prefix == known)
            // Warp and PyTorch name devices "cuda:0".
            *why_not += "; devices are named without an ordinal: '" + known + "' is the first " + known +
                        " device, the one Tack uses";
    if (colon == std::string::npos)
        *why_not += " (its devices: cpu, opencl, cuda, hip)";
    return nullptr;
}

}  // namespace

Backend* find_backend(const std::string& name, std::string* why_not) {
    Backend* b = start_backend(name, why_not);
    if (b) {
        std::lock_guard<std::mutex> lock(started_mutex);
        if (std::find(started().begin(), started().end(), b) == started().end()) started().push_back(b);
    }
    return b;
}

std::vector<Backend*> started_backends() {
    std::lock_guard<std::mutex> lock(started_mutex);
    return started();
}

const std::vector<std::string>& known_backends() {
    static const std::vector<std::string> names = {"cpu", "opencl", "cuda", "hip"};
    return names;
}

std::vector<std::string> available_backends() {
    std::vector<std::string> out;
    std::string why;
    for (auto& name : known_backends())
        if (find_backend(name, &why)) out.push_back(name);
    return out;
}

}  // namespace tack::backends
