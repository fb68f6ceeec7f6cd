#include "bindings.h"

NB_MODULE(_core, m) {
    m.doc() = "Tack's compiler and runtime";
    tack::python::bind_errors(m);
    tack::python::bind_array(m);
    tack::python::bind_kernel(m);
}
