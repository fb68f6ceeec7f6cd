// Golden OpenCL C and CUDA sources of a few kernels, compared as text.
// TACK_UPDATE_GOLDEN=1 rewrites the files in tests/cpp/codegen/golden;
// review the diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen_support.h"

namespace tack {
namespace {

using namespace codegen::cfamily;
using testing::array_of;
using testing::scalar_of;

struct Golden {
    const char* name;
    const char* text;
    std::vector<driver::ParamFacts> params;
    bool debug = false;
};

std::vector<Golden> goldens() {
    return {
        {"saxpy",
         "def saxpy(y, x, alpha):\n"
         "    for i in range(len(y)):\n"
         "        y[i] = alpha * x[i] + y[i]\n",
         {array_of(DType::F32), array_of(DType::F32), scalar_of(DType::F32)}},
        {"floordiv",
         "def floordiv(q, r, a, b):\n"
         "    for i in range(len(q)):\n"
         "        q[i] = a[i] // b[i]\n"
         "        r[i] = a[i] % b[i]\n",
         {array_of(DType::I32), array_of(DType::I32), array_of(DType::I32), array_of(DType::I32)}},
        {"floordiv_debug",
         "def floordiv(q, a, b):\n"
         "    for i in range(len(q)):\n"
         "        q[i] = a[i] // b[i]\n",
         {array_of(DType::I16), array_of(DType::I16), array_of(DType::I16)},
         true},
        {"ndindex",
         "def blur(out, img):\n"
         "    for y, x in tack.ndindex((1, img.shape[0] - 1), (1, img.shape[1] - 1)):\n"
         "        out[y, x] = (img[y - 1, x] + img[y + 1, x] + img[y, x - 1] + img[y, x + 1]) * 0.25\n",
         {array_of(DType::F32, 2), array_of(DType::F32, 2)}},
        {"histogram",
         "def histogram(bins, data, slots):\n"
         "    for i in range(0, len(data), 2):\n"
         "        slots[i] = tack.atomic_add(bins, data[i] % len(bins), 1)\n"
         "        tack.atomic_max(bins, 0, tack.u32(data[i]))\n",
         {array_of(DType::U32), array_of(DType::U32), array_of(DType::U32)}},
        {"total",
         "def total(a) -> tack.f32:\n"
         "    first = a[0]\n"
         "    for i in range(len(a)):\n"
         "        a[i] = a[i] - first\n"
         "    return first * 2.0\n",
         {array_of(DType::F32)}},
    };
}

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void check(Dialect d, const char* ext) {
    bool update = std::getenv("TACK_UPDATE_GOLDEN") != nullptr;
    for (auto& g : goldens()) {
        auto k = testing::codegen_kernel(g.text, g.params);
        EmitOptions options;
        options.debug = g.debug;
        std::string text = emit_c(*k, d, options).text;
        std::string path = std::string(TACK_CODEGEN_GOLDEN_DIR) + "/" + g.name + ext;
        if (update) {
            std::ofstream(path) << text;
            continue;
        }
        EXPECT_EQ(text, read(path)) << "emitted " << to_string(d) << " for " << g.name << " differs from " << path
                                    << " (TACK_UPDATE_GOLDEN=1 rewrites it)";
    }
}

TEST(Golden, OpenCL) { check(Dialect::OpenCL, ".cl"); }
TEST(Golden, Cuda) { check(Dialect::Cuda, ".cu"); }

// A body guards its work items against the count, but where the kernel
// has a barrier or collective: the runtime launches only complete groups
// there, and a return before a barrier, even one no work item takes, gave
// wrong values on PoCL (docs/backends.md).
TEST(Golden, OnlyKernelsWithoutBarriersGuardAgainstTheCount) {
    const char* guard = "if (tk_i >= tk_count) return;";
    std::vector<Golden> kernels = goldens();
    // docs/workgroups.md's tiled transpose: complete groups.
    kernels.push_back({"transpose",
                       "def transpose(a, out, n: int):\n"
                       "    for i in range(n * n):\n"
                       "        tile = tack.shared(256, tack.f32)\n"
                       "        lane = tack.thread_id()\n"
                       "        ty, tx = lane // 16, lane % 16\n"
                       "        t = i // 256\n"
                       "        by, bx = t // (n // 16), t % (n // 16)\n"
                       "        tile[ty * 16 + tx] = a[(by * 16 + ty) * n + bx * 16 + tx]\n"
                       "        tack.barrier()\n"
                       "        out[(bx * 16 + ty) * n + by * 16 + tx] = tile[tx * 16 + ty]\n",
                       {array_of(DType::F32), array_of(DType::F32), scalar_of(DType::I64)}});
    for (auto& g : kernels) {
        auto k = testing::codegen_kernel(g.text, g.params);
        for (Dialect d : {Dialect::OpenCL, Dialect::Cuda, Dialect::Hip, Dialect::Metal}) {
            CSource src = emit_c(*k, d);
            EXPECT_EQ(src.text.find(guard) == std::string::npos, src.full_groups) << g.name << " in " << to_string(d);
            EXPECT_EQ(src.full_groups, std::string(g.name) == "transpose") << g.name;
        }
    }
}

// A barrier under an if, or after a uniform continue, is marked for the
// device's own options (PoCL builds it unoptimized); one at the top or in
// a loop is not.
TEST(Golden, BarriersUnderABranchAreMarked) {
    auto kernel = [](const char* body) {
        std::string text = std::string("def k(a, n: int):\n    for i in range(len(a)):\n        t = tack.shared(256, tack.f32)\n") + body;
        return testing::codegen_kernel(text, {array_of(DType::F32), scalar_of(DType::I64)});
    };
    auto under = [&](const char* body) { return emit_c(*kernel(body), Dialect::OpenCL).barrier_under_branch; };
    EXPECT_FALSE(under("        t[tack.thread_id()] = a[i]\n        tack.barrier()\n        a[i] = t[0]\n"));
    EXPECT_FALSE(under("        for s in range(n):\n            t[tack.thread_id()] = a[i]\n            tack.barrier()\n"));
    EXPECT_TRUE(under("        if n > 0:\n            t[tack.thread_id()] = a[i]\n            tack.barrier()\n"));
    EXPECT_TRUE(under("        if n > 0:\n            a[i] = 1.0\n        else:\n            a[i] = tack.block_sum(a[i])\n"));
    EXPECT_TRUE(under("        if n < 0:\n            continue\n        t[tack.thread_id()] = a[i]\n        tack.barrier()\n"));
    // Barriers the tile lowering took out of uniform branches: marked as
    // they were in them (PoCL builds the kernel unoptimized), where the
    // same body unflagged (the first case) is not.
    auto k = kernel("        t[tack.thread_id()] = a[i]\n        tack.barrier()\n        a[i] = t[0]\n");
    k->barriers_out_of_branches = true;
    EXPECT_TRUE(emit_c(*k, Dialect::OpenCL).barrier_under_branch);
}

TEST(Golden, SlotsOfArraysAndScalars) {
    auto k = testing::codegen_kernel(
        "def k(a, b, s, t):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = tack.f32(s) + tack.f32(t)\n",
        {array_of(DType::F32), array_of(DType::I64, 2), scalar_of(DType::I8), scalar_of(DType::U64)});
    auto src = emit_c(*k, Dialect::OpenCL, EmitOptions{true});
    using K = ArgSlot::Kind;
    std::vector<K> kinds;
    for (auto& s : src.slots) kinds.push_back(s.kind);
    // OpenCL arrays are a buffer and the byte offset of their first element;
    // b is never read: its buffer only.
    EXPECT_EQ(kinds, (std::vector<K>{K::Data, K::ByteOffset, K::Extent, K::Data, K::Scalar, K::Scalar, K::Count,
                                     K::Out, K::Debug}));
    EXPECT_EQ(src.slots[4].bytes, 4);
    EXPECT_EQ(src.slots[4].dtype, DType::I8);
    EXPECT_EQ(src.slots[5].bytes, 8);
    // CUDA takes the first element's address.
    std::vector<K> cuda;
    for (auto& s : emit_c(*k, Dialect::Cuda, EmitOptions{true}).slots) cuda.push_back(s.kind);
    EXPECT_EQ(cuda, (std::vector<K>{K::Data, K::Extent, K::Data, K::Scalar, K::Scalar, K::Count, K::Out, K::Debug}));
    EXPECT_EQ(src.entries.count, "tk_k_count");
    EXPECT_EQ(src.entries.body, "tk_k_body");
    EXPECT_EQ(src.entries.result, "");
    EXPECT_EQ(src.compile_options, (std::vector<std::string>{"-cl-std=CL3.0", "-cl-fp32-correctly-rounded-divide-sqrt"}));
}

TEST(Golden, FloatLiteralsPrintPythonsRepr) {
    auto k = testing::codegen_kernel(
        "def k(a, b):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = a[i] * 0.1 + 1e16 - 1e-5 + 100000.0\n"
        "        b[i] = b[i] * 0.1 + 2.5\n",
        {array_of(DType::F64), array_of(DType::F32)});
    auto src = emit_c(*k, Dialect::Cuda).text;
    for (const char* s : {"0.1)", "1e+16", "1e-05", "100000.0", "0.1f", "2.5f"})
        EXPECT_NE(src.find(s), std::string::npos) << s << " missing in\n" << src;
}

}  // namespace
}  // namespace tack
