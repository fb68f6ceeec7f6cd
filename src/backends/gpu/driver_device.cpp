#include "backends/gpu/driver_device.h"

#include <algorithm>
#include <cstdio>

#include "runtime/errors.h"

namespace tack::backends::gpu {

namespace {

class DriverMemory final : public Memory {
public:
    // `owned`: allocated here, and freed when destroyed; adopted memory
    // belongs to the library that allocated it.
    DriverMemory(const DriverDevice& device, const DriverApi& api, DeviceAddress address, size_t bytes, bool owned)
        : device_(device), api_(api), address_(address), bytes_(bytes), owned_(owned) {}
    ~DriverMemory() override {
        if (!owned_) return;
        device_.enter();
        // A failing free leaves a leak, not a wrong result: nothing to report.
        (void)api_.free(address_);
    }
    size_t size() const override { return bytes_; }
    const void* handle() const override { return &address_; }
    size_t handle_size() const override { return sizeof address_; }
    std::optional<uint64_t> address() const override { return address_; }

private:
    const DriverDevice& device_;
    const DriverApi& api_;
    DeviceAddress address_;
    size_t bytes_;
    bool owned_;
};

// A loaded module, shared by its program and its functions and unloaded
// with the last of them.
struct Module {
    const DriverDevice* device;
    const DriverApi* api;
    DriverHandle handle;
    ~Module() {
        device->enter();
        (void)api->module_unload(handle);
    }
};

class DriverProgram final : public Program {
public:
    DriverProgram(std::shared_ptr<Module> module, std::string image) : module(std::move(module)), image(std::move(image)) {}
    std::shared_ptr<Module> module;
    std::string image;  // the code the module was loaded from
};

class DriverFunction final : public Function {
public:
    DriverFunction(std::shared_ptr<Module> module, DriverHandle handle, std::string entry, size_t max_group)
        : module(std::move(module)), handle(handle), entry(std::move(entry)), max_group(max_group) {}
    size_t max_group_size() const override { return max_group; }
    std::shared_ptr<Module> module;
    DriverHandle handle;
    std::string entry;
    size_t max_group;
};

DeviceAddress address(const Memory& m) { return *static_cast<const DriverMemory&>(m).address(); }

// A CUDA array of f32 texels and the texture object that samples it.
class DriverImage final : public Image {
public:
    DriverImage(const DriverDevice& device, const DriverApi& api, int64_t width, int64_t height, int64_t depth)
        : device_(device), api_(api), width(width), height(height), depth(depth) {}
    ~DriverImage() override {
        device_.enter();
        // Failing releases leave leaks, not wrong results.
        if (texture) (void)api_.texture_destroy(texture);
        if (array) (void)api_.array_destroy(array);
    }
    uint64_t handle() const override { return texture; }

    const DriverDevice& device_;
    const DriverApi& api_;
    int64_t width, height, depth;
    DriverHandle array = nullptr;
    uint64_t texture = 0;
};

}  // namespace

std::unique_ptr<DriverDevice> DriverDevice::open(const DriverApi& api, const RuntimeCompiler& compiler, int ordinal,
                                                 std::string* why_not) {
    std::unique_ptr<DriverDevice> d(new DriverDevice(api, compiler));
    const Vendor& v = *api.vendor;
    auto fail = [&](const char* call, DriverResult rc) {
        *why_not = driver_error(api, call, rc);
        return nullptr;
    };
    if (DriverResult rc = api.device_get(&d->device_, ordinal)) return fail(api.name.device_get, rc);
    char name[256] = {};
    api.device_name(name, sizeof name, d->device_);
    d->name_ = name;
    int grid = 0;
    api.device_attribute(&d->major_, v.compute_major, d->device_);
    api.device_attribute(&d->minor_, v.compute_minor, d->device_);
    api.device_attribute(&grid, v.max_grid_x, d->device_);
    api.device_attribute(&d->max_group_, v.max_threads_per_block, d->device_);
    d->max_grid_ = grid > 0 ? static_cast<uint64_t>(grid) : 1;
    if (DriverResult rc = api.primary_context(&d->context_, d->device_))
        return fail(api.name.primary_context, rc);
    d->enter();
    if (DriverResult rc = api.stream_create(&d->ordered_, v.nonblocking_stream)) return fail(api.name.stream_create, rc);
    if (DriverResult rc = api.stream_create(&d->beside_, v.nonblocking_stream)) return fail(api.name.stream_create, rc);
    int driver = 0;
    api.driver_version(&driver);
    d->description_ = "device: " + d->name_ + "\n" + (v.hip ? "architecture: " : "compute capability: ") +
                      std::to_string(d->major_) + "." + std::to_string(d->minor_) + "\ndriver version: " +
                      std::to_string(driver) + "\ncompiler: " + compiler.name() + " " + compiler.version();
    return d;
}

// The device lives until the process exits, and drivers tear themselves
// down at exit in no order relative to static destructors: nothing is
// released here.
DriverDevice::~DriverDevice() = default;

void DriverDevice::enter() const {
    thread_local const DriverDevice* current = nullptr;
    if (current == this) return;
    check(api_.set_context(context_), api_.name.set_context);
    current = this;
}

void DriverDevice::check(DriverResult rc, const char* call) const {
    if (rc != 0) throw DriverError(driver_error(api_, call, rc) + " on " + name_);
}

void DriverDevice::check_range(const char* what, const Memory& memory, size_t offset, size_t bytes) const {
    if (offset > memory.size() || bytes > memory.size() - offset)
        throw std::out_of_range(std::string(api_.vendor->name) + " " + what + " of " + std::to_string(bytes) +
                                " bytes at offset " + std::to_string(offset) + " from memory of " +
                                std::to_string(memory.size()) + " bytes");
}

std::unique_ptr<Memory> DriverDevice::allocate(size_t bytes) {
    enter();
    DeviceAddress a = 0;
    // At least one byte: drivers refuse empty allocations.
    DriverResult rc = api_.allocate(&a, std::max<size_t>(bytes, 1));
    if (rc == api_.vendor->out_of_memory)
        throw runtime::OutOfMemory(bytes, "on " + name_ + " (" + driver_error(api_, api_.name.allocate, rc) + ")");
    if (rc != 0)
        throw DriverError(driver_error(api_, api_.name.allocate, rc) + " (" +
                          std::to_string(bytes) + " bytes on " + name_ + ")");
    return std::make_unique<DriverMemory>(*this, api_, a, bytes, true);
}

int DriverDevice::dlpack_device() const { return api_.vendor->dlpack_device; }

std::unique_ptr<Memory> DriverDevice::adopt(uint64_t address, size_t bytes) {
    enter();
    // The driver knows the allocation an address lies in: the whole range
    // must lie in one, on this device's context.
    DeviceAddress base = 0;
    size_t size = 0;
    auto where = [&] {
        char text[32];
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
        return std::to_string(bytes) + " bytes at device address " + text;
    };
    if (DriverResult rc = api_.address_range(&base, &size, address))
        throw std::invalid_argument(where() + " are not memory of " + name_ + " (" +
                                    driver_error(api_, api_.name.address_range, rc) + ")");
    if (address - base + bytes > size)
        throw std::invalid_argument(where() + " run past the end of their allocation (" + std::to_string(size) +
                                    " bytes from its start, " + std::to_string(address - base) + " before them)");
    return std::make_unique<DriverMemory>(*this, api_, address, bytes, false);
}

uint64_t DriverDevice::stream_handle(Queue queue) const { return reinterpret_cast<uint64_t>(stream(queue)); }

void DriverDevice::wait_for_stream(uint64_t handle) {
    const Vendor& v = *api_.vendor;
    // 1 and 2 name the default streams (the array interface's and DLPack's
    // convention); any other value is a stream handle.
    DriverHandle s = reinterpret_cast<DriverHandle>(handle == 1 ? v.legacy_stream : handle == 2 ? v.per_thread_stream
                                                                                                : handle);
    enter();
    check(api_.stream_synchronize(s), api_.name.stream_synchronize);
}

std::unique_ptr<Image> DriverDevice::create_image(int64_t width, int64_t height, int64_t depth) {
    if (!api_.images) throw std::logic_error(name_ + " has no hardware textures");
    enter();
    auto image = std::make_unique<DriverImage>(*this, api_, width, height, depth);
    ArrayDescriptor3D shape{};
    shape.width = static_cast<size_t>(width);
    shape.height = static_cast<size_t>(height);
    shape.depth = static_cast<size_t>(depth);
    shape.format = kArrayFormatFloat;
    shape.channels = 1;
    if (DriverResult rc = api_.array_create(&image->array, &shape))
        throw DriverError(driver_error(api_, "cuArray3DCreate_v2", rc) + " (a " + std::to_string(width) + " x " +
                          std::to_string(height) + " x " + std::to_string(depth) + " f32 texture on " + name_ + ")");
    ResourceDescriptor resource{};
    resource.type = kResourceTypeArray;
    resource.resource.array = image->array;
    // tack.texture3d's sampling: texel centers at (i + 0.5) / N, clamped to
    // the edge texels, trilinear, with no shortcut the driver may take
    // when a coordinate lands near a texel center.
    TextureDescriptor sampling{};
    for (int& mode : sampling.address_mode) mode = kAddressModeClamp;
    sampling.filter_mode = kFilterModeLinear;
    sampling.flags = kNormalizedCoordinates | kNoTrilinearShortcut;
    check(api_.texture_create(&image->texture, &resource, &sampling, nullptr), "cuTexObjectCreate");
    return image;
}

void DriverDevice::write_image(Image& image, const float* texels) {
    auto& i = static_cast<DriverImage&>(image);
    Copy3D copy{};
    copy.src_memory_type = kMemoryTypeHost;
    copy.src_host = texels;
    copy.src_pitch = static_cast<size_t>(i.width) * sizeof(float);
    copy.src_height = static_cast<size_t>(i.height);
    copy.dst_memory_type = kMemoryTypeArray;
    copy.dst_array = i.array;
    copy.width_bytes = static_cast<size_t>(i.width) * sizeof(float);
    copy.height = static_cast<size_t>(i.height);
    copy.depth = static_cast<size_t>(i.depth);
    enter();
    // On the ordered stream, after the launches that may still sample the
    // image's previous texels; waited for, so `texels` may be reused.
    check(api_.copy_3d(&copy, ordered_), "cuMemcpy3DAsync_v2");
    check(api_.stream_synchronize(ordered_), api_.name.stream_synchronize);
}

void DriverDevice::write(const Memory& memory, size_t offset, const void* src, size_t bytes) {
    check_range("write", memory, offset, bytes);
    if (bytes == 0) return;
    enter();
    check(api_.copy_to_device(address(memory) + offset, src, bytes, ordered_), api_.name.copy_to_device);
    // The copy may read `src` after the call returns (pinned staging is the
    // driver's choice): wait, so the caller may reuse it.
    check(api_.stream_synchronize(ordered_), api_.name.stream_synchronize);
}

void DriverDevice::read(const Memory& memory, size_t offset, void* dst, size_t bytes, Queue queue) {
    check_range("read", memory, offset, bytes);
    if (bytes == 0) return;
    enter();
    check(api_.copy_to_host(dst, address(memory) + offset, bytes, stream(queue)), api_.name.copy_to_host);
    check(api_.stream_synchronize(stream(queue)), api_.name.stream_synchronize);
}

void DriverDevice::finish() {
    enter();
    check(api_.stream_synchronize(ordered_), api_.name.stream_synchronize);
    check(api_.stream_synchronize(beside_), api_.name.stream_synchronize);
}

std::unique_ptr<Program> DriverDevice::build(const std::string& source, const std::vector<std::string>& options) {
    std::string code, message;
    if (!compiler_.compile(source, api_.vendor->hip ? "tack_kernel.hip" : "tack_kernel.cu", options,
                           RuntimeCompiler::Output::Code, &code, &message))
        throw DriverError(std::string(compiler_.name()) + " could not compile the kernel for " + name_ + ":\n" + message);
    std::string why_not;
    auto program = load(code, options, &why_not);
    if (!program) throw DriverError(why_not);
    return program;
}

std::string DriverDevice::binary(const Program& program) { return static_cast<const DriverProgram&>(program).image; }

std::unique_ptr<Program> DriverDevice::load(const std::string& binary, const std::vector<std::string>&,
                                            std::string* why_not) {
    if (binary.empty()) {
        *why_not = "the program is empty";
        return nullptr;
    }
    enter();
    DriverHandle module = nullptr;
    if (DriverResult rc = api_.module_load(&module, binary.data())) {
        *why_not = driver_error(api_, api_.name.module_load, rc) + " on " + name_;
        return nullptr;
    }
    auto owner = std::shared_ptr<Module>(new Module{this, &api_, module});
    return std::make_unique<DriverProgram>(std::move(owner), binary);
}

std::unique_ptr<Function> DriverDevice::function(const Program& program, const std::string& entry) {
    enter();
    const auto& p = static_cast<const DriverProgram&>(program);
    DriverHandle handle = nullptr;
    if (DriverResult rc = api_.module_function(&handle, p.module->handle, entry.c_str()))
        throw DriverError(driver_error(api_, api_.name.module_function, rc) + " for \"" +
                          entry + "\" on " + name_);
    int max_threads = 0;
    if (api_.function_attribute(&max_threads, api_.vendor->function_max_threads, handle) != 0 || max_threads <= 0)
        max_threads = max_group_;
    return std::make_unique<DriverFunction>(p.module, handle, entry, static_cast<size_t>(std::max(max_threads, 1)));
}

void DriverDevice::launch(const Function& function, const Arguments& args, uint64_t items, size_t group,
                          Queue queue) {
    const auto& f = static_cast<const DriverFunction&>(function);
    if (items == 0) return;
    if (group == 0 || group > f.max_group)
        throw std::invalid_argument("launch of \"" + f.entry + "\" in groups of " + std::to_string(group) +
                                    " work items: " + name_ + " allows 1 to " + std::to_string(f.max_group));
    const uint64_t groups = items / group + (items % group != 0);
    if (groups > max_grid_)
        throw std::out_of_range("launch of \"" + f.entry + "\": " + std::to_string(items) + " work items need " +
                                std::to_string(groups) + " groups of " + std::to_string(group) + ", and " + name_ +
                                " launches at most " + std::to_string(max_grid_));
    std::vector<void*> params(args.count());
    for (size_t i = 0; i < args.count(); ++i) {
        if (args.is_local(i))
            throw std::invalid_argument("launch of \"" + f.entry + "\": argument " + std::to_string(i) +
                                        " is a local array, which " + api_.vendor->name +
                                        " kernels declare as __shared__ instead");
        params[i] = const_cast<void*>(args.data(i));
    }
    enter();
    check(api_.launch(f.handle, static_cast<unsigned>(groups), 1, 1, static_cast<unsigned>(group), 1, 1, 0,
                      stream(queue), params.data(), nullptr),
          api_.name.launch);
}

}  // namespace tack::backends::gpu
