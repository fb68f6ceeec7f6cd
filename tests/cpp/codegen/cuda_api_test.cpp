// The CUDA backend's way in: NVRTC, found as the backend finds it, compiles
// the printed CUDA source of every sample kernel to PTX for a Hopper
// device with the dialect's options; the driver API, where it cannot start,
// says what is missing; and the backend never starts without it.
#include <gtest/gtest.h>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/nvrtc.h"
#include "codegen/cfamily/dialect.h"
#include "codegen_support.h"

namespace tack {
namespace {

using backends::cuda::Nvrtc;
using codegen::cfamily::Dialect;

TEST(Nvrtc, CompilesEverySampleKernelToPtx) {
    std::string why_not;
    const Nvrtc* nvrtc = Nvrtc::process(&why_not);
    if (!nvrtc) GTEST_SKIP() << why_not;
    EXPECT_NE(nvrtc->version().find('.'), std::string::npos);
    std::vector<std::string> options = {"--gpu-architecture=compute_90"};
    for (auto& o : codegen::cfamily::table(Dialect::Cuda).compile_options) options.push_back(o);
    for (auto& sample : testing::sample_kernels()) {
        auto k = testing::codegen_kernel(sample.text, sample.params);
        auto source = codegen::cfamily::emit_c(*k, Dialect::Cuda);
        std::string ptx, message;
        ASSERT_TRUE(nvrtc->to_ptx(source.text, sample.name + ".cu", options, &ptx, &message))
            << sample.name << ":\n" << message;
        EXPECT_NE(ptx.find(".target sm_90"), std::string::npos) << sample.name;
        EXPECT_NE(ptx.find(".entry"), std::string::npos) << sample.name;
    }
}

TEST(Nvrtc, ReportsTheCompilersLog) {
    std::string why_not;
    const Nvrtc* nvrtc = Nvrtc::process(&why_not);
    if (!nvrtc) GTEST_SKIP() << why_not;
    std::string ptx, message;
    EXPECT_FALSE(nvrtc->to_ptx("extern \"C\" __global__ void k() { undeclared_name(); }", "broken.cu",
                               {"--gpu-architecture=compute_90"}, &ptx, &message));
    EXPECT_NE(message.find("broken.cu"), std::string::npos) << message;
    EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
}

TEST(Nvrtc, NamesALibraryThatCannotBeOpened) {
    std::string why_not;
    EXPECT_EQ(Nvrtc::open("/nonexistent/libnvrtc.so", &why_not), nullptr);
    EXPECT_NE(why_not.find("cannot load /nonexistent/libnvrtc.so"), std::string::npos) << why_not;
}

TEST(CudaBackend, SaysWhatIsMissingInsteadOfStarting) {
    std::string why_not;
    EXPECT_EQ(backends::cuda_backend(&why_not), nullptr);
    // No driver, the toolkit's stub, no device, no NVRTC, or, with all of
    // them, the launch path that is not built yet.
    bool named = false;
    for (const char* what : {"no NVIDIA driver", "no CUDA device", "NVRTC not found", "cuInit failed",
                             "does not launch kernels on CUDA devices yet"})
        named = named || why_not.find(what) != std::string::npos;
    EXPECT_TRUE(named) << why_not;
    if (backends::cuda::cuda_api()) {
        EXPECT_NE(why_not.find("compute capability"), std::string::npos) << why_not;
    }
}

}  // namespace
}  // namespace tack
