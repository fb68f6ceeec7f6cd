#include "static_resolver.h"

#include <sstream>
#include <vector>

namespace tack::tools {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::string def_name(const std::string& line) {
    size_t at = line.find("def ");
    size_t start = at + 4;
    size_t end = line.find('(', start);
    std::string n = line.substr(start, end - start);
    while (!n.empty() && n.back() == ' ') n.pop_back();
    return n;
}

}  // namespace

FileFunctions scan_file(const std::string& text, const std::string& filename) {
    FileFunctions out;
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    size_t i = 0;
    while (i < lines.size()) {
        const std::string& l = lines[i];
        if (starts_with(l, "import tack as ")) out.tack_aliases.insert(l.substr(15));
        if (!(starts_with(l, "@") || starts_with(l, "def "))) {
            ++i;
            continue;
        }
        size_t first = i;
        std::string decorators;
        while (i < lines.size() && starts_with(lines[i], "@")) decorators += lines[i++] + "\n";
        if (i >= lines.size() || !starts_with(lines[i], "def ")) continue;
        std::string name = def_name(lines[i]);
        ++i;
        // The body: every following line that is blank, a comment or indented.
        while (i < lines.size() && (lines[i].empty() || lines[i][0] == ' ' || lines[i][0] == '\t' || lines[i][0] == '#'))
            ++i;
        auto src = std::make_shared<syntax::Source>();
        for (size_t j = first; j < i; ++j) src->text += lines[j] + "\n";
        src->filename = filename;
        src->first_line = static_cast<int>(first) + 1;
        if (decorators.find("kernel") != std::string::npos) {
            out.kernels[name] = src;
            out.kernel_order.push_back(name);
        } else if (decorators.find("func") != std::string::npos) {
            out.device_functions[name] = src;
        }
    }
    return out;
}

frontend::Resolution StaticResolver::resolve(const std::vector<std::string>& path) {
    using K = frontend::Resolution::Kind;
    frontend::Resolution r;
    static const std::set<std::string> python_builtins = {"range", "len", "abs", "min",   "max",
                                                          "pow",   "int", "float", "print", "round"};
    static const std::set<std::string> math_functions = {
        "sqrt",  "sin",   "cos",   "tan",   "asin", "acos",  "atan",  "atan2", "exp",      "log",  "floor",
        "ceil",  "fabs",  "tanh",  "sinh",  "cosh", "asinh", "acosh", "atanh", "log2",     "log10", "exp2",
        "expm1", "log1p", "cbrt",  "hypot", "copysign", "fmod", "trunc", "erf", "erfc",   "isnan", "isinf",
        "isfinite"};
    if (path.size() == 1) {
        const std::string& n = path[0];
        if (python_builtins.count(n)) {
            r.kind = K::Builtin;
            r.builtin = n;
            return r;
        }
        auto f = file_->device_functions.find(n);
        if (f != file_->device_functions.end()) {
            r.kind = K::DeviceFunction;
            auto ref = std::make_shared<frontend::DeviceFunctionRef>();
            ref->name = n;
            ref->source = f->second;
            ref->resolver = std::make_shared<StaticResolver>(file_);
            ref->identity = reinterpret_cast<uintptr_t>(f->second.get());
            r.function = std::move(ref);
            return r;
        }
        if (n == "math" || file_->tack_aliases.count(n)) {
            r.kind = K::Module;
            return r;
        }
        return r;  // unbound
    }
    if (path.size() == 2 && path[0] == "math") {
        if (path[1] == "pi" || path[1] == "e" || path[1] == "tau") {
            r.kind = K::Constant;
            r.is_float = true;
            r.float_value = path[1] == "pi" ? 3.141592653589793 : path[1] == "e" ? 2.718281828459045 : 6.283185307179586;
            return r;
        }
        if (math_functions.count(path[1]) || path[1] == "pow") {
            r.kind = K::Builtin;
            r.builtin = path[1] == "pow" ? "fpow" : path[1];
            return r;
        }
    }
    if (path.size() == 2 && file_->tack_aliases.count(path[0])) {
        if (auto t = dtype_from_name(path[1])) {
            r.kind = K::DType;
            r.dtype = *t;
            return r;
        }
        static const std::set<std::string> tack_builtins = {
            "ndindex",   "atomic_add", "atomic_sub", "atomic_min",  "atomic_max",       "atomic_exch",
            "atomic_cas", "local_array", "local_array_like", "barrier", "thread_id",   "block_sum",
            "block_min", "block_max",  "shared",     "shared_like", "round",            "clamp"};
        if (math_functions.count(path[1]) || tack_builtins.count(path[1])) {
            r.kind = K::Builtin;
            r.builtin = path[1];
            return r;
        }
    }
    return r;
}

}  // namespace tack::tools
