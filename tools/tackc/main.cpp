// tackc: checks a kernel in a Python file and prints what the compiler makes
// of it.
//
//   tackc FILE [--kernel NAME] [--sig TYPES] [--ir] [--llvm] [--llvm-unoptimized]
//
// TYPES gives each parameter's type, comma separated: a scalar dtype (f32,
// i64, ...) or an array as dtype[ndim] (f32[1], f64[2]), whose dtype may be
// a vector or matrix element type (vec3f[1], mat22d[2]; f = f32, d = f64,
// i = i32) with an optional ":soa" layout (vec3f[1]:soa). Without --sig, a
// parameter annotated with a scalar type (float, int, tack.f32 ...) is that
// scalar and every other parameter is an f32[1] array.
#include <fstream>
#include <iostream>
#include <sstream>

#include "runtime/pipeline.h"
#include "static_resolver.h"
#include "syntax/ast.h"

using namespace tack;

namespace {

int usage() {
    std::cerr << "usage: tackc FILE [--kernel NAME] [--sig TYPES] [--ir] [--llvm] [--llvm-unoptimized]\n";
    return 2;
}

// vec3f, mat33d, ...: the element shape and the component dtype's name.
bool parse_element(std::string& base, std::vector<int>* shape) {
    bool vec = base.rfind("vec", 0) == 0 && base.size() == 5;
    bool mat = base.rfind("mat", 0) == 0 && base.size() == 6;
    if (!vec && !mat) return true;
    for (size_t i = 3; i + 1 < base.size(); ++i) {
        if (base[i] < '1' || base[i] > '4') return false;
        shape->push_back(base[i] - '0');
    }
    char suffix = base.back();
    base = suffix == 'f' ? "f32" : suffix == 'd' ? "f64" : suffix == 'i' ? "i32" : "";
    return !base.empty();
}

bool parse_type(const std::string& s, runtime::ParamFacts* out) {
    auto open = s.find('[');
    std::string base = s.substr(0, open);
    std::vector<int> element_shape;
    if (!parse_element(base, &element_shape)) return false;
    out->element_shape = element_shape;
    out->soa = s.size() > 4 && s.compare(s.size() - 4, 4, ":soa") == 0;
    auto t = dtype_from_name(base);
    if (!t) {
        if (base == "float") t = DType::F32;
        else if (base == "int") t = DType::I32;
        else return false;
    }
    out->dtype = *t;
    out->is_array = open != std::string::npos;
    out->ndim = out->is_array ? std::stoi(s.substr(open + 1)) : 0;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::string file, kernel_name, sig;
    bool want_ir = false, want_llvm = false, want_llvm_raw = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--kernel" && i + 1 < argc) kernel_name = argv[++i];
        else if (a == "--sig" && i + 1 < argc) sig = argv[++i];
        else if (a == "--ir") want_ir = true;
        else if (a == "--llvm") want_llvm = true;
        else if (a == "--llvm-unoptimized") want_llvm_raw = true;
        else if (a.rfind("--", 0) == 0) return usage();
        else file = a;
    }
    if (file.empty()) return usage();
    std::ifstream in(file);
    if (!in) {
        std::cerr << "tackc: cannot read " << file << "\n";
        return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto functions = std::make_shared<tools::FileFunctions>(tools::scan_file(text.str(), file));
    if (functions->kernels.empty()) {
        std::cerr << "tackc: no @tack.kernel in " << file << "\n";
        return 2;
    }
    if (kernel_name.empty()) kernel_name = functions->kernel_order.front();
    auto found = functions->kernels.find(kernel_name);
    if (found == functions->kernels.end()) {
        std::cerr << "tackc: no kernel named " << kernel_name << " in " << file << "\n";
        return 2;
    }
    try {
        auto tree = syntax::parse_function(found->second);
        std::vector<runtime::ParamFacts> facts;
        std::vector<std::string> sig_parts;
        std::stringstream ss(sig);
        for (std::string p; std::getline(ss, p, ',');) sig_parts.push_back(p);
        for (size_t i = 0; i < tree->params.size(); ++i) {
            runtime::ParamFacts f{true, DType::F32, 1, true};
            if (i < sig_parts.size()) {
                if (!parse_type(sig_parts[i], &f)) {
                    std::cerr << "tackc: cannot read the type '" << sig_parts[i] << "'\n";
                    return 2;
                }
            } else if (auto& ann = tree->params[i].annotation) {
                std::string shown = syntax::to_source(*ann);
                std::string last = shown.substr(shown.rfind('.') == std::string::npos ? 0 : shown.rfind('.') + 1);
                runtime::ParamFacts g{};
                if (parse_type(last, &g)) f = g;
            }
            facts.push_back(f);
        }
        std::vector<frontend::ParamShape> shapes;
        DType precision = DType::F32;
        for (auto& f : facts) {
            shapes.push_back(frontend::ParamShape{f.is_array, f.ndim, f.element_shape, f.soa});
            if (f.is_array && f.dtype == DType::F64) precision = DType::F64;
        }
        runtime::PassObserver observe;
        if (want_ir)
            observe = [](const char* pass, const ir::Kernel& k) {
                std::cout << "# after " << pass << "\n" << ir::print(k) << "\n";
            };
        auto resolver = std::make_shared<tools::StaticResolver>(functions);
        auto tmpl = runtime::build_template(*tree, resolver, shapes, observe);
        auto typed = runtime::specialize(*tmpl, facts, precision, observe);
#ifdef TACK_WITH_LLVM
        if (want_llvm || want_llvm_raw) std::cout << runtime::llvm_ir(*typed, !want_llvm_raw);
#else
        if (want_llvm || want_llvm_raw) std::cerr << "tackc: built without LLVM\n";
#endif
        if (!want_ir && !want_llvm && !want_llvm_raw) std::cout << file << ": kernel '" << kernel_name << "' is valid\n";
    } catch (const syntax::CompileError& e) {
        std::cerr << e.diagnostic().render() << "\n";
        return 1;
    }
    return 0;
}
