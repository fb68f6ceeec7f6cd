// tack.Array: creation, views, host element reads, NumPy and DLPack interop,
// whole-array reductions.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "bindings.h"
#include "runtime/parallel.h"
#include "runtime/reduce.h"

namespace tack::python {

using runtime::Array;

namespace {

// Never destroyed: Python may be finalized before static destructors run.
nb::object* dtype_objects = new nb::object[kNumDTypes];
// tack._element_types.element_type(scalar dtype, shape): the dtype object of
// an array of vector or matrix elements.
nb::object& element_type_factory = *new nb::object();

}  // namespace

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

namespace {

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

nb::object numpy_view(nb::handle self, bool for_writing = false);

// An integer index: a Python int or anything with __index__ (NumPy's
// integers); a bool is a mask in NumPy, which arrays do not take.
bool is_integer_index(nb::handle h) { return PyIndex_Check(h.ptr()) && !PyBool_Check(h.ptr()); }

// The position that the integer `h` names along `extent` elements, a
// negative one counting from the end; none where it lies outside them (past
// 64 bits too). Anything but an integer raises TypeError, `what` followed by
// its type's name.
std::optional<int64_t> position_in(nb::handle h, int64_t extent, const char* what) {
    if (!is_integer_index(h)) throw nb::type_error((what + nb::cast<std::string>(nb::type_name(h.type()))).c_str());
    nb::object index = nb::steal(PyNumber_Index(h.ptr()));
    if (!index.is_valid()) throw nb::python_error();
    int overflow = 0;
    long long given = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    int64_t i = given < 0 ? given + extent : given;
    if (overflow || i < 0 || i >= extent) return std::nullopt;
    return i;
}

int64_t checked_index(nb::handle h, int64_t extent, int dim) {
    auto i = position_in(h, extent, "array indices must be integers, slices, ... or None, not ");
    if (!i)
        throw nb::index_error(("index " + nb::cast<std::string>(nb::str(h)) + " is out of bounds for dimension " +
                               std::to_string(dim) + " with extent " + std::to_string(extent))
                                  .c_str());
    return *i;
}

// a[i, j] reads one element; slices (any step), integers, ... and None give
// views as NumPy's basic indexing does: a[2:5], m[1:3, ::-1], m[1], a[..., 0],
// a[:, None].
nb::object getitem(nb::handle self, nb::handle key) {
    const Array& a = nb::cast<const Array&>(self);
    std::vector<nb::handle> parts;
    nb::object keep = nb::borrow(key);
    if (PyTuple_Check(key.ptr())) {
        for (size_t i = 0; i < nb::len(key); ++i) parts.push_back(PyTuple_GET_ITEM(key.ptr(), i));
    } else {
        parts.push_back(key);
    }
    int named = 0, ellipses = 0, integers = 0;
    for (auto p : parts) {
        if (p.ptr() == Py_Ellipsis) ++ellipses;
        else if (!p.is_none()) ++named;
        if (is_integer_index(p)) ++integers;
    }
    if (ellipses > 1) throw nb::index_error("an index can only have a single ellipsis ('...')");
    if (named > a.ndim()) throw nb::index_error(("too many indices for " + a.describe()).c_str());
    if (integers == a.ndim() && static_cast<int>(parts.size()) == a.ndim()) {
        int64_t off = 0;
        for (int d = 0; d < a.ndim(); ++d) off += checked_index(parts[d], a.shape()[d], d) * a.strides()[d];
        if (a.element().shape.empty()) {
            // One number: only its bytes come back from a device.
            const int64_t at = a.byte_offset() + off * size_of(a.dtype());
            const auto& storage = *a.storage();
            if (storage.device) {
                nb::gil_scoped_release waiting;
                storage.device->peek(storage.data, static_cast<size_t>(at), size_of(a.dtype()));
            }
            return element(a, storage.data + at);
        }
        host_ready(a);
        // A vector or matrix element: a NumPy array of its own (a copy).
        Array one(a.storage(), a.byte_offset() + off * size_of(a.dtype()), a.dtype(), {}, {}, a.element());
        return numpy_view(nb::cast(one.scalars())).attr("copy")();
    }
    std::vector<Array::Range> ranges;
    std::vector<int> drop;      // dimensions of `a` an integer selects
    std::vector<int> new_axes;  // positions in the view, ascending
    int d = 0, out = 0;
    auto whole = [&] {
        ranges.push_back({0, 1, a.shape()[d]});
        ++d, ++out;
    };
    for (auto p : parts) {
        if (p.ptr() == Py_Ellipsis) {
            for (int k = named; k < a.ndim(); ++k) whole();
        } else if (p.is_none()) {
            new_axes.push_back(out++);
        } else if (PySlice_Check(p.ptr())) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(p.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
            Py_ssize_t extent = PySlice_AdjustIndices(a.shape()[d], &start, &stop, step);
            ranges.push_back({start, step, extent});
            ++d, ++out;
        } else {
            ranges.push_back({checked_index(p, a.shape()[d], d), 1, 1});
            drop.push_back(d++);
        }
    }
    while (d < a.ndim()) whole();
    Array view = a.slice(ranges);
    for (auto it = drop.rbegin(); it != drop.rend(); ++it) view = view.select(*it, 0);
    for (int at : new_axes) view = view.new_axis(at);
    return nb::cast(std::move(view));
}

// NumPy's transpose: a.transpose() reverses the dimensions; a.transpose(1,
// 0, 2) and a.transpose((1, 0, 2)) permute them (negative axes count from
// the end).
Array transpose(const Array& a, nb::args given) {
    nb::handle listed = given.size() == 1 && !is_integer_index(given[0]) && !given[0].is_none() ? given[0] : given;
    std::vector<int> axes;
    if (given.size() == 0 || (given.size() == 1 && given[0].is_none())) {
        for (int d = a.ndim(); d-- > 0;) axes.push_back(d);
    } else {
        if (static_cast<int>(nb::len(listed)) != a.ndim())
            throw nb::value_error(("transpose(): axes don't match " + a.describe()).c_str());
        for (auto h : listed) {
            auto d = position_in(h, a.ndim(), "transpose() takes integer axes, not ");
            if (!d)
                throw nb::value_error(("transpose(): axis " + nb::cast<std::string>(nb::str(h)) +
                                       " is out of bounds for " + a.describe())
                                          .c_str());
            axes.push_back(static_cast<int>(*d));
        }
    }
    try {
        return a.transpose(axes);
    } catch (const std::invalid_argument& e) {
        throw nb::value_error(("transpose(): axes don't match " + a.describe()).c_str());
    }
}

// A Python int (bool included) or float, or a NumPy integer, bool or float
// scalar: not a complex number, whose imaginary part a fill would drop.
bool is_number(nb::handle v) {
    PyObject* o = v.ptr();
    if (PyLong_Check(o) || PyFloat_Check(o)) return true;
    const char k = numpy_scalar_kind(o);
    return k == 'i' || k == 'u' || k == 'f' || k == 'b';
}

// One number into every scalar of `a`, converted as a cast would.
void fill_number(Array& a, nb::handle given) {
    // A NumPy scalar's Python number, held for as long as it is read.
    nb::object item;
    nb::handle v = given;
    if (!PyLong_Check(v.ptr()) && !PyFloat_Check(v.ptr())) {
        item = given.attr("item")();
        v = item;
    }
    if (is_float(a.dtype())) {
        a.fill_float(nb::cast<double>(v));
        return;
    }
    // An integer array takes the integers of its type, as NumPy 2 does: a
    // value outside them is an OverflowError, never wrapped into range.
    const int bits = size_of(a.dtype()) * 8;
    const bool is_signed = is_signed_int(a.dtype());
    auto out_of_range = [&] {
        PyErr_SetString(PyExc_OverflowError, ("Python integer " + nb::cast<std::string>(nb::str(v)) +
                                              " out of bounds for " + std::string(name_of(a.dtype())))
                                                 .c_str());
        throw nb::python_error();
    };
    if (PyLong_Check(v.ptr())) {
        int overflow = 0;
        const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow > 0) {
            // 2**63 and above: only a u64 array holds them, up to 2**64 - 1.
            const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
            if (PyErr_Occurred()) {
                PyErr_Clear();
                out_of_range();
            }
            if (is_signed || bits != 64) out_of_range();
            a.fill_uint(u);
            return;
        }
        if (overflow < 0) out_of_range();
        const bool fits = is_signed ? (bits == 64 || (x >= -(1LL << (bits - 1)) && x < (1LL << (bits - 1))))
                                    : (x >= 0 && (bits == 64 || x < (1LL << bits)));
        if (!fits) out_of_range();
        a.fill_int(x);
        return;
    }
    const double d = nb::cast<double>(v);
    if (!std::isfinite(d) || d != std::trunc(d))
        throw nb::type_error(("cannot fill an integer array with " + std::to_string(d)).c_str());
    // Integral and finite: the integer it is, checked as one.
    fill_number(a, nb::int_(nb::float_(d)));
}

// A number sets every scalar; an array of vector or matrix elements also
// takes one element's value (a list, tuple or NumPy array of its shape).
void fill(Array& a, nb::handle v) {
    host_ready(a);
    const auto& shape = a.element().shape;
    if (is_number(v)) {
        fill_number(a, v);
        return;
    }
    std::string type_name = nb::cast<std::string>(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(v.ptr()))).attr("__name__"));
    if (shape.empty())
        throw nb::type_error(("fill() of " + a.describe() + " takes a number, not " + type_name).c_str());
    nb::object value;
    try {
        value = nb::module_::import_("numpy").attr("asarray")(v);
    } catch (nb::python_error&) {
        throw nb::type_error(("fill() of " + a.describe() + " takes a number or one element's value, not " + type_name).c_str());
    }
    auto value_shape = nb::cast<std::vector<int64_t>>(value.attr("shape"));
    std::string kind = nb::cast<std::string>(value.attr("dtype").attr("kind"));
    if (kind != "i" && kind != "u" && kind != "f" && kind != "b")
        throw nb::type_error(("fill() of " + a.describe() + " takes numbers, not " + nb::cast<std::string>(nb::repr(v))).c_str());
    if (value_shape != std::vector<int64_t>(shape.begin(), shape.end())) {
        std::string want = "(";
        for (size_t d = 0; d < shape.size(); ++d) want += (d ? ", " : "") + std::to_string(shape[d]);
        want += shape.size() == 1 ? ",)" : ")";
        throw nb::value_error(("fill() of " + a.describe() + " takes a number or numbers of shape " + want + ", not " +
                               nb::cast<std::string>(nb::repr(v)))
                                  .c_str());
    }
    nb::object flat = value.attr("reshape")(-1);
    Array all = a.scalars();  // the element grid, then the element's own dimensions
    int grid = all.ndim() - static_cast<int>(shape.size());
    for (int k = 0; k < a.components(); ++k) {
        Array component = all;
        int rest = k;
        for (size_t d = 0; d < shape.size(); ++d) {
            int below = 1;
            for (size_t e = d + 1; e < shape.size(); ++e) below *= shape[e];
            component = component.select(grid, rest / below);
            rest %= below;
        }
        fill_number(component, flat[k]);
    }
}

// An extent as a shape or reshape gives it: a Python or NumPy integer
// (anything with __index__) of 64 bits; a float is a TypeError, as in
// NumPy, not an extent truncated from it.
int64_t extent_arg(nb::handle h) {
    PyObject* index = PyNumber_Index(h.ptr());
    if (!index) {
        PyErr_Clear();
        throw nb::type_error(("an array extent is an integer, not " + nb::cast<std::string>(nb::repr(h))).c_str());
    }
    nb::object i = nb::steal(index);
    int overflow = 0;
    const long long e = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow)
        throw nb::value_error(
            ("an array extent must be an integer below 2**63, not " + nb::cast<std::string>(nb::str(i))).c_str());
    return e;
}

// Extents as given: one integer, or a sequence of them (an integer
// array's elements included).
std::vector<int64_t> extents_arg(nb::handle shape) {
    std::vector<int64_t> out;
    // (PyIndex_Check asks without raising, as PyNumber_Index would for a
    // tuple; an integer NumPy array has __index__ but is a sequence.)
    if (PyIndex_Check(shape.ptr())) {
        if (PyObject* one = PyNumber_Index(shape.ptr())) {
            Py_DECREF(one);
            out.push_back(extent_arg(shape));
            return out;
        }
        PyErr_Clear();
    }
    if (!PyObject_HasAttrString(shape.ptr(), "__iter__"))
        throw nb::type_error(("a shape is an integer or a sequence of integers, not " +
                              nb::cast<std::string>(nb::repr(shape)))
                                 .c_str());
    for (auto h : shape) out.push_back(extent_arg(h));
    return out;
}

std::vector<int64_t> shape_arg(nb::handle shape) {
    std::vector<int64_t> out = extents_arg(shape);
    for (auto e : out)
        if (e < 0) throw nb::value_error("array extents must be nonnegative");
    return out;
}

// Read-only arrays give read-only NumPy views, so host code cannot write
// through the view what a kernel may not. An array of vector or matrix
// elements is viewed as its scalars, (*shape, n) or (*shape, rows, cols),
// in either layout.
// An array shared with another library on its device is viewed read-only:
// the view is a snapshot, and the device holds the data (bind_device_memory).
// `for_writing` is copyto's view, which sends what it wrote to the device.
nb::object numpy_view(nb::handle self, bool for_writing) {
    Array a = nb::cast<Array&>(self).scalars();
    host_ready(a);
    std::vector<size_t> shape(a.shape().begin(), a.shape().end());
    std::vector<int64_t> strides = a.strides();
    const bool shared = a.storage()->device && a.storage()->device->shared();
    if (a.readonly() || (shared && !for_writing))
        return nb::cast(nb::ndarray<nb::numpy, nb::ro>(a.data(), shape.size(), shape.data(), self, strides.data(),
                                                       dlpack_dtype(a.dtype())));
    return nb::cast(
        nb::ndarray<nb::numpy>(a.data(), shape.size(), shape.data(), self, strides.data(), dlpack_dtype(a.dtype())));
}

}  // namespace

std::shared_ptr<void> keep_alive(nb::handle h) {
    h.inc_ref();
    return std::shared_ptr<void>(h.ptr(), [](void* p) {
        if (!Py_IsInitialized()) return;
        nb::gil_scoped_acquire gil;
        Py_DECREF(static_cast<PyObject*>(p));
    });
}

namespace {

// tack.array_from_ptr(address, shape, dtype, strides=None, readonly=True,
// owner=None, device="cpu", stream=None)
Array from_ptr(uintptr_t address, nb::handle shape, nb::handle dtype, nb::handle strides, bool readonly,
               nb::handle owner, const std::string& device, nb::handle stream) {
    DType t = dtype_from_object(dtype);
    if (device != "cpu") return device_from_ptr(device, address, shape_arg(shape), t, strides, readonly, owner, stream);
    if (!stream.is_none())
        throw nb::value_error("array_from_ptr: host memory takes stream=None; there is no stream to wait for");
    std::vector<int64_t> extents = shape_arg(shape);
    std::vector<int64_t> strides_in_elements = element_strides(strides, t, extents.size(), "array_from_ptr");
    std::shared_ptr<void> keep;
    if (!owner.is_none()) keep = keep_alive(owner);
    try {
        return Array::external(reinterpret_cast<char*>(address), t, extents, strides_in_elements, readonly, keep);
    } catch (const std::invalid_argument& e) {
        throw nb::value_error((std::string("array_from_ptr: ") + e.what()).c_str());
    }
}

}  // namespace

DLPackView read_dlpack(nb::handle source, int device, const char* cannot_read) {
    // A writable import first: it fails exactly when the producer flags its
    // memory read-only (or cannot export at all, which the read-only attempt
    // then reports).
    nb::ndarray<> view;
    DLPackView out;
    if (!nb::try_cast(source, view, false)) {
        nb::ndarray<nb::ro> ro_view;
        if (!nb::try_cast(source, ro_view, false)) throw nb::type_error(cannot_read);
        view = nb::ndarray<>(ro_view.handle());
        out.readonly = true;
    }
    if (view.device_type() != device) throw nb::type_error(cannot_read);
    auto t = from_dlpack_dtype(view.dtype());
    if (!t)
        throw nb::type_error(
            "from_dlpack: unsupported element type; Tack arrays hold i8..i64, u8..u64, f32, f64 (one lane each)");
    out.dtype = *t;
    out.data = view.data();
    for (size_t d = 0; d < view.ndim(); ++d) {
        out.shape.push_back(static_cast<int64_t>(view.shape(d)));
        out.strides.push_back(view.stride(d));
    }
    auto keep = std::make_shared<nb::ndarray<>>(view);
    out.owner = std::shared_ptr<void>(keep.get(), [keep](void*) mutable {
        if (!Py_IsInitialized()) return;
        nb::gil_scoped_acquire gil;
        keep.reset();
    });
    return out;
}

namespace {

// The DLPack device of a producer that has __dlpack_device__, or kDLCPU.
std::pair<int, int> producer_device(nb::handle obj) {
    if (!nb::hasattr(obj, "__dlpack_device__")) return {nb::device::cpu::value, 0};
    nb::object d = obj.attr("__dlpack_device__")();
    nb::tuple pair;
    int type = 0, id = 0;
    if (!nb::try_cast(d, pair) || pair.size() != 2 || !nb::try_cast(pair[0], type) || !nb::try_cast(pair[1], id))
        throw nb::type_error(("from_dlpack: __dlpack_device__() returned " + nb::cast<std::string>(nb::repr(d)) +
                              ", not a (device type, device id) pair of integers")
                                 .c_str());
    return {type, id};
}

// tack.from_dlpack(obj): zero-copy import of host memory, read-only when
// the producer flags it so; memory on a GPU goes to bind_device_memory.
Array from_dlpack(nb::handle obj) {
    if (!nb::hasattr(obj, "__dlpack__") && !PyCapsule_CheckExact(obj.ptr()))
        throw nb::type_error(("from_dlpack: expected an object with __dlpack__ (a NumPy array, a PyTorch tensor, ...), "
                              "not " + nb::cast<std::string>(nb::str(obj.type().attr("__name__"))))
                                 .c_str());
    auto [device, device_id] = producer_device(obj);
    if (device != nb::device::cpu::value) return device_from_dlpack(obj, device, device_id);
    DLPackView v = read_dlpack(obj, nb::device::cpu::value,
                               "from_dlpack: the object did not export a host DLPack tensor that tack can view");
    return Array::external(static_cast<char*>(v.data), v.dtype, v.shape, v.strides, v.readonly, v.owner);
}

}  // namespace

nb::object exported(nb::handle self, const Array& a, void* data, int device, int ordinal) {
    std::vector<size_t> shape(a.shape().begin(), a.shape().end());
    std::vector<int64_t> strides = a.strides();
    if (a.readonly())
        return nb::cast(nb::ndarray<nb::array_api, nb::ro>(data, shape.size(), shape.data(), self, strides.data(),
                                                           dlpack_dtype(a.dtype()), device, ordinal),
                        nb::rv_policy::reference);
    return nb::cast(nb::ndarray<nb::array_api>(data, shape.size(), shape.data(), self, strides.data(),
                                               dlpack_dtype(a.dtype()), device, ordinal),
                    nb::rv_policy::reference);
}

std::vector<int64_t> element_strides(nb::handle strides, DType t, size_t ndim, const char* who) {
    std::vector<int64_t> out;
    if (strides.is_none()) return out;
    const int64_t es = size_of(t);
    for (auto h : strides) {
        int64_t b = nb::cast<int64_t>(h);
        if (b % es != 0)
            throw nb::value_error((std::string(who) + ": stride " + std::to_string(b) + " bytes is not a multiple of the " +
                                   std::to_string(es) + "-byte " + std::string(name_of(t)) + " element")
                                      .c_str());
        out.push_back(b / es);
    }
    if (out.size() != ndim)
        throw nb::value_error((std::string(who) + ": give one stride per dimension of the shape").c_str());
    return out;
}

namespace {

nb::tuple dlpack_device(const Array& a) {
    if (backends::Backend* b = addressable_backend(a))
        return nb::make_tuple(b->shared_memory().dlpack_device, b->shared_memory().ordinal);
    return nb::make_tuple(nb::device::cpu::value, 0);
}

nb::object dlpack(nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                  nb::handle copy) {
    const Array& a = nb::cast<const Array&>(self);
    if (!copy.is_none() && nb::cast<bool>(copy))
        throw nb::buffer_error("Array.__dlpack__: copy=True is not supported; the export shares the array's memory");
    bool versioned = !max_version.is_none() && nb::cast<int>(nb::cast<nb::tuple>(max_version)[0]) >= 1;
    // A consumer of the unversioned format cannot see a read-only flag and
    // would write to the memory (the DLPack protocol says to refuse).
    if (a.readonly() && !versioned)
        throw nb::buffer_error(
            "Array.__dlpack__: this array is read-only, and a consumer without max_version >= (1, 0) cannot be told");
    if (backends::Backend* b = addressable_backend(a)) {
        if (!dl_device.is_none() && !dl_device.equal(dlpack_device(a)))
            throw nb::buffer_error("Array.__dlpack__: the array's memory is on its device; dl_device asks for another");
        return device_dlpack(self, *b, stream, max_version);
    }
    if (!stream.is_none() && !(PyLong_Check(stream.ptr()) && nb::cast<int64_t>(stream) == -1))
        throw nb::value_error("Array.__dlpack__: host memory takes stream=None; there is no stream to synchronize");
    const Array scalars = a.scalars();
    host_ready(scalars);
    nb::object nd = exported(self, scalars, scalars.data(), nb::device::cpu::value, 0);
    nb::dict kw;
    if (!max_version.is_none()) kw["max_version"] = max_version;
    if (!dl_device.is_none()) kw["dl_device"] = dl_device;
    return nd.attr("__dlpack__")(**kw);
}

// Vector and matrix arrays reduce over every component. An array on a
// device reduces there where its backend can (f32 on OpenCL); otherwise its
// bytes come back to the host.
template <double (*F)(const Array&), backends::ReduceOp Op>
double reduce(const Array& a) {
    Array scalars = a.scalars();
    backends::Backend* device = scalars.size() ? backend_of(scalars) : nullptr;
    nb::gil_scoped_release release;
    if (device)
        if (auto r = device->reduce(scalars, Op)) return *r;
    return F(scalars);
}

runtime::Layout layout_arg(const std::string& layout) {
    if (layout == "aos") return runtime::Layout::Interleaved;
    if (layout == "soa") return runtime::Layout::Soa;
    throw nb::value_error(("layout must be \"aos\" (interleaved) or \"soa\" (a structure of arrays), not \"" +
                           layout + "\"").c_str());
}

}  // namespace

nb::object dtype_object(DType t) {
    auto& o = dtype_objects[static_cast<int>(t)];
    if (!o.is_valid()) return nb::str(std::string(name_of(t)).c_str());
    return o;
}

nb::object array_dtype_object(const Array& a) {
    if (a.element().shape.empty() || !element_type_factory.is_valid()) return dtype_object(a.dtype());
    nb::list shape;
    for (int e : a.element().shape) shape.append(e);
    return element_type_factory(dtype_object(a.dtype()), nb::tuple(shape));
}

DType dtype_from_object(nb::handle h) {
    // (A name first: asking a str for _tack_dtype would raise and clear an
    // AttributeError on every array creation.)
    if (!nb::isinstance<nb::str>(h) && nb::hasattr(h, "_tack_dtype")) h = h.attr("_tack_dtype");
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
    m.def("_set_element_type_factory", [](nb::object f) { element_type_factory = std::move(f); });
    m.def("array_from_ptr", &from_ptr, nb::arg("address"), nb::arg("shape"), nb::arg("dtype"),
          nb::arg("strides") = nb::none(), nb::arg("readonly") = true, nb::arg("owner") = nb::none(),
          nb::arg("device") = "cpu", nb::arg("stream") = nb::none(),
          "An array viewing external memory at `address` (no copy): host memory, or device memory of 'cuda' or "
          "'hip'. Strides are in bytes, row-major when omitted. The caller keeps the memory alive, or passes "
          "`owner`, an object the array keeps referenced.");
    m.def("from_dlpack", &from_dlpack, nb::arg("obj"),
          "An array sharing the memory of any object with __dlpack__ (no copy), on the host or on a CUDA or ROCm "
          "device; read-only when the producer marks it so.");
    m.def("_array_sum", &reduce<runtime::array_sum, backends::ReduceOp::Sum>);
    m.def("_array_min", &reduce<runtime::array_min, backends::ReduceOp::Min>);
    m.def("_array_max", &reduce<runtime::array_max, backends::ReduceOp::Max>);
    m.def("_worker_count", &runtime::worker_count, "Threads the CPU runtime's parallel loops use.");

    nb::class_<Array>(m, "Array",
                      "Typed, shaped storage on a device. Create arrays with tack.zeros, tack.array and friends.")
        .def_static("_empty", [](nb::handle shape, nb::handle dtype, std::vector<int> element_shape,
                                 const std::string& layout, const std::string& device) {
            Array a = Array::empty(shape_arg(shape), dtype_from_object(dtype), std::move(element_shape),
                                   layout_arg(layout));
            place_on(a, device);
            return a;
        })
        .def_static("_copy_of", [](nb::ndarray<nb::ro, nb::c_contig> src, const std::string& device) {
            auto t = from_dlpack_dtype(src.dtype());
            if (!t) throw nb::type_error("unsupported NumPy dtype; Tack arrays hold i8..i64, u8..u64, f32, f64");
            std::vector<int64_t> shape;
            for (size_t d = 0; d < src.ndim(); ++d) shape.push_back(static_cast<int64_t>(src.shape(d)));
            Array a = Array::empty(shape, *t);
            if (src.nbytes()) std::memcpy(a.data(), src.data(), src.nbytes());
            place_on(a, device);
            return a;
        })
        .def_prop_ro("shape", [](const Array& a) {
            nb::list l;
            for (auto e : a.shape()) l.append(e);
            return nb::tuple(l);
        })
        .def_prop_ro("dtype", &array_dtype_object,
                     "The element type: a scalar dtype, or a vector or matrix type such as tack.vec3f.")
        .def_prop_ro("element_shape", [](const Array& a) {
            nb::list l;
            for (auto e : a.element().shape) l.append(e);
            return nb::tuple(l);
        }, "() for numbers, (n,) for vector elements, (rows, cols) for matrix elements.")
        .def_prop_ro("layout", [](const Array& a) {
            return a.element().layout == runtime::Layout::Soa ? "soa" : "aos";
        }, "\"aos\" (interleaved components) or \"soa\" (a structure of arrays).")
        .def_prop_ro("ndim", &Array::ndim)
        .def_prop_ro("size", &Array::size)
        .def_prop_ro("strides", [](const Array& a) {
            nb::list l;
            for (auto e : a.strides()) l.append(e * size_of(a.dtype()));
            return nb::tuple(l);
        }, "Byte strides, as NumPy reports them.")
        .def_prop_ro("_element_strides", [](const Array& a) { return a.strides(); },
                     "Strides in elements, a list (tack.tile's views).")
        .def_prop_ro("is_contiguous", &Array::contiguous)
        .def_prop_ro("readonly", &Array::readonly)
        .def_prop_ro("device", [](const Array& a) { return a.storage()->device_name(); },
                     "The backend the array belongs to: \"cpu\", \"opencl\".")
        .def_prop_ro(
            "ptr",
            [](const Array& a) -> uint64_t {
                // On CUDA and HIP the device address, as __cuda_array_interface__ gives it.
                if (backends::Backend* backend = addressable_backend(a))
                    return backend->share(*a.storage()) + static_cast<uint64_t>(a.byte_offset());
                host_ready(a);
                return reinterpret_cast<uintptr_t>(a.data());
            },
            "The address of the first element: the device address of an array on 'cuda' or 'hip' (what "
            "__cuda_array_interface__ and DLPack give), otherwise host memory (on 'opencl', the host copy, "
            "after the queued launches that write it).")
        .def_prop_ro(
            "_address",
            // ptr's address, with nothing moved and the array's device copy
            // left as it is (ptr makes it current and, on CUDA and HIP, shared).
            &element_address,
            "Where the first element lies, for tests of overlap between arrays of one device: ptr's address "
            "without its effects.")
        .def("__len__", [](const Array& a) {
            if (a.ndim() == 0) throw nb::type_error("len() of a 0-d array");
            return a.shape()[0];
        })
        .def("__getitem__", &getitem, nb::arg("key").none())
        .def("__setitem__", [](const Array&, nb::handle, nb::handle) {
            throw nb::type_error("host code may not write array elements; use a kernel, fill() or tack.copyto()");
        })
        .def("reshape", [](const Array& a, nb::args shape) {
            // One extent may be -1, inferred from the others.
            std::vector<int64_t> out = shape.size() == 1 ? extents_arg(shape[0]) : extents_arg(shape);
            try {
                return a.reshape(out);
            } catch (const std::invalid_argument& e) {
                throw nb::value_error(e.what());
            }
        })
        .def("transpose", &transpose,
             "A view with the dimensions permuted as NumPy's transpose does: reversed without arguments, "
             "else dimension d of the view is axes[d] (given as one sequence or as arguments).")
        .def_prop_ro("T", [](const Array& a) { return transpose(a, nb::args()); },
                     "The view with the dimensions reversed (transpose()).")
        .def("fill", &fill, nb::arg("value"), "Sets every element to value.")
        .def("numpy", [](nb::handle self) { return numpy_view(self, false); },
             "A NumPy array viewing the same memory (no copy); vector and matrix elements add their own "
             "dimensions after the array's.")
        .def("__dlpack__", &dlpack, nb::arg("stream") = nb::none(), nb::kw_only(), nb::arg("max_version") = nb::none(),
             nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none(),
             "A DLPack capsule sharing this array's memory; read-only arrays are flagged so.")
        .def("__dlpack_device__", &dlpack_device,
             "(kDLCUDA, 0) or (kDLROCM, 0) for an array on 'cuda' or 'hip', (kDLCPU, 0) for the others.")
        .def_prop_ro("__cuda_array_interface__", &cuda_array_interface,
                     "The array's device memory (version 3), on 'cuda' and 'hip'; naming it shares the memory: "
                     "NumPy views become read-only snapshots and host reads fetch the device's bytes.")
        .def("_host_view", [](nb::handle self) { return numpy_view(self, true); },
             "copyto's writable NumPy view; call _host_written() after writing through it.")
        .def("_host_written", [](const Array& a) { a.scalars().written_on_host(); })
        .def_prop_ro("__array_interface__", [](nb::handle self) {
            const Array a = nb::cast<const Array&>(self).scalars();
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
            host_ready(a);
            const bool shared = a.storage()->device && a.storage()->device->shared();
            d["data"] = nb::make_tuple(reinterpret_cast<uintptr_t>(a.data()), a.readonly() || shared);
            d["version"] = 3;
            return d;
        })
        .def("__repr__", [](const Array& a) { return "tack." + a.describe(); });
}

}  // namespace tack::python
