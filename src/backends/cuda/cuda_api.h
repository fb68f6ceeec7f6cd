// The CUDA driver API, loaded at run time.
//
// Tack builds and imports where no NVIDIA driver exists, so nothing links
// against libcuda and no CUDA header is needed: the few types the driver
// API passes are declared here by their documented ABI, and cuda_api()
// opens libcuda.so.1 with dlopen and resolves each function it lists (by
// the symbol that <cuda.h> maps the name to: cuDeviceTotalMem is
// cuDeviceTotalMem_v2). The library is opened once per process and never
// closed.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace tack::backends::cuda {

using CUresult = int;  // 0 is CUDA_SUCCESS
using CUdevice = int;
using CUdevice_attribute = int;

inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorStubLibrary = 34;  // the toolkit's stub libcuda, not a driver
inline constexpr CUresult kCudaErrorNoDevice = 100;
inline constexpr CUdevice_attribute kComputeCapabilityMajor = 75;
inline constexpr CUdevice_attribute kComputeCapabilityMinor = 76;

// Every entry point Tack calls: (name, symbol, result, parameters), listed
// once; CudaApi holds one pointer for each.
#define TACK_CUDA_FUNCTIONS(X)                                                        \
    X(cuInit, "cuInit", CUresult, (unsigned int flags))                               \
    X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int* version))             \
    X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int* count))                   \
    X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice * device, int ordinal))         \
    X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char* name, int length, CUdevice device)) \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int* value, CUdevice_attribute attribute, CUdevice device)) \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t * bytes, CUdevice device)) \
    X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult error, const char** name))

struct CudaApi {
#define TACK_CUDA_POINTER(name, symbol, result, params) result(*name) params = nullptr;
    TACK_CUDA_FUNCTIONS(TACK_CUDA_POINTER)
#undef TACK_CUDA_POINTER
};

// The loaded API, or null with the reason in *why_not (when given): the
// driver is missing (or only the toolkit's stub is there), it lacks a
// function, cuInit fails, or there is no device. Computed once per process.
const CudaApi* cuda_api(std::string* why_not = nullptr);

// "cuInit failed: CUDA_ERROR_NO_DEVICE (100)".
std::string cuda_error(const CudaApi& api, const char* call, CUresult code);

// What the process's first CUDA device is: its name, compute capability and
// the driver's CUDA version, e.g. "NVIDIA H200 (compute capability 9.0),
// driver CUDA 13.0".
std::string describe_device(const CudaApi& api);

}  // namespace tack::backends::cuda
