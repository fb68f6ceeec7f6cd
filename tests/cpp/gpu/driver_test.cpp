// The CUDA and HIP runtimes' shared code (backends/gpu: the driver table,
// DriverDevice, the backends' identities) against a recording driver
// library (fake_driver.cpp) that exports both vendors' symbols: memory
// round trips and range checks, modules and entry points, the grid and
// block of each launch and the bytes of each parameter, the launch limit,
// and the errors a user reads. Each test runs once per vendor.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "backends/cuda/cuda_backend.h"
#include "backends/gpu/driver_backend.h"
#include "backends/gpu/driver_device.h"
#include "codegen_support.h"
#include "runtime/array.h"
#include "runtime/texture.h"
#include "backends/hip/hip_backend.h"

namespace tack::backends::gpu {
namespace {

struct Recorded {
    std::string entry;
    unsigned grid[3], block[3];
    void* stream;
    std::vector<uint64_t> params;
};

// The fake's own view of what it recorded, through its tack_fake_* symbols.
class FakeDriver {
public:
    explicit FakeDriver(const std::string& path) : library_(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        count_ = reinterpret_cast<size_t (*)()>(dlsym(library_, "tack_fake_launch_count"));
        launch_ = reinterpret_cast<decltype(launch_)>(dlsym(library_, "tack_fake_launch"));
        reset_ = reinterpret_cast<void (*)()>(dlsym(library_, "tack_fake_reset"));
        allocations_ = reinterpret_cast<size_t (*)()>(dlsym(library_, "tack_fake_allocations"));
        synchronized_ = reinterpret_cast<void* (*)(size_t)>(dlsym(library_, "tack_fake_synchronized"));
        texture_ = reinterpret_cast<decltype(texture_)>(dlsym(library_, "tack_fake_texture"));
        textures_ = reinterpret_cast<size_t (*)()>(dlsym(library_, "tack_fake_textures"));
    }
    // A texture object as the fake holds it.
    struct Texture {
        size_t extents[3];
        int address_modes[3], filter;
        unsigned flags;
        std::vector<float> texels;
    };
    std::optional<Texture> texture(uint64_t handle) const {
        Texture t;
        t.texels.resize(4096);
        if (texture_(handle, t.extents, t.address_modes, &t.filter, &t.flags, t.texels.data(), t.texels.size()) != 0)
            return std::nullopt;
        t.texels.resize(t.extents[0] * t.extents[1] * t.extents[2]);
        return t;
    }
    size_t textures() const { return textures_(); }
    // The stream waited for `back` waits before the newest.
    void* synchronized(size_t back = 0) const { return synchronized_(back); }
    size_t launches() const { return count_(); }
    Recorded launch(size_t i) const {
        Recorded r;
        uint64_t params[64];
        size_t n = 0;
        r.entry = launch_(i, r.grid, r.block, &r.stream, params, 64, &n);
        r.params.assign(params, params + n);
        return r;
    }
    void reset() const { reset_(); }
    size_t allocations() const { return allocations_(); }

private:
    void* library_;
    size_t (*count_)() = nullptr;
    const char* (*launch_)(size_t, unsigned*, unsigned*, void**, uint64_t*, size_t, size_t*) = nullptr;
    void (*reset_)() = nullptr;
    size_t (*allocations_)() = nullptr;
    void* (*synchronized_)(size_t) = nullptr;
    int (*texture_)(uint64_t, size_t*, int*, int*, unsigned*, float*, size_t) = nullptr;
    size_t (*textures_)() = nullptr;
};

// The fake's compiler (NVRTC's or hipRTC's symbols), whose code is the
// fake's module image.
const RuntimeCompiler& fake_compiler(const Vendor& vendor) {
    static std::unique_ptr<RuntimeCompiler> nvrtc, hiprtc;
    auto& slot = vendor.hip ? hiprtc : nvrtc;
    if (!slot) {
        std::string why_not;
        slot = RuntimeCompiler::open(vendor.hip ? kHiprtc : kNvrtc, TACK_FAKE_DRIVER, &why_not);
        if (!slot) throw std::runtime_error(why_not);
    }
    return *slot;
}

class DriverDeviceTest : public ::testing::TestWithParam<const Vendor*> {
protected:
    void SetUp() override {
        std::string why_not;
        api_ = open_driver_api(*GetParam(), TACK_FAKE_DRIVER, &why_not);
        ASSERT_NE(api_, nullptr) << why_not;
        device_ = DriverDevice::open(*api_, fake_compiler(*GetParam()), 0, &why_not);
        ASSERT_NE(device_, nullptr) << why_not;
        fake_.reset();
    }
    bool hip() const { return GetParam()->hip; }
    // The vendor's backend over the fake driver (null, reported, where it
    // cannot be made).
    DriverBackend backend_over_the_fake() {
        std::string why_not;
        DriverBackend made = make_driver_backend(*api_, fake_compiler(*GetParam()),
                                                 hip() ? hip_identity : cuda_identity, &why_not);
        EXPECT_NE(made.backend, nullptr) << why_not;
        return made;
    }

    const DriverApi* api_ = nullptr;
    std::unique_ptr<DriverDevice> device_;
    FakeDriver fake_{TACK_FAKE_DRIVER};
};

TEST_P(DriverDeviceTest, DescribesTheDevice) {
    EXPECT_EQ(device_->name(), "Fake GPU");
    EXPECT_EQ(device_->compute_major(), 9);
    EXPECT_EQ(device_->max_grid(), 2147483647u);
    EXPECT_EQ(device_->max_group(), 1024);
    EXPECT_NE(device_->description().find("device: Fake GPU"), std::string::npos) << device_->description();
    EXPECT_NE(describe_device(*api_).find("Fake GPU"), std::string::npos);
}

TEST_P(DriverDeviceTest, MemoryRoundTripsAndChecksRanges) {
    const size_t before = fake_.allocations();
    {
        auto m = device_->allocate(100);
        EXPECT_EQ(m->size(), 100u);
        EXPECT_EQ(m->handle_size(), 8u);
        EXPECT_EQ(fake_.allocations(), before + 1);
        std::vector<unsigned char> data(40), back(40);
        for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 7 + 1);
        device_->write(*m, 10, data.data(), data.size());
        device_->read(*m, 10, back.data(), back.size());
        EXPECT_EQ(back, data);
        // One byte inside the written range, from the Beside queue's stream.
        unsigned char one = 0;
        device_->read(*m, 17, &one, 1, Queue::Beside);
        EXPECT_EQ(one, data[7]);
        EXPECT_THROW(device_->read(*m, 90, back.data(), 11), std::out_of_range);
        EXPECT_THROW(device_->write(*m, 101, data.data(), 0), std::out_of_range);
        device_->write(*m, 100, data.data(), 0);  // empty, at the end: nothing to do
        auto empty = device_->allocate(0);         // a one-byte allocation underneath
        EXPECT_EQ(empty->size(), 0u);
    }
    EXPECT_EQ(fake_.allocations(), before);  // freed with their Memory
}

TEST_P(DriverDeviceTest, LoadsProgramsAndFindsEntries) {
    std::string why_not;
    auto program = device_->load("entry tk_k_count 2 1\nentry tk_k_body 3 256\n", {}, &why_not);
    ASSERT_NE(program, nullptr) << why_not;
    EXPECT_EQ(device_->binary(*program), "entry tk_k_count 2 1\nentry tk_k_body 3 256\n");
    auto body = device_->function(*program, "tk_k_body");
    EXPECT_EQ(body->max_group_size(), 256u);
    program.reset();  // the function keeps its module
    try {
        device_->function(*device_->load("entry a 0 1\n", {}, &why_not), "tk_missing");
        FAIL() << "an entry that is not there was found";
    } catch (const DriverError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find(hip() ? "hipModuleGetFunction" : "cuModuleGetFunction"), std::string::npos) << what;
        EXPECT_NE(what.find(hip() ? "hipErrorNotFound" : "CUDA_ERROR_NOT_FOUND"), std::string::npos) << what;
        EXPECT_NE(what.find("tk_missing"), std::string::npos) << what;
        EXPECT_NE(what.find("Fake GPU"), std::string::npos) << what;
    }
    EXPECT_EQ(device_->load("not a module", {}, &why_not), nullptr);
    EXPECT_NE(why_not.find(hip() ? "hipModuleLoadData" : "cuModuleLoadData"), std::string::npos) << why_not;
    EXPECT_EQ(device_->load("", {}, &why_not), nullptr);
    EXPECT_EQ(why_not, "the program is empty");
}

TEST_P(DriverDeviceTest, LaunchesGroupsOverTheRangeWithEachArgumentsBytes) {
    std::string why_not;
    auto program = device_->load("entry tk_k_body 4 1024\n", {}, &why_not);
    auto body = device_->function(*program, "tk_k_body");
    auto m = device_->allocate(64);
    Arguments args;
    const int64_t count = 1000;
    const float scale = 2.5f;
    const int32_t small = -7;
    args.memory(*m).value(count).value(scale).value(small);
    device_->launch(*body, args, 1000, 256);
    device_->launch(*body, args, 1, 1, Queue::Beside);
    device_->launch(*body, args, 0, 256);  // nothing
    ASSERT_EQ(fake_.launches(), 2u);
    Recorded r = fake_.launch(0);
    EXPECT_EQ(r.entry, "tk_k_body");
    EXPECT_EQ(r.grid[0], 4u);  // ceil(1000 / 256)
    EXPECT_EQ(r.grid[1] * r.grid[2], 1u);
    EXPECT_EQ(r.block[0], 256u);
    ASSERT_EQ(r.params.size(), 4u);
    uint64_t address;
    std::memcpy(&address, m->handle(), sizeof address);
    EXPECT_EQ(r.params[0], address);
    EXPECT_EQ(static_cast<int64_t>(r.params[1]), count);
    float f;
    uint32_t low = static_cast<uint32_t>(r.params[2]);
    std::memcpy(&f, &low, sizeof f);
    EXPECT_EQ(f, scale);
    EXPECT_EQ(static_cast<int32_t>(static_cast<uint32_t>(r.params[3])), small);
    Recorded beside = fake_.launch(1);
    EXPECT_EQ(beside.grid[0], 1u);
    EXPECT_EQ(beside.block[0], 1u);
    EXPECT_NE(beside.stream, r.stream);  // the two queues are two streams
    // Groups the entry does not allow are refused before the driver sees them.
    EXPECT_THROW(device_->launch(*body, args, 10, 2048), std::invalid_argument);
}

TEST_P(DriverDeviceTest, RefusesMoreGroupsThanTheGridHolds) {
    setenv("TACK_FAKE_DRIVER_GRID", "4", 1);
    std::string why_not;
    auto small = DriverDevice::open(*api_, fake_compiler(*GetParam()), 0, &why_not);
    unsetenv("TACK_FAKE_DRIVER_GRID");
    ASSERT_NE(small, nullptr) << why_not;
    EXPECT_EQ(small->max_grid(), 4u);
    auto program = small->load("entry tk_k_body 0 256\n", {}, &why_not);
    auto body = small->function(*program, "tk_k_body");
    small->launch(*body, Arguments(), 4 * 256, 256);
    try {
        small->launch(*body, Arguments(), 4 * 256 + 1, 256);
        FAIL() << "a launch past the grid was queued";
    } catch (const std::out_of_range& e) {
        EXPECT_NE(std::string(e.what()).find("launches at most 4"), std::string::npos) << e.what();
    }
    EXPECT_EQ(fake_.launches(), 1u);
}

TEST_P(DriverDeviceTest, TheBackendsIdentityNamesTheArchitectureAndTheLimit) {
    if (hip()) {
        Identity id = hip_identity(*device_);
        EXPECT_STREQ(id.name, "hip");
        EXPECT_EQ(id.capabilities.max_iterations, (uint64_t{1} << 32) - 256);
        EXPECT_EQ(id.dialect, codegen::cfamily::Dialect::Hip);
    } else {
        Identity id = cuda_identity(*device_);
        EXPECT_STREQ(id.name, "cuda");
        ASSERT_EQ(id.extra_options.size(), 1u);
        EXPECT_EQ(id.extra_options[0], "-arch=sm_90");
        EXPECT_EQ(id.capabilities.max_iterations, uint64_t{2147483647} * 256);
        EXPECT_EQ(id.dialect, codegen::cfamily::Dialect::Cuda);
    }
}

// The C-family runtime over the device: a saxpy variant compiles through
// the vendor's compiler, its arrays' bytes reach device memory, and its
// count entry is launched over the argument list the printer declared
// (the fake runs no code, so the count it reads back is 0 and nothing
// else runs). What the device holds comes back to the host when the host
// reads, one element alone when one element is read.
TEST_P(DriverDeviceTest, TheBackendUploadsArraysAndPassesTheArgumentList) {
    DriverBackend made = backend_over_the_fake();
    ASSERT_NE(made.backend, nullptr);
    Backend& backend = *made.backend;
    const std::string& target = backend.target_description();
    EXPECT_EQ(target.rfind(hip() ? "hip\ndevice: Fake GPU" : "cuda\ndevice: Fake GPU", 0), 0u) << target;
    if (!hip()) {
        EXPECT_NE(target.find("options: -arch=sm_90"), std::string::npos) << target;
    }

    auto sample = testing::sample_kernels();
    auto saxpy = std::find_if(sample.begin(), sample.end(), [](auto& k) { return k.name == "saxpy"; });
    auto kernel = testing::codegen_kernel(saxpy->text, saxpy->params);
    Compiled compiled = backend.compile(*kernel, CompileOptions{});
    auto source = codegen::cfamily::emit_c(*kernel, hip() ? codegen::cfamily::Dialect::Hip : codegen::cfamily::Dialect::Cuda);

    const int64_t n = 5;
    runtime::Array y = runtime::Array::empty({n}, DType::F32), x = runtime::Array::empty({n}, DType::F32);
    for (auto* a : {&y, &x}) a->storage()->device = backend.device_copy(a->storage()->bytes);
    for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<float*>(y.data())[i] = static_cast<float>(i);
        reinterpret_cast<float*>(x.data())[i] = static_cast<float>(10 * i);
    }
    float alpha = 0.5f;
    LaunchArg args[3] = {{&y, 0}, {&x, 0}, {nullptr, 0}};
    std::memcpy(&args[2].bits, &alpha, sizeof alpha);
    const std::vector<int> written = {0};
    LaunchRequest request;
    request.args = args;
    request.count = 3;
    request.written = &written;
    fake_.reset();
    // saxpy's range is range(len(y)): the host works out the count (5), and
    // the one launch is the body's, over at least that many items.
    LaunchOutcome outcome = backend.launch(*compiled.code, request);
    EXPECT_EQ(outcome.count, n);
    ASSERT_EQ(fake_.launches(), 1u);
    Recorded body = fake_.launch(0);
    EXPECT_EQ(body.entry, source.entries.body);
    EXPECT_GE(body.grid[0] * body.block[0], unsigned(n));
    ASSERT_EQ(body.params.size(), source.slots.size());
    for (size_t k = 0; k < source.slots.size(); ++k) {
        const auto& slot = source.slots[k];
        using Kind = codegen::cfamily::ArgSlot::Kind;
        if (slot.kind == Kind::Data) {
            const runtime::Array& a = slot.param == 0 ? y : x;
            // Device memory holds the host's bytes (the fake's addresses are host addresses).
            EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(body.params[k]), a.address(), n * 4), 0) << k;
        } else if (slot.kind == Kind::Extent) {
            EXPECT_EQ(static_cast<int64_t>(body.params[k]), n) << k;
        } else if (slot.kind == Kind::Scalar) {
            EXPECT_EQ(static_cast<uint32_t>(body.params[k]), static_cast<uint32_t>(args[2].bits)) << k;
        } else if (slot.kind == Kind::Count) {
            EXPECT_EQ(static_cast<int64_t>(body.params[k]), n) << k;
        }
    }
    // y may have been written: a host read copies it back. One element
    // first, then all of them.
    auto data_slot = std::find_if(source.slots.begin(), source.slots.end(), [](auto& s) {
        return s.kind == codegen::cfamily::ArgSlot::Kind::Data && s.param == 0;
    });
    float* on_device = reinterpret_cast<float*>(body.params[data_slot - source.slots.begin()]);
    for (int64_t i = 0; i < n; ++i) on_device[i] = 100.0f + static_cast<float>(i);
    y.storage()->device->peek(y.storage()->data, 3 * sizeof(float), sizeof(float));
    EXPECT_EQ(reinterpret_cast<const float*>(y.address())[3], 103.0f);
    EXPECT_EQ(reinterpret_cast<const float*>(y.address())[2], 2.0f);  // not copied yet
    const float* back = reinterpret_cast<const float*>(y.data());
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(back[i], 100.0f + static_cast<float>(i)) << i;

    // What the disk cache keeps loads again, and a compiler's error names it.
    std::string error;
    EXPECT_NE(backend.load(compiled.code->serialize(), &error), nullptr) << error;
}

// A kernel that computes its range before the loop in a way the host does
// not follow (a division, a shift), and a debug launch, take the count from
// the count entry on the device: the fake's out memory reads 0, so the
// count entry is the only launch.
TEST_P(DriverDeviceTest, TheCountEntryRunsWhereTheHostCannotWorkOutTheCount) {
    DriverBackend made = backend_over_the_fake();
    ASSERT_NE(made.backend, nullptr);
    Backend& backend = *made.backend;
    const auto dialect = hip() ? codegen::cfamily::Dialect::Hip : codegen::cfamily::Dialect::Cuda;
    const std::vector<driver::ParamFacts> params = {testing::array_of(DType::F32)};
    auto halves = testing::codegen_kernel("def halves(y):\n"
                                          "    m = len(y) // 2\n"
                                          "    for i in range(m):\n"
                                          "        y[i] = 1.0\n",
                                          params);
    auto shifted = testing::codegen_kernel("def shifted(y):\n"
                                           "    n = len(y) >> 0\n"
                                           "    for i in range(n):\n"
                                           "        y[i] = 1.0\n",
                                           params);
    auto ones = testing::codegen_kernel("def ones(y):\n"
                                        "    for i in range(len(y)):\n"
                                        "        y[i] = 1.0\n",
                                        params);
    auto lengths = testing::codegen_kernel("def lengths(y):\n"
                                           "    n = len(y)\n"
                                           "    for i in range(n):\n"
                                           "        y[i] = 1.0\n",
                                           params);
    runtime::Array y = runtime::Array::empty({6}, DType::F32);
    y.storage()->device = backend.device_copy(y.storage()->bytes);
    LaunchArg args[1] = {{&y, 0}};
    const std::vector<int> written = {0};
    for (auto [kernel, debug] : {std::pair{halves.get(), false}, std::pair{shifted.get(), false},
                                 std::pair{ones.get(), true}, std::pair{lengths.get(), true}}) {
        CompileOptions options;
        options.debug = debug;
        Compiled compiled = backend.compile(*kernel, options);
        codegen::cfamily::EmitOptions emit;
        emit.debug = debug;
        auto source = codegen::cfamily::emit_c(*kernel, dialect, emit);
        LaunchRequest request;
        request.args = args;
        request.count = 1;
        request.debug = debug;
        request.written = &written;
        fake_.reset();
        LaunchOutcome outcome = backend.launch(*compiled.code, request);
        EXPECT_EQ(outcome.count, 0) << kernel->name;
        ASSERT_EQ(fake_.launches(), 1u) << kernel->name;
        EXPECT_EQ(fake_.launch(0).entry, source.entries.count) << kernel->name;
    }
}

// Assignments to locals before the loop that the host follows (n =
// len(y), then a local computed from it): the host works out the count,
// and the one launch is the body's, with that count, as saxpy's. The plan
// survives the disk cache's bytes.
TEST_P(DriverDeviceTest, TheHostFollowsAssignmentsToLocalsBeforeTheLoop) {
    DriverBackend made = backend_over_the_fake();
    ASSERT_NE(made.backend, nullptr);
    Backend& backend = *made.backend;
    const auto dialect = hip() ? codegen::cfamily::Dialect::Hip : codegen::cfamily::Dialect::Cuda;
    const std::vector<driver::ParamFacts> params = {testing::array_of(DType::F32)};
    auto kernel = testing::codegen_kernel("def tail(y):\n"
                                          "    n = len(y)\n"
                                          "    first = n - 4\n"
                                          "    for i in range(first, n):\n"
                                          "        y[i] = 1.0\n",
                                          params);
    Compiled compiled = backend.compile(*kernel, CompileOptions{});
    auto source = codegen::cfamily::emit_c(*kernel, dialect);
    std::string error;
    auto loaded = backend.load(compiled.code->serialize(), &error);
    ASSERT_NE(loaded, nullptr) << error;
    runtime::Array y = runtime::Array::empty({6}, DType::F32);
    y.storage()->device = backend.device_copy(y.storage()->bytes);
    LaunchArg args[1] = {{&y, 0}};
    const std::vector<int> written = {0};
    for (const Executable* code : {compiled.code.get(), loaded.get()}) {
        LaunchRequest request;
        request.args = args;
        request.count = 1;
        request.written = &written;
        fake_.reset();
        LaunchOutcome outcome = backend.launch(*code, request);
        EXPECT_EQ(outcome.count, 4);
        ASSERT_EQ(fake_.launches(), 1u);
        Recorded body = fake_.launch(0);
        EXPECT_EQ(body.entry, source.entries.body);
        ASSERT_EQ(body.params.size(), source.slots.size());
        for (size_t k = 0; k < source.slots.size(); ++k) {
            if (source.slots[k].kind == codegen::cfamily::ArgSlot::Kind::Count) {
                EXPECT_EQ(static_cast<int64_t>(body.params[k]), 4) << k;
            }
        }
    }
}

// CUDA samples textures through texture objects over 3D arrays; HIP's
// backend samples them in code. The texture object a launch passes holds
// the snapshot's texels with tack.texture3d's sampling (clamped,
// trilinear, normalized coordinates); it is filled again only after
// update(), and released with the texture.
TEST_P(DriverDeviceTest, CudaTexturesAreTextureObjectsOverTheSnapshot) {
    DriverBackend made = backend_over_the_fake();
    ASSERT_NE(made.backend, nullptr);
    Backend& backend = *made.backend;
    EXPECT_EQ(device_->has_images(), !hip());
    EXPECT_EQ(backend.capabilities().images, !hip());
    if (hip()) return;

    auto sample = testing::sample_kernels();
    auto textures = std::find_if(sample.begin(), sample.end(), [](auto& k) { return k.name == "textures"; });
    auto kernel = testing::codegen_kernel(textures->text, textures->params);
    Compiled compiled = backend.compile(*kernel, CompileOptions{});
    auto source = codegen::cfamily::emit_c(*kernel, codegen::cfamily::Dialect::Cuda);
    EXPECT_NE(source.text.find("tex3D<float>("), std::string::npos) << source.text;

    const int64_t w = 3, h = 2, d = 4;
    runtime::Array texels = runtime::Array::empty({w * h * d}, DType::F32);
    auto fill = [&](float base) {
        for (int64_t i = 0; i < w * h * d; ++i) reinterpret_cast<float*>(texels.data())[i] = base + static_cast<float>(i);
    };
    fill(0.5f);
    const size_t before = fake_.textures();
    {
        runtime::Texture3D texture(texels, w, h, d);
        runtime::Array p = runtime::Array::empty({2, 3}, DType::F32), out = runtime::Array::empty({2}, DType::F32);
        for (auto* a : {&p, &out}) a->storage()->device = backend.device_copy(a->storage()->bytes);
        LaunchArg args[3] = {{&texture.storage(), 0, &texture}, {&p, 0}, {&out, 0}};
        const std::vector<int> written = {2};
        LaunchRequest request;
        request.args = args;
        request.count = 3;
        request.written = &written;
        auto handle_passed = [&] {
            fake_.reset();
            backend.launch(*compiled.code, request);
            Recorded count = fake_.launch(0);
            auto slot = std::find_if(source.slots.begin(), source.slots.end(), [](auto& s) {
                return s.kind == codegen::cfamily::ArgSlot::Kind::Image;
            });
            EXPECT_EQ(slot->param, 0);
            return count.params.at(slot - source.slots.begin());
        };
        uint64_t handle = handle_passed();
        auto t = fake_.texture(handle);
        ASSERT_TRUE(t.has_value()) << handle;
        EXPECT_EQ(t->extents[0], 3u);
        EXPECT_EQ(t->extents[1], 2u);
        EXPECT_EQ(t->extents[2], 4u);
        for (int mode : t->address_modes) EXPECT_EQ(mode, 1);  // CU_TR_ADDRESS_MODE_CLAMP
        EXPECT_EQ(t->filter, 1);                                // CU_TR_FILTER_MODE_LINEAR
        EXPECT_EQ(t->flags, 0x22u);  // normalized coordinates, no trilinear shortcut
        for (int64_t i = 0; i < w * h * d; ++i) EXPECT_EQ(t->texels[i], 0.5f + static_cast<float>(i)) << i;
        // The snapshot is not an array argument: it has no device copy.
        EXPECT_EQ(texture.storage().storage()->device, nullptr);
        EXPECT_EQ(fake_.textures(), before + 2);  // the array and its texture object

        fill(100.0f);  // not visible before update()
        EXPECT_EQ(handle_passed(), handle);
        EXPECT_EQ(fake_.texture(handle)->texels[5], 5.5f);
        texture.update();
        EXPECT_EQ(handle_passed(), handle);
        EXPECT_EQ(fake_.texture(handle)->texels[5], 105.0f);
        EXPECT_EQ(fake_.textures(), before + 2);
    }
    EXPECT_EQ(fake_.textures(), before);
}

// Memory another library allocated: adopted in place when the whole range
// lies in one of the device's allocations, refused with the reason
// otherwise, and never freed by Tack.
TEST_P(DriverDeviceTest, AdoptsMemoryOfTheDeviceAndRefusesOtherAddresses) {
    EXPECT_EQ(device_->dlpack_device(), hip() ? 10 : 2);
    auto theirs = device_->allocate(64);
    const uint64_t base = *theirs->address();
    const size_t before = fake_.allocations();
    {
        auto adopted = device_->adopt(base + 16, 48);
        EXPECT_EQ(*adopted->address(), base + 16);
        EXPECT_EQ(adopted->size(), 48u);
        const uint32_t word = 0xdeadbeef;
        device_->write(*adopted, 0, &word, sizeof word);
        uint32_t back = 0;
        device_->read(*theirs, 16, &back, sizeof back);
        EXPECT_EQ(back, word);
    }
    EXPECT_EQ(fake_.allocations(), before);  // still theirs
    try {
        device_->adopt(base + 16, 49);
        ADD_FAILURE() << "a range past the allocation was adopted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("run past the end of their allocation (64 bytes"), std::string::npos)
            << e.what();
    }
    int on_the_stack = 0;
    try {
        device_->adopt(reinterpret_cast<uint64_t>(&on_the_stack), 4);
        ADD_FAILURE() << "host memory was adopted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("are not memory of Fake GPU"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(api_->name.address_range), std::string::npos) << e.what();
    }
}

// The default streams' numbers become the vendor's handles; any other
// number is a stream handle itself.
TEST_P(DriverDeviceTest, WaitsForAnotherLibrarysStream) {
    device_->wait_for_stream(1);
    EXPECT_EQ(reinterpret_cast<uint64_t>(fake_.synchronized()), hip() ? 0u : 1u);
    device_->wait_for_stream(2);
    EXPECT_EQ(reinterpret_cast<uint64_t>(fake_.synchronized()), 2u);
    device_->wait_for_stream(0x5000);
    EXPECT_EQ(reinterpret_cast<uint64_t>(fake_.synchronized()), 0x5000u);
    EXPECT_NE(device_->stream_handle(Queue::Ordered), device_->stream_handle(Queue::Beside));
}

// The backend's side of sharing: an exported copy is brought up to date
// and then read from the device at every host access (another library may
// have written it), host writes reach it at once, and an adopted copy
// holds the data from the start.
TEST_P(DriverDeviceTest, SharedCopiesLiveOnTheDevice) {
    DriverBackend made = backend_over_the_fake();
    ASSERT_NE(made.backend, nullptr);
    Backend& backend = *made.backend;
    EXPECT_EQ(backend.shared_memory().dlpack_device, hip() ? 10 : 2);
    EXPECT_EQ(backend.stream(), made.device->stream_handle(Queue::Ordered));

    runtime::Array a = runtime::Array::empty({4}, DType::I32);
    a.storage()->device = backend.device_copy(a.storage()->bytes);
    for (int i = 0; i < 4; ++i) reinterpret_cast<int32_t*>(a.data())[i] = i + 1;
    auto* on_device = reinterpret_cast<int32_t*>(backend.share(*a.storage()));
    EXPECT_EQ(on_device[3], 4);  // brought up to date
    EXPECT_TRUE(a.storage()->device->shared());
    on_device[0] = 50;  // the other library writes
    EXPECT_EQ(reinterpret_cast<const int32_t*>(a.data())[0], 50);
    on_device[1] = 60;  // again, after a host access
    EXPECT_EQ(reinterpret_cast<const int32_t*>(a.data())[1], 60);
    a.fill_int(7);  // a host write goes through
    EXPECT_EQ(on_device[2], 7);

    // Adopted: a strided view of another library's allocation.
    auto theirs = device_->allocate(10 * sizeof(int32_t));
    auto* their_words = reinterpret_cast<int32_t*>(*theirs->address());
    for (int i = 0; i < 10; ++i) their_words[i] = 100 + i;
    runtime::Array view = runtime::Array::on_device(
        *theirs->address() + 8 * sizeof(int32_t), DType::I32, {3}, {-3}, false, nullptr,
        [&](uint64_t base, size_t bytes) { return backend.adopt(base, bytes); });
    EXPECT_TRUE(view.storage()->device->shared());
    EXPECT_EQ(view.storage()->bytes, 7 * sizeof(int32_t));  // elements 2..8
    const auto* host = reinterpret_cast<const int32_t*>(view.data());
    EXPECT_EQ(host[0], 108);
    EXPECT_EQ(host[-3], 105);
    EXPECT_EQ(host[-6], 102);
    view.fill_int(-1);
    EXPECT_EQ(their_words[8], -1);
    EXPECT_EQ(their_words[5], -1);
    EXPECT_EQ(their_words[7], 107);  // between the elements: rewritten with what it held
    EXPECT_EQ(their_words[9], 109);  // outside the view's span: untouched
    EXPECT_THROW(runtime::Array::on_device(*theirs->address(), DType::I32, {11}, {}, false, nullptr,
                                           [&](uint64_t base, size_t bytes) { return backend.adopt(base, bytes); }),
                 std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Vendors, DriverDeviceTest, ::testing::Values(&kCudaVendor, &kHipVendor),
                         [](const auto& info) { return std::string(info.param->name); });

// A copy of the fake at a path of its own loads as a separate library, so
// this one can see no device while the other is probed already.
TEST(DriverApi, NamesTheMissingDeviceTheLibraryAndTheFunction) {
    auto copy = std::filesystem::temp_directory_path() / ("tack_fake_driver_" + std::to_string(getpid()) + ".so");
    std::filesystem::copy_file(TACK_FAKE_DRIVER, copy, std::filesystem::copy_options::overwrite_existing);
    setenv("TACK_FAKE_DRIVER_DEVICES", "0", 1);
    std::string why_cuda, why_hip;
    EXPECT_EQ(open_driver_api(kCudaVendor, copy.string(), &why_cuda), nullptr);
    EXPECT_EQ(open_driver_api(kHipVendor, copy.string(), &why_hip), nullptr);
    unsetenv("TACK_FAKE_DRIVER_DEVICES");
    std::filesystem::remove(copy);
    EXPECT_NE(why_cuda.find("no CUDA device"), std::string::npos) << why_cuda;
    EXPECT_NE(why_cuda.find("CUDA_ERROR_NO_DEVICE (100)"), std::string::npos) << why_cuda;
    EXPECT_NE(why_hip.find("no HIP device"), std::string::npos) << why_hip;
    EXPECT_NE(why_hip.find("hipErrorNoDevice (100)"), std::string::npos) << why_hip;

    std::string why;
    EXPECT_EQ(open_driver_api(kCudaVendor, "/nonexistent/libcuda.so.1", &why), nullptr);
    EXPECT_NE(why.find("cannot load /nonexistent/libcuda.so.1"), std::string::npos) << why;
    // A library without the driver's functions: the C library.
    EXPECT_EQ(open_driver_api(kHipVendor, "libc.so.6", &why), nullptr);
    EXPECT_NE(why.find("libc.so.6 has no hipInit"), std::string::npos) << why;
}

}  // namespace
}  // namespace tack::backends::gpu
