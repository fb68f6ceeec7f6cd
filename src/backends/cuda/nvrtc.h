// NVRTC, NVIDIA's runtime compiler for CUDA C++, loaded at run time.
//
// Tack builds and imports where no CUDA toolkit exists, so nothing links
// against libnvrtc: Nvrtc opens it with dlopen and resolves the functions
// it calls. The CUDA backend compiles each variant's source with it (to PTX
// for the device's compute capability), and the GPU source compile check
// (tools/gpu_compile_check) compiles every dumped source with it.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace tack::backends::cuda {

class Nvrtc {
public:
    // The library at `path`; null, with the reason in `why_not`, when it
    // cannot be opened or lacks a function.
    static std::unique_ptr<Nvrtc> open(const std::string& path, std::string* why_not);
    // The process's NVRTC, opened once and never closed: the first of
    // libnvrtc.so.13, libnvrtc.so.12 and libnvrtc.so that the dynamic
    // loader finds, else lib64/libnvrtc.so under $TACK_CUDA_HOME or
    // /usr/local/cuda; null, with the reason, when none opens.
    static const Nvrtc* process(std::string* why_not);

    // Compiles `text` (named `name` in messages) to PTX with `options`;
    // false with the compiler's log (or NVRTC's error) in `message`.
    bool to_ptx(const std::string& text, const std::string& name, const std::vector<std::string>& options,
                std::string* ptx, std::string* message) const;
    // "13.0": NVRTC's version, a part of compiled code's identity.
    std::string version() const;

private:
    using Program = void*;
    int (*create_)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
    int (*destroy_)(Program*) = nullptr;
    int (*compile_)(Program, int, const char* const*) = nullptr;
    int (*log_size_)(Program, size_t*) = nullptr;
    int (*log_)(Program, char*) = nullptr;
    int (*ptx_size_)(Program, size_t*) = nullptr;
    int (*ptx_)(Program, char*) = nullptr;
    const char* (*error_string_)(int) = nullptr;
    int (*version_)(int*, int*) = nullptr;
};

}  // namespace tack::backends::cuda
