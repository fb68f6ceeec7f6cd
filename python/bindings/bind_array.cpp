// tack.Array: creation, views, host element reads and NumPy interop.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "bindings.h"

namespace tack::python {

using runtime::Array;

namespace {

// Never destroyed: Python may be finalized before static destructors run.
nb::object* dtype_objects = new nb::object[kNumDTypes];

nb::dlpack::dtype dlpack_dtype(DType t) {
    switch (t) {
#define X(E, name, ctype, size) case DType::E: return nb::dtype<ctype>();
        TACK_DTYPES(X)
#undef X
    }
    return nb::dtype<float>();
}

std::optional<DType> from_dlpack_dtype(nb::dlpack::dtype d) {
#define X(E, name, ctype, size) if (d == nb::dtype<ctype>()) return DType::E;
    TACK_DTYPES(X)
#undef X
    return std::nullopt;
}

nb::object element(const Array& a, const char* p) {
    switch (a.dtype()) {
#define X(E, name, ctype, size)                         \
    case DType::E: {                                    \
        ctype v;                                        \
        std::memcpy(&v, p, sizeof v);                   \
        if constexpr (std::is_floating_point_v<ctype>)  \
            return nb::float_(static_cast<double>(v));  \
        else                                            \
            return nb::int_(v);                         \
    }
        TACK_DTYPES(X)
#undef X
    }
    return nb::none();
}

int64_t checked_index(nb::handle h, int64_t extent, int dim) {
    if (!PyLong_Check(h.ptr())) throw nb::type_error("array indices must be integers or slices");
    int64_t i = nb::cast<int64_t>(h);
    if (i < 0) i += extent;
    if (i < 0 || i >= extent)
        throw nb::index_error(("index " + std::to_string(nb::cast<int64_t>(h)) + " is out of bounds for dimension " +
                               std::to_string(dim) + " with extent " + std::to_string(extent))
                                  .c_str());
    return i;
}

// a[i, j] reads one element; a[2:5], m[1:3, :] and m[1] give views.
nb::object getitem(nb::handle self, nb::handle key) {
    const Array& a = nb::cast<const Array&>(self);
    std::vector<nb::handle> parts;
    nb::object keep = nb::borrow(key);
    if (PyTuple_Check(key.ptr())) {
        for (size_t i = 0; i < nb::len(key); ++i) parts.push_back(PyTuple_GET_ITEM(key.ptr(), i));
    } else {
        parts.push_back(key);
    }
    if (static_cast<int>(parts.size()) > a.ndim())
        throw nb::index_error(("too many indices for " + a.describe()).c_str());
    bool all_ints = static_cast<int>(parts.size()) == a.ndim();
    for (auto p : parts) all_ints = all_ints && PyLong_Check(p.ptr());
    if (all_ints) {
        int64_t off = 0;
        for (int d = 0; d < a.ndim(); ++d) off += checked_index(parts[d], a.shape()[d], d) * a.strides()[d];
        return element(a, a.data() + off * size_of(a.dtype()));
    }
    std::vector<int64_t> starts(a.ndim(), 0), stops = a.shape();
    std::vector<int> drop;
    for (size_t d = 0; d < parts.size(); ++d) {
        nb::handle p = parts[d];
        if (PySlice_Check(p.ptr())) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(p.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
            if (step != 1) throw nb::value_error("array views take slices with step 1");
            PySlice_AdjustIndices(a.shape()[d], &start, &stop, step);
            starts[d] = start;
            stops[d] = std::max<int64_t>(start, stop);
        } else {
            int64_t i = checked_index(p, a.shape()[d], static_cast<int>(d));
            starts[d] = i;
            stops[d] = i + 1;
            drop.push_back(static_cast<int>(d));
        }
    }
    Array view = a.slice(starts, stops);
    for (auto it = drop.rbegin(); it != drop.rend(); ++it) view = view.select(*it, 0);
    return nb::cast(std::move(view));
}

void fill(Array& a, nb::handle v) {
    if (is_float(a.dtype())) {
        a.fill_float(nb::cast<double>(v));
    } else if (PyLong_Check(v.ptr())) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow > 0) a.fill_uint(nb::cast<uint64_t>(v));
        else if (overflow < 0) throw nb::value_error("fill value does not fit 64 bits");
        else a.fill_int(x);
    } else {
        double d = nb::cast<double>(v);
        if (d != static_cast<double>(static_cast<int64_t>(d)))
            throw nb::type_error(("cannot fill an integer array with " + std::to_string(d)).c_str());
        a.fill_int(static_cast<int64_t>(d));
    }
}

std::vector<int64_t> shape_arg(nb::handle shape) {
    std::vector<int64_t> out;
    if (PyLong_Check(shape.ptr())) {
        out.push_back(nb::cast<int64_t>(shape));
    } else {
        for (auto h : shape) out.push_back(nb::cast<int64_t>(h));
    }
    for (auto e : out)
        if (e < 0) throw nb::value_error("array extents must be nonnegative");
    return out;
}

nb::ndarray<nb::numpy> numpy_view(nb::handle self) {
    Array& a = nb::cast<Array&>(self);
    std::vector<size_t> shape(a.shape().begin(), a.shape().end());
    std::vector<int64_t> strides = a.strides();
    return nb::ndarray<nb::numpy>(a.data(), shape.size(), shape.data(), self, strides.data(), dlpack_dtype(a.dtype()));
}

}  // namespace

nb::object dtype_object(DType t) {
    auto& o = dtype_objects[static_cast<int>(t)];
    if (!o.is_valid()) return nb::str(std::string(name_of(t)).c_str());
    return o;
}

DType dtype_from_object(nb::handle h) {
    if (nb::hasattr(h, "_tack_dtype")) h = h.attr("_tack_dtype");
    std::string name;
    if (nb::isinstance<nb::str>(h)) {
        name = nb::cast<std::string>(h);
    } else {
        // A NumPy dtype or scalar type.
        nb::object np = nb::module_::import_("numpy");
        name = nb::cast<std::string>(np.attr("dtype")(h).attr("name"));
        static const std::pair<const char*, const char*> numpy_names[] = {
            {"int8", "i8"},   {"int16", "i16"},  {"int32", "i32"},  {"int64", "i64"},   {"uint8", "u8"},
            {"uint16", "u16"}, {"uint32", "u32"}, {"uint64", "u64"}, {"float32", "f32"}, {"float64", "f64"},
        };
        for (auto& [n, t] : numpy_names)
            if (name == n) name = t;
    }
    auto t = dtype_from_name(name);
    if (!t) throw nb::type_error(("unsupported dtype " + name + "; Tack arrays hold i8..i64, u8..u64, f32, f64").c_str());
    return *t;
}

void bind_array(nb::module_& m) {
    m.def("_set_dtypes", [](nb::list objs) {
        for (int i = 0; i < kNumDTypes; ++i) dtype_objects[i] = nb::borrow(objs[i]);
    });

    nb::class_<Array>(m, "Array",
                      "Typed, shaped storage on a device. Create arrays with tack.zeros, tack.array and friends.")
        .def_static("_empty", [](nb::handle shape, nb::handle dtype) { return Array::empty(shape_arg(shape), dtype_from_object(dtype)); })
        .def_static("_copy_of", [](nb::ndarray<nb::ro, nb::c_contig> src) {
            auto t = from_dlpack_dtype(src.dtype());
            if (!t) throw nb::type_error("unsupported NumPy dtype; Tack arrays hold i8..i64, u8..u64, f32, f64");
            std::vector<int64_t> shape;
            for (size_t d = 0; d < src.ndim(); ++d) shape.push_back(static_cast<int64_t>(src.shape(d)));
            Array a = Array::empty(shape, *t);
            if (src.nbytes()) std::memcpy(a.data(), src.data(), src.nbytes());
            return a;
        })
        .def_prop_ro("shape", [](const Array& a) {
            nb::list l;
            for (auto e : a.shape()) l.append(e);
            return nb::tuple(l);
        })
        .def_prop_ro("dtype", [](const Array& a) { return dtype_object(a.dtype()); })
        .def_prop_ro("ndim", &Array::ndim)
        .def_prop_ro("size", &Array::size)
        .def_prop_ro("strides", [](const Array& a) {
            nb::list l;
            for (auto e : a.strides()) l.append(e * size_of(a.dtype()));
            return nb::tuple(l);
        }, "Byte strides, as NumPy reports them.")
        .def_prop_ro("is_contiguous", &Array::contiguous)
        .def_prop_ro("readonly", &Array::readonly)
        .def_prop_ro("ptr", [](const Array& a) { return reinterpret_cast<uintptr_t>(a.data()); })
        .def("__len__", [](const Array& a) {
            if (a.ndim() == 0) throw nb::type_error("len() of a 0-d array");
            return a.shape()[0];
        })
        .def("__getitem__", &getitem)
        .def("__setitem__", [](const Array&, nb::handle, nb::handle) {
            throw nb::type_error("host code may not write array elements; use a kernel, fill() or tack.copyto()");
        })
        .def("reshape", [](const Array& a, nb::args shape) {
            if (shape.size() == 1 && !PyLong_Check(shape[0].ptr())) return a.reshape(shape_arg(shape[0]));
            return a.reshape(shape_arg(shape));
        })
        .def("fill", &fill, nb::arg("value"), "Sets every element to value.")
        .def("numpy", &numpy_view, "A NumPy array viewing the same memory (no copy).")
        .def_prop_ro("__array_interface__", [](nb::handle self) {
            const Array& a = nb::cast<const Array&>(self);
            nb::dict d;
            nb::list shape, strides;
            for (auto e : a.shape()) shape.append(e);
            for (auto e : a.strides()) strides.append(e * size_of(a.dtype()));
            nb::object np = nb::module_::import_("numpy");
            static const char* numpy_names[] = {"int8", "int16", "int32", "int64", "uint8",
                                                "uint16", "uint32", "uint64", "float32", "float64"};
            d["shape"] = nb::tuple(shape);
            d["strides"] = nb::tuple(strides);
            d["typestr"] = np.attr("dtype")(numpy_names[static_cast<int>(a.dtype())]).attr("str");
            d["data"] = nb::make_tuple(reinterpret_cast<uintptr_t>(a.data()), a.readonly());
            d["version"] = 3;
            return d;
        })
        .def("__repr__", [](const Array& a) { return "tack." + a.describe(); });
}

}  // namespace tack::python
