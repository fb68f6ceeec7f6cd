// A CUDA or HIP device as a gpu::Device: the driver table (driver_api.h)
// and the vendor's runtime compiler (runtime_compiler.h).
//
// One device per process and vendor: the first, through its primary
// context, which every thread that calls in makes current first. Two
// non-blocking streams carry the two queues; every transfer and launch of
// the Ordered queue goes to one stream, so work runs in call order. A
// write returns when the driver has taken the bytes; a read when they have
// arrived, after everything queued before it on its stream.
//
// Programs are the compiler's code (a cubin for the device's compute
// capability, an AMD code object), loaded with cuModuleLoadData or
// hipModuleLoadData; the same bytes are what the disk cache keeps, so a
// second process loads them without compiling.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/gpu/device.h"
#include "backends/gpu/driver_api.h"
#include "backends/gpu/runtime_compiler.h"

namespace tack::backends::gpu {

// A driver call that failed: what() names the call, the error and the
// device.
class DriverError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class DriverDevice final : public Device {
public:
    // Device `ordinal` of `api`, whose programs `compiler` builds (the
    // backend passes the device's architecture among the options); null
    // with the reason when its context or streams cannot be made.
    static std::unique_ptr<DriverDevice> open(const DriverApi& api, const RuntimeCompiler& compiler, int ordinal,
                                              std::string* why_not);
    ~DriverDevice() override;

    const std::string& description() const override { return description_; }
    bool supports_fp64() const override { return true; }
    const std::string& name() const { return name_; }
    int compute_major() const { return major_; }
    int compute_minor() const { return minor_; }
    // Work groups per launch along x, and work items per group.
    uint64_t max_grid() const { return max_grid_; }
    int max_group() const { return max_group_; }

    std::unique_ptr<Memory> allocate(size_t bytes) override;
    void write(const Memory& memory, size_t offset, const void* src, size_t bytes) override;
    void read(const Memory& memory, size_t offset, void* dst, size_t bytes, Queue queue = Queue::Ordered) override;
    void finish() override;

    int dlpack_device() const override;
    std::unique_ptr<Memory> adopt(uint64_t address, size_t bytes) override;
    uint64_t stream_handle(Queue queue) const override;
    void wait_for_stream(uint64_t handle) override;

    bool has_images() const override { return api_.images; }
    std::unique_ptr<Image> create_image(int64_t width, int64_t height, int64_t depth) override;
    void write_image(Image& image, const float* texels) override;

    std::unique_ptr<Program> build(const std::string& source, const std::vector<std::string>& options) override;
    std::string binary(const Program& program) override;
    std::unique_ptr<Program> load(const std::string& binary, const std::vector<std::string>& options,
                                  std::string* why_not) override;
    std::unique_ptr<Function> function(const Program& program, const std::string& entry) override;
    void launch(const Function& function, const Arguments& args, uint64_t items, size_t group,
                Queue queue = Queue::Ordered) override;

    // Makes the device's context current on the calling thread.
    void enter() const;
    // Throws DriverError for a failed call.
    void check(DriverResult rc, const char* call) const;

private:
    DriverDevice(const DriverApi& api, const RuntimeCompiler& compiler) : api_(api), compiler_(compiler) {}
    DriverHandle stream(Queue q) const { return q == Queue::Beside ? beside_ : ordered_; }
    void check_range(const char* what, const Memory& memory, size_t offset, size_t bytes) const;

    const DriverApi& api_;
    const RuntimeCompiler& compiler_;
    int device_ = 0;
    DriverHandle context_ = nullptr;
    DriverHandle ordered_ = nullptr;  // Queue::Ordered
    DriverHandle beside_ = nullptr;   // Queue::Beside
    std::string name_;
    std::string description_;
    int major_ = 0, minor_ = 0;
    uint64_t max_grid_ = 0;
    int max_group_ = 0;
};

}  // namespace tack::backends::gpu
