// The OpenCL API, loaded at run time.
//
// Tack builds and imports where no OpenCL exists, so nothing links against
// libOpenCL: <CL/cl.h> supplies only types and prototypes, and cl_api()
// opens the ICD loader with dlopen and resolves each function it lists.
// The loader is opened once per process and never closed, so function
// pointers and handles stay valid until exit.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <stdexcept>
#include <string>

namespace tack::backends::opencl {

// Every entry point Tack calls, listed once; ClApi holds one pointer for
// each, typed from its prototype in <CL/cl.h>.
#define TACK_CL_FUNCTIONS(X)                \
    X(clGetPlatformIDs)                     \
    X(clGetPlatformInfo)                    \
    X(clGetDeviceIDs)                       \
    X(clGetDeviceInfo)                      \
    X(clCreateContext)                      \
    X(clReleaseContext)                     \
    X(clCreateCommandQueueWithProperties)   \
    X(clReleaseCommandQueue)                \
    X(clCreateBuffer)                       \
    X(clReleaseMemObject)                   \
    X(clEnqueueWriteBuffer)                 \
    X(clEnqueueReadBuffer)                  \
    X(clEnqueueCopyBuffer)                  \
    X(clEnqueueFillBuffer)                  \
    X(clCreateProgramWithSource)            \
    X(clCreateProgramWithBinary)            \
    X(clBuildProgram)                       \
    X(clGetProgramBuildInfo)                \
    X(clGetProgramInfo)                     \
    X(clReleaseProgram)                     \
    X(clCreateKernel)                       \
    X(clGetKernelWorkGroupInfo)             \
    X(clReleaseKernel)                      \
    X(clSetKernelArg)                       \
    X(clEnqueueNDRangeKernel)               \
    X(clFlush)                              \
    X(clFinish)

struct ClApi {
#define TACK_CL_POINTER(name) decltype(&::name) name = nullptr;
    TACK_CL_FUNCTIONS(TACK_CL_POINTER)
#undef TACK_CL_POINTER
};

// The loaded API, or null with the reason in *why_not (when given): the
// loader is missing, it lacks a function, no platform is installed, or no
// platform has a device. The answer is computed once per process; later
// calls return it again, and creation is thread-safe.
const ClApi* cl_api(std::string* why_not = nullptr);

// "CL_OUT_OF_RESOURCES" for -5; "unknown OpenCL error" for codes it does
// not know.
const char* cl_error_name(cl_int code);

// A failed OpenCL call: the message names the call and the error, e.g.
// "clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)".
class ClError : public std::runtime_error {
public:
    ClError(const std::string& call, cl_int code);
    ClError(const std::string& call, cl_int code, const std::string& detail);
    cl_int code() const { return code_; }

private:
    cl_int code_;
};

// Throws ClError unless `code` is CL_SUCCESS.
inline void cl_check(cl_int code, const char* call) {
    if (code != CL_SUCCESS) throw ClError(call, code);
}

}  // namespace tack::backends::opencl
