// Kernel objects: the cached dispatch path reads each argument once and
// calls compiled code without building Python objects.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <utility>

#include "bindings.h"
#include "driver/kernel.h"
#include "py_resolver.h"
#include "py_template.h"
#include "runtime/errors.h"

namespace tack::python {

using driver::CallArg;
using driver::Kernel;

bool is_numpy_scalar(PyObject* o) {
    // numpy.generic, looked up once NumPy is in sys.modules; never released,
    // as Python may be finalized before static destructors run.
    static PyObject* generic = nullptr;
    if (!generic) {
        static PyObject* name = PyUnicode_InternFromString("numpy");
        PyObject* numpy = PyImport_GetModule(name);
        if (!numpy) {
            PyErr_Clear();
            return false;
        }
        generic = PyObject_GetAttrString(numpy, "generic");
        Py_DECREF(numpy);
        if (!generic) {
            PyErr_Clear();
            return false;
        }
    }
    return PyObject_IsInstance(o, generic) == 1;
}

char numpy_scalar_kind(PyObject* o) {
    if (!is_numpy_scalar(o)) return 0;
    std::string kind = nb::cast<std::string>(nb::handle(o).attr("dtype").attr("kind"));
    return kind.size() == 1 ? kind[0] : 0;
}

namespace {

[[noreturn]] void bad_argument(Kernel& k, size_t i, nb::handle h, const std::string& why, const std::string& leaf = {}) {
    auto& names = k.param_names();
    std::string param = (i < names.size() ? names[i] : std::to_string(i)) + (leaf.empty() ? "" : "." + leaf);
    std::string tname = nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(h.ptr()))).attr("__name__")));
    throw runtime::ArgumentError(runtime::ArgumentError::Kind::Type,
                                 "kernel '" + k.name() + "': parameter '" + param + "' got " + tname + ": " + why);
}

// Reads one array or number; false for anything else. `leaf` names an
// instance attribute the value came from.
bool read_arg(Kernel& k, size_t i, nb::handle h, CallArg& out, const std::string& leaf = {}) {
    PyObject* o = h.ptr();
    runtime::Array* a;
    if (nb::try_cast<runtime::Array*>(h, a, false) && a) {
        out.kind = CallArg::Kind::Array;
        out.array = a;
        return true;
    }
    runtime::Texture3D* t;
    if (nb::try_cast<runtime::Texture3D*>(h, t, false) && t) {
        out.kind = CallArg::Kind::Texture;
        out.texture = t;
        return true;
    }
    if (PyFloat_CheckExact(o)) {
        out.kind = CallArg::Kind::PythonFloat;
        out.value = PyFloat_AS_DOUBLE(o);
        return true;
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
            return true;
        }
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (!PyErr_Occurred()) {
                out.dtype = DType::U64;
                out.bits = u;
                return true;
            }
            PyErr_Clear();
        }
        bad_argument(k, i, h, "the integer is outside the 64-bit ranges Tack supports", leaf);
    }
    if (is_numpy_scalar(o)) {
        DType t = dtype_from_object(h.attr("dtype"));
        nb::bytes raw = nb::cast<nb::bytes>(h.attr("tobytes")());
        out.kind = CallArg::Kind::Scalar;
        out.dtype = t;
        out.bits = 0;
        std::memcpy(&out.bits, raw.c_str(), std::min<size_t>(raw.size(), 8));
        return true;
    }
    if (PyFloat_Check(o)) {
        out.kind = CallArg::Kind::PythonFloat;
        out.value = PyFloat_AsDouble(o);
        return true;
    }
    return false;
}

// An instance: its marker, then its leaves.
void read_instance(Kernel& k, size_t i, nb::handle h, std::vector<CallArg>& out, std::vector<nb::object>& keep) {
    FlatInstance flat = flatten_instance(h);
    CallArg marker;
    marker.kind = CallArg::Kind::Object;
    marker.object = flat.info;
    out.push_back(marker);
    if (flat.leaves.size() != flat.info->leaf_names.size())
        throw std::logic_error("an instance's leaves do not match its signature");
    size_t leaf = 0;
    for (PyObject* value : flat.leaves) {
        CallArg a;
        const std::string& name = flat.info->leaf_names[leaf++];
        if (!read_arg(k, i, value, a, name)) bad_argument(k, i, value, "not an array or a number", name);
        out.push_back(a);
    }
    for (auto& o : flat.keep) keep.push_back(std::move(o));
}

[[noreturn]] void not_an_argument(Kernel& k, size_t i, nb::handle h) {
    bad_argument(k, i, h,
                 "expected a tack.Array, an array of another library (NumPy, CuPy, PyTorch, ...), a texture, an "
                 "int, a float or a @tack.device_class instance");
}

// Another library's array: any object with __cuda_array_interface__,
// __dlpack__ or __array_interface__, or a buffer.
bool is_array_like(nb::handle h) {
    return nb::hasattr(h, "__cuda_array_interface__") || nb::hasattr(h, "__dlpack__") ||
           nb::hasattr(h, "__array_interface__") || PyObject_CheckBuffer(h.ptr());
}

// An array-like argument as a tack.Array sharing its memory (tack.asarray),
// or a TypeError naming the kernel and the parameter.
nb::object shared_array(Kernel& k, size_t i, nb::handle h) {
    static nb::object& asarray = *new nb::object(nb::module_::import_("tack._arrays").attr("asarray"));
    try {
        return asarray(h);
    } catch (nb::python_error& e) {
        // The exception's message alone (what() adds its traceback).
        bad_argument(k, i, h, "its memory cannot be shared: " + nb::cast<std::string>(nb::str(e.value())));
    }
}

nb::object to_python(const driver::CallResult& r) {
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

// Python's side of a call: the interpreter lock is released while compiled
// code runs (other Python threads keep running) and while this thread waits
// for another's compile; Ctrl-C is noticed between chunks of a launch.
class PythonCaller : public runtime::Caller {
public:
    void release() override { saved_ = PyEval_SaveThread(); }
    void reacquire() override {
        PyEval_RestoreThread(saved_);
        saved_ = nullptr;
    }
    bool interrupted() override {
        // Signal handlers run on the main thread, with the lock held; a
        // handler that raises (SIGINT's does) leaves its exception set.
        PyEval_RestoreThread(saved_);
        bool raised = PyErr_CheckSignals() != 0;
        saved_ = PyEval_SaveThread();
        return raised;
    }

private:
    PyThreadState* saved_ = nullptr;
};

template <typename F>
auto with_args(Kernel& k, nb::args args, F&& f) {
    size_t n = args.size();
    constexpr size_t kInline = 16;
    CallArg small[kInline];
    size_t i = 0;
    if (n <= kInline) {
        for (; i < n; ++i)
            if (!read_arg(k, i, args[i], small[i])) break;
        if (i == n) return f(small, n);
        if (!is_device_instance(args[i]) && !is_array_like(args[i])) not_an_argument(k, i, args[i]);
    }
    // Many arguments, or an instance, which adds its leaves.
    std::vector<CallArg> all(small, small + i);
    std::vector<nb::object> keep;  // the leaves and shared arrays, alive for the call
    for (; i < n; ++i) {
        CallArg a;
        if (read_arg(k, i, args[i], a)) {
            all.push_back(a);
        } else if (is_device_instance(args[i])) {
            read_instance(k, i, args[i], all, keep);
        } else if (is_array_like(args[i])) {
            keep.push_back(shared_array(k, i, args[i]));
            read_arg(k, i, keep.back(), a);
            all.push_back(a);
        } else {
            not_an_argument(k, i, args[i]);
        }
    }
    return f(all.data(), all.size());
}

// A call's arguments in parameter order: the positional ones, then each
// keyword argument at its parameter's place. TypeErrors follow Python's
// wording for a function's arguments, naming the kernel.
nb::tuple in_parameter_order(Kernel& k, nb::args args, nb::kwargs kwargs) {
    const auto& names = k.param_names();
    auto refuse = [&](const std::string& what) {
        throw runtime::ArgumentError(runtime::ArgumentError::Kind::Type, "kernel '" + k.name() + "' " + what);
    };
    size_t n = names.size();
    if (args.size() > n)
        refuse("takes " + std::to_string(n) + " positional argument" + (n == 1 ? "" : "s") + " but " +
               std::to_string(args.size()) + (args.size() == 1 ? " was" : " were") + " given");
    nb::tuple ordered = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(n)));  // slots start NULL
    PyObject* out = ordered.ptr();
    for (size_t i = 0; i < args.size(); ++i) PyTuple_SET_ITEM(out, i, nb::borrow(args[i]).release().ptr());
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs.ptr(), &pos, &key, &value)) {
        // The UTF-8 form is cached in the key: no copy per call.
        Py_ssize_t length;
        const char* name = PyUnicode_AsUTF8AndSize(key, &length);
        if (!name) throw nb::python_error();
        size_t i = 0;
        while (i < n && (names[i].size() != static_cast<size_t>(length) ||
                         std::memcmp(names[i].data(), name, static_cast<size_t>(length)) != 0))
            ++i;
        if (i == n) refuse("got an unexpected keyword argument '" + std::string(name, length) + "'");
        if (PyTuple_GET_ITEM(out, i)) refuse("got multiple values for argument '" + names[i] + "'");
        PyTuple_SET_ITEM(out, i, nb::borrow(value).release().ptr());
    }
    std::vector<size_t> missing;
    for (size_t i = 0; i < n; ++i)
        if (!PyTuple_GET_ITEM(out, i)) missing.push_back(i);
    if (!missing.empty()) k.refuse_missing(missing);  // the unfilled tuple is freed (its empty slots skipped)
    return ordered;
}

// The call's arguments in parameter order: `args` as they are when no
// keywords were given (`kwargs` null or empty).
nb::args arguments_of(Kernel& k, nb::args args, nb::handle kwargs) {
    if (!kwargs || PyDict_GET_SIZE(kwargs.ptr()) == 0) return args;
    return nb::borrow<nb::args>(in_parameter_order(k, args, nb::borrow<nb::kwargs>(kwargs)));
}

nb::object call(Kernel& k, const nb::args& args) {
    PythonCaller caller;
    try {
        auto r = with_args(k, args, [&](const CallArg* a, size_t n) { return k.call(a, n, &caller); });
        return to_python(r);
    } catch (const runtime::Interrupted&) {
        throw nb::python_error();  // the exception the signal handler raised
    }
}

// The kernel type's call slot. nanobind's dispatch of a `__call__` with
// **kwargs builds a keyword dict for every call, and a second, positional
// overload costs an overload search; Python hands this slot the positional
// tuple and a dict only when keywords were given, so a positional call
// pays for neither. An exception is rethrown inside `reraise`, a nanobind
// function, whose translators make it the Python exception they always do.
thread_local std::exception_ptr pending;
nb::object& reraise = *new nb::object();

PyObject* kernel_call(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
    try {
        Kernel& k = nb::cast<Kernel&>(nb::handle(self));
        return call(k, arguments_of(k, nb::borrow<nb::args>(args), kwargs)).release().ptr();
    } catch (nb::python_error& e) {
        e.restore();
    } catch (...) {
        pending = std::current_exception();
        PyObject* r = PyObject_CallNoArgs(reraise.ptr());
        Py_XDECREF(r);
    }
    return nullptr;
}

}  // namespace

void bind_kernel(nb::module_& m) {
    m.def("set_debug", &driver::set_debug, "Compile bounds-checked variants from now on (or stop).");
    m.def("debug_enabled", &driver::debug_enabled);
    m.def("set_debug_races", &driver::set_debug_races,
          "Compile debug variants with the race detector from now on (or without).");
    m.def("debug_races_enabled", &driver::debug_races_enabled);
    // "paying" (the default), "always" or "never": tack.set_cpu_spmd.
    m.def(
        "set_cpu_lanes",
        [](const std::string& lanes) {
            if (lanes == "paying") driver::set_cpu_lanes(backends::CpuLanes::WherePaying);
            else if (lanes == "always") driver::set_cpu_lanes(backends::CpuLanes::Always);
            else if (lanes == "never") driver::set_cpu_lanes(backends::CpuLanes::Never);
            else throw nb::value_error(("set_cpu_lanes: '" + lanes + "' is not 'paying', 'always' or 'never'").c_str());
        },
        "SPMD CPU variants from now on: where the lanes pay, always where the kernel allows, or never.");
    m.def("cpu_lanes", [] {
        switch (driver::cpu_lanes()) {
            case backends::CpuLanes::Always: return "always";
            case backends::CpuLanes::Never: return "never";
            default: return "paying";
        }
    });

    // dynamic_attr: the decorator gives each kernel its function's __module__,
    // __qualname__ and __doc__, by which it pickles.
    nb::class_<Kernel>(m, "Kernel", nb::dynamic_attr())
        .def("__init__", [](Kernel* self, std::string name, nb::handle text, nb::handle filename, int first_line,
                            int indent, nb::object resolver) {
            new (self) Kernel(std::move(name), make_source(text, filename, first_line, indent),
                              std::make_shared<PyResolver>(std::move(resolver)));
        })
        // Documents the call for the stub; calls themselves go through
        // kernel_call, set as the type's call slot below.
        .def("__call__", [](Kernel& k, nb::args args, nb::kwargs kwargs) {
            return call(k, arguments_of(k, args, kwargs));
        })
        .def("inspect", [](Kernel& k, const std::string& what, nb::args args, nb::kwargs kwargs) {
            PythonCaller caller;
            return with_args(k, arguments_of(k, args, kwargs),
                             [&](const CallArg* a, size_t n) { return k.inspect(what, a, n, &caller); });
        },
           "The IR after each pass (\"ir\") or the optimized LLVM IR (\"llvm\") of the variant the given "
           "arguments select (or of the last compiled one).")
        .def_prop_ro("compiled_variants", &Kernel::compiled_variants,
                     "How many specializations of this kernel have been compiled.")
        .def_prop_ro("name", [](Kernel& k) { return k.name(); })
        .def("__get__", [](nb::handle self, nb::handle obj, nb::handle) -> nb::object {
            // A kernel defined in a class is a method: bound to its instance.
            if (obj.is_none()) return nb::borrow(self);
            return nb::steal(PyMethod_New(self.ptr(), obj.ptr()));
        }, nb::arg("obj").none(), nb::arg("owner").none() = nb::none())
        .def("__repr__", [](Kernel& k) { return "<tack.kernel " + k.name() + ">"; });

    m.def("_reraise", [] { std::rethrow_exception(std::exchange(pending, nullptr)); });
    reraise = m.attr("_reraise");
    reinterpret_cast<PyTypeObject*>(m.attr("Kernel").ptr())->tp_call = kernel_call;
}

}  // namespace tack::python
