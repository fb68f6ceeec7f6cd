// frontend::Resolver over a Python object (tack._resolver.Resolver) that
// looks names up in one function's globals and closure.
#include "py_resolver.h"

#include <nanobind/stl/string.h>

namespace tack::python {

std::shared_ptr<const syntax::Source> make_source(nb::handle text, nb::handle filename, int first_line, int indent) {
    auto s = std::make_shared<syntax::Source>();
    s->text = nb::cast<std::string>(text);
    s->filename = nb::cast<std::string>(filename);
    s->first_line = first_line;
    s->indent = indent;
    return s;
}

frontend::Resolution PyResolver::resolve(const std::vector<std::string>& path) {
    auto it = memo_.find(path);
    if (it != memo_.end()) return it->second;
    frontend::Resolution r = lookup(path);
    memo_.emplace(path, r);
    return r;
}

frontend::Resolution PyResolver::lookup(const std::vector<std::string>& path) {
    nb::list names;
    for (auto& p : path) names.append(nb::str(p.c_str(), p.size()));
    return resolution_from(obj_.attr("resolve")(nb::tuple(names)));
}

namespace {

// A number constant: its value (an int of up to 64 bits, or a float; None
// for a vector's own entry) and declared dtype, if any.
frontend::Resolution constant_from(nb::handle v, nb::handle dtype) {
    frontend::Resolution out;
    out.kind = frontend::Resolution::Kind::Constant;
    if (PyFloat_Check(v.ptr())) {
        out.is_float = true;
        out.float_value = nb::cast<double>(v);
    } else if (PyLong_Check(v.ptr())) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow > 0) {
            out.int_bits = PyLong_AsUnsignedLongLong(v.ptr());
            if (PyErr_Occurred()) throw nb::python_error();
        } else if (overflow < 0) {
            throw nb::value_error("a tack.constant integer does not fit 64 bits");
        } else {
            out.int_bits = static_cast<uint64_t>(x);
            out.int_negative = x < 0;
        }
    }
    if (!dtype.is_none()) {
        out.has_dtype = true;
        out.dtype = dtype_from_object(dtype);
    }
    return out;
}

}  // namespace

frontend::Resolution resolution_from(nb::handle answer) {
    using K = frontend::Resolution::Kind;
    nb::tuple r = nb::cast<nb::tuple>(answer);
    std::string kind = nb::cast<std::string>(r[0]);
    frontend::Resolution out;
    if (kind == "unbound") {
        out.kind = K::Unbound;
    } else if (kind == "builtin") {
        out.kind = K::Builtin;
        out.builtin = nb::cast<std::string>(r[1]);
    } else if (kind == "dtype") {
        out.kind = K::DType;
        out.dtype = dtype_from_object(r[1]);
    } else if (kind == "module") {
        out.kind = K::Module;
    } else if (kind == "constant" && (r.size() < 4 || r[3].is_none())) {
        out = constant_from(r[1], r[2]);
    } else if (kind == "constant") {
        // A vector or matrix: its shape, and its components row-major, each
        // a number constant of the declared dtype.
        out = constant_from(nb::none(), r[2]);
        for (nb::handle e : r[3]) out.shape.push_back(nb::cast<int>(e));
        for (nb::handle c : r[1]) out.components.push_back(constant_from(c, r[2]));
    } else if (kind == "func") {
        out.kind = K::DeviceFunction;
        auto f = std::make_shared<frontend::DeviceFunctionRef>();
        f->name = nb::cast<std::string>(r[1]);
        f->source = make_source(r[2], r[3], nb::cast<int>(r[4]), nb::cast<int>(r[5]));
        f->resolver = std::make_shared<PyResolver>(nb::borrow(r[6]));
        f->identity = nb::cast<uintptr_t>(r[7]);
        out.function = std::move(f);
    } else {
        out.kind = K::Other;
        out.description = nb::cast<std::string>(r[1]);
    }
    return out;
}

}  // namespace tack::python
