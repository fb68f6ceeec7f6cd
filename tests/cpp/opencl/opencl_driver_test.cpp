// The OpenCL driver layer against a real device (PoCL in CI): buffers,
// programs from source and from binaries, launches over ragged sizes, and
// the errors a user would read. Every test but the error-name ones skips
// when the machine has no OpenCL.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backends/opencl/device.h"

namespace tack::backends::opencl {
namespace {

// A 64-bit index built from the group id, a count argument, and a device-
// scope relaxed atomic counting the work items that passed the bound check.
const char* kAxpySource = R"CL(
__kernel void axpy(__global float* y, __global const float* x, float a, long n,
                   __global atomic_int* visits) {
    long i = (long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0);
    if (i >= n) return;
    y[i] = a * x[i] + y[i];
    atomic_fetch_add_explicit(visits, 1, memory_order_relaxed, memory_scope_device);
}
)CL";

const char* kReverseSource = R"CL(
__kernel void reverse_groups(__global int* data, __local int* scratch) {
    size_t l = get_local_id(0), g = get_local_size(0);
    long base = (long)get_group_id(0) * (long)g;
    scratch[l] = data[base + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    data[base + l] = scratch[g - 1 - l];
}
)CL";

const std::string kOptions = "-cl-std=CL3.0";

class OpenClDriverTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        device_ = ClDevice::instance(&why);
        if (!device_) GTEST_SKIP() << "no OpenCL device: " << why;
        if (device_->opencl_c_version() < 300)
            GTEST_SKIP() << "the device does not compile OpenCL C 3.0:\n" << device_->description();
    }
    ClDevice* device_ = nullptr;
};

// The inputs are small integers and a = 2.5, so a * x + y is exact in float
// whether or not the device contracts it into an fma.
struct AxpyCase {
    std::vector<float> x, y;
    float a = 2.5f;
    explicit AxpyCase(size_t n) : x(n), y(n) {
        for (size_t i = 0; i < n; ++i) {
            x[i] = float(i % 97);
            y[i] = float(int(i % 13) - 6);
        }
    }
    std::vector<float> oracle() const {
        std::vector<float> out(y.size());
        for (size_t i = 0; i < y.size(); ++i) out[i] = a * x[i] + y[i];
        return out;
    }
};

// Runs axpy over n elements and checks y and the visit count.
void run_axpy(ClDevice& device, const ClKernel& kernel, size_t n) {
    SCOPED_TRACE("n = " + std::to_string(n));
    AxpyCase c(n);
    ClBuffer x = device.allocate(n * sizeof(float));
    ClBuffer y = device.allocate(n * sizeof(float));
    ClBuffer visits = device.allocate(sizeof(int32_t));
    device.write(x, 0, c.x.data(), n * sizeof(float));
    device.write(y, 0, c.y.data(), n * sizeof(float));
    const int32_t zero = 0;
    device.fill(visits, 0, &zero, sizeof zero, sizeof zero);

    gpu::Arguments args;
    args.value(y.handle()).value(x.handle()).value(c.a).value(int64_t(n)).value(visits.handle());
    device.launch(kernel, args, n);

    std::vector<float> got(n);
    device.read(y, 0, got.data(), n * sizeof(float));
    int32_t visited = -1;
    device.read(visits, 0, &visited, sizeof visited);
    EXPECT_EQ(got, c.oracle());
    EXPECT_EQ(visited, int32_t(n));
}

const size_t kSizes[] = {0, 1, 255, 256, 257, 1000, 100003};

TEST(OpenClErrors, NamesTheCallAndTheError) {
    EXPECT_STREQ(cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    EXPECT_STREQ(cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    EXPECT_STREQ(cl_error_name(-12345), "unknown OpenCL error");
    ClError error("clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE);
    EXPECT_STREQ(error.what(), "clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)");
    EXPECT_EQ(error.code(), CL_MEM_OBJECT_ALLOCATION_FAILURE);
}

TEST(OpenClErrors, ApiAndDeviceAgree) {
    std::string api_why, device_why;
    const ClApi* api = cl_api(&api_why);
    ClDevice* device = ClDevice::instance(&device_why);
    if (!api) {
        EXPECT_FALSE(api_why.empty());
        EXPECT_EQ(device, nullptr);
        EXPECT_EQ(device_why, api_why);
        GTEST_SKIP() << api_why;
    }
    if (!device) GTEST_SKIP() << device_why;
    EXPECT_EQ(&device->api(), api);
}

TEST_F(OpenClDriverTest, DescribesTheDevice) {
    const std::string& d = device_->description();
    EXPECT_NE(d.find("platform: "), std::string::npos) << d;
    EXPECT_NE(d.find("device: " + device_->device_name()), std::string::npos) << d;
    EXPECT_NE(d.find("driver version: "), std::string::npos) << d;
    EXPECT_NE(d.find("opencl c version: "), std::string::npos) << d;
    EXPECT_GE(device_->max_work_group_size(), 1u);
    std::printf("OpenCL device:\n%s\nfp64: %s\n", d.c_str(), device_->supports_fp64() ? "yes" : "no");
}

TEST_F(OpenClDriverTest, AxpyFromSourceMatchesTheOracle) {
    std::string log;
    ClProgram program = device_->build(kAxpySource, kOptions, &log);
    ASSERT_TRUE(program);
    ClKernel kernel = device_->kernel(program, "axpy");
    EXPECT_EQ(kernel.entry(), "axpy");
    EXPECT_GE(kernel.group_size(), 1u);
    EXPECT_LE(kernel.group_size(), 256u);
    EXPECT_LE(kernel.group_size(), kernel.max_group_size());
    for (size_t n : kSizes) run_axpy(*device_, kernel, n);
}

TEST_F(OpenClDriverTest, AxpyFromBinaryMatchesTheOracle) {
    ClProgram built = device_->build(kAxpySource, kOptions);
    std::string bytes = device_->binary(built);
    ASSERT_FALSE(bytes.empty());
    std::string why;
    ClProgram loaded = device_->load_binary(bytes, kOptions, &why);
    ASSERT_TRUE(loaded) << why;
    built = ClProgram();  // the loaded program stands alone
    ClKernel kernel = device_->kernel(loaded, "axpy");
    loaded = ClProgram();  // a kernel keeps its program alive
    for (size_t n : kSizes) run_axpy(*device_, kernel, n);
}

TEST_F(OpenClDriverTest, ExplicitGroupSizes) {
    ClProgram program = device_->build(kAxpySource, kOptions);
    ClKernel kernel = device_->kernel(program, "axpy");
    for (size_t group : {size_t(1), size_t(32), size_t(64)}) {
        if (group > kernel.max_group_size()) continue;
        SCOPED_TRACE("group " + std::to_string(group));
        const size_t n = 1000;
        AxpyCase c(n);
        ClBuffer x = device_->allocate(n * sizeof(float));
        ClBuffer y = device_->allocate(n * sizeof(float));
        ClBuffer visits = device_->allocate(sizeof(int32_t));
        device_->write(x, 0, c.x.data(), n * sizeof(float));
        device_->write(y, 0, c.y.data(), n * sizeof(float));
        const int32_t zero = 0;
        device_->write(visits, 0, &zero, sizeof zero);
        gpu::Arguments args;
        args.value(y.handle()).value(x.handle()).value(c.a).value(int64_t(n)).value(visits.handle());
        device_->launch(kernel, args, n, group);
        std::vector<float> got(n);
        device_->read(y, 0, got.data(), n * sizeof(float));
        EXPECT_EQ(got, c.oracle());
    }
}

TEST_F(OpenClDriverTest, LocalMemoryAndBarriers) {
    ClProgram program = device_->build(kReverseSource, kOptions);
    ClKernel kernel = device_->kernel(program, "reverse_groups");
    const size_t group = kernel.group_size();
    const size_t n = 3 * group;
    std::vector<int32_t> data(n);
    for (size_t i = 0; i < n; ++i) data[i] = int32_t(i * 7 + 1);
    ClBuffer buffer = device_->allocate(n * sizeof(int32_t));
    device_->write(buffer, 0, data.data(), n * sizeof(int32_t));
    gpu::Arguments args;
    args.value(buffer.handle()).local(group * sizeof(int32_t));
    device_->launch(kernel, args, n);
    std::vector<int32_t> got(n);
    device_->read(buffer, 0, got.data(), n * sizeof(int32_t));
    for (size_t i = 0; i < n; ++i) {
        const size_t base = i / group * group;
        EXPECT_EQ(got[i], data[base + (group - 1 - (i - base))]) << "at " << i;
    }
}

TEST_F(OpenClDriverTest, CopyFillAndRanges) {
    ClBuffer a = device_->allocate(64);
    ClBuffer b = device_->allocate(64);
    const uint32_t pattern = 0xA1B2C3D4u;
    device_->fill(a, 0, &pattern, sizeof pattern, 64);
    const uint8_t zero = 0;
    device_->fill(b, 0, &zero, 1, 64);
    device_->copy(a, 8, b, 16, 24);
    std::vector<uint32_t> got(16);
    device_->read(b, 0, got.data(), 64);
    for (size_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], (i >= 4 && i < 10) ? pattern : 0u) << "word " << i;

    ClBuffer empty = device_->allocate(0);
    EXPECT_TRUE(empty);
    EXPECT_EQ(empty.size(), 0u);
    device_->write(empty, 0, nullptr, 0);
    device_->read(empty, 0, nullptr, 0);
    char byte = 0;
    EXPECT_THROW(device_->write(empty, 0, &byte, 1), std::out_of_range);
    EXPECT_THROW(device_->read(a, 60, got.data(), 8), std::out_of_range);
    EXPECT_THROW(device_->copy(a, 0, b, 48, 32), std::out_of_range);
    EXPECT_THROW(device_->fill(a, 2, &pattern, sizeof pattern, 8), std::invalid_argument);
    EXPECT_THROW(device_->fill(a, 0, &pattern, 3, 6), std::invalid_argument);
    device_->finish();
}

TEST_F(OpenClDriverTest, BrokenSourceThrowsWithTheBuildLog) {
    const std::string source = "__kernel void broken(__global float* y) { y[0] = undefined_name; }\n";
    std::string log;
    try {
        device_->build(source, kOptions, &log);
        FAIL() << "a kernel using an undeclared name built";
    } catch (const ClBuildError& e) {
        EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
        EXPECT_NE(e.log().find("undefined_name"), std::string::npos) << e.log();
        EXPECT_NE(std::string(e.what()).find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(e.log()), std::string::npos) << e.what();
        EXPECT_EQ(log, e.log());
    }
}

TEST_F(OpenClDriverTest, RejectedBinariesAreEmptyPrograms) {
    std::string why;
    EXPECT_FALSE(device_->load_binary("", kOptions, &why));
    EXPECT_FALSE(why.empty());
    why.clear();
    EXPECT_FALSE(device_->load_binary(std::string(256, '\x5a'), kOptions, &why));
    EXPECT_FALSE(why.empty());
}

TEST_F(OpenClDriverTest, MissingEntryPointNamesIt) {
    ClProgram program = device_->build(kAxpySource, kOptions);
    try {
        device_->kernel(program, "no_such_kernel");
        FAIL() << "a missing entry point made a kernel";
    } catch (const ClError& e) {
        EXPECT_EQ(e.code(), CL_INVALID_KERNEL_NAME);
        EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos) << e.what();
    }
}

// One kernel object shared by threads: its mutex keeps each launch's
// arguments its own.
TEST_F(OpenClDriverTest, ThreadsShareOneKernel) {
    ClProgram program = device_->build(kAxpySource, kOptions);
    ClKernel kernel = device_->kernel(program, "axpy");
    const int threads = 4, rounds = 25;
    const size_t n = 777;
    std::vector<std::vector<float>> results(threads);
    std::vector<int32_t> visits(threads, -1);
    std::vector<std::string> errors(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            try {
                std::vector<float> x(n), y(n, 0.0f);
                for (size_t i = 0; i < n; ++i) x[i] = float(t + 1);
                ClBuffer xb = device_->allocate(n * sizeof(float));
                ClBuffer yb = device_->allocate(n * sizeof(float));
                ClBuffer vb = device_->allocate(sizeof(int32_t));
                device_->write(xb, 0, x.data(), n * sizeof(float));
                device_->write(yb, 0, y.data(), n * sizeof(float));
                const int32_t zero = 0;
                device_->write(vb, 0, &zero, sizeof zero);
                for (int r = 0; r < rounds; ++r) {
                    gpu::Arguments args;
                    args.value(yb.handle()).value(xb.handle()).value(1.0f).value(int64_t(n)).value(vb.handle());
                    device_->launch(kernel, args, n);
                }
                results[t].resize(n);
                device_->read(yb, 0, results[t].data(), n * sizeof(float));
                device_->read(vb, 0, &visits[t], sizeof(int32_t));
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    }
    for (std::thread& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
        SCOPED_TRACE("thread " + std::to_string(t));
        EXPECT_EQ(errors[t], "");
        EXPECT_EQ(results[t], std::vector<float>(n, float(rounds * (t + 1))));
        EXPECT_EQ(visits[t], rounds * int32_t(n));
    }
}

// Not a check: the numbers the backend's caching decisions rest on. PoCL
// keeps compiled code in its own cache, keyed by the program's bitcode, so
// an extra kernel storing a fresh constant makes every step cold.
TEST_F(OpenClDriverTest, PrintsBuildAndBinaryLoadTimes) {
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    const std::string nonce = std::to_string(Clock::now().time_since_epoch().count() & 0x7fffffff);
    const std::string source = std::string(kAxpySource) + "__kernel void nonce(__global int* p) { p[0] = " +
                               nonce + "; }\n";
    auto first_launch = [&](const ClProgram& program) {
        ClKernel kernel = device_->kernel(program, "axpy");
        run_axpy(*device_, kernel, 1000);
    };

    auto t0 = Clock::now();
    ClProgram built = device_->build(source, kOptions);
    auto t1 = Clock::now();
    first_launch(built);
    auto t2 = Clock::now();
    std::string bytes = device_->binary(built);
    auto t3 = Clock::now();
    ClProgram loaded = device_->load_binary(bytes, kOptions);
    auto t4 = Clock::now();
    ASSERT_TRUE(loaded);
    first_launch(loaded);
    auto t5 = Clock::now();
    std::printf(
        "OpenCL axpy on %s: build from source %.1f ms (+ first launch %.1f ms); binary of %zu bytes fetched in "
        "%.1f ms; load_binary %.1f ms (+ first launch %.1f ms)\n",
        device_->device_name().c_str(), ms(t1 - t0), ms(t2 - t1), bytes.size(), ms(t3 - t2), ms(t4 - t3),
        ms(t5 - t4));
}

}  // namespace
}  // namespace tack::backends::opencl
