// Device-class instances as kernel arguments: the Python package reads an
// instance into a signature id and its leaves (tack/_templates.py); this
// file turns a signature's description into a frontend::TemplateInfo.
#pragma once

#include <cstdint>

#include "bindings.h"
#include "frontend/template.h"

namespace tack::python {

// Whether `obj` is an instance of a @tack.device_class.
bool is_device_instance(nb::handle obj);

// The signature id and leaves of an instance, for one call. The leaves are
// borrowed from `keep`, which holds the containers they live in.
struct FlatInstance {
    const frontend::TemplateInfo* info = nullptr;  // lives as long as the process
    std::vector<PyObject*> leaves;
    std::vector<nb::object> keep;
};
FlatInstance flatten_instance(nb::handle obj);

}  // namespace tack::python
