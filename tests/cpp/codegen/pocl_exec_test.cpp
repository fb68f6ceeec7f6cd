// Runs printed OpenCL C on the first OpenCL device (PoCL in CI) and checks
// the results against oracles computed here: the count entry's trip counts
// and refusals, ndindex unravelling, Python integer // and %, wrapping
// arithmetic, atomics and a kernel's return value. Skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/opencl/device.h"
#include "codegen_support.h"

namespace tack {
namespace {

using namespace codegen::cfamily;
using backends::opencl::ClBuffer;
using backends::opencl::ClDevice;
using testing::array_of;
using testing::scalar_of;

ClDevice* device() { return ClDevice::instance(); }

// One array argument: host bytes, copied in and back.
struct HostArray {
    std::vector<char> bytes;
    std::vector<int64_t> shape;
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

// Builds the source, passes the slots, runs count then body (then result),
// and copies the arrays back. Returns out[0] of count, and of result in
// `result_bits`; `out` receives count's whole record. The slots are filled
// here from host arrays and scalars in parameter order, independently of
// the OpenCL backend's packing.
int64_t run(const CSource& src, std::vector<HostArray>& arrays, const std::vector<int64_t>& scalars,
            std::vector<int64_t>* out = nullptr, int64_t* result_bits = nullptr) {
    ClDevice& d = *device();
    std::string options;
    for (auto& o : src.compile_options) options += o + " ";
    auto program = d.build(src.text, options);
    std::vector<ClBuffer> buffers;
    for (auto& a : arrays) {
        buffers.push_back(d.allocate(std::max<size_t>(a.bytes.size(), 8)));
        d.write(buffers.back(), 0, a.bytes.data(), a.bytes.size());
    }
    std::vector<int64_t> words(kOutWords, 0);
    ClBuffer out_buffer = d.allocate(words.size() * 8);
    d.write(out_buffer, 0, words.data(), words.size() * 8);
    auto arguments = [&](int64_t count) {
        backends::gpu::Arguments args;
        size_t array = 0, scalar = 0;
        for (size_t i = 0; i < src.slots.size(); ++i) {
            auto& s = src.slots[i];
            switch (s.kind) {
                case ArgSlot::Kind::Data: args.value(buffers[array].handle()); break;
                case ArgSlot::Kind::ByteOffset: args.value(int64_t{0}); break;
                case ArgSlot::Kind::Extent: args.value(arrays[array].shape[s.dim]); break;
                case ArgSlot::Kind::Scalar: args.bytes(&scalars[scalar++], static_cast<size_t>(s.bytes)); break;  // low bytes
                case ArgSlot::Kind::Count: args.value(count); break;
                case ArgSlot::Kind::Out: args.value(out_buffer.handle()); break;
                default: ADD_FAILURE() << "unexpected slot"; break;
            }
            // The next slot of another array starts with its Data.
            if (i + 1 < src.slots.size() && src.slots[i + 1].kind == ArgSlot::Kind::Data && s.param >= 0 &&
                s.kind != ArgSlot::Kind::Scalar)
                ++array;
        }
        return args;
    };
    d.launch(d.kernel(program, src.entries.count), arguments(0), 1, 1);
    d.read(out_buffer, 0, words.data(), words.size() * 8);
    int64_t count = words[0];
    if (out) *out = words;
    if (count > 0) d.launch(d.kernel(program, src.entries.body), arguments(count), static_cast<uint64_t>(count), kGroupSize);
    if (result_bits && !src.entries.result.empty()) {
        d.launch(d.kernel(program, src.entries.result), arguments(count), 1, 1);
        d.read(out_buffer, 0, result_bits, 8);
    }
    for (size_t i = 0; i < arrays.size(); ++i) d.read(buffers[i], 0, arrays[i].bytes.data(), arrays[i].bytes.size());
    return count;
}

#define REQUIRE_DEVICE() \
    if (!device()) GTEST_SKIP() << "no OpenCL device (install PoCL: pocl-opencl-icd)"

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
