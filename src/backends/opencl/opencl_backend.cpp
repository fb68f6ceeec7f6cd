#include "backends/opencl/opencl_backend.h"

#include <mutex>

#include "backends/gpu/cfamily_backend.h"
#include "backends/opencl/array_reduce.h"
#include "backends/opencl/device.h"

namespace tack::backends {

namespace {

using opencl::ClBuffer;
using opencl::ClDevice;
using opencl::ClKernel;
using opencl::ClProgram;

class ClMemory final : public gpu::Memory {
public:
    explicit ClMemory(ClBuffer buffer) : buffer_(std::move(buffer)) {}
    size_t size() const override { return buffer_.size(); }
    const void* handle() const override { return &handle_; }
    size_t handle_size() const override { return sizeof handle_; }
    const ClBuffer& buffer() const { return buffer_; }

private:
    ClBuffer buffer_;
    cl_mem handle_ = buffer_.handle();
};

class ClBuilt final : public gpu::Program {
public:
    explicit ClBuilt(ClProgram program) : program(std::move(program)) {}
    ClProgram program;
};

class ClFunction final : public gpu::Function {
public:
    explicit ClFunction(ClKernel kernel) : kernel(std::move(kernel)) {}
    size_t max_group_size() const override { return kernel.max_group_size(); }
    ClKernel kernel;
};

std::string joined(const std::vector<std::string>& options) {
    std::string s;
    for (auto& o : options) s += (s.empty() ? "" : " ") + o;
    return s;
}

// The OpenCL device as the C-family runtime sees it: ClDevice's buffers,
// programs and kernels, its two queues, and f32 reductions on the device.
class OpenClDevice final : public gpu::Device {
public:
    explicit OpenClDevice(ClDevice& device) : device_(device) {}

    const std::string& description() const override { return device_.description(); }
    bool supports_fp64() const override { return device_.supports_fp64(); }
    // On PoCL 256 items of 16 KiB each ran and 256 of 32 KiB overflowed
    // the thread's stack.
    uint64_t group_private_bytes() const override { return device_.is_gpu() ? 0 : uint64_t(4) << 20; }
    // PoCL 3.1 gave wrong values for a kernel whose barriers sat under a
    // uniform branch, taken or not, and the right ones unoptimized; with
    // the barriers taken out of the branches it builds such a kernel far
    // faster unoptimized (docs/tile/compile.md, "Workgroups").
    std::vector<std::string> branched_barrier_options() const override {
        if (device_.description().find("platform: Portable Computing Language") == std::string::npos) return {};
        return {"-cl-opt-disable"};
    }

    std::unique_ptr<gpu::Memory> allocate(size_t bytes) override {
        return std::make_unique<ClMemory>(device_.allocate(bytes));
    }
    void write(const gpu::Memory& m, size_t offset, const void* src, size_t bytes) override {
        device_.write(buffer(m), offset, src, bytes);
    }
    void read(const gpu::Memory& m, size_t offset, void* dst, size_t bytes, gpu::Queue queue) override {
        device_.read(buffer(m), offset, dst, bytes, queue == gpu::Queue::Beside ? opencl::Queue::Beside : opencl::Queue::Ordered);
    }
    void finish() override { device_.finish(); }

    std::unique_ptr<gpu::Program> build(const std::string& source, const std::vector<std::string>& options) override {
        return std::make_unique<ClBuilt>(device_.build(source, joined(options)));
    }
    std::string binary(const gpu::Program& p) override { return device_.binary(static_cast<const ClBuilt&>(p).program); }
    std::unique_ptr<gpu::Program> load(const std::string& binary, const std::vector<std::string>& options,
                                       std::string* why_not) override {
        ClProgram program = device_.load_binary(binary, joined(options), why_not);
        if (!program) return nullptr;
        return std::make_unique<ClBuilt>(std::move(program));
    }
    std::unique_ptr<gpu::Function> function(const gpu::Program& p, const std::string& entry) override {
        return std::make_unique<ClFunction>(device_.kernel(static_cast<const ClBuilt&>(p).program, entry));
    }

    void launch(const gpu::Function& f, const gpu::Arguments& args, uint64_t items, size_t group,
                gpu::Queue queue) override {
        device_.launch(static_cast<const ClFunction&>(f).kernel, args, items, group,
                       queue == gpu::Queue::Beside ? opencl::Queue::Beside : opencl::Queue::Ordered);
    }

    std::optional<double> reduce(const gpu::Memory& m, const runtime::Array& a, ReduceOp op) override {
        return opencl::reduce_on_device(device_, buffer(m), a, op);
    }

private:
    static const ClBuffer& buffer(const gpu::Memory& m) { return static_cast<const ClMemory&>(m).buffer(); }
    ClDevice& device_;
};

}  // namespace

Backend* opencl_backend(std::string* why_not) {
    static std::once_flag once;
    static std::unique_ptr<OpenClDevice> device;
    static std::unique_ptr<Backend> backend;
    static std::string reason;
    std::call_once(once, [] {
        ClDevice* cl = ClDevice::instance(&reason);
        if (!cl) return;
        device = std::make_unique<OpenClDevice>(*cl);
        gpu::Identity id;
        id.name = "opencl";
        id.display_name = "OpenCL";
        id.dialect = codegen::cfamily::Dialect::OpenCL;
        // PoCL's compiler prints warnings about the generated C (such as a
        // kernel's `x < x`) to the process's stderr, which a user cannot act on.
        id.extra_options = {"-w"};
        backend = gpu::make_cfamily_backend(*device, std::move(id));
    });
    if (!backend && why_not) *why_not = reason;
    return backend.get();
}

}  // namespace tack::backends
