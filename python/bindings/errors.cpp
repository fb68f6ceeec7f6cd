// Maps compiler diagnostics and argument errors to Python exceptions.
#include <map>

#include <nanobind/stl/string.h>

#include "bindings.h"
#include "runtime/errors.h"
#include "syntax/source.h"

namespace tack::python {

namespace {

std::map<syntax::ErrorKind, nb::object>& exception_types() {
    static auto* types = new std::map<syntax::ErrorKind, nb::object>();
    return *types;
}

// tack.RaceError, once the package has named it.
nb::object& race_error_type() {
    static auto* type = new nb::object();
    return *type;
}

nb::handle type_for(syntax::ErrorKind kind) {
    auto& t = exception_types();
    auto it = t.find(kind);
    if (it != t.end()) return it->second;
    switch (kind) {
        case syntax::ErrorKind::Syntax: return PyExc_SyntaxError;
        case syntax::ErrorKind::Name: return PyExc_NameError;
        case syntax::ErrorKind::Type: return PyExc_TypeError;
        case syntax::ErrorKind::Value: return PyExc_ValueError;
        case syntax::ErrorKind::Index: return PyExc_IndexError;
        default: return PyExc_RuntimeError;
    }
}

void raise_diagnostic(const syntax::Diagnostic& d) {
    nb::handle cls = type_for(d.kind);
    nb::object exc = cls(d.render());
    int line = d.source ? d.source->first_line + d.span.line - 1 : d.span.line;
    int col = d.span.col + (d.source ? d.source->indent : 0);
    nb::setattr(exc, "message", nb::str(d.message.c_str()));
    nb::setattr(exc, "function", nb::str(d.function.c_str()));
    nb::setattr(exc, "function_kind", nb::str(d.function_kind.c_str()));
    nb::setattr(exc, "construct", nb::str(d.construct.c_str()));
    nb::setattr(exc, "hint", nb::str(d.hint.c_str()));
    nb::setattr(exc, "line", nb::int_(line));
    nb::setattr(exc, "column", nb::int_(col));
    nb::setattr(exc, "source_line", nb::int_(d.span.line));
    nb::setattr(exc, "source_column", nb::int_(d.span.col));
    if (d.source) nb::setattr(exc, "filename", nb::str(d.source->filename.c_str()));
    PyErr_SetObject(cls.ptr(), exc.ptr());
}

}  // namespace

void translate_exceptions() {
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const syntax::CompileError& e) {
            raise_diagnostic(e.diagnostic());
        } catch (const runtime::ArgumentError& e) {
            switch (e.kind()) {
                case runtime::ArgumentError::Kind::Type: PyErr_SetString(PyExc_TypeError, e.what()); break;
                case runtime::ArgumentError::Kind::Value: PyErr_SetString(PyExc_ValueError, e.what()); break;
                case runtime::ArgumentError::Kind::Index: PyErr_SetString(PyExc_IndexError, e.what()); break;
                case runtime::ArgumentError::Kind::ZeroDivision:
                    PyErr_SetString(PyExc_ZeroDivisionError, e.what());
                    break;
                case runtime::ArgumentError::Kind::Runtime: PyErr_SetString(PyExc_RuntimeError, e.what()); break;
                case runtime::ArgumentError::Kind::Race: {
                    nb::object& type = race_error_type();
                    PyErr_SetString(type.is_valid() ? type.ptr() : PyExc_RuntimeError, e.what());
                    break;
                }
            }
        }
    });
}

void bind_errors(nb::module_& m) {
    translate_exceptions();
    m.def("_set_exception_types", [](nb::dict types) {
        auto& t = exception_types();
        static const std::pair<const char*, syntax::ErrorKind> names[] = {
            {"syntax", syntax::ErrorKind::Syntax},   {"unsupported", syntax::ErrorKind::Unsupported},
            {"name", syntax::ErrorKind::Name},       {"type", syntax::ErrorKind::Type},
            {"value", syntax::ErrorKind::Value},     {"index", syntax::ErrorKind::Index},
            {"internal", syntax::ErrorKind::Internal},
        };
        for (auto& [key, kind] : names)
            if (types.contains(key)) t[kind] = nb::borrow(types[key]);
        if (types.contains("race")) race_error_type() = nb::borrow(types["race"]);
    });
}

}  // namespace tack::python
