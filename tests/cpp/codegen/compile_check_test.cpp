// Compiles the printed source of every sample kernel (every IR node, every
// dtype) with each dialect's compiler, in normal and debug variants:
//   OpenCL C  clang-19 -x cl -cl-std=CL3.0 -fsyntax-only
//   CUDA      nvcc -arch=sm_90 --ptx (or $TACK_NVCC)
//   HIP       hipcc -std=c++17 --offload-arch=gfx90a -c
//   MSL       clang++-19 -std=c++17 -fsyntax-only against tests/shims/metal_shim.h
// A test whose compiler is missing skips, naming it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen_support.h"

namespace tack {
namespace {

namespace fs = std::filesystem;
using codegen::cfamily::Dialect;

bool executable(const std::string& path) {
    std::error_code ec;
    return fs::exists(path, ec) && (fs::status(path, ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
}

std::string nvcc() {
    if (const char* e = std::getenv("TACK_NVCC")) return e;
    return "/usr/local/cuda/bin/nvcc";
}

// The compiler command for a source file, or empty with `missing` set.
std::string command(Dialect d, const std::string& file, std::string& missing) {
    switch (d) {
        case Dialect::OpenCL:
            if (!executable("/usr/bin/clang-19")) missing = "/usr/bin/clang-19";
            return "/usr/bin/clang-19 -x cl -cl-std=CL3.0 -Werror -fsyntax-only " + file;
        case Dialect::Cuda:
            if (!executable(nvcc())) missing = nvcc();
            return nvcc() + " -arch=sm_90 --ptx -x cu -diag-suppress 177,550 -o /dev/null " + file;
        case Dialect::Hip:
            if (!executable("/usr/bin/hipcc")) missing = "/usr/bin/hipcc";
            return "/usr/bin/hipcc -std=c++17 --offload-arch=gfx90a -c -x hip -o /dev/null " + file;
        case Dialect::Metal:
            if (!executable("/usr/bin/clang++-19")) missing = "/usr/bin/clang++-19";
            return "/usr/bin/clang++-19 -std=c++17 -fsyntax-only -Wall -Wno-unknown-attributes -Wno-unused-variable -Wno-unused-but-set-variable "
                   "-Werror -x c++ -I " TACK_SHIM_DIR " " + file;
    }
    return "";
}

const char* extension(Dialect d) {
    switch (d) {
        case Dialect::OpenCL: return ".cl";
        case Dialect::Cuda: return ".cu";
        case Dialect::Hip: return ".hip";
        case Dialect::Metal: return ".metal";
    }
    return "";
}

void compile_all(Dialect d) {
    std::string missing;
    std::string probe = command(d, "", missing);
    if (!missing.empty()) GTEST_SKIP() << to_string(d) << " compile check skipped: " << missing << " is not installed";
    const auto& t = codegen::cfamily::table(d);
    fs::path dir = fs::temp_directory_path() / ("tack_cfamily_" + std::string(to_string(d)) + "_" +
                                               std::to_string(::getpid()));
    fs::create_directories(dir);
    // One translation unit per variant keeps each failure's message short.
    for (auto& s : testing::sample_kernels()) {
        if (s.f64 && !t.has_f64) continue;
        if (s.atomics64 && !t.atomics64) continue;
        auto k = testing::codegen_kernel(s.text, s.params);
        for (bool debug : {false, true}) {
            codegen::cfamily::EmitOptions options;
            options.debug = debug;
            auto src = codegen::cfamily::emit_c(*k, d, options);
            fs::path file = dir / (s.name + (debug ? "_debug" : "") + extension(d));
            std::ofstream(file) << src.text;
            fs::path log = dir / (s.name + (debug ? "_debug" : "") + ".log");
            std::string m;
            int rc = std::system((command(d, file.string(), m) + " > " + log.string() + " 2>&1").c_str());
            std::ifstream in(log);
            std::stringstream msg;
            msg << in.rdbuf();
            EXPECT_EQ(rc, 0) << s.name << (debug ? " (debug)" : "") << " does not compile as " << to_string(d) << ":\n"
                             << msg.str() << "\n--- source ---\n" << src.text;
        }
    }
    fs::remove_all(dir);
}

TEST(CompileCheck, OpenCL) { compile_all(Dialect::OpenCL); }
TEST(CompileCheck, Cuda) { compile_all(Dialect::Cuda); }
TEST(CompileCheck, Hip) { compile_all(Dialect::Hip); }
TEST(CompileCheck, Metal) { compile_all(Dialect::Metal); }

}  // namespace
}  // namespace tack
