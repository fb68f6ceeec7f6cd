// Kernel objects: the cached dispatch path reads each argument once and
// calls compiled code without building Python objects.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "bindings.h"
#include "py_resolver.h"
#include "runtime/errors.h"
#include "runtime/kernel.h"

namespace tack::python {

using runtime::CallArg;
using runtime::Kernel;

namespace {

// numpy.generic, for NumPy scalars; never destroyed, as Python may be
// finalized before static destructors run.
nb::object& numpy_generic = *new nb::object();

[[noreturn]] void bad_argument(Kernel& k, size_t i, nb::handle h, const std::string& why) {
    auto& names = k.param_names();
    std::string param = i < names.size() ? names[i] : std::to_string(i);
    std::string tname = nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(h.ptr()))).attr("__name__")));
    throw runtime::ArgumentError(runtime::ArgumentError::Kind::Type,
                                 "kernel '" + k.name() + "': parameter '" + param + "' got " + tname + ": " + why);
}

void read_arg(Kernel& k, size_t i, nb::handle h, CallArg& out) {
    PyObject* o = h.ptr();
    runtime::Array* a;
    if (nb::try_cast<runtime::Array*>(h, a, false) && a) {
        out.kind = CallArg::Kind::Array;
        out.array = a;
        return;
    }
    runtime::Texture3D* t;
    if (nb::try_cast<runtime::Texture3D*>(h, t, false) && t) {
        out.kind = CallArg::Kind::Texture;
        out.texture = t;
        return;
    }
    if (PyFloat_CheckExact(o)) {
        out.kind = CallArg::Kind::PythonFloat;
        out.value = PyFloat_AS_DOUBLE(o);
        return;
    }
    if (PyLong_Check(o)) {
        // Python ints take i32, i64 or u64 by magnitude.
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        out.kind = CallArg::Kind::Scalar;
        if (overflow == 0) {
            out.dtype = (v >= INT32_MIN && v <= INT32_MAX) ? DType::I32 : DType::I64;
            out.bits = static_cast<uint64_t>(v);
            if (out.dtype == DType::I32) out.bits &= 0xffffffffu;
            return;
        }
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (!PyErr_Occurred()) {
                out.dtype = DType::U64;
                out.bits = u;
                return;
            }
            PyErr_Clear();
        }
        bad_argument(k, i, h, "the integer is outside the 64-bit ranges Tack supports");
    }
    if (numpy_generic.is_valid() && PyObject_IsInstance(o, numpy_generic.ptr()) == 1) {
        DType t = dtype_from_object(h.attr("dtype"));
        nb::bytes raw = nb::cast<nb::bytes>(h.attr("tobytes")());
        out.kind = CallArg::Kind::Scalar;
        out.dtype = t;
        out.bits = 0;
        std::memcpy(&out.bits, raw.c_str(), std::min<size_t>(raw.size(), 8));
        return;
    }
    if (PyFloat_Check(o)) {
        out.kind = CallArg::Kind::PythonFloat;
        out.value = PyFloat_AsDouble(o);
        return;
    }
    bad_argument(k, i, h, "expected a tack.Array, a texture, an int or a float");
}

nb::object to_python(const runtime::CallResult& r) {
    if (!r.has_value) return nb::none();
    switch (r.dtype) {
#define X(E, name, ctype, size)                                   \
    case DType::E: {                                              \
        ctype v;                                                  \
        std::memcpy(&v, &r.bits, sizeof v);                       \
        if constexpr (std::is_floating_point_v<ctype>)            \
            return nb::float_(static_cast<double>(v));            \
        else                                                      \
            return nb::int_(v);                                   \
    }
        TACK_DTYPES(X)
#undef X
    }
    return nb::none();
}

template <typename F>
auto with_args(Kernel& k, nb::args args, F&& f) {
    size_t n = args.size();
    constexpr size_t kInline = 16;
    CallArg small[kInline];
    std::vector<CallArg> big;
    CallArg* call_args = small;
    if (n > kInline) {
        big.resize(n);
        call_args = big.data();
    }
    for (size_t i = 0; i < n; ++i) read_arg(k, i, args[i], call_args[i]);
    return f(call_args, n);
}

}  // namespace

void bind_kernel(nb::module_& m) {
    try {
        numpy_generic = nb::module_::import_("numpy").attr("generic");
    } catch (...) {
        PyErr_Clear();
    }

    m.def("set_debug", &runtime::set_debug, "Compile bounds-checked variants from now on (or stop).");
    m.def("debug_enabled", &runtime::debug_enabled);

    nb::class_<Kernel>(m, "Kernel")
        .def("__init__", [](Kernel* self, std::string name, nb::handle text, nb::handle filename, int first_line,
                            int indent, nb::object resolver) {
            new (self) Kernel(std::move(name), make_source(text, filename, first_line, indent),
                              std::make_shared<PyResolver>(std::move(resolver)));
        })
        .def("__call__", [](Kernel& k, nb::args args) {
            auto r = with_args(k, args, [&](const CallArg* a, size_t n) { return k.call(a, n); });
            return to_python(r);
        })
        .def("inspect", [](Kernel& k, const std::string& what, nb::args args) {
            return with_args(k, args, [&](const CallArg* a, size_t n) { return k.inspect(what, a, n); });
        },
           "The IR after each pass (\"ir\") or the optimized LLVM IR (\"llvm\") of the variant the given "
           "arguments select (or of the last compiled one).")
        .def_prop_ro("compiled_variants", &Kernel::compiled_variants,
                     "How many specializations of this kernel have been compiled.")
        .def_prop_ro("name", [](Kernel& k) { return k.name(); })
        .def("__repr__", [](Kernel& k) { return "<tack.kernel " + k.name() + ">"; });
}

}  // namespace tack::python
