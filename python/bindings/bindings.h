// Shared declarations of the tack._core binding files.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "runtime/array.h"

namespace nb = nanobind;

namespace tack::python {

void bind_array(nb::module_& m);
void bind_kernel(nb::module_& m);
void bind_texture(nb::module_& m);
void bind_errors(nb::module_& m);
void bind_device(nb::module_& m);
void bind_tile(nb::module_& m);

// The backend named `device`, started; RuntimeError "<context>device 'x' is
// not available: <what is missing>" when it cannot start.
backends::Backend& backend_or_raise(const std::string& device, const std::string& context = "");
// New storage on `device` ("cpu", "opencl"): attaches the backend's device
// copy; raises RuntimeError naming what is missing when it cannot start.
void place_on(const runtime::Array& a, const std::string& device);
// Brings an array on a device current on the host with the interpreter's
// lock released (the copy waits for queued launches); nothing for the CPU.
void host_ready(const runtime::Array& a);
// The backend of an array on a device; null for an array of the CPU.
backends::Backend* backend_of(const runtime::Array& a);

// A shared_ptr that keeps a Python object alive. Arrays can outlive the call
// that made them and be released wherever the last view goes, so the
// reference is dropped under the GIL.
std::shared_ptr<void> keep_alive(nb::handle h);

// Element strides from a sequence of byte strides (`who` names the caller in
// errors); empty, for row-major, when `strides` is None.
std::vector<int64_t> element_strides(nb::handle strides, DType t, size_t ndim, const char* who);

// DLPack's element types and Tack's.
nb::dlpack::dtype dlpack_dtype(DType t);
std::optional<DType> from_dlpack_dtype(nb::dlpack::dtype d);

// A DLPack tensor viewed without a copy: `source` is an object with
// __dlpack__ or a capsule, whose memory must be on DLPack device `device`
// (TypeError `cannot_read` otherwise). `owner` keeps the tensor alive.
struct DLPackView {
    void* data = nullptr;  // the first element
    DType dtype = DType::F32;
    bool readonly = false;
    std::vector<int64_t> shape, strides;  // strides in elements
    std::shared_ptr<void> owner;
};
DLPackView read_dlpack(nb::handle source, int device, const char* cannot_read);

// A DLPack-exportable ndarray of `a` (a view of scalars) at `data` on DLPack
// device (`device`, `ordinal`), owned by `self`, read-only when `a` is.
nb::object exported(nb::handle self, const runtime::Array& a, void* data, int device, int ordinal);

// Device memory shared with other libraries (bind_device_memory.cpp).
// The backend of an array whose device memory has addresses (cuda, hip);
// null for the others.
backends::Backend* addressable_backend(const runtime::Array& a);
// Where the array's first element lies, with nothing moved and its device
// copy left as it is: the device address on cuda and hip, else host memory
// (on opencl the host copy's, where no other storage's bytes lie). Arrays
// of one device overlap where the bytes from these addresses do.
uint64_t element_address(const runtime::Array& a);
// Array.__cuda_array_interface__; AttributeError for arrays without device
// addresses, so that consumers probing with hasattr() look elsewhere.
nb::dict cuda_array_interface(const runtime::Array& a);
// Array.__dlpack__ of an array on `backend`, which has device addresses.
nb::object device_dlpack(nb::handle self, backends::Backend& backend, nb::handle stream, nb::handle max_version);
// from_dlpack of a producer on DLPack device (type, ordinal), not the host.
runtime::Array device_from_dlpack(nb::handle obj, int type, int ordinal);
// array_from_ptr(..., device=`device`) for a device other than the CPU;
// waits for `stream` (None: nothing to wait for) first.
runtime::Array device_from_ptr(const std::string& device, uint64_t address, std::vector<int64_t> shape, DType t,
                               nb::handle strides, bool readonly, nb::handle owner, nb::handle stream);

// The tack.<dtype> objects the Python package registered, by DType index.
nb::object dtype_object(DType t);
DType dtype_from_object(nb::handle h);  // a tack dtype, a NumPy dtype or a name; throws TypeError

// Whether `o` is a NumPy scalar (an instance of numpy.generic). tack._core
// does not import NumPy: until the process has, no object can be one.
bool is_numpy_scalar(PyObject* o);
// A NumPy scalar's dtype kind ('i', 'u', 'f', 'b', 'c', ...); 0 for anything
// else.
char numpy_scalar_kind(PyObject* o);

// Raises the Python exception for a C++ error (CompileError, ArgumentError).
[[noreturn]] void raise_compile_error(const std::exception_ptr& e);
void translate_exceptions();

}  // namespace tack::python
