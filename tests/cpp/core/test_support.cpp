#include "test_support.h"

#include "syntax/ast.h"

namespace tack::testing {

std::shared_ptr<const syntax::Source> source(const std::string& text) {
    auto s = std::make_shared<syntax::Source>();
    s->text = text;
    s->filename = "test.py";
    return s;
}

frontend::Resolution TestResolver::resolve(const std::vector<std::string>& path) {
    using K = frontend::Resolution::Kind;
    frontend::Resolution r;
    const std::string& head = path[0];
    if (path.size() == 1) {
        for (const char* b : {"range", "len", "abs", "min", "max", "pow", "int", "float"})
            if (head == b) {
                r.kind = K::Builtin;
                r.builtin = head;
                return r;
            }
        auto f = device_functions.find(head);
        if (f != device_functions.end()) {
            r.kind = K::DeviceFunction;
            auto ref = std::make_shared<frontend::DeviceFunctionRef>();
            ref->name = head;
            ref->source = source(f->second);
            ref->resolver = std::make_shared<TestResolver>(*this);
            ref->identity = std::hash<std::string>()(head);
            r.function = ref;
            return r;
        }
        if (head == "math" || head == "tack") r.kind = K::Module;
        return r;
    }
    if (path.size() == 2 && (head == "math" || head == "tack")) {
        if (auto t = dtype_from_name(path[1]); t && head == "tack") {
            r.kind = K::DType;
            r.dtype = *t;
            return r;
        }
        if (path[1] == "ndindex" || path[1] == "sqrt" || path[1] == "sin" || path[1] == "floor") {
            r.kind = K::Builtin;
            r.builtin = path[1];
            return r;
        }
        // Workgroup primitives, private scratch, atomics, vectors and matrices.
        for (const char* b :
             {"barrier", "thread_id", "block_sum", "block_min", "block_max", "shared", "shared_like", "local_array",
              "atomic_add", "vec2", "vec3", "vec4", "mat2"})
            if (head == "tack" && path[1] == b) {
                r.kind = K::Builtin;
                r.builtin = path[1];
                return r;
            }
    }
    return r;
}

std::unique_ptr<ir::Kernel> typed_kernel(const std::string& text, const std::vector<driver::ParamFacts>& params,
                                         std::shared_ptr<TestResolver> resolver) {
    if (!resolver) resolver = std::make_shared<TestResolver>();
    auto tree = syntax::parse_function(source(text));
    std::vector<frontend::ParamShape> shapes;
    DType precision = DType::F32;
    for (auto& p : params) {
        shapes.push_back(frontend::ParamShape{p.is_array, p.ndim, p.element_shape, p.soa, p.texture, p.image});
        if (p.is_array && p.dtype == DType::F64) precision = DType::F64;
    }
    auto tmpl = driver::build_template(*tree, resolver, shapes);
    return driver::specialize(*tmpl, params, precision);
}

driver::ParamFacts array_of(DType t, int ndim) {
    driver::ParamFacts p;
    p.is_array = true;
    p.dtype = t;
    p.ndim = ndim;
    return p;
}
driver::ParamFacts scalar_of(DType t) {
    driver::ParamFacts p;
    p.dtype = t;
    return p;
}

}  // namespace tack::testing
