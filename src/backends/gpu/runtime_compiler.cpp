#include "backends/gpu/runtime_compiler.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>

#include "support/shared_library.h"

namespace tack::backends::gpu {

const CompilerSymbols kNvrtc{
    "NVRTC",
    "nvrtcCreateProgram",
    "nvrtcDestroyProgram",
    "nvrtcCompileProgram",
    "nvrtcGetProgramLogSize",
    "nvrtcGetProgramLog",
    "nvrtcGetCUBINSize",
    "nvrtcGetCUBIN",
    "nvrtcGetPTXSize",
    "nvrtcGetPTX",
    "nvrtcGetErrorString",
    "nvrtcVersion",
    "TACK_NVRTC",
    {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"},
    "TACK_CUDA_HOME",
    {"/usr/local/cuda"},
    "libnvrtc.so",
};

// ROCm 5 keeps hipRTC in libamdhip64; ROCm 6 has a library of its own.
const CompilerSymbols kHiprtc{
    "hipRTC",
    "hiprtcCreateProgram",
    "hiprtcDestroyProgram",
    "hiprtcCompileProgram",
    "hiprtcGetProgramLogSize",
    "hiprtcGetProgramLog",
    "hiprtcGetCodeSize",
    "hiprtcGetCode",
    "hiprtcGetCodeSize",
    "hiprtcGetCode",
    "hiprtcGetErrorString",
    "hiprtcVersion",
    "TACK_HIPRTC",
    {"libhiprtc.so.6", "libhiprtc.so.5", "libhiprtc.so", "libamdhip64.so.5"},
    "TACK_ROCM_HOME",
    {"/opt/rocm"},
    "libhiprtc.so",
};

std::unique_ptr<RuntimeCompiler> RuntimeCompiler::open(const CompilerSymbols& symbols, const std::string& path,
                                                       std::string* why_not) {
    std::vector<std::string> tried;
    void* library = support::open_first({path}, &tried);
    if (!library) {
        *why_not = "cannot load " + path;
        return nullptr;
    }
    auto c = std::make_unique<RuntimeCompiler>();
    c->name_ = symbols.name;
    bool all = true;
    auto get = [&](auto& fn, const char* symbol) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(support::find_symbol(library, symbol));
        if (!fn && all) {
            *why_not = path + " has no " + symbol;
            all = false;
        }
    };
    get(c->create_, symbols.create);
    get(c->destroy_, symbols.destroy);
    get(c->compile_, symbols.compile);
    get(c->log_size_, symbols.log_size);
    get(c->log_, symbols.log);
    get(c->code_size_, symbols.code_size);
    get(c->code_, symbols.code);
    get(c->text_size_, symbols.text_size);
    get(c->text_, symbols.text);
    get(c->error_string_, symbols.error_string);
    get(c->version_, symbols.version);
    if (!all) return nullptr;
    return c;
}

const RuntimeCompiler* RuntimeCompiler::process(const CompilerSymbols& symbols, std::string* why_not) {
    struct Found {
        std::unique_ptr<RuntimeCompiler> compiler;
        std::string why_not;
    };
    static std::mutex mutex;
    static std::map<const CompilerSymbols*, Found> found;
    std::lock_guard<std::mutex> hold(mutex);
    auto at = found.find(&symbols);
    if (at == found.end()) {
        Found f;
        std::vector<std::string> candidates = symbols.libraries;
        const char* home = std::getenv(symbols.home_variable);
        if (home && *home) candidates.push_back(std::string(home) + "/lib64/" + symbols.home_library);
        for (auto& h : symbols.homes) candidates.push_back(h + "/lib64/" + symbols.home_library);
        const char* chosen = std::getenv(symbols.library_variable);
        if (chosen && *chosen) candidates = {chosen};
        std::string why;
        for (auto& c : candidates)
            if ((f.compiler = open(symbols, c, &why))) break;
        if (!f.compiler) {
            f.why_not = std::string(symbols.name) + " not found (tried";
            for (auto& c : candidates) f.why_not += " " + c;
            f.why_not += std::string("): install the ") + (&symbols == &kNvrtc ? "CUDA toolkit" : "ROCm HIP runtime") +
                         ", or set " + symbols.home_variable + " to the folder that holds its lib64";
        }
        at = found.emplace(&symbols, std::move(f)).first;
    }
    if (!at->second.compiler && why_not) *why_not = at->second.why_not;
    return at->second.compiler.get();
}

bool RuntimeCompiler::compile(const std::string& source, const std::string& name,
                              const std::vector<std::string>& options, Output output, std::string* result,
                              std::string* message) const {
    Handle p = nullptr;
    if (int rc = create_(&p, source.c_str(), name.c_str(), 0, nullptr, nullptr)) {
        *message = std::string(name_) + " could not create a program: " + error_string_(rc);
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
        auto size = output == Output::Code ? code_size_ : text_size_;
        auto get = output == Output::Code ? code_ : text_;
        n = 0;
        rc = size(p, &n);
        if (rc == 0) {
            result->assign(n, '\0');
            rc = get(p, result->data());
        }
        if (output == Output::Text)
            while (!result->empty() && result->back() == '\0') result->pop_back();
        if (rc != 0) *message = std::string(name_) + " compiled but gave no output: " + error_string_(rc);
    } else {
        *message = log_text.empty() ? std::string(name_) + " failed: " + error_string_(rc) : log_text;
    }
    destroy_(&p);
    return rc == 0;
}

std::string RuntimeCompiler::version() const {
    int major = 0, minor = 0;
    version_(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace tack::backends::gpu
