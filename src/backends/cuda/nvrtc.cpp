#include "backends/cuda/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <type_traits>

namespace tack::backends::cuda {

std::unique_ptr<Nvrtc> Nvrtc::open(const std::string& path, std::string* why_not) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* error = dlerror();
        *why_not = "cannot load " + path + (error ? std::string(": ") + error : std::string());
        return nullptr;
    }
    auto n = std::make_unique<Nvrtc>();
    bool all = true;
    auto get = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        if (!fn && all) {
            *why_not = path + " has no " + name;
            all = false;
        }
    };
    get(n->create_, "nvrtcCreateProgram");
    get(n->destroy_, "nvrtcDestroyProgram");
    get(n->compile_, "nvrtcCompileProgram");
    get(n->log_size_, "nvrtcGetProgramLogSize");
    get(n->log_, "nvrtcGetProgramLog");
    get(n->ptx_size_, "nvrtcGetPTXSize");
    get(n->ptx_, "nvrtcGetPTX");
    get(n->error_string_, "nvrtcGetErrorString");
    get(n->version_, "nvrtcVersion");
    if (!all) {
        dlclose(handle);
        return nullptr;
    }
    return n;
}

const Nvrtc* Nvrtc::process(std::string* why_not) {
    static std::once_flag once;
    static std::unique_ptr<Nvrtc> loaded;
    static std::string reason;
    std::call_once(once, [] {
        std::vector<std::string> tried;
        std::string why;
        for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
            if ((loaded = open(name, &why))) return;
            tried.push_back(name);
        }
        const char* home = std::getenv("TACK_CUDA_HOME");
        for (std::string root : {std::string(home && *home ? home : ""), std::string("/usr/local/cuda")}) {
            if (root.empty()) continue;
            std::string path = root + "/lib64/libnvrtc.so";
            if ((loaded = open(path, &why))) return;
            tried.push_back(path);
        }
        reason = "NVRTC not found (tried";
        for (auto& t : tried) reason += " " + t;
        reason += "): install the CUDA toolkit, or set TACK_CUDA_HOME to the folder that holds its lib64";
    });
    if (!loaded && why_not) *why_not = reason;
    return loaded.get();
}

bool Nvrtc::to_ptx(const std::string& text, const std::string& name, const std::vector<std::string>& options,
                   std::string* ptx, std::string* message) const {
    Program p = nullptr;
    if (int rc = create_(&p, text.c_str(), name.c_str(), 0, nullptr, nullptr)) {
        *message = std::string("nvrtcCreateProgram: ") + error_string_(rc);
        return false;
    }
    std::vector<const char*> argv;
    for (auto& o : options) argv.push_back(o.c_str());
    int rc = compile_(p, static_cast<int>(argv.size()), argv.data());
    size_t n = 0;
    log_size_(p, &n);
    std::string log_text(n, '\0');
    if (n) log_(p, log_text.data());
    while (!log_text.empty() && (log_text.back() == '\0' || log_text.back() == '\n')) log_text.pop_back();
    if (rc == 0) {
        ptx_size_(p, &n);
        ptx->assign(n, '\0');
        ptx_(p, ptx->data());
        while (!ptx->empty() && ptx->back() == '\0') ptx->pop_back();
    } else {
        *message = log_text.empty() ? std::string("nvrtcCompileProgram: ") + error_string_(rc) : log_text;
    }
    destroy_(&p);
    return rc == 0;
}

std::string Nvrtc::version() const {
    int major = 0, minor = 0;
    version_(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace tack::backends::cuda
