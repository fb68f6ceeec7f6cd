// Runs printed OpenCL C on the first OpenCL device (PoCL in CI) and checks
// the results against oracles computed here: the count entry's trip counts
// and refusals, ndindex unravelling, Python integer // and %, wrapping
// arithmetic, atomics and a kernel's return value. Skips without a device.
#include <gtest/gtest.h>

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cmath>
#include <cstring>

#include "codegen_support.h"

namespace tack {
namespace {

using namespace codegen::cfamily;
using testing::array_of;
using testing::scalar_of;

struct Device {
    cl_context ctx = nullptr;
    cl_command_queue queue = nullptr;
    cl_device_id dev = nullptr;
    Device() {
        cl_platform_id p;
        cl_uint n = 0;
        if (clGetPlatformIDs(1, &p, &n) != CL_SUCCESS || n == 0) return;
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, &n) != CL_SUCCESS || n == 0) return;
        ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, nullptr);
        queue = clCreateCommandQueueWithProperties(ctx, dev, nullptr, nullptr);
    }
    ~Device() {
        if (queue) clReleaseCommandQueue(queue);
        if (ctx) clReleaseContext(ctx);
    }
};

Device& device() {
    static Device d;
    return d;
}

// One array argument: host bytes, copied in and back.
struct HostArray {
    std::vector<char> bytes;
    std::vector<int64_t> shape;
    cl_mem mem = nullptr;
};

template <typename T>
HostArray host_array(const std::vector<T>& v, std::vector<int64_t> shape = {}) {
    HostArray a;
    a.bytes.resize(v.size() * sizeof(T));
    std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    a.shape = shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(v.size())} : shape;
    return a;
}

template <typename T>
std::vector<T> values(const HostArray& a) {
    std::vector<T> v(a.bytes.size() / sizeof(T));
    std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
    return v;
}

// Builds the source, sets the slots, runs count then body (then result),
// and copies the arrays back. Returns out[0] of count, and of result in
// `result_bits`; `out` receives count's whole record.
int64_t run(const CSource& src, std::vector<HostArray>& arrays, const std::vector<int64_t>& scalars,
            std::vector<int64_t>* out = nullptr, int64_t* result_bits = nullptr) {
    Device& d = device();
    const char* text = src.text.c_str();
    cl_int err;
    cl_program prog = clCreateProgramWithSource(d.ctx, 1, &text, nullptr, &err);
    std::string options;
    for (auto& o : src.compile_options) options += o + " ";
    if (clBuildProgram(prog, 1, &d.dev, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
        size_t n = 0;
        clGetProgramBuildInfo(prog, d.dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, ' ');
        clGetProgramBuildInfo(prog, d.dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        ADD_FAILURE() << "build failed:\n" << log << "\n" << src.text;
        return -2;
    }
    for (auto& a : arrays)
        a.mem = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, std::max<size_t>(a.bytes.size(), 8),
                               a.bytes.data(), &err);
    std::vector<int64_t> words(kOutWords, 0);
    cl_mem out_mem = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, words.size() * 8, words.data(), &err);
    int64_t count = 0;
    auto set_args = [&](cl_kernel kern) {
        size_t array = 0, scalar = 0;
        for (size_t i = 0; i < src.slots.size(); ++i) {
            auto& s = src.slots[i];
            cl_uint at = static_cast<cl_uint>(i);
            switch (s.kind) {
                case ArgSlot::Kind::Data: clSetKernelArg(kern, at, sizeof(cl_mem), &arrays[array].mem); break;
                case ArgSlot::Kind::ByteOffset: {
                    int64_t zero = 0;
                    clSetKernelArg(kern, at, 8, &zero);
                    break;
                }
                case ArgSlot::Kind::Extent: clSetKernelArg(kern, at, 8, &arrays[array].shape[s.dim]); break;
                case ArgSlot::Kind::Scalar: {
                    int64_t v = scalars[scalar++];
                    clSetKernelArg(kern, at, s.bytes, &v);  // little-endian low bytes
                    break;
                }
                case ArgSlot::Kind::Count: clSetKernelArg(kern, at, 8, &count); break;
                case ArgSlot::Kind::Out: clSetKernelArg(kern, at, sizeof(cl_mem), &out_mem); break;
                default: ADD_FAILURE() << "unexpected slot"; break;
            }
            // The next slot of another array starts with its Data.
            if (i + 1 < src.slots.size() && src.slots[i + 1].kind == ArgSlot::Kind::Data && s.param >= 0 &&
                s.kind != ArgSlot::Kind::Scalar)
                ++array;
        }
    };
    auto launch = [&](const std::string& name, size_t items) {
        cl_kernel kern = clCreateKernel(prog, name.c_str(), &err);
        EXPECT_EQ(err, CL_SUCCESS) << name;
        set_args(kern);
        size_t local = kGroupSize, global = (items + local - 1) / local * local;
        EXPECT_EQ(clEnqueueNDRangeKernel(d.queue, kern, 1, nullptr, &global, &local, 0, nullptr, nullptr), CL_SUCCESS);
        clFinish(d.queue);
        clReleaseKernel(kern);
    };
    launch(src.entries.count, 1);
    clEnqueueReadBuffer(d.queue, out_mem, CL_TRUE, 0, words.size() * 8, words.data(), 0, nullptr, nullptr);
    count = words[0];
    if (out) *out = words;
    if (count > 0) launch(src.entries.body, static_cast<size_t>(count));
    if (result_bits && !src.entries.result.empty()) {
        launch(src.entries.result, 1);
        clEnqueueReadBuffer(d.queue, out_mem, CL_TRUE, 0, 8, result_bits, 0, nullptr, nullptr);
    }
    for (auto& a : arrays) {
        clEnqueueReadBuffer(d.queue, a.mem, CL_TRUE, 0, a.bytes.size(), a.bytes.data(), 0, nullptr, nullptr);
        clReleaseMemObject(a.mem);
    }
    clReleaseMemObject(out_mem);
    clReleaseProgram(prog);
    return count;
}

#define REQUIRE_DEVICE() \
    if (!device().queue) GTEST_SKIP() << "no OpenCL device (install PoCL: pocl-opencl-icd)"

TEST(PoclExec, IntegerFloorDivisionOfEveryI8Pair) {
    REQUIRE_DEVICE();
    auto k = testing::codegen_kernel(
        "def k(a, b, q, r, w):\n"
        "    for i in range(len(a)):\n"
        "        q[i] = a[i] // b[i]\n"
        "        r[i] = a[i] % b[i]\n"
        "        w[i] = (a[i] * b[i] + a[i]) ^ (a[i] >> 3) ^ -a[i] ^ abs(b[i]) ^ a[i] ** 5\n",
        {array_of(DType::I8), array_of(DType::I8), array_of(DType::I8), array_of(DType::I8), array_of(DType::I8)});
    std::vector<int8_t> a, b;
    for (int x = -128; x < 128; ++x)
        for (int y = -128; y < 128; ++y) {
            a.push_back(static_cast<int8_t>(x));
            b.push_back(static_cast<int8_t>(y));
        }
    std::vector<int8_t> zero(a.size());
    std::vector<HostArray> arrays{host_array(a), host_array(b), host_array(zero), host_array(zero), host_array(zero)};
    ASSERT_EQ(run(emit_c(*k, Dialect::OpenCL), arrays, {}), 65536);
    auto q = values<int8_t>(arrays[2]), r = values<int8_t>(arrays[3]), w = values<int8_t>(arrays[4]);
    auto wrap8 = [](int64_t v) { return static_cast<int8_t>(static_cast<uint8_t>(v & 0xff)); };
    for (size_t i = 0; i < a.size(); ++i) {
        int x = a[i], y = b[i];
        int eq = y == 0 ? 0 : y == -1 ? wrap8(-x) : static_cast<int>(std::floor(static_cast<double>(x) / y));
        int er = y == 0 || y == -1 ? 0 : x - eq * y;
        int64_t p = 1;
        for (int n = 0; n < 5; ++n) p = wrap8(p * x);
        int ew = wrap8(wrap8(wrap8(x * y) + x) ^ static_cast<int>(std::floor(x / 8.0)) ^ wrap8(-x) ^ wrap8(y < 0 ? -y : y) ^ p);
        ASSERT_EQ(q[i], eq) << x << " // " << y;
        ASSERT_EQ(r[i], er) << x << " % " << y;
        ASSERT_EQ(w[i], ew) << x << ", " << y;
    }
}

TEST(PoclExec, NdindexWithOffsetsVisitsEveryPoint) {
    REQUIRE_DEVICE();
    auto k = testing::codegen_kernel(
        "def k(m):\n"
        "    for i, j in tack.ndindex((1, m.shape[0]), (2, m.shape[1])):\n"
        "        m[i, j] = m[i, j] + i * 100 + j\n",
        {array_of(DType::I32, 2)});
    std::vector<int32_t> m(7 * 300, 1);
    std::vector<HostArray> arrays{host_array(m, {7, 300})};
    ASSERT_EQ(run(emit_c(*k, Dialect::OpenCL), arrays, {}), 6 * 298);
    auto got = values<int32_t>(arrays[0]);
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 300; ++j) ASSERT_EQ(got[i * 300 + j], 1 + (i >= 1 && j >= 2 ? i * 100 + j : 0)) << i << "," << j;
}

TEST(PoclExec, CountRefusesANonPositiveStepAndHugeSpaces) {
    REQUIRE_DEVICE();
    auto k = testing::codegen_kernel(
        "def k(a, s, n):\n"
        "    for i in range(0, n, s):\n"
        "        a[0] = 1\n",
        {array_of(DType::I32), scalar_of(DType::I64), scalar_of(DType::I64)});
    std::vector<HostArray> arrays{host_array(std::vector<int32_t>{0})};
    std::vector<int64_t> out;
    EXPECT_EQ(run(emit_c(*k, Dialect::OpenCL), arrays, {-3, 10}, &out), -1);
    EXPECT_EQ(out[1], 1);   // StepNotPositive
    EXPECT_EQ(out[3], -3);  // its step
    auto wide = testing::codegen_kernel(
        "def k(a, n):\n"
        "    for i, j in tack.ndindex(n, n):\n"
        "        a[0] = 1\n",
        {array_of(DType::I32), scalar_of(DType::I64)});
    EXPECT_EQ(run(emit_c(*wide, Dialect::OpenCL), arrays, {int64_t{1} << 32}, &out), -1);
    EXPECT_EQ(out[1], 2);  // TooManyIterations
    EXPECT_EQ(out[4], 2);
    EXPECT_EQ(out[5], int64_t{1} << 32);
    EXPECT_EQ(run(emit_c(*k, Dialect::OpenCL), arrays, {3, 10}, &out), 4);
}

TEST(PoclExec, AtomicsAndTheReturnValue) {
    REQUIRE_DEVICE();
    auto k = testing::codegen_kernel(
        "def k(c, f, n) -> tack.f32:\n"
        "    for i in range(n):\n"
        "        tack.atomic_add(c, 0, 1)\n"
        "        tack.atomic_max(c, 1, i)\n"
        "        tack.atomic_add(f, 0, 0.5)\n"
        "        tack.atomic_min(f, 1, tack.f32(i) - 3.0)\n"
        "    return f[0] + 1.0\n",
        {array_of(DType::I32), array_of(DType::F32), scalar_of(DType::I32)});
    std::vector<HostArray> arrays{host_array(std::vector<int32_t>{0, -5}), host_array(std::vector<float>{0.0f, 100.0f})};
    int64_t bits = 0;
    ASSERT_EQ(run(emit_c(*k, Dialect::OpenCL), arrays, {1000}, nullptr, &bits), 1000);
    EXPECT_EQ(values<int32_t>(arrays[0]), (std::vector<int32_t>{1000, 999}));
    EXPECT_EQ(values<float>(arrays[1]), (std::vector<float>{500.0f, -3.0f}));
    float r;
    uint32_t low = static_cast<uint32_t>(bits);
    std::memcpy(&r, &low, 4);
    EXPECT_EQ(r, 501.0f);
}

}  // namespace
}  // namespace tack
