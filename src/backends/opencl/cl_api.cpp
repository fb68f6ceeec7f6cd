#include "backends/opencl/cl_api.h"

#include <vector>

#include "support/shared_library.h"

namespace tack::backends::opencl {

namespace {

struct LoadedApi {
    ClApi api;
    bool ok = false;
    std::string why_not;
};

// The soname first: libOpenCL.so is a development symlink that a machine
// with only the runtime package lacks.
void* open_loader(std::string* why_not) {
    if (void* handle = support::open_first({"libOpenCL.so.1", "libOpenCL.so"})) return handle;
    *why_not =
        "libOpenCL.so.1 not found (install ocl-icd-libopencl1 and an OpenCL driver such as "
        "pocl-opencl-icd)";
    return nullptr;
}

bool resolve(void* handle, ClApi& api, std::string* why_not) {
#define TACK_CL_RESOLVE(name)                                                                   \
    api.name = reinterpret_cast<decltype(api.name)>(support::find_symbol(handle, #name));       \
    if (!api.name) {                                                                            \
        *why_not = "the OpenCL ICD loader has no " #name " (Tack needs OpenCL 2.0 or newer)";   \
        return false;                                                                           \
    }
    TACK_CL_FUNCTIONS(TACK_CL_RESOLVE)
#undef TACK_CL_RESOLVE
    return true;
}

// The loader itself always loads; whether a driver stands behind it shows
// only when platforms and devices are asked for.
bool probe_devices(const ClApi& api, std::string* why_not) {
    cl_uint platform_count = 0;
    cl_int err = api.clGetPlatformIDs(0, nullptr, &platform_count);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && platform_count == 0)) {
        *why_not =
            "no OpenCL platform is installed (install an OpenCL driver such as pocl-opencl-icd; "
            "the ICD loader lists drivers in /etc/OpenCL/vendors)";
        return false;
    }
    if (err != CL_SUCCESS) {
        *why_not = ClError("clGetPlatformIDs", err).what();
        return false;
    }
    std::vector<cl_platform_id> platforms(platform_count);
    err = api.clGetPlatformIDs(platform_count, platforms.data(), nullptr);
    if (err != CL_SUCCESS) {
        *why_not = ClError("clGetPlatformIDs", err).what();
        return false;
    }
    for (cl_platform_id platform : platforms) {
        cl_uint device_count = 0;
        if (api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count) == CL_SUCCESS &&
            device_count > 0)
            return true;
    }
    *why_not = "no OpenCL platform has a device";
    return false;
}

LoadedApi load() {
    LoadedApi loaded;
    void* handle = open_loader(&loaded.why_not);
    if (!handle) return loaded;
    if (!resolve(handle, loaded.api, &loaded.why_not)) return loaded;
    loaded.ok = probe_devices(loaded.api, &loaded.why_not);
    return loaded;
}

}  // namespace

const ClApi* cl_api(std::string* why_not) {
    static const LoadedApi loaded = load();
    if (!loaded.ok) {
        if (why_not) *why_not = loaded.why_not;
        return nullptr;
    }
    return &loaded.api;
}

const char* cl_error_name(cl_int code) {
    // Literal codes, so that headers older than a code still compile.
    switch (code) {
        case 0: return "CL_SUCCESS";
        case -1: return "CL_DEVICE_NOT_FOUND";
        case -2: return "CL_DEVICE_NOT_AVAILABLE";
        case -3: return "CL_COMPILER_NOT_AVAILABLE";
        case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
        case -5: return "CL_OUT_OF_RESOURCES";
        case -6: return "CL_OUT_OF_HOST_MEMORY";
        case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
        case -8: return "CL_MEM_COPY_OVERLAP";
        case -9: return "CL_IMAGE_FORMAT_MISMATCH";
        case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
        case -11: return "CL_BUILD_PROGRAM_FAILURE";
        case -12: return "CL_MAP_FAILURE";
        case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
        case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
        case -15: return "CL_COMPILE_PROGRAM_FAILURE";
        case -16: return "CL_LINKER_NOT_AVAILABLE";
        case -17: return "CL_LINK_PROGRAM_FAILURE";
        case -18: return "CL_DEVICE_PARTITION_FAILED";
        case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
        case -30: return "CL_INVALID_VALUE";
        case -31: return "CL_INVALID_DEVICE_TYPE";
        case -32: return "CL_INVALID_PLATFORM";
        case -33: return "CL_INVALID_DEVICE";
        case -34: return "CL_INVALID_CONTEXT";
        case -35: return "CL_INVALID_QUEUE_PROPERTIES";
        case -36: return "CL_INVALID_COMMAND_QUEUE";
        case -37: return "CL_INVALID_HOST_PTR";
        case -38: return "CL_INVALID_MEM_OBJECT";
        case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
        case -40: return "CL_INVALID_IMAGE_SIZE";
        case -41: return "CL_INVALID_SAMPLER";
        case -42: return "CL_INVALID_BINARY";
        case -43: return "CL_INVALID_BUILD_OPTIONS";
        case -44: return "CL_INVALID_PROGRAM";
        case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
        case -46: return "CL_INVALID_KERNEL_NAME";
        case -47: return "CL_INVALID_KERNEL_DEFINITION";
        case -48: return "CL_INVALID_KERNEL";
        case -49: return "CL_INVALID_ARG_INDEX";
        case -50: return "CL_INVALID_ARG_VALUE";
        case -51: return "CL_INVALID_ARG_SIZE";
        case -52: return "CL_INVALID_KERNEL_ARGS";
        case -53: return "CL_INVALID_WORK_DIMENSION";
        case -54: return "CL_INVALID_WORK_GROUP_SIZE";
        case -55: return "CL_INVALID_WORK_ITEM_SIZE";
        case -56: return "CL_INVALID_GLOBAL_OFFSET";
        case -57: return "CL_INVALID_EVENT_WAIT_LIST";
        case -58: return "CL_INVALID_EVENT";
        case -59: return "CL_INVALID_OPERATION";
        case -60: return "CL_INVALID_GL_OBJECT";
        case -61: return "CL_INVALID_BUFFER_SIZE";
        case -62: return "CL_INVALID_MIP_LEVEL";
        case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
        case -64: return "CL_INVALID_PROPERTY";
        case -65: return "CL_INVALID_IMAGE_DESCRIPTOR";
        case -66: return "CL_INVALID_COMPILER_OPTIONS";
        case -67: return "CL_INVALID_LINKER_OPTIONS";
        case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
        case -69: return "CL_INVALID_PIPE_SIZE";
        case -70: return "CL_INVALID_DEVICE_QUEUE";
        case -71: return "CL_INVALID_SPEC_ID";
        case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
        case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
        case -1121: return "CL_CONTEXT_TERMINATED_KHR";
        default: return "unknown OpenCL error";
    }
}

ClError::ClError(const std::string& call, cl_int code)
    : std::runtime_error(call + " failed: " + cl_error_name(code) + " (" + std::to_string(code) + ")"),
      code_(code) {}

ClError::ClError(const std::string& call, cl_int code, const std::string& detail)
    : std::runtime_error(call + " failed: " + cl_error_name(code) + " (" + std::to_string(code) + ")" +
                         (detail.empty() ? "" : "\n" + detail)),
      code_(code) {}

}  // namespace tack::backends::opencl
