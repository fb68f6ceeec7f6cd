// Shared declarations of the tack._core binding files.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "backends/backend.h"
#include "runtime/array.h"

namespace nb = nanobind;

namespace tack::python {

void bind_array(nb::module_& m);
void bind_kernel(nb::module_& m);
void bind_texture(nb::module_& m);
void bind_errors(nb::module_& m);
void bind_device(nb::module_& m);

// New storage on `device` ("cpu", "opencl"): attaches the backend's device
// copy; raises RuntimeError naming what is missing when it cannot start.
void place_on(const runtime::Array& a, const std::string& device);
// Brings an array on a device current on the host with the interpreter's
// lock released (the copy waits for queued launches); nothing for the CPU.
void host_ready(const runtime::Array& a);
// The backend of an array on a device; null for an array of the CPU.
backends::Backend* backend_of(const runtime::Array& a);

// The tack.<dtype> objects the Python package registered, by DType index.
nb::object dtype_object(DType t);
DType dtype_from_object(nb::handle h);  // a tack dtype, a NumPy dtype or a name; throws TypeError

// numpy.generic, set when tack._core is imported; invalid without NumPy.
extern nb::object& numpy_generic;

// Raises the Python exception for a C++ error (CompileError, ArgumentError).
[[noreturn]] void raise_compile_error(const std::exception_ptr& e);
void translate_exceptions();

}  // namespace tack::python
