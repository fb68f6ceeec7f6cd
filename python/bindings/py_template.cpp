#include "py_template.h"

#include <nanobind/stl/string.h>

#include <memory>
#include <unordered_map>

#include "py_resolver.h"

namespace tack::python {

namespace {

// tack._templates, imported on first use (the package imports _core first).
nb::object& templates_module() {
    static nb::object* m = new nb::object(nb::module_::import_("tack._templates"));
    return *m;
}

std::shared_ptr<frontend::TemplateInfo> info_from(nb::handle class_name, nb::handle members) {
    auto info = std::make_shared<frontend::TemplateInfo>();
    info->class_name = nb::cast<std::string>(class_name);
    using M = frontend::TemplateMember;
    for (nb::handle entry : members) {
        nb::tuple e = nb::cast<nb::tuple>(entry);
        std::string name = nb::cast<std::string>(e[0]);
        std::string kind = nb::cast<std::string>(e[1]);
        M m;
        if (kind == "array" || kind == "scalar") {
            m.kind = kind == "array" ? M::Kind::Array : M::Kind::Scalar;
            m.leaf = nb::cast<int>(e[2]);
        } else if (kind == "tuple") {
            m.kind = M::Kind::Tuple;
            m.leaf = nb::cast<int>(e[2]);
            m.count = nb::cast<int>(e[3]);
        } else if (kind == "object") {
            m.kind = M::Kind::Object;
            m.leaf = nb::cast<int>(e[2]);
            nb::tuple nested = nb::cast<nb::tuple>(e[3]);
            m.object = info_from(nested[0], nested[1]);
        } else if (kind == "method" || kind == "static") {
            m.kind = kind == "method" ? M::Kind::Method : M::Kind::Static;
            m.resolution = resolution_from(e[2]);
        } else if (kind == "constants") {
            m.kind = M::Kind::Constants;
            for (nb::handle c : e[2]) m.items.push_back(resolution_from(c));
        } else {
            throw std::logic_error("unknown device-class member kind " + kind);
        }
        info->members.emplace_back(std::move(name), std::move(m));
    }
    return info;
}

const frontend::TemplateInfo* info_of(uint32_t id) {
    // Descriptions by signature id; they live as long as the process, as the
    // signatures do.
    static auto* infos = new std::unordered_map<uint32_t, std::shared_ptr<frontend::TemplateInfo>>();
    auto it = infos->find(id);
    if (it != infos->end()) return it->second.get();
    nb::tuple d = nb::cast<nb::tuple>(templates_module().attr("describe")(id));
    auto info = info_from(d[0], d[1]);
    info->id = id;
    for (nb::handle leaf : d[2]) info->leaf_names.push_back(nb::cast<std::string>(leaf));
    info->content = nb::cast<std::string>(templates_module().attr("content")(id));
    return infos->emplace(id, std::move(info)).first->second.get();
}

}  // namespace

bool is_device_instance(nb::handle obj) {
    PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()));
    PyObject* mark = PyObject_GetAttrString(type, "__tack_device_class__");
    if (!mark) {
        PyErr_Clear();
        return false;
    }
    bool yes = mark == Py_True;
    Py_DECREF(mark);
    return yes;
}

namespace {

// ---- The fast path
//
// tack/_templates.py defines an instance's signature. This reads the same
// facts in C++ into a byte key, and asks Python for the signature id only
// the first time a key is seen, so a cached call costs a walk over the
// instance's attributes. The key holds pointers only of objects the Python
// signature keeps alive (classes through their class part, held device
// functions), so a pointer in a key never comes to mean another object.

// A class as last seen: its MRO and, along it (without `object`), every
// key and value of the class dictionaries, by identity; and the id of the
// class-level part of signatures Python gave for them.
struct ClassSnapshot {
    nb::object mro;
    std::vector<nb::object> entries;  // key, value, key, value ... class by class
    std::vector<size_t> sizes;        // entries per class dictionary
    uint32_t part = 0;
    bool slots = false;               // some class declares __slots__: Python reads it
};

struct FastPath {
    std::unordered_map<PyTypeObject*, ClassSnapshot> classes;  // types are kept alive by Python's class parts
    std::unordered_map<std::string, uint32_t> ids;
    nb::object device_function;  // tack._decorators.DeviceFunction
    nb::object storage;          // (Array, Texture3D)
    nb::object describe;         // tack._resolver.describe
};

FastPath& fast() {
    static FastPath* f = [] {
        auto* p = new FastPath();
        p->device_function = nb::module_::import_("tack._decorators").attr("DeviceFunction");
        nb::object core = nb::module_::import_("tack._core");
        p->storage = nb::make_tuple(core.attr("Array"), core.attr("Texture3D"));
        p->describe = nb::module_::import_("tack._resolver").attr("describe");
        return p;
    }();
    return *f;
}

bool same_class(const ClassSnapshot& s, PyTypeObject* type) {
    PyObject* mro = type->tp_mro;
    if (mro != s.mro.ptr()) return false;
    Py_ssize_t classes = PyTuple_GET_SIZE(mro) - 1;
    if (static_cast<size_t>(classes) != s.sizes.size()) return false;
    size_t at = 0;
    for (Py_ssize_t k = 0; k < classes; ++k) {
        PyObject* dict = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(mro, k))->tp_dict;
        if (!dict || static_cast<size_t>(PyDict_GET_SIZE(dict)) != s.sizes[k]) return false;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(dict, &pos, &key, &value)) {
            if (key != s.entries[at].ptr() || value != s.entries[at + 1].ptr()) return false;
            at += 2;
        }
    }
    return true;
}

const ClassSnapshot& class_of(PyTypeObject* type) {
    FastPath& f = fast();
    auto it = f.classes.find(type);
    if (it != f.classes.end() && same_class(it->second, type)) return it->second;
    ClassSnapshot s;
    s.mro = nb::borrow(type->tp_mro);
    Py_ssize_t classes = PyTuple_GET_SIZE(type->tp_mro) - 1;
    for (Py_ssize_t k = 0; k < classes; ++k) {
        PyObject* dict = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(type->tp_mro, k))->tp_dict;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        size_t n = 0;
        while (dict && PyDict_Next(dict, &pos, &key, &value)) {
            s.entries.push_back(nb::borrow(key));
            s.entries.push_back(nb::borrow(value));
            ++n;
            if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "__slots__") == 0) s.slots = true;
        }
        s.sizes.push_back(n);
    }
    s.part = nb::cast<uint32_t>(templates_module().attr("_class_part")(nb::handle(reinterpret_cast<PyObject*>(type))));
    return f.classes[type] = std::move(s);
}

bool is_number(PyObject* o) {
    if (PyLong_Check(o) || PyFloat_Check(o)) return true;
    const char k = numpy_scalar_kind(o);
    return k == 'i' || k == 'u' || k == 'f';
}

bool all_numbers(PyObject* tuple) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(tuple); ++k)
        if (!is_number(PyTuple_GET_ITEM(tuple, k))) return false;
    return true;
}

void append(std::string& key, const void* data, size_t n) { key.append(static_cast<const char*>(data), n); }

template <typename T>
void append(std::string& key, T v) { append(key, &v, sizeof v); }

void append_text(std::string& key, PyObject* text) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(text, &n);
    if (!s) throw nb::python_error();
    append(key, static_cast<uint64_t>(n));
    append(key, s, static_cast<size_t>(n));
}

// Appends one instance's key and leaves; false when Python must read it
// (slots, a cycle, an attribute name that is not a string).
bool read_fast(PyObject* obj, std::string& key, FlatInstance& out, std::vector<PyObject*>& within) {
    FastPath& f = fast();
    const ClassSnapshot& cls = class_of(Py_TYPE(obj));
    if (cls.slots) return false;
    append(key, cls.part);
    PyObject* dict = PyObject_GenericGetDict(obj, nullptr);
    if (!dict) {
        PyErr_Clear();
        return false;
    }
    out.keep.push_back(nb::steal(dict));
    Py_ssize_t pos = 0;
    PyObject *name, *value;
    while (PyDict_Next(dict, &pos, &name, &value)) {
        if (!PyUnicode_Check(name)) return false;
        append_text(key, name);
        if (PyObject_IsInstance(value, f.storage.ptr()) == 1) {
            append(key, 'a');
            out.leaves.push_back(value);
        } else if (is_number(value)) {
            append(key, 's');
            out.leaves.push_back(value);
        } else if (PyTuple_Check(value) && PyTuple_GET_SIZE(value) > 0 && all_numbers(value)) {
            Py_ssize_t n = PyTuple_GET_SIZE(value);
            append(key, 't');
            append(key, static_cast<uint64_t>(n));
            for (Py_ssize_t k = 0; k < n; ++k) out.leaves.push_back(PyTuple_GET_ITEM(value, k));
        } else if (is_device_instance(value)) {
            within.push_back(obj);
            for (PyObject* outer : within)
                if (outer == value) return false;  // Python reports the cycle
            append(key, 'o');
            if (!read_fast(value, key, out, within)) return false;
            within.pop_back();
            append(key, 'e');
        } else if (PyObject_IsInstance(value, f.device_function.ptr()) == 1) {
            append(key, 'f');
            append(key, reinterpret_cast<uintptr_t>(value));
        } else {
            append(key, 'x');
            nb::object text = f.describe(nb::handle(value));
            append_text(key, text.ptr());
        }
    }
    return true;
}

}  // namespace

FlatInstance flatten_instance(nb::handle obj) {
    FlatInstance out;
    std::string key;
    std::vector<PyObject*> within;
    bool read = read_fast(obj.ptr(), key, out, within);
    if (read) {
        auto& ids = fast().ids;
        auto it = ids.find(key);
        if (it != ids.end()) {
            out.info = info_of(it->second);
            return out;
        }
    }
    // First sight of this signature (or an instance only Python reads):
    // Python's reading is the definition.
    nb::tuple r = nb::cast<nb::tuple>(templates_module().attr("flatten")(obj));
    uint32_t id = nb::cast<uint32_t>(r[0]);
    if (read) fast().ids.emplace(key, id);
    FlatInstance slow;
    slow.info = info_of(id);
    nb::list leaves = nb::cast<nb::list>(r[1]);
    for (nb::handle leaf : leaves) slow.leaves.push_back(leaf.ptr());
    slow.keep.push_back(std::move(leaves));
    return slow;
}

}  // namespace tack::python
