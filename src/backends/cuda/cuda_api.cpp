#include "backends/cuda/cuda_api.h"

#include <dlfcn.h>

#include <mutex>

namespace tack::backends::cuda {

namespace {

struct LoadedApi {
    CudaApi api;
    bool ok = false;
    std::string why_not;
};

// The soname, which the driver installs; libcuda.so is a development
// symlink, and on a machine with only the toolkit it is the stub that
// links programs, which answers every call with CUDA_ERROR_STUB_LIBRARY.
void* open_driver(std::string* why_not) {
    for (const char* name : {"libcuda.so.1", "libcuda.so"})
        if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return handle;
    *why_not = "no NVIDIA driver: libcuda.so.1 not found (the CUDA backend needs the NVIDIA driver and a GPU; the "
               "CUDA toolkit alone compiles kernels but cannot run them)";
    return nullptr;
}

bool resolve(void* handle, CudaApi& api, std::string* why_not) {
#define TACK_CUDA_RESOLVE(name, symbol, result, params)                                           \
    api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, symbol));                       \
    if (!api.name) {                                                                              \
        *why_not = "the NVIDIA driver's libcuda has no " symbol " (Tack needs a CUDA 12 or newer driver)"; \
        return false;                                                                             \
    }
    TACK_CUDA_FUNCTIONS(TACK_CUDA_RESOLVE)
#undef TACK_CUDA_RESOLVE
    return true;
}

bool probe_devices(const CudaApi& api, std::string* why_not) {
    CUresult rc = api.cuInit(0);
    if (rc == kCudaErrorStubLibrary) {
        *why_not = "no NVIDIA driver: the libcuda found is the CUDA toolkit's stub (" + cuda_error(api, "cuInit", rc) +
                   "), which links programs but runs nothing";
        return false;
    }
    if (rc == kCudaErrorNoDevice) {
        *why_not = "no CUDA device: the NVIDIA driver is installed but sees no GPU (" + cuda_error(api, "cuInit", rc) +
                   ")";
        return false;
    }
    if (rc != kCudaSuccess) {
        *why_not = cuda_error(api, "cuInit", rc);
        return false;
    }
    int count = 0;
    rc = api.cuDeviceGetCount(&count);
    if (rc != kCudaSuccess) {
        *why_not = cuda_error(api, "cuDeviceGetCount", rc);
        return false;
    }
    if (count == 0) {
        *why_not = "no CUDA device: the NVIDIA driver is installed but sees no GPU";
        return false;
    }
    return true;
}

LoadedApi load() {
    LoadedApi loaded;
    void* handle = open_driver(&loaded.why_not);
    if (!handle) return loaded;
    if (!resolve(handle, loaded.api, &loaded.why_not)) return loaded;
    loaded.ok = probe_devices(loaded.api, &loaded.why_not);
    return loaded;
}

}  // namespace

const CudaApi* cuda_api(std::string* why_not) {
    static std::once_flag once;
    static LoadedApi* loaded = nullptr;
    std::call_once(once, [] { loaded = new LoadedApi(load()); });
    if (!loaded->ok) {
        if (why_not) *why_not = loaded->why_not;
        return nullptr;
    }
    return &loaded->api;
}

std::string cuda_error(const CudaApi& api, const char* call, CUresult code) {
    const char* name = nullptr;
    if (api.cuGetErrorName(code, &name) != kCudaSuccess || !name) {
        // The stub answers no question, this one included.
        name = code == kCudaErrorStubLibrary ? "CUDA_ERROR_STUB_LIBRARY"
               : code == kCudaErrorNoDevice  ? "CUDA_ERROR_NO_DEVICE"
                                             : "an unknown CUDA error";
    }
    return std::string(call) + " failed: " + name + " (" + std::to_string(code) + ")";
}

std::string describe_device(const CudaApi& api) {
    CUdevice device = 0;
    char name[256] = {};
    int major = 0, minor = 0, driver = 0;
    api.cuDeviceGet(&device, 0);
    api.cuDeviceGetName(name, sizeof name, device);
    api.cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device);
    api.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device);
    api.cuDriverGetVersion(&driver);
    return std::string(name) + " (compute capability " + std::to_string(major) + "." + std::to_string(minor) +
           "), driver CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
}

}  // namespace tack::backends::cuda
