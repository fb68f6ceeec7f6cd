// The runtime compilers, found as the backends find them: NVRTC compiles
// the printed CUDA source of every sample kernel to PTX and to a cubin for
// a Hopper device with the CUDA backend's options; hipRTC, where ROCm is
// installed, compiles the HIP source of every sample kernel to a gfx90a
// code object; both report the compiler's log. The real drivers, where they
// cannot start, say what is missing.
#include <gtest/gtest.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/gpu/driver_api.h"
#include "backends/gpu/runtime_compiler.h"
#include "backends/hip/hip_backend.h"
#include "codegen/cfamily/dialect.h"
#include "codegen/cfamily/emit_c.h"
#include "codegen_support.h"

namespace tack {
namespace {

using backends::Backend;
using backends::gpu::kHiprtc;
using backends::gpu::kNvrtc;
using backends::gpu::RuntimeCompiler;
using codegen::cfamily::Dialect;

std::vector<std::string> options_for(Dialect d, const std::string& arch) {
    std::vector<std::string> options = codegen::cfamily::table(d).compile_options;
    options.push_back(arch);
    return options;
}

bool is_elf(const std::string& code) { return code.size() > 4 && code.compare(0, 4, "\x7f" "ELF") == 0; }

TEST(Nvrtc, CompilesEverySampleKernelToPtxAndACubin) {
    std::string why_not;
    const RuntimeCompiler* nvrtc = RuntimeCompiler::process(kNvrtc, &why_not);
    if (!nvrtc) GTEST_SKIP() << why_not;
    EXPECT_NE(nvrtc->version().find('.'), std::string::npos);
    for (auto& sample : testing::sample_kernels()) {
        auto k = testing::codegen_kernel(sample.text, sample.params);
        auto source = codegen::cfamily::emit_c(*k, Dialect::Cuda);
        std::string ptx, cubin, message;
        ASSERT_TRUE(nvrtc->to_ptx(source.text, sample.name + ".cu", options_for(Dialect::Cuda, "-arch=compute_90"),
                                  &ptx, &message))
            << sample.name << ":\n" << message;
        EXPECT_NE(ptx.find(".target sm_90"), std::string::npos) << sample.name;
        for (auto* entry : {&source.entries.count, &source.entries.body})
            EXPECT_NE(ptx.find(".entry " + *entry), std::string::npos) << sample.name << ": " << *entry;
        ASSERT_TRUE(nvrtc->compile(source.text, sample.name + ".cu", options_for(Dialect::Cuda, "-arch=sm_90"),
                                   RuntimeCompiler::Output::Code, &cubin, &message))
            << sample.name << ":\n" << message;
        EXPECT_TRUE(is_elf(cubin)) << sample.name;
    }
}

// The language keeps contraction inside one expression: a product bound to
// a name is rounded once, and every read sees that value (p - p is zero).
// nvcc's --fmad=true fuses across statements, so the CUDA dialect rounds
// such products with __fmul_rn / __dmul_rn; the PTX NVRTC makes shows it.
TEST(Nvrtc, FusesInsideAnExpressionAndNeverAcrossStatements) {
    std::string why_not;
    const RuntimeCompiler* nvrtc = RuntimeCompiler::process(kNvrtc, &why_not);
    if (!nvrtc) GTEST_SKIP() << why_not;
    auto ptx_of = [&](const std::string& text, DType t) {
        auto a = testing::array_of(t, 1);
        auto k = testing::codegen_kernel(text, {a, a, a, a});
        auto source = codegen::cfamily::emit_c(*k, Dialect::Cuda);
        std::string ptx, message;
        EXPECT_TRUE(nvrtc->to_ptx(source.text, "contraction.cu", options_for(Dialect::Cuda, "-arch=compute_90"), &ptx,
                                  &message))
            << message;
        return std::make_pair(source.text, ptx);
    };
    const std::string one_expression =
        "def k(x, y, z, out):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = x[i] * y[i] + z[i]\n";
    const std::string two_statements =
        "def k(x, y, z, out):\n"
        "    for i in range(len(out)):\n"
        "        p = x[i] * y[i]\n"
        "        q = -(p * z[i])\n"
        "        out[i] = (p + z[i]) + (p - p) + (q + y[i])\n";
    for (DType t : {DType::F32, DType::F64}) {
        const std::string fma = t == DType::F32 ? "fma.rn.f32" : "fma.rn.f64";
        auto [fused_source, fused] = ptx_of(one_expression, t);
        EXPECT_NE(fused.find(fma), std::string::npos) << fused_source << fused;
        auto [apart_source, apart] = ptx_of(two_statements, t);
        EXPECT_NE(apart_source.find(t == DType::F32 ? "__fmul_rn(" : "__dmul_rn("), std::string::npos) << apart_source;
        EXPECT_EQ(apart.find(fma), std::string::npos) << apart_source << apart;
    }
}

TEST(Nvrtc, ReportsTheCompilersLog) {
    std::string why_not;
    const RuntimeCompiler* nvrtc = RuntimeCompiler::process(kNvrtc, &why_not);
    if (!nvrtc) GTEST_SKIP() << why_not;
    std::string ptx, message;
    EXPECT_FALSE(nvrtc->to_ptx("extern \"C\" __global__ void k() { undeclared_name(); }", "broken.cu",
                               {"--gpu-architecture=compute_90"}, &ptx, &message));
    EXPECT_NE(message.find("broken.cu"), std::string::npos) << message;
    EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
}

TEST(Nvrtc, NamesALibraryThatCannotBeOpened) {
    std::string why_not;
    EXPECT_EQ(RuntimeCompiler::open(kNvrtc, "/nonexistent/libnvrtc.so", &why_not), nullptr);
    EXPECT_NE(why_not.find("cannot load /nonexistent/libnvrtc.so"), std::string::npos) << why_not;
}

// ROCm 5.2's hipRTC (Debian's libamdhip64) compiles without an AMD GPU
// when the architecture is given.
TEST(Hiprtc, CompilesEverySampleKernelToAGfx90aCodeObject) {
    std::string why_not;
    const RuntimeCompiler* hiprtc = RuntimeCompiler::process(kHiprtc, &why_not);
    if (!hiprtc) GTEST_SKIP() << why_not;
    for (auto& sample : testing::sample_kernels()) {
        if (sample.images) continue;  // HIP samples textures in code
        auto k = testing::codegen_kernel(sample.text, sample.params);
        auto source = codegen::cfamily::emit_c(*k, Dialect::Hip);
        std::string code, message;
        ASSERT_TRUE(hiprtc->compile(source.text, sample.name + ".hip",
                                    options_for(Dialect::Hip, "--offload-arch=gfx90a"), RuntimeCompiler::Output::Code,
                                    &code, &message))
            << sample.name << ":\n" << message;
        EXPECT_TRUE(is_elf(code)) << sample.name;
        EXPECT_NE(code.find(source.entries.body), std::string::npos) << sample.name;
    }
}

TEST(CudaBackend, SaysWhatIsMissingInsteadOfStarting) {
    std::string why_not;
    if (Backend* backend = backends::cuda_backend(&why_not)) {
        // It starts here: it is the CUDA backend, on a device it describes.
        EXPECT_STREQ(backend->name(), "cuda");
        EXPECT_NE(backend->target_description().find("device: "), std::string::npos);
        return;
    }
    bool named = false;
    for (const char* what : {"no NVIDIA driver", "no CUDA device", "NVRTC not found", "cuInit failed"})
        named = named || why_not.find(what) != std::string::npos;
    EXPECT_TRUE(named) << why_not;
}

TEST(HipBackend, SaysWhatIsMissingInsteadOfStarting) {
    std::string why_not;
    if (Backend* backend = backends::hip_backend(&why_not)) {
        // It starts here: it is the HIP backend, on a device it describes.
        EXPECT_STREQ(backend->name(), "hip");
        EXPECT_NE(backend->target_description().find("device: "), std::string::npos);
        return;
    }
    bool named = false;
    for (const char* what : {"no HIP runtime", "no HIP device", "hipRTC not found", "hipInit failed"})
        named = named || why_not.find(what) != std::string::npos;
    EXPECT_TRUE(named) << why_not;
}

}  // namespace
}  // namespace tack
