// The vendors' runtime compilers, NVRTC (CUDA C++ to PTX or a cubin) and
// hipRTC (HIP to an AMD code object), loaded at run time.
//
// Tack builds and imports where no GPU toolkit exists, so nothing links
// against them: RuntimeCompiler opens the library with dlopen and resolves
// the functions it calls. The two share one shape (hiprtcCreateProgram
// takes what nvrtcCreateProgram takes), so one class serves both through a
// table of symbol names. The CUDA and HIP backends compile each variant's
// source with it, and the GPU source compile check (tools/gpu_compile_check)
// compiles every dumped source with it.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace tack::backends::gpu {

struct CompilerSymbols {
    const char* name;  // "NVRTC", "hipRTC"
    const char *create, *destroy, *compile, *log_size, *log, *code_size, *code, *text_size, *text, *error_string,
        *version;
    const char* library_variable;        // TACK_NVRTC: a library path tried alone, instead of the rest
    std::vector<std::string> libraries;  // tried in order by process()
    const char* home_variable;           // TACK_CUDA_HOME: a toolkit folder whose lib64 holds the library
    std::vector<std::string> homes;      // toolkit folders tried after it
    const char* home_library;            // the library's name in <home>/lib64
};

// NVRTC's code is a cubin for the architecture given by -arch=sm_XY, its
// text PTX; hipRTC's code and text are both the code object.
extern const CompilerSymbols kNvrtc;
extern const CompilerSymbols kHiprtc;

class RuntimeCompiler {
public:
    // The library at `path`; null, with the reason in `why_not`, when it
    // cannot be opened or lacks a function.
    static std::unique_ptr<RuntimeCompiler> open(const CompilerSymbols& symbols, const std::string& path,
                                                 std::string* why_not);
    // The process's compiler of that kind, opened once and never closed: the
    // library $<library_variable> names, else the first of its libraries that the dynamic loader finds, else lib64/<name>
    // under $<home_variable> and the usual homes; null, with the reason, when
    // none opens.
    static const RuntimeCompiler* process(const CompilerSymbols& symbols, std::string* why_not);

    enum class Output { Code, Text };
    // Compiles `source` (named `name` in messages) with `options`; false
    // with the compiler's log (or its error) in `message`.
    bool compile(const std::string& source, const std::string& name, const std::vector<std::string>& options,
                 Output output, std::string* result, std::string* message) const;
    bool to_ptx(const std::string& source, const std::string& name, const std::vector<std::string>& options,
                std::string* ptx, std::string* message) const {
        return compile(source, name, options, Output::Text, ptx, message);
    }
    // "13.0": the compiler's version, a part of compiled code's identity.
    std::string version() const;
    const char* name() const { return name_; }

private:
    using Handle = void*;
    const char* name_ = "";
    int (*create_)(Handle*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
    int (*destroy_)(Handle*) = nullptr;
    int (*compile_)(Handle, int, const char* const*) = nullptr;
    int (*log_size_)(Handle, size_t*) = nullptr;
    int (*log_)(Handle, char*) = nullptr;
    int (*code_size_)(Handle, size_t*) = nullptr;
    int (*code_)(Handle, char*) = nullptr;
    int (*text_size_)(Handle, size_t*) = nullptr;
    int (*text_)(Handle, char*) = nullptr;
    const char* (*error_string_)(int) = nullptr;
    int (*version_)(int*, int*) = nullptr;
};

}  // namespace tack::backends::gpu
