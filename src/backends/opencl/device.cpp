#include "backends/opencl/device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "runtime/errors.h"

namespace tack::backends::opencl {

namespace {

std::string device_string(const ClApi& api, cl_device_id device, cl_device_info param) {
    size_t size = 0;
    if (api.clGetDeviceInfo(device, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
    std::string text(size, '\0');
    if (api.clGetDeviceInfo(device, param, size, text.data(), nullptr) != CL_SUCCESS) return {};
    while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
    return text;
}

std::string platform_string(const ClApi& api, cl_platform_id platform, cl_platform_info param) {
    size_t size = 0;
    if (api.clGetPlatformInfo(platform, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
    std::string text(size, '\0');
    if (api.clGetPlatformInfo(platform, param, size, text.data(), nullptr) != CL_SUCCESS) return {};
    while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
    return text;
}

template <class T>
T device_value(const ClApi& api, cl_device_id device, cl_device_info param, T fallback) {
    T value{};
    if (api.clGetDeviceInfo(device, param, sizeof value, &value, nullptr) != CL_SUCCESS) return fallback;
    return value;
}

// "OpenCL 3.0 PoCL ..." and "OpenCL C 1.2 PoCL" -> 300 and 120; 0 when
// the text holds no version after `prefix`.
int parse_version(const std::string& text, const std::string& prefix) {
    if (text.compare(0, prefix.size(), prefix) != 0) return 0;
    int major = 0, minor = 0;
    if (std::sscanf(text.c_str() + prefix.size(), "%d.%d", &major, &minor) != 2) return 0;
    return major * 100 + minor * 10;
}

// OpenCL 3.0 devices may report 1.2 as CL_DEVICE_OPENCL_C_VERSION for
// compatibility; the list of all versions tells whether -cl-std=CL3.0 works.
int highest_opencl_c_version(const ClApi& api, cl_device_id device, int device_version) {
    int best = parse_version(device_string(api, device, CL_DEVICE_OPENCL_C_VERSION), "OpenCL C ");
#ifdef CL_DEVICE_OPENCL_C_ALL_VERSIONS
    if (device_version >= 300) {
        size_t size = 0;
        if (api.clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &size) == CL_SUCCESS &&
            size >= sizeof(cl_name_version)) {
            std::vector<cl_name_version> versions(size / sizeof(cl_name_version));
            if (api.clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, versions.data(), nullptr) ==
                CL_SUCCESS) {
                for (const cl_name_version& v : versions)
                    best = std::max(best, int(CL_VERSION_MAJOR(v.version) * 100 + CL_VERSION_MINOR(v.version) * 10));
            }
        }
    }
#endif
    return best;
}

std::string program_build_log(const ClApi& api, cl_program program, cl_device_id device) {
    size_t size = 0;
    if (api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS ||
        size == 0)
        return {};
    std::string log(size, '\0');
    if (api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS)
        return {};
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' ')) log.pop_back();
    return log;
}

void check_range(const char* method, const ClBuffer& buffer, size_t offset, size_t bytes) {
    if (offset > buffer.size() || bytes > buffer.size() - offset)
        throw std::out_of_range(std::string("ClDevice::") + method + ": bytes [" + std::to_string(offset) + ", " +
                                std::to_string(offset) + " + " + std::to_string(bytes) +
                                ") lie outside a buffer of " + std::to_string(buffer.size()) + " bytes");
}

struct Candidate {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    std::string platform_name, device_name;
    bool gpu = false;
};

std::vector<Candidate> available_devices(const ClApi& api) {
    std::vector<Candidate> found;
    cl_uint platform_count = 0;
    if (api.clGetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS || platform_count == 0) return found;
    std::vector<cl_platform_id> platforms(platform_count);
    if (api.clGetPlatformIDs(platform_count, platforms.data(), nullptr) != CL_SUCCESS) return found;
    for (cl_platform_id platform : platforms) {
        cl_uint count = 0;
        if (api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0)
            continue;
        std::vector<cl_device_id> devices(count);
        if (api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr) != CL_SUCCESS) continue;
        for (cl_device_id device : devices) {
            if (!device_value<cl_bool>(api, device, CL_DEVICE_AVAILABLE, CL_FALSE)) continue;
            Candidate c;
            c.platform = platform;
            c.device = device;
            c.platform_name = platform_string(api, platform, CL_PLATFORM_NAME);
            c.device_name = device_string(api, device, CL_DEVICE_NAME);
            c.gpu = (device_value<cl_device_type>(api, device, CL_DEVICE_TYPE, 0) & CL_DEVICE_TYPE_GPU) != 0;
            found.push_back(std::move(c));
        }
    }
    return found;
}

// TACK_OPENCL_DEVICE's match, else the first GPU, else the first device.
const Candidate* choose_device(const std::vector<Candidate>& candidates, std::string* why_not) {
    if (candidates.empty()) {
        *why_not = "no OpenCL platform has an available device";
        return nullptr;
    }
    const char* wanted = std::getenv("TACK_OPENCL_DEVICE");
    if (wanted && *wanted) {
        for (const Candidate& c : candidates)
            if (c.device_name.find(wanted) != std::string::npos || c.platform_name.find(wanted) != std::string::npos)
                return &c;
        std::string names;
        for (const Candidate& c : candidates) {
            if (!names.empty()) names += ", ";
            names += "'" + c.device_name + "' (" + c.platform_name + ")";
        }
        *why_not = std::string("TACK_OPENCL_DEVICE=") + wanted + " matches no OpenCL device; the devices are " + names;
        return nullptr;
    }
    for (const Candidate& c : candidates)
        if (c.gpu) return &c;
    return &candidates.front();
}

}  // namespace

// Builds the one device; a friend of ClDevice for its private constructor.
struct DeviceFactory {
    static ClDevice* create(std::string* why_not) {
        const ClApi* api = cl_api(why_not);
        if (!api) return nullptr;
        std::vector<Candidate> candidates = available_devices(*api);
        const Candidate* chosen = choose_device(candidates, why_not);
        if (!chosen) return nullptr;

        std::unique_ptr<ClDevice> d(new ClDevice());
        d->api_ = api;
        d->platform_ = chosen->platform;
        d->device_ = chosen->device;
        d->device_name_ = chosen->device_name;
        d->is_gpu_ = chosen->gpu;

        cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(chosen->platform), 0};
        cl_int err = CL_SUCCESS;
        d->context_ = api->clCreateContext(properties, 1, &d->device_, nullptr, nullptr, &err);
        if (err != CL_SUCCESS || !d->context_) {
            *why_not = ClError("clCreateContext", err).what();
            return nullptr;
        }
        // No properties: in-order queues without profiling.
        d->queue_ = api->clCreateCommandQueueWithProperties(d->context_, d->device_, nullptr, &err);
        if (err == CL_SUCCESS && d->queue_)
            d->beside_ = api->clCreateCommandQueueWithProperties(d->context_, d->device_, nullptr, &err);
        if (err != CL_SUCCESS || !d->queue_ || !d->beside_) {
            if (d->queue_) api->clReleaseCommandQueue(d->queue_);
            api->clReleaseContext(d->context_);
            *why_not = ClError("clCreateCommandQueueWithProperties", err).what();
            return nullptr;
        }

        const std::string platform_version = platform_string(*api, chosen->platform, CL_PLATFORM_VERSION);
        const std::string device_version = device_string(*api, chosen->device, CL_DEVICE_VERSION);
        const std::string driver_version = device_string(*api, chosen->device, CL_DRIVER_VERSION);
        const std::string c_version = device_string(*api, chosen->device, CL_DEVICE_OPENCL_C_VERSION);
        const int device_version_number = parse_version(device_version, "OpenCL ");
        d->opencl_c_version_ = highest_opencl_c_version(*api, chosen->device, device_version_number);
        d->extensions_ = device_string(*api, chosen->device, CL_DEVICE_EXTENSIONS);
        d->extensions_.insert(d->extensions_.begin(), ' ');
        d->extensions_.push_back(' ');
        d->fp64_ = device_value<cl_device_fp_config>(*api, chosen->device, CL_DEVICE_DOUBLE_FP_CONFIG, 0) != 0;
        d->address_bits_ = int(device_value<cl_uint>(*api, chosen->device, CL_DEVICE_ADDRESS_BITS, 32));
        d->max_work_group_size_ = device_value<size_t>(*api, chosen->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1);
        d->max_allocation_bytes_ = device_value<cl_ulong>(*api, chosen->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
        d->max_work_item_size_ = d->max_work_group_size_;
        size_t sizes_bytes = 0;
        if (api->clGetDeviceInfo(chosen->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, nullptr, &sizes_bytes) ==
                CL_SUCCESS &&
            sizes_bytes >= sizeof(size_t)) {
            std::vector<size_t> sizes(sizes_bytes / sizeof(size_t));
            if (api->clGetDeviceInfo(chosen->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes_bytes, sizes.data(),
                                     nullptr) == CL_SUCCESS)
                d->max_work_item_size_ = sizes[0];
        }

        const int c = d->opencl_c_version_;
        d->description_ = "platform: " + chosen->platform_name + "\nplatform version: " + platform_version +
                          "\ndevice: " + chosen->device_name + "\ndevice version: " + device_version +
                          "\ndriver version: " + driver_version + "\nopencl c version: " + c_version +
                          " (highest " + std::to_string(c / 100) + "." + std::to_string(c / 10 % 10) + ")";
        return d.release();
    }
};

ClBuildError::ClBuildError(cl_int code, const std::string& log)
    : ClError("clBuildProgram", code, log.empty() ? "" : "build log:\n" + log), log_(log) {}

ClBuffer::ClBuffer(ClBuffer&& other) noexcept
    : api_(other.api_), mem_(std::exchange(other.mem_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

ClBuffer& ClBuffer::operator=(ClBuffer&& other) noexcept {
    if (this != &other) {
        if (mem_) api_->clReleaseMemObject(mem_);
        api_ = other.api_;
        mem_ = std::exchange(other.mem_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

ClBuffer::~ClBuffer() {
    if (mem_) api_->clReleaseMemObject(mem_);
}

ClProgram::ClProgram(ClProgram&& other) noexcept
    : api_(other.api_), program_(std::exchange(other.program_, nullptr)) {}

ClProgram& ClProgram::operator=(ClProgram&& other) noexcept {
    if (this != &other) {
        if (program_) api_->clReleaseProgram(program_);
        api_ = other.api_;
        program_ = std::exchange(other.program_, nullptr);
    }
    return *this;
}

ClProgram::~ClProgram() {
    if (program_) api_->clReleaseProgram(program_);
}

ClKernel::ClKernel(ClKernel&& other) noexcept
    : api_(other.api_),
      kernel_(std::exchange(other.kernel_, nullptr)),
      entry_(std::move(other.entry_)),
      group_size_(other.group_size_),
      max_group_size_(other.max_group_size_),
      mutex_(std::move(other.mutex_)) {}

ClKernel& ClKernel::operator=(ClKernel&& other) noexcept {
    if (this != &other) {
        if (kernel_) api_->clReleaseKernel(kernel_);
        api_ = other.api_;
        kernel_ = std::exchange(other.kernel_, nullptr);
        entry_ = std::move(other.entry_);
        group_size_ = other.group_size_;
        max_group_size_ = other.max_group_size_;
        mutex_ = std::move(other.mutex_);
    }
    return *this;
}

ClKernel::~ClKernel() {
    if (kernel_) api_->clReleaseKernel(kernel_);
}

ClDevice* ClDevice::instance(std::string* why_not) {
    struct Made {
        ClDevice* device = nullptr;
        std::string why_not;
    };
    // Never destroyed: drivers tear themselves down at exit in no order
    // relative to static destructors, and releasing after that crashes.
    static const Made made = [] {
        Made m;
        m.device = DeviceFactory::create(&m.why_not);
        return m;
    }();
    if (!made.device && why_not) *why_not = made.why_not;
    return made.device;
}

bool ClDevice::has_extension(const std::string& name) const {
    return !name.empty() && extensions_.find(" " + name + " ") != std::string::npos;
}

ClBuffer ClDevice::allocate(size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem mem = api_->clCreateBuffer(context_, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 1), nullptr, &err);
    // A buffer past the device's largest, or one its memory cannot hold, is
    // a MemoryError as the CPU's is.
    if (err == CL_INVALID_BUFFER_SIZE)
        throw runtime::OutOfMemory(bytes, "on " + device_name_ + " (its largest buffer is " +
                                              std::to_string(max_allocation_bytes_) + " bytes)");
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY)
        throw runtime::OutOfMemory(bytes, "on " + device_name_ + " (clCreateBuffer: " + cl_error_name(err) + ")");
    if (err != CL_SUCCESS || !mem)
        throw ClError("clCreateBuffer", err, "(" + std::to_string(bytes) + " bytes on " + device_name_ + ")");
    return ClBuffer(api_, mem, bytes);
}

void ClDevice::write(const ClBuffer& buffer, size_t offset, const void* src, size_t bytes) {
    check_range("write", buffer, offset, bytes);
    if (bytes == 0) return;
    cl_check(api_->clEnqueueWriteBuffer(queue_, buffer.handle(), CL_TRUE, offset, bytes, src, 0, nullptr, nullptr),
             "clEnqueueWriteBuffer");
}

void ClDevice::read(const ClBuffer& buffer, size_t offset, void* dst, size_t bytes, Queue queue) {
    check_range("read", buffer, offset, bytes);
    if (bytes == 0) return;
    cl_check(api_->clEnqueueReadBuffer(handle(queue), buffer.handle(), CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr),
             "clEnqueueReadBuffer");
}

void ClDevice::copy(const ClBuffer& src, size_t src_offset, const ClBuffer& dst, size_t dst_offset, size_t bytes) {
    check_range("copy", src, src_offset, bytes);
    check_range("copy", dst, dst_offset, bytes);
    if (bytes == 0) return;
    cl_check(api_->clEnqueueCopyBuffer(queue_, src.handle(), dst.handle(), src_offset, dst_offset, bytes, 0, nullptr,
                                       nullptr),
             "clEnqueueCopyBuffer");
}

void ClDevice::fill(const ClBuffer& buffer, size_t offset, const void* pattern, size_t pattern_bytes, size_t bytes) {
    check_range("fill", buffer, offset, bytes);
    if (pattern_bytes == 0 || pattern_bytes > 128 || (pattern_bytes & (pattern_bytes - 1)) != 0 ||
        offset % pattern_bytes != 0 || bytes % pattern_bytes != 0)
        throw std::invalid_argument("ClDevice::fill: a pattern of " + std::to_string(pattern_bytes) +
                                    " bytes needs a power of two up to 128 dividing the offset (" +
                                    std::to_string(offset) + ") and the size (" + std::to_string(bytes) + ")");
    if (bytes == 0) return;
    cl_check(api_->clEnqueueFillBuffer(queue_, buffer.handle(), pattern, pattern_bytes, offset, bytes, 0, nullptr,
                                       nullptr),
             "clEnqueueFillBuffer");
}

void ClDevice::flush() { cl_check(api_->clFlush(queue_), "clFlush"); }

void ClDevice::finish() { cl_check(api_->clFinish(queue_), "clFinish"); }

ClProgram ClDevice::build(const std::string& source, const std::string& options, std::string* log) {
    const char* text = source.c_str();
    size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program program = api_->clCreateProgramWithSource(context_, 1, &text, &length, &err);
    if (err != CL_SUCCESS || !program) throw ClError("clCreateProgramWithSource", err);
    ClProgram owned(api_, program);
    err = api_->clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
    std::string output = program_build_log(*api_, program, device_);
    if (log) *log = output;
    if (err != CL_SUCCESS) throw ClBuildError(err, output);
    return owned;
}

std::string ClDevice::binary(const ClProgram& program) {
    cl_uint device_count = 0;
    cl_check(api_->clGetProgramInfo(program.handle(), CL_PROGRAM_NUM_DEVICES, sizeof device_count, &device_count,
                                    nullptr),
             "clGetProgramInfo(CL_PROGRAM_NUM_DEVICES)");
    if (device_count == 0) return {};
    std::vector<size_t> sizes(device_count);
    cl_check(api_->clGetProgramInfo(program.handle(), CL_PROGRAM_BINARY_SIZES, sizes.size() * sizeof(size_t),
                                    sizes.data(), nullptr),
             "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    std::vector<std::string> binaries(device_count);
    std::vector<unsigned char*> pointers(device_count);
    for (cl_uint i = 0; i < device_count; ++i) {
        binaries[i].resize(sizes[i]);
        pointers[i] = reinterpret_cast<unsigned char*>(binaries[i].data());
    }
    cl_check(api_->clGetProgramInfo(program.handle(), CL_PROGRAM_BINARIES, pointers.size() * sizeof(unsigned char*),
                                    pointers.data(), nullptr),
             "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    // Programs are built for this one device, so the first binary is ours.
    return std::move(binaries[0]);
}

ClProgram ClDevice::load_binary(const std::string& bytes, const std::string& options, std::string* why_rejected) {
    auto reject = [&](const std::string& why) {
        if (why_rejected) *why_rejected = why;
        return ClProgram();
    };
    if (bytes.empty()) return reject("the binary is empty");
    const unsigned char* data = reinterpret_cast<const unsigned char*>(bytes.data());
    size_t length = bytes.size();
    cl_int binary_status = CL_SUCCESS;
    cl_int err = CL_SUCCESS;
    cl_program program =
        api_->clCreateProgramWithBinary(context_, 1, &device_, &length, &data, &binary_status, &err);
    if (err != CL_SUCCESS || !program) {
        if (program) api_->clReleaseProgram(program);
        return reject(ClError("clCreateProgramWithBinary", err != CL_SUCCESS ? err : binary_status).what());
    }
    ClProgram owned(api_, program);
    if (binary_status != CL_SUCCESS) return reject(ClError("clCreateProgramWithBinary", binary_status).what());
    // A binary still needs clBuildProgram before kernels can be made.
    err = api_->clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) return reject(ClError("clBuildProgram", err, program_build_log(*api_, program, device_)).what());
    return owned;
}

ClKernel ClDevice::kernel(const ClProgram& program, const std::string& entry) {
    if (!program) throw std::invalid_argument("ClDevice::kernel(\"" + entry + "\"): the program is empty");
    cl_int err = CL_SUCCESS;
    cl_kernel handle = api_->clCreateKernel(program.handle(), entry.c_str(), &err);
    if (err != CL_SUCCESS || !handle) throw ClError("clCreateKernel(\"" + entry + "\")", err);
    ClKernel k;
    k.api_ = api_;
    k.kernel_ = handle;
    k.entry_ = entry;
    k.mutex_ = std::make_unique<std::mutex>();
    size_t kernel_max = max_work_group_size_;
    if (api_->clGetKernelWorkGroupInfo(handle, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max, &kernel_max,
                                       nullptr) != CL_SUCCESS)
        kernel_max = max_work_group_size_;
    k.max_group_size_ = std::max<size_t>(1, std::min({kernel_max, max_work_group_size_, max_work_item_size_}));
    size_t group = 256;
    while (group > k.max_group_size_) group /= 2;
    k.group_size_ = group;
    return k;
}

void ClDevice::launch(const ClKernel& kernel, const gpu::Arguments& args, uint64_t global_size, size_t group_size,
                      Queue queue) {
    if (!kernel) throw std::invalid_argument("ClDevice::launch: the kernel is empty");
    if (global_size == 0) return;
    const size_t group = group_size ? group_size : kernel.group_size();
    const uint64_t limit = address_bits_ >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t(1) << address_bits_) - 1;
    const uint64_t groups = global_size / group + (global_size % group != 0);
    if (groups > limit / group)
        throw std::out_of_range("ClDevice::launch(\"" + kernel.entry() + "\"): " + std::to_string(global_size) +
                                " work items exceed what " + device_name_ + " can launch at once");
    const size_t global = size_t(groups * group);

    std::lock_guard<std::mutex> lock(*kernel.mutex_);
    for (size_t i = 0; i < args.count(); ++i) {
        cl_int err = api_->clSetKernelArg(kernel.handle(), cl_uint(i), args.size(i), args.data(i));
        if (err != CL_SUCCESS)
            throw ClError("clSetKernelArg(\"" + kernel.entry() + "\", " + std::to_string(i) + ")", err);
    }
    cl_int err =
        api_->clEnqueueNDRangeKernel(handle(queue), kernel.handle(), 1, nullptr, &global, &group, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw ClError("clEnqueueNDRangeKernel(\"" + kernel.entry() + "\")", err);
}

}  // namespace tack::backends::opencl
