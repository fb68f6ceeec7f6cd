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

FlatInstance flatten_instance(nb::handle obj) {
    nb::tuple r = nb::cast<nb::tuple>(templates_module().attr("flatten")(obj));
    FlatInstance out;
    out.info = info_of(nb::cast<uint32_t>(r[0]));
    out.leaves = nb::cast<nb::list>(r[1]);
    return out;
}

}  // namespace tack::python
