// tackc: checks a kernel in a Python file and prints what the compiler makes
// of it.
//
//   tackc FILE [--kernel NAME] [--sig TYPES] [--ir] [--llvm] [--llvm-unoptimized]
//         [--emit=cuda|hip|opencl|metal]
//
// --emit prints the kernel's source in that GPU language for the
// signature, as kernel.inspect("cuda", ...) does; a kernel the target
// cannot run is a diagnostic (exit 1).
// TYPES gives each parameter's type, comma separated: a scalar dtype (f32,
// i64, ...) or an array as dtype[ndim] (f32[1], f64[2]), whose dtype may be
// a vector or matrix element type (vec3f[1], mat22d[2]; f = f32, d = f64,
// i = i32) with an optional ":soa" layout (vec3f[1]:soa). Without --sig, a
// parameter annotated with a scalar type (float, int, tack.f32 ...) is that
// scalar and every other parameter is an f32[1] array; so is every
// parameter past the last type --sig gives. Spaces around a type are
// allowed; anything else that does not fit this grammar (an unknown dtype,
// a rank outside 1..8, an unbalanced bracket, an empty entry, a trailing
// character, more types than parameters) is a usage error.
//
// Exit status: 0 valid, 1 a diagnostic in the kernel, 2 a usage error (the
// arguments, the file, a malformed --sig), 3 an internal error.
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>

#include "backends/registry.h"
#include "codegen/cfamily/emit_c.h"
#include "codegen/launch_abi.h"
#include "driver/pipeline.h"
#include "static_resolver.h"
#include "syntax/ast.h"

using namespace tack;

namespace {

constexpr const char* kUsage =
    "usage: tackc FILE [--kernel NAME] [--sig TYPES] [--ir] [--llvm] [--llvm-unoptimized] "
    "[--emit=cuda|hip|opencl|metal]\n";

int usage() {
    std::cerr << kUsage << "(tackc --help explains each option)\n";
    return 2;
}

int help() {
    std::cout << kUsage << R"(
Checks the @tack.kernel functions of a Python file with Tack's compiler,
without running Python, and prints what the compiler makes of one.

  FILE               the Python file; its @tack.kernel and @tack.func
                     functions and module-level tack.constant names are read
  --kernel NAME      the kernel to check (default: the file's first kernel)
  --sig TYPES        each parameter's type, comma separated (see below)
  --ir               the kernel IR after every pass
  --llvm             the optimized LLVM IR the CPU backend runs
  --llvm-unoptimized the LLVM IR before optimization
  --emit=LANG        the kernel's source in a GPU language: cuda, hip,
                     opencl or metal (a kernel that target cannot run is a
                     diagnostic)
  -h, --help         this text

TYPES: a scalar dtype (i8 i16 i32 i64 u8 u16 u32 u64 f32 f64), or an array
as DTYPE[NDIM] with NDIM from 1 to 8 (f32[1], f64[2]). An array's DTYPE may
be a vector or matrix element type: vecNf, vecNd, vecNi (N = 1..4) or
matRCf, matRCd, matRCi, with ":soa" for a structure-of-arrays layout
(vec3f[1]:soa). Example: --sig "f32[1], f32[1], f32" for saxpy(y, x, a).

Without --sig (and for parameters after the last type it gives) a
parameter annotated with a scalar type (float, int, tack.f32, ...) is that
scalar and every other parameter an f32[1] array; tackc says which
signature it assumed.

Exit status: 0 valid, 1 a diagnostic in the kernel, 2 a usage error (the
arguments, the file, a malformed --sig), 3 an internal error.
)";
    return 0;
}

// The most array dimensions a kernel parameter may have, as at run time.
constexpr int kMaxRank = codegen::kMaxDims;

// vec3f, mat33d, ...: the element shape and the component dtype's name.
// False for a malformed element type; `base` is left alone for any other name.
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

// Reads one type of a signature, checking all of it: dtype or element type,
// then "[ndim]" with 1 <= ndim <= kMaxRank, then ":soa", nothing else.
// Returns what is wrong, or "" when `s` is well formed.
std::string parse_type(const std::string& s, driver::ParamFacts* out) {
    if (s.empty()) return "a type is missing (an empty entry between commas or at either end)";
    std::string body = s;
    bool soa = false;
    if (auto colon = body.find(':'); colon != std::string::npos) {
        std::string layout = body.substr(colon + 1);
        if (layout != "soa") return "unknown layout ':" + layout + "' (the only layout is ':soa')";
        soa = true;
        body.erase(colon);
    }
    auto open = body.find('[');
    std::string base = body.substr(0, open);
    if (base.find(']') != std::string::npos) return "']' without a '['";
    int ndim = 0;
    if (open != std::string::npos) {
        auto close = body.find(']', open);
        if (close == std::string::npos) return "'[' without a ']'";
        if (body.find('[', open + 1) < close) return "a '[' inside the brackets";
        if (close + 1 != body.size()) return "unexpected '" + body.substr(close + 1) + "' after the ']'";
        std::string rank = body.substr(open + 1, close - open - 1);
        bool digits = !rank.empty() && rank.find_first_not_of("0123456789") == std::string::npos;
        // Read digit by digit, stopping once past the limit: no length overflows.
        for (size_t k = 0; digits && k < rank.size() && ndim <= kMaxRank; ++k) ndim = ndim * 10 + (rank[k] - '0');
        if (!digits || ndim < 1 || ndim > kMaxRank)
            return "the number of dimensions '" + rank + "' is not a whole number from 1 to " +
                   std::to_string(kMaxRank);
    }
    std::vector<int> element_shape;
    std::string element = base;
    if (!parse_element(base, &element_shape))
        return "unknown element type '" + element +
               "' (vecNx or matNMx, N and M from 1 to 4, x one of f, d, i)";
    auto t = dtype_from_name(base);
    if (!t) {
        if (base == "float") t = DType::F32;
        else if (base == "int") t = DType::I32;
        else return "unknown dtype '" + base + "'";
    }
    if (!element_shape.empty() && open == std::string::npos)
        return "the element type '" + element + "' is for arrays: give its dimensions, as in " + element + "[1]";
    if (soa && element_shape.empty())
        return "':soa' is the layout of an array of vector or matrix elements";
    out->dtype = *t;
    out->is_array = open != std::string::npos;
    out->ndim = ndim;
    out->element_shape = element_shape;
    out->soa = soa;
    return "";
}

// One parameter's type in --sig's syntax: f32, f32[1], vec3f[2]:soa.
std::string describe_type(const driver::ParamFacts& f) {
    std::string t(name_of(f.dtype));
    if (!f.element_shape.empty()) {
        std::string suffix = f.dtype == DType::F32 ? "f" : f.dtype == DType::F64 ? "d" : "i";
        t = (f.element_shape.size() == 1 ? "vec" : "mat");
        for (int e : f.element_shape) t += std::to_string(e);
        t += suffix;
    }
    if (!f.is_array) return t;
    return t + "[" + std::to_string(f.ndim) + "]" + (f.soa ? ":soa" : "");
}

// Splits --sig at its commas and reads each type, spaces around it allowed.
// Returns what is wrong with the first malformed type, or "".
std::string parse_signature(const std::string& sig, std::vector<driver::ParamFacts>* out) {
    if (sig.empty()) return "";
    size_t start = 0;
    while (true) {
        size_t comma = sig.find(',', start);
        std::string part = sig.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        auto first = part.find_first_not_of(" \t");
        part = first == std::string::npos ? "" : part.substr(first, part.find_last_not_of(" \t") - first + 1);
        driver::ParamFacts f;
        std::string why = parse_type(part, &f);
        if (!why.empty()) return part.empty() ? why : "cannot read the type '" + part + "': " + why;
        out->push_back(f);
        if (comma == std::string::npos) return "";
        start = comma + 1;
    }
}

int sig_error(const std::string& sig, const std::string& why) {
    std::cerr << "tackc: --sig '" << sig << "': " << why << "\n";
    return 2;
}

int run(int argc, char** argv) {
    std::string file, kernel_name, sig;
    bool want_ir = false, want_llvm = false, want_llvm_raw = false;
    std::optional<codegen::cfamily::Dialect> emit;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") return help();
        if (a == "--kernel" && i + 1 < argc) kernel_name = argv[++i];
        else if (a == "--sig" && i + 1 < argc) sig = argv[++i];
        else if (a == "--ir") want_ir = true;
        else if (a == "--llvm") want_llvm = true;
        else if (a == "--llvm-unoptimized") want_llvm_raw = true;
        else if (a.rfind("--emit=", 0) == 0) {
            emit = codegen::cfamily::dialect_named(a.substr(7));
            if (!emit) return usage();
        }
        else if (a.rfind("--", 0) == 0) return usage();
        else file = a;
    }
    if (file.empty()) return usage();
    // The signature is read whole before the file: a malformed one is a
    // usage error whatever the kernel.
    std::vector<driver::ParamFacts> sig_facts;
    if (std::string why = parse_signature(sig, &sig_facts); !why.empty()) return sig_error(sig, why);
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
        if (sig_facts.size() > tree->params.size())
            return sig_error(sig, "gives " + std::to_string(sig_facts.size()) + " types for the " +
                                      std::to_string(tree->params.size()) + " parameters of kernel '" +
                                      kernel_name + "'");
        std::vector<driver::ParamFacts> facts;
        for (size_t i = 0; i < tree->params.size(); ++i) {
            driver::ParamFacts f{true, DType::F32, 1, true, {}, false, false};
            if (i < sig_facts.size()) {
                f = sig_facts[i];
            } else if (auto& ann = tree->params[i].annotation) {
                // An annotation Tack cannot read as a type leaves the default.
                std::string shown = syntax::to_source(*ann);
                std::string last = shown.substr(shown.rfind('.') == std::string::npos ? 0 : shown.rfind('.') + 1);
                driver::ParamFacts g{};
                if (parse_type(last, &g).empty()) f = g;
            }
            facts.push_back(f);
        }
        if (sig_facts.size() < facts.size()) {
            // Say what was assumed, in --sig's own syntax, so it can be corrected.
            std::string assumed;
            for (size_t i = 0; i < facts.size(); ++i)
                assumed += (i ? ", " : "") + tree->params[i].name + ": " + describe_type(facts[i]);
            std::cerr << "tackc: kernel '" << kernel_name << "' checked as (" << assumed << ")"
                      << (sig.empty() ? "; give --sig to choose the types" : "; --sig gave the first "
                          + std::to_string(sig_facts.size())) << "\n";
        }
        std::vector<frontend::ParamShape> shapes;
        DType precision = DType::F32;
        for (auto& f : facts) {
            shapes.push_back(frontend::ParamShape{f.is_array, f.ndim, f.element_shape, f.soa});
            if (f.is_array && f.dtype == DType::F64) precision = DType::F64;
        }
        driver::PassObserver observe;
        if (want_ir)
            observe = [](const char* pass, const ir::Kernel& k) {
                std::cout << "# after " << pass << "\n" << ir::print(k) << "\n";
            };
        auto resolver = std::make_shared<tools::StaticResolver>(functions);
        auto tmpl = driver::build_template(*tree, resolver, shapes, observe);
        // Without --emit the kernel is checked for the CPU, as a call runs it.
        std::string no_cpu;
        if (backends::Backend* cpu = emit ? nullptr : backends::find_backend("cpu", &no_cpu))
            driver::check_supported(*tmpl, *cpu);
        auto typed = driver::specialize(*tmpl, facts, precision, observe);
        if (want_llvm || want_llvm_raw) {
            std::string why_not;
            backends::Backend* cpu = backends::find_backend("cpu", &why_not);
            if (!cpu) {
                std::cerr << "tackc: " << why_not << "\n";
                return 2;
            }
            std::cout << cpu->inspect(want_llvm_raw ? "llvm-unoptimized" : "llvm", *typed, {});
        }
        if (emit) std::cout << codegen::cfamily::emit_c(*typed, *emit).text;
        if (!want_ir && !want_llvm && !want_llvm_raw && !emit) std::cout << file << ": kernel '" << kernel_name << "' is valid\n";
    } catch (const syntax::CompileError& e) {
        std::cerr << e.diagnostic().render() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // Anything else thrown is a bug in tackc or the compiler: report it
    // rather than abort.
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "tackc: internal error: " << e.what() << "\n";
    } catch (...) {
        std::cerr << "tackc: internal error: an unknown exception\n";
    }
    return 3;
}
