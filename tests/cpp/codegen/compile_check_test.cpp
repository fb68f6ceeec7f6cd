// Compiles the printed source of every sample kernel (every IR node, every
// dtype), in normal and debug variants, with each dialect's own compiler,
// as tack_gpu_compile_check --full --strict does: CUDA to PTX by NVRTC and
// assembled by ptxas, HIP to a gfx90a code object, OpenCL C by clang-19,
// MSL by clang++-19 against tests/shims/metal_shim.h, every warning an
// error where the compiler has -Werror. The tool is the one place the
// compiler commands are spelled. A dialect whose compiler is missing skips,
// naming it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen_support.h"

namespace tack {
namespace {

namespace fs = std::filesystem;
using codegen::cfamily::Dialect;

const char* extension(Dialect d) {
    switch (d) {
        case Dialect::OpenCL: return ".cl";
        case Dialect::Cuda: return ".cu";
        case Dialect::Hip: return ".hip";
        case Dialect::Metal: return ".metal";
    }
    return "";
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void compile_all(Dialect d) {
    const auto& t = codegen::cfamily::table(d);
    const std::string name = to_string(d);
    fs::path root = fs::temp_directory_path() / ("tack_cfamily_" + name + "_" + std::to_string(::getpid()));
    fs::path dir = root / name;
    fs::create_directories(dir);
    size_t written = 0;
    for (auto& s : testing::sample_kernels()) {
        if (s.f64 && !t.has_f64) continue;
        if (s.atomics64 && !t.atomics64) continue;
        if (s.images && !t.texture_sample) continue;
        auto k = testing::codegen_kernel(s.text, s.params);
        for (bool debug : {false, true}) {
            codegen::cfamily::EmitOptions options;
            options.debug = debug;
            std::ofstream(dir / (s.name + (debug ? "_debug" : "") + extension(d))) << codegen::cfamily::emit_c(*k, d, options).text;
            ++written;
        }
    }
    fs::path log = root / "log";
    std::string command = std::string(TACK_GPU_COMPILE_CHECK) + " --full --strict --dialect " + name + " --shims " +
                          TACK_SHIM_DIR + " " + root.string() + " > " + log.string() + " 2>&1";
    int rc = std::system(command.c_str());
    std::string output = read_text(log);
    fs::remove_all(root);
    if (output.find("sources skipped: ") != std::string::npos)
        GTEST_SKIP() << name << " compile check skipped: " << output.substr(output.find("sources skipped: ") + 17);
    EXPECT_EQ(rc, 0) << output;
    EXPECT_NE(output.find(name + ": " + std::to_string(written) + " sources compiled"), std::string::npos) << output;
}

TEST(CompileCheck, OpenCL) { compile_all(Dialect::OpenCL); }

// An OpenCL bundle is one translation unit of many sources that declare the
// same names: they compile together, and of a bundle with one broken source
// only that source is reported.
TEST(CompileCheck, OpenCLBundleReportsOnlyTheBrokenSource) {
    fs::path root = fs::temp_directory_path() / ("tack_cfamily_bundle_" + std::to_string(::getpid()));
    fs::path dir = root / "opencl";
    fs::create_directories(dir);
    auto k = testing::codegen_kernel(testing::sample_kernels().front().text, testing::sample_kernels().front().params);
    std::string text = codegen::cfamily::emit_c(*k, Dialect::OpenCL, {}).text;
    for (int i = 0; i < 4; ++i) std::ofstream(dir / ("same_" + std::to_string(i) + ".cl")) << text;
    std::string broken = text + "\nstatic inline int tk_broken(void) { return tk_no_such_name; }\n";
    std::ofstream(dir / "broken.cl") << broken;
    fs::path log = root / "log";
    std::string command = std::string(TACK_GPU_COMPILE_CHECK) + " --jobs 1 --dialect opencl " + root.string() + " > " +
                          log.string() + " 2>&1";
    int rc = std::system(command.c_str());
    std::string output = read_text(log);
    fs::remove_all(root);
    if (output.find("sources skipped: ") != std::string::npos)
        GTEST_SKIP() << "OpenCL compile check skipped: " << output.substr(output.find("sources skipped: ") + 17);
    EXPECT_NE(rc, 0) << output;
    EXPECT_NE(output.find("FAIL " + (dir / "broken.cl").string() + " does not compile as opencl"), std::string::npos)
        << output;
    EXPECT_NE(output.find("tk_no_such_name"), std::string::npos) << output;
    EXPECT_EQ(output.find("same_"), std::string::npos) << output;
    EXPECT_NE(output.find("5 sources compiled by clang-19 -x cl, 1 failed"), std::string::npos) << output;
}
TEST(CompileCheck, Cuda) { compile_all(Dialect::Cuda); }
TEST(CompileCheck, Hip) { compile_all(Dialect::Hip); }
TEST(CompileCheck, Metal) { compile_all(Dialect::Metal); }

}  // namespace
}  // namespace tack
