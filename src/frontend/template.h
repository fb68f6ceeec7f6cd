// Device-class templates: what lowering knows of an instance argument.
//
// An instance passed to a kernel arrives as one marker parameter followed by
// its leaves: the runtime values of its instance attributes (arrays,
// numbers, the numbers of tuples, nested instances' leaves), each an
// ordinary array or scalar parameter. Everything else about the instance is
// compiled into the code and described here: class-level constants,
// methods, device functions it holds. The Python package builds the
// description (tack/_templates.py); equal descriptions share an id, which
// joins the variant key. Descriptions live as long as the process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/resolver.h"

namespace tack::frontend {

struct TemplateInfo;

struct TemplateMember {
    enum class Kind {
        Array,      // an array attribute: leaf `leaf`
        Scalar,     // a number attribute: leaf `leaf`
        Tuple,      // a tuple of numbers: leaves `leaf` .. `leaf + count - 1`
        Object,     // a nested instance whose leaves start at `leaf`
        Method,     // a @tack.func called with `self` bound: `resolution.function`
        Static,     // a constant, dtype, held device function or unusable value: `resolution`
        Constants,  // a class-level tuple of constants: `items`
    };
    Kind kind = Kind::Static;
    int leaf = 0;
    int count = 0;
    std::shared_ptr<const TemplateInfo> object;  // Object
    Resolution resolution;                       // Method, Static
    std::vector<Resolution> items;               // Constants
};

struct TemplateInfo {
    uint32_t id = 0;          // the signature id (unique within the process)
    std::string class_name;   // for messages
    // Instance attributes first, then class attributes in method resolution
    // order, as Python looks them up.
    std::vector<std::pair<std::string, TemplateMember>> members;
    // Every leaf of the instance, nested instances' included, by its dotted
    // path ("data", "shape[1]", "grid.values"); leaf indices count from 0.
    std::vector<std::string> leaf_names;
    // The signature as text equal across processes exactly when the
    // signatures are (the disk cache's key); set on the outermost instance.
    std::string content;

    const TemplateMember* find(const std::string& name) const {
        for (auto& [n, m] : members)
            if (n == name) return &m;
        return nullptr;
    }
    int leaf_count() const { return static_cast<int>(leaf_names.size()); }
};

}  // namespace tack::frontend
