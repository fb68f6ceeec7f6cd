// The CUDA driver API and the HIP runtime's module API, one table for both,
// loaded at run time.
//
// Tack builds and imports where no GPU driver exists, so nothing links
// against libcuda or libamdhip64 and no vendor header is needed: the
// handful of types these calls pass are declared here by their ABI (a
// device address is 64 bits, every other object a pointer-sized handle),
// and the library is opened with dlopen. HIP mirrors the CUDA driver API
// call for call (cuLaunchKernel and hipModuleLaunchKernel take the same
// arguments), so each entry of TACK_DRIVER_FUNCTIONS names the CUDA symbol
// and the HIP symbol of one function, and a Vendor table holds the rest:
// library names, attribute numbers and error codes. Everything above the
// table (driver_device.h) is written once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tack::backends::gpu {

using DriverResult = int;      // 0 is success (CUDA_SUCCESS, hipSuccess)
using DeviceAddress = uint64_t;  // CUdeviceptr, hipDeviceptr_t
using DriverHandle = void*;    // contexts, modules, functions, streams

// Every driver entry point Tack calls: (member, CUDA symbol, HIP symbol,
// parameters), each returning a DriverResult. The CUDA symbol is the one
// <cuda.h> maps the name to (cuMemAlloc is cuMemAlloc_v2).
#define TACK_DRIVER_FUNCTIONS(X)                                                                                  \
    X(init, "cuInit", "hipInit", (unsigned int flags))                                                           \
    X(driver_version, "cuDriverGetVersion", "hipDriverGetVersion", (int* version))                               \
    X(device_count, "cuDeviceGetCount", "hipGetDeviceCount", (int* count))                                       \
    X(device_get, "cuDeviceGet", "hipDeviceGet", (int* device, int ordinal))                                     \
    X(device_name, "cuDeviceGetName", "hipDeviceGetName", (char* name, int length, int device))                  \
    X(device_attribute, "cuDeviceGetAttribute", "hipDeviceGetAttribute", (int* value, int attribute, int device)) \
    X(device_memory, "cuDeviceTotalMem_v2", "hipDeviceTotalMem", (size_t * bytes, int device))                   \
    X(primary_context, "cuDevicePrimaryCtxRetain", "hipDevicePrimaryCtxRetain", (DriverHandle * context, int device)) \
    X(set_context, "cuCtxSetCurrent", "hipCtxSetCurrent", (DriverHandle context))                                \
    X(allocate, "cuMemAlloc_v2", "hipMalloc", (DeviceAddress * address, size_t bytes))                            \
    X(free, "cuMemFree_v2", "hipFree", (DeviceAddress address))                                                   \
    X(address_range, "cuMemGetAddressRange_v2", "hipMemGetAddressRange",                                          \
      (DeviceAddress * base, size_t * bytes, DeviceAddress address))                                              \
    X(copy_to_device, "cuMemcpyHtoDAsync_v2", "hipMemcpyHtoDAsync",                                               \
      (DeviceAddress dst, const void* src, size_t bytes, DriverHandle stream))                                    \
    X(copy_to_host, "cuMemcpyDtoHAsync_v2", "hipMemcpyDtoHAsync",                                                 \
      (void* dst, DeviceAddress src, size_t bytes, DriverHandle stream))                                          \
    X(stream_create, "cuStreamCreate", "hipStreamCreateWithFlags", (DriverHandle * stream, unsigned int flags))   \
    X(stream_synchronize, "cuStreamSynchronize", "hipStreamSynchronize", (DriverHandle stream))                   \
    X(module_load, "cuModuleLoadData", "hipModuleLoadData", (DriverHandle * module, const void* image))           \
    X(module_unload, "cuModuleUnload", "hipModuleUnload", (DriverHandle module))                                  \
    X(module_function, "cuModuleGetFunction", "hipModuleGetFunction",                                             \
      (DriverHandle * function, DriverHandle module, const char* name))                                           \
    X(function_attribute, "cuFuncGetAttribute", "hipFuncGetAttribute", (int* value, int attribute, DriverHandle function)) \
    X(launch, "cuLaunchKernel", "hipModuleLaunchKernel",                                                          \
      (DriverHandle function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x, \
       unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, DriverHandle stream, void** params,  \
       void** extra))

// Hardware textures (CUDA only: HIP's image calls take differently laid-out
// structures, and its backend samples textures in code): a 3D array of f32
// texels, a copy into it, and a texture object over it. The structures are
// <cuda.h>'s, declared by their ABI (CUDA_ARRAY3D_DESCRIPTOR_v2,
// CUDA_MEMCPY3D_v2, CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC); a test checks
// sizes and offsets against the header where the toolkit is installed.
struct ArrayDescriptor3D {
    size_t width, height, depth;
    int format;  // CUarray_format
    unsigned int channels;
    unsigned int flags;
};
struct Copy3D {
    size_t src_x_bytes, src_y, src_z, src_lod;
    int src_memory_type;  // CUmemorytype
    const void* src_host;
    DeviceAddress src_device;
    DriverHandle src_array;
    void* reserved0;
    size_t src_pitch, src_height;
    size_t dst_x_bytes, dst_y, dst_z, dst_lod;
    int dst_memory_type;
    void* dst_host;
    DeviceAddress dst_device;
    DriverHandle dst_array;
    void* reserved1;
    size_t dst_pitch, dst_height;
    size_t width_bytes, height, depth;
};
struct ResourceDescriptor {
    int type;  // CUresourcetype
    union {
        DriverHandle array;
        int reserved[32];
    } resource;
    unsigned int flags;
};
struct TextureDescriptor {
    int address_mode[3];  // CUaddress_mode
    int filter_mode;      // CUfilter_mode
    unsigned int flags;   // CU_TRSF_*
    unsigned int max_anisotropy;
    int mipmap_filter_mode;
    float mipmap_level_bias, min_mipmap_level_clamp, max_mipmap_level_clamp;
    float border_color[4];
    int reserved[12];
};
// The values Tack passes in them.
inline constexpr int kArrayFormatFloat = 0x20;        // CU_AD_FORMAT_FLOAT
inline constexpr int kMemoryTypeHost = 1;             // CU_MEMORYTYPE_HOST
inline constexpr int kMemoryTypeArray = 3;            // CU_MEMORYTYPE_ARRAY
inline constexpr int kResourceTypeArray = 0;          // CU_RESOURCE_TYPE_ARRAY
inline constexpr int kAddressModeClamp = 1;           // CU_TR_ADDRESS_MODE_CLAMP
inline constexpr int kFilterModeLinear = 1;           // CU_TR_FILTER_MODE_LINEAR
inline constexpr unsigned kNormalizedCoordinates = 0x02;  // CU_TRSF_NORMALIZED_COORDINATES
inline constexpr unsigned kNoTrilinearShortcut = 0x20;    // CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION

// (member, CUDA symbol, parameters): resolved for CUDA only, and optional:
// without them the device has no images.
#define TACK_DRIVER_IMAGE_FUNCTIONS(X)                                                                        \
    X(array_create, "cuArray3DCreate_v2", (DriverHandle * array, const ArrayDescriptor3D* descriptor))       \
    X(array_destroy, "cuArrayDestroy", (DriverHandle array))                                                  \
    X(copy_3d, "cuMemcpy3DAsync_v2", (const Copy3D* copy, DriverHandle stream))                              \
    X(texture_create, "cuTexObjectCreate",                                                                    \
      (uint64_t * texture, const ResourceDescriptor* resource, const TextureDescriptor* sampling,             \
       const void* view))                                                                                     \
    X(texture_destroy, "cuTexObjectDestroy", (uint64_t texture))

// What differs between the vendors besides symbol names.
struct Vendor {
    const char* name;            // "CUDA", "HIP"
    bool hip;                    // which symbol column
    std::vector<std::string> libraries;  // sonames, first found wins
    const char* library_variable;        // TACK_CUDA_DRIVER: a library path tried instead of them
    const char* missing;         // why_not when no library opens
    // Device attributes.
    int compute_major, compute_minor, max_threads_per_block, max_grid_x;
    int function_max_threads;    // the function attribute: max threads per block
    unsigned int nonblocking_stream;
    DriverResult stub_library;   // the CUDA toolkit's stub libcuda (CUDA only; else 0)
    DriverResult no_device;      // cuInit's and hipInit's answers without a device
    DriverResult invalid_device;
    DriverResult out_of_memory;  // an allocation the device's memory cannot hold
    // Sharing memory: the DLPack device type (kDLCUDA 2, kDLROCM 10), and
    // the handles of the default streams that __cuda_array_interface__ and
    // DLPack name 1 (legacy) and 2 (per-thread).
    int dlpack_device;
    uint64_t legacy_stream, per_thread_stream;
};

extern const Vendor kCudaVendor;
extern const Vendor kHipVendor;

struct DriverApi {
#define TACK_DRIVER_POINTER(member, cuda, hip, params) DriverResult(*member) params = nullptr;
    TACK_DRIVER_FUNCTIONS(TACK_DRIVER_POINTER)
#undef TACK_DRIVER_POINTER
#define TACK_DRIVER_IMAGE_POINTER(member, cuda, params) DriverResult(*member) params = nullptr;
    TACK_DRIVER_IMAGE_FUNCTIONS(TACK_DRIVER_IMAGE_POINTER)
#undef TACK_DRIVER_IMAGE_POINTER
    bool images = false;  // every image function resolved
    // The symbol behind each function, for messages: name.launch is
    // "cuLaunchKernel" or "hipModuleLaunchKernel".
    struct Names {
#define TACK_DRIVER_NAME(member, cuda, hip, params) const char* member = "";
        TACK_DRIVER_FUNCTIONS(TACK_DRIVER_NAME)
#undef TACK_DRIVER_NAME
    } name;
    // cuGetErrorName and hipGetErrorName differ in shape; one of them is set.
    DriverResult (*cuda_error_name)(DriverResult, const char**) = nullptr;
    const char* (*hip_error_name)(DriverResult) = nullptr;
    const Vendor* vendor = nullptr;
};

// The vendor's driver (the library $<library_variable> names, else the first
// of its sonames), opened and probed once per process: null, with the
// reason in *why_not, when the library is missing (or is only the CUDA
// toolkit's stub), lacks a function, fails to initialize, or sees no device.
const DriverApi* driver_api(const Vendor& vendor, std::string* why_not = nullptr);

// The same from the library at `path`, opened afresh (tests load a
// recording driver this way).
const DriverApi* open_driver_api(const Vendor& vendor, const std::string& path, std::string* why_not);

// "cuInit failed: CUDA_ERROR_NO_DEVICE (100)".
std::string driver_error(const DriverApi& api, const char* call, DriverResult code);

// The device's name, architecture and the driver's version, e.g. "NVIDIA
// H200 (compute capability 9.0), driver CUDA 13.0".
std::string describe_device(const DriverApi& api, int ordinal = 0);

}  // namespace tack::backends::gpu
