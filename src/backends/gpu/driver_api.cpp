#include "backends/gpu/driver_api.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "support/shared_library.h"

namespace tack::backends::gpu {

// The soname first: libcuda.so is a development symlink, and on a machine
// with only the toolkit it is the stub that links programs, which answers
// every call with CUDA_ERROR_STUB_LIBRARY.
const Vendor kCudaVendor{
    "CUDA",
    false,
    {"libcuda.so.1", "libcuda.so"},
    "TACK_CUDA_DRIVER",
    "no NVIDIA driver: libcuda.so.1 not found (the CUDA backend needs the NVIDIA driver and a GPU; the CUDA "
    "toolkit alone compiles kernels but cannot run them)",
    75,   // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    76,   // ..._MINOR
    1,    // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    5,    // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X
    0,    // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    1,    // CU_STREAM_NON_BLOCKING
    34,   // CUDA_ERROR_STUB_LIBRARY
    100,  // CUDA_ERROR_NO_DEVICE
    101,  // CUDA_ERROR_INVALID_DEVICE
    2,    // CUDA_ERROR_OUT_OF_MEMORY
    2,    // kDLCUDA
    1,    // CU_STREAM_LEGACY
    2,    // CU_STREAM_PER_THREAD
};

// ROCm 5 and 6 keep the CUDA-compatible attributes' numbers.
const Vendor kHipVendor{
    "HIP",
    true,
    {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"},
    "TACK_HIP_RUNTIME",
    "no HIP runtime: libamdhip64.so not found (the HIP backend needs ROCm's HIP runtime and an AMD GPU)",
    23,   // hipDeviceAttributeComputeCapabilityMajor
    61,   // hipDeviceAttributeComputeCapabilityMinor
    56,   // hipDeviceAttributeMaxThreadsPerBlock
    29,   // hipDeviceAttributeMaxGridDimX
    0,    // HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    1,    // hipStreamNonBlocking
    0,    // (no stub library)
    100,  // hipErrorNoDevice
    101,  // hipErrorInvalidDevice
    2,    // hipErrorOutOfMemory
    10,   // kDLROCM
    0,    // the null stream
    2,    // hipStreamPerThread
};

namespace {

struct Loaded {
    DriverApi api;
    bool ok = false;
    std::string why_not;
};

bool resolve(void* library, const std::string& path, DriverApi& api, std::string* why_not) {
    const bool hip = api.vendor->hip;
#define TACK_DRIVER_RESOLVE(member, cuda, hipname, params)                                        \
    api.name.member = hip ? hipname : cuda;                                                         \
    api.member = reinterpret_cast<decltype(api.member)>(support::find_symbol(library, api.name.member)); \
    if (!api.member) {                                                                              \
        *why_not = path + " has no " + api.name.member + " (Tack needs a " +                        \
                   (hip ? "ROCm 5 or newer HIP runtime" : "CUDA 12 or newer driver") + ")";        \
        return false;                                                                               \
    }
    TACK_DRIVER_FUNCTIONS(TACK_DRIVER_RESOLVE)
#undef TACK_DRIVER_RESOLVE
    if (!hip) {
        api.images = true;
#define TACK_DRIVER_IMAGE_RESOLVE(member, cuda, params)                                            \
    api.member = reinterpret_cast<decltype(api.member)>(support::find_symbol(library, cuda));     \
    api.images = api.images && api.member;
        TACK_DRIVER_IMAGE_FUNCTIONS(TACK_DRIVER_IMAGE_RESOLVE)
#undef TACK_DRIVER_IMAGE_RESOLVE
    }
    if (hip)
        api.hip_error_name = reinterpret_cast<decltype(api.hip_error_name)>(support::find_symbol(library, "hipGetErrorName"));
    else
        api.cuda_error_name = reinterpret_cast<decltype(api.cuda_error_name)>(support::find_symbol(library, "cuGetErrorName"));
    return true;
}

bool probe_devices(const DriverApi& api, std::string* why_not) {
    const Vendor& v = *api.vendor;
    auto no_device = [&](const std::string& detail) {
        *why_not = std::string("no ") + v.name + " device: the " + (v.hip ? "HIP runtime" : "NVIDIA driver") +
                   " is installed but sees no " + (v.hip ? "AMD GPU" : "GPU") + detail;
        return false;
    };
    DriverResult rc = api.init(0);
    if (v.stub_library && rc == v.stub_library) {
        *why_not = "no NVIDIA driver: the libcuda found is the CUDA toolkit's stub (" +
                   driver_error(api, api.name.init, rc) + "), which links programs but runs nothing";
        return false;
    }
    if (rc == v.no_device || rc == v.invalid_device) return no_device(" (" + driver_error(api, api.name.init, rc) + ")");
    if (rc != 0) {
        *why_not = driver_error(api, api.name.init, rc);
        return false;
    }
    int count = 0;
    rc = api.device_count(&count);
    if (rc != 0) return no_device(" (" + driver_error(api, api.name.device_count, rc) + ")");
    if (count == 0) return no_device("");
    return true;
}

Loaded load(const Vendor& vendor, const std::vector<std::string>& names) {
    Loaded loaded;
    loaded.api.vendor = &vendor;
    std::vector<std::string> tried;
    void* library = support::open_first(names, &tried);
    if (!library) {
        loaded.why_not = names == vendor.libraries ? vendor.missing : "cannot load " + support::listed(tried);
        return loaded;
    }
    if (!resolve(library, names.size() == 1 ? names[0] : vendor.libraries[0], loaded.api, &loaded.why_not))
        return loaded;
    loaded.ok = probe_devices(loaded.api, &loaded.why_not);
    return loaded;
}

const DriverApi* answer(const Loaded& loaded, std::string* why_not) {
    if (!loaded.ok) {
        if (why_not) *why_not = loaded.why_not;
        return nullptr;
    }
    return &loaded.api;
}

}  // namespace

const DriverApi* driver_api(const Vendor& vendor, std::string* why_not) {
    static std::once_flag cuda_once, hip_once;
    static Loaded* cuda = nullptr;
    static Loaded* hip = nullptr;
    auto open = [&] {
        const char* chosen = std::getenv(vendor.library_variable);
        return new Loaded(load(vendor, chosen && *chosen ? std::vector<std::string>{chosen} : vendor.libraries));
    };
    if (vendor.hip) {
        std::call_once(hip_once, [&] { hip = open(); });
        return answer(*hip, why_not);
    }
    std::call_once(cuda_once, [&] { cuda = open(); });
    return answer(*cuda, why_not);
}

const DriverApi* open_driver_api(const Vendor& vendor, const std::string& path, std::string* why_not) {
    // Kept for the process: a DriverApi is referred to by every device made
    // from it.
    static std::mutex mutex;
    static std::map<std::pair<const Vendor*, std::string>, std::unique_ptr<Loaded>> opened;
    std::lock_guard<std::mutex> hold(mutex);
    auto& slot = opened[{&vendor, path}];
    if (!slot) slot = std::make_unique<Loaded>(load(vendor, {path}));
    return answer(*slot, why_not);
}

std::string driver_error(const DriverApi& api, const char* call, DriverResult code) {
    const char* name = nullptr;
    if (api.cuda_error_name) {
        if (api.cuda_error_name(code, &name) != 0) name = nullptr;
    } else if (api.hip_error_name) {
        name = api.hip_error_name(code);
    }
    if (!name) {
        // The stub answers no question, this one included.
        const Vendor& v = *api.vendor;
        name = v.stub_library && code == v.stub_library ? "CUDA_ERROR_STUB_LIBRARY"
               : code == v.no_device                     ? (v.hip ? "hipErrorNoDevice" : "CUDA_ERROR_NO_DEVICE")
                                                         : "an unknown error";
    }
    return std::string(call) + " failed: " + name + " (" + std::to_string(code) + ")";
}

std::string describe_device(const DriverApi& api, int ordinal) {
    int device = 0;
    char name[256] = {};
    int major = 0, minor = 0, driver = 0;
    api.device_get(&device, ordinal);
    api.device_name(name, sizeof name, device);
    api.device_attribute(&major, api.vendor->compute_major, device);
    api.device_attribute(&minor, api.vendor->compute_minor, device);
    api.driver_version(&driver);
    if (api.vendor->hip)
        return std::string(name) + " (architecture " + std::to_string(major) + "." + std::to_string(minor) +
               "), HIP runtime " + std::to_string(driver);
    return std::string(name) + " (compute capability " + std::to_string(major) + "." + std::to_string(minor) +
           "), driver CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
}

}  // namespace tack::backends::gpu
