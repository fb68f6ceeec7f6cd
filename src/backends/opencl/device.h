// The OpenCL device Tack runs kernels on: one per process, with one context
// and one in-order command queue.
//
// The queue is in order, so a blocking read returns data that every launch
// queued before it has written, without events. Buffers, programs and
// kernels are RAII handles that release their object when destroyed; they
// must not outlive the device, which lives until the process exits.
//
// Thread safety: OpenCL calls are thread-safe except that a kernel's
// arguments are shared state, so ClDevice::launch holds the kernel's mutex
// from its first clSetKernelArg to its clEnqueueNDRangeKernel. Launches from
// several threads go to the one queue in whatever order the threads reach
// it; each thread's own reads still follow its own launches.
//
// Environment: TACK_OPENCL_DEVICE=<substring> picks the first device whose
// name, or platform name, contains the substring (case-sensitive).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/gpu/device.h"
#include "backends/opencl/cl_api.h"

namespace tack::backends::opencl {

// A program that failed to build: what() is the error and the log, log()
// the compiler's output alone.
class ClBuildError : public ClError {
public:
    ClBuildError(cl_int code, const std::string& log);
    const std::string& log() const { return log_; }

private:
    std::string log_;
};

// A device buffer of size() bytes (at least one byte is allocated, since
// OpenCL refuses empty buffers).
class ClBuffer {
public:
    ClBuffer() = default;
    ClBuffer(ClBuffer&& other) noexcept;
    ClBuffer& operator=(ClBuffer&& other) noexcept;
    ClBuffer(const ClBuffer&) = delete;
    ClBuffer& operator=(const ClBuffer&) = delete;
    ~ClBuffer();

    cl_mem handle() const { return mem_; }
    size_t size() const { return bytes_; }
    explicit operator bool() const { return mem_ != nullptr; }

private:
    friend class ClDevice;
    ClBuffer(const ClApi* api, cl_mem mem, size_t bytes) : api_(api), mem_(mem), bytes_(bytes) {}
    const ClApi* api_ = nullptr;
    cl_mem mem_ = nullptr;
    size_t bytes_ = 0;
};

// A program built for the device; empty when load_binary refused bytes.
class ClProgram {
public:
    ClProgram() = default;
    ClProgram(ClProgram&& other) noexcept;
    ClProgram& operator=(ClProgram&& other) noexcept;
    ClProgram(const ClProgram&) = delete;
    ClProgram& operator=(const ClProgram&) = delete;
    ~ClProgram();

    cl_program handle() const { return program_; }
    explicit operator bool() const { return program_ != nullptr; }

private:
    friend class ClDevice;
    ClProgram(const ClApi* api, cl_program program) : api_(api), program_(program) {}
    const ClApi* api_ = nullptr;
    cl_program program_ = nullptr;
};

// One entry point of a built program, with the mutex that makes its
// argument setting and launch one step. It keeps its program alive on the
// OpenCL side, so the ClProgram may be destroyed first.
class ClKernel {
public:
    ClKernel() = default;
    ClKernel(ClKernel&& other) noexcept;
    ClKernel& operator=(ClKernel&& other) noexcept;
    ClKernel(const ClKernel&) = delete;
    ClKernel& operator=(const ClKernel&) = delete;
    ~ClKernel();

    cl_kernel handle() const { return kernel_; }
    const std::string& entry() const { return entry_; }
    // The work-group size launch() uses when given none: 256 (the C-family
    // ABI's kGroupSize), lowered to the largest power of two that the device
    // and this kernel allow.
    size_t group_size() const { return group_size_; }
    // The largest work-group size this kernel may be launched with.
    size_t max_group_size() const { return max_group_size_; }
    explicit operator bool() const { return kernel_ != nullptr; }

private:
    friend class ClDevice;
    const ClApi* api_ = nullptr;
    cl_kernel kernel_ = nullptr;
    std::string entry_;
    size_t group_size_ = 0;
    size_t max_group_size_ = 0;
    std::unique_ptr<std::mutex> mutex_;
};

// The device's two command queues, both in order. Ordered carries every
// launch, copy and transfer in call order; Beside carries small launches
// that read no buffer memory Ordered may be writing (a count entry that
// reads only scalars and extents), so reading their result back does not
// wait for the work queued before them.
enum class Queue { Ordered, Beside };

class ClDevice {
public:
    // The process's device, created on first use (thread-safe); null with
    // the reason in *why_not when there is no OpenCL, no device, no device
    // matching TACK_OPENCL_DEVICE, or its context or queue fail. The answer
    // is kept: a later call does not retry.
    static ClDevice* instance(std::string* why_not = nullptr);

    ClDevice(const ClDevice&) = delete;
    ClDevice& operator=(const ClDevice&) = delete;

    // Platform name and version, device name and version, driver version
    // and OpenCL C version, one "key: value" per line: everything a
    // compiled program depends on besides its source and options.
    const std::string& description() const { return description_; }
    const std::string& device_name() const { return device_name_; }
    bool is_gpu() const { return is_gpu_; }
    bool supports_fp64() const { return fp64_; }
    // The highest OpenCL C version the device compiles, as major * 100 +
    // minor * 10 (300 for OpenCL C 3.0).
    int opencl_c_version() const { return opencl_c_version_; }
    bool has_extension(const std::string& name) const;
    size_t max_work_group_size() const { return max_work_group_size_; }
    uint64_t max_allocation_bytes() const { return max_allocation_bytes_; }

    // Buffers. Offsets and sizes are in bytes and checked against the
    // buffer's size (std::out_of_range); transfers of zero bytes do nothing.
    ClBuffer allocate(size_t bytes);
    // Blocking: `src` may be reused when it returns.
    void write(const ClBuffer& buffer, size_t offset, const void* src, size_t bytes);
    // Blocking: waits for every launch queued before it on `queue`.
    void read(const ClBuffer& buffer, size_t offset, void* dst, size_t bytes, Queue queue = Queue::Ordered);
    // Queued.
    void copy(const ClBuffer& src, size_t src_offset, const ClBuffer& dst, size_t dst_offset, size_t bytes);
    // Queued: repeats `pattern` (1, 2, 4, ..., 128 bytes, copied at once)
    // over `bytes` bytes from `offset`, both multiples of pattern_bytes.
    void fill(const ClBuffer& buffer, size_t offset, const void* pattern, size_t pattern_bytes, size_t bytes);
    void flush();
    void finish();

    // Compiles OpenCL C. The compiler's output, warnings included, goes to
    // *log (when given) whether or not the build succeeds; failure throws
    // ClBuildError.
    ClProgram build(const std::string& source, const std::string& options, std::string* log = nullptr);
    // The program's device binary (CL_PROGRAM_BINARIES), to store and hand
    // back to load_binary in a later process with the same description().
    std::string binary(const ClProgram& program);
    // A program from binary(); empty, with the reason in *why_rejected,
    // when the driver refuses the bytes, so the caller compiles afresh.
    ClProgram load_binary(const std::string& bytes, const std::string& options,
                          std::string* why_rejected = nullptr);

    // Throws ClError naming the entry point when the program has none of
    // that name.
    ClKernel kernel(const ClProgram& program, const std::string& entry);

    // Sets the kernel's arguments and queues one 1-D range of `global_size`
    // work items, rounded up to a multiple of the work-group size, which
    // is `group_size`, or kernel.group_size() when it is 0. Work items past
    // global_size run, so a kernel compares its index against its count. A
    // global size of zero queues nothing.
    void launch(const ClKernel& kernel, const gpu::Arguments& args, uint64_t global_size, size_t group_size = 0,
                Queue queue = Queue::Ordered);

    const ClApi& api() const { return *api_; }
    cl_context context() const { return context_; }
    cl_command_queue queue() const { return queue_; }
    cl_device_id id() const { return device_; }

private:
    ClDevice() = default;
    friend struct DeviceFactory;

    const ClApi* api_ = nullptr;
    cl_platform_id platform_ = nullptr;
    cl_device_id device_ = nullptr;
    cl_context context_ = nullptr;
    cl_command_queue queue_ = nullptr;   // Queue::Ordered
    cl_command_queue beside_ = nullptr;  // Queue::Beside
    cl_command_queue handle(Queue q) const { return q == Queue::Beside ? beside_ : queue_; }

    std::string description_;
    std::string device_name_;
    std::string extensions_;
    bool is_gpu_ = false;
    bool fp64_ = false;
    int opencl_c_version_ = 120;
    int address_bits_ = 64;
    size_t max_work_group_size_ = 1;
    size_t max_work_item_size_ = 1;
    uint64_t max_allocation_bytes_ = 0;
};

}  // namespace tack::backends::opencl
