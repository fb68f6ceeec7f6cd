#include "bindings.h"

NB_MODULE(_core, m) {
    m.doc() = "Tack's compiler and runtime";
    // Kernels hold their resolver, which holds the defining module's globals,
    // which hold the kernel: such cycles live until exit by design.
    nb::set_leak_warnings(false);
    tack::python::bind_errors(m);
    tack::python::bind_device(m);
    tack::python::bind_array(m);
    tack::python::bind_texture(m);
    tack::python::bind_kernel(m);
    tack::python::bind_tile(m);
}
