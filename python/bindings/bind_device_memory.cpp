// Arrays in a GPU's memory shared with other libraries (CuPy, PyTorch,
// Numba, JAX): __cuda_array_interface__ (version 3) and DLPack (kDLCUDA,
// kDLROCM) out, the same two and device addresses in.
//
// Sharing makes the device the storage's home (runtime/device_copy.h):
// host reads fetch the device bytes again, NumPy views are read-only
// snapshots, host writes go to the device at once. Stream semantics follow
// the protocols: an export names the stream Tack's work runs on (the array
// interface) or waits for it (DLPack, unless the consumer passes -1); an
// import waits for the producer's stream (the array interface's "stream")
// or passes Tack's stream to the producer's __dlpack__.
#include <nanobind/ndarray.h>

#include "bindings.h"

namespace tack::python {

using runtime::Array;

namespace {

// The backend whose memory is DLPack device `type`, started; raises naming
// the device and what is missing when it cannot run here.
backends::Backend& backend_for_dlpack_device(int type, int ordinal, const char* who) {
    const std::string where = std::string(who) + ": the memory is on DLPack device (" + std::to_string(type) + ", " +
                              std::to_string(ordinal) + ")";
    const char* name = type == 2 ? "cuda" : type == 10 ? "hip" : nullptr;
    if (!name)
        throw nb::value_error((where + "; Tack shares the memory of the host (kDLCPU, 1), CUDA devices (kDLCUDA, 2) "
                                       "and ROCm devices (kDLROCM, 10)")
                                  .c_str());
    backends::Backend* b = &backend_or_raise(name, where + ", and ");
    if (ordinal != b->shared_memory().ordinal)
        throw nb::value_error((where + "; Tack's '" + name + "' backend runs on device " +
                               std::to_string(b->shared_memory().ordinal) + " only")
                                  .c_str());
    return *b;
}

Array adopt_view(backends::Backend& backend, uint64_t first, DType t, std::vector<int64_t> shape,
                 std::vector<int64_t> strides, bool readonly, std::shared_ptr<void> owner, const char* who) {
    try {
        return Array::on_device(first, t, std::move(shape), std::move(strides), readonly, std::move(owner),
                                [&](uint64_t base, size_t bytes) {
                                    // An empty array names no memory: it gets its own.
                                    return bytes ? backend.adopt(base, bytes) : backend.device_copy(0);
                                });
    } catch (const std::invalid_argument& e) {
        throw nb::value_error((std::string(who) + ": " + e.what()).c_str());
    }
}

}  // namespace

backends::Backend* addressable_backend(const Array& a) {
    backends::Backend* b = backend_of(a);
    return b && b->shared_memory().dlpack_device ? b : nullptr;
}

uint64_t element_address(const Array& a) {
    if (backends::Backend* backend = addressable_backend(a))
        return backend->device_address(*a.storage()) + static_cast<uint64_t>(a.byte_offset());
    return reinterpret_cast<uintptr_t>(a.address());
}

nb::dict cuda_array_interface(const Array& array) {
    backends::Backend* backend = addressable_backend(array);
    if (!backend)
        throw nb::attribute_error(("an array on '" + array.storage()->device_name() +
                                   "' has no __cuda_array_interface__ (only arrays on 'cuda' and 'hip' have "
                                   "device addresses); NumPy's protocols share it")
                                      .c_str());
    const Array a = array.scalars();
    uint64_t base = backend->share(*a.storage());
    static const char* typestrs[] = {"|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f4", "<f8"};
    nb::list shape, strides;
    for (auto e : a.shape()) shape.append(e);
    for (auto e : a.strides()) strides.append(e * size_of(a.dtype()));
    nb::dict d;
    d["shape"] = nb::tuple(shape);
    d["typestr"] = typestrs[static_cast<int>(a.dtype())];
    // An empty array's address is 0, as the protocol asks.
    uint64_t address = a.size() ? base + static_cast<uint64_t>(a.byte_offset()) : 0;
    d["data"] = nb::make_tuple(address, a.readonly());
    d["strides"] = a.contiguous() ? nb::object(nb::none()) : nb::object(nb::tuple(strides));
    nb::list descr;
    descr.append(nb::make_tuple("", d["typestr"]));
    d["descr"] = descr;
    d["version"] = 3;
    // Launches queued before may still write it: the consumer orders its
    // work after this stream.
    d["stream"] = backend->stream();
    return d;
}

nb::object device_dlpack(nb::handle self, backends::Backend& backend, nb::handle stream, nb::handle max_version) {
    const Array a = nb::cast<const Array&>(self).scalars();
    uint64_t base = backend.share(*a.storage());
    // Any stream but -1 ("no synchronization") must see the array's data:
    // wait for everything queued, which orders it before every stream.
    if (stream.is_none() || nb::cast<int64_t>(stream) != -1) {
        nb::gil_scoped_release waiting;
        backend.synchronize();
    }
    void* data = reinterpret_cast<void*>(base + static_cast<uint64_t>(a.byte_offset()));
    const auto where = backend.shared_memory();
    nb::object nd = exported(self, a, data, where.dlpack_device, where.ordinal);
    nb::dict kw;
    if (!max_version.is_none()) kw["max_version"] = max_version;
    return nd.attr("__dlpack__")(**kw);
}

Array device_from_dlpack(nb::handle obj, int type, int ordinal) {
    backends::Backend& backend = backend_for_dlpack_device(type, ordinal, "from_dlpack");
    // The producer makes its data ready for Tack's stream.
    nb::object capsule;
    nb::int_ stream(backend.stream());
    try {
        capsule = obj.attr("__dlpack__")(nb::arg("stream") = stream, nb::arg("max_version") = nb::make_tuple(1, 0));
    } catch (nb::python_error& e) {
        if (!e.matches(PyExc_TypeError)) throw;
        capsule = obj.attr("__dlpack__")(nb::arg("stream") = stream);  // a producer before DLPack 1.0
    }
    DLPackView v = read_dlpack(capsule, type, "from_dlpack: the object's DLPack capsule could not be read");
    return adopt_view(backend, reinterpret_cast<uint64_t>(v.data), v.dtype, v.shape, v.strides, v.readonly, v.owner,
                      "from_dlpack");
}

Array device_from_ptr(const std::string& device, uint64_t address, std::vector<int64_t> shape, DType t,
                      nb::handle strides, bool readonly, nb::handle owner, nb::handle stream) {
    backends::Backend* backend = &backend_or_raise(device, "array_from_ptr: ");
    if (!backend->shared_memory().dlpack_device)
        throw nb::value_error(("array_from_ptr: " + std::string(backend->display_name()) +
                               " memory has no addresses to view (device=\"cuda\" or \"hip\" take device "
                               "addresses, device=\"cpu\" host addresses)")
                                  .c_str());
    if (!stream.is_none() && nb::cast<int64_t>(stream) != -1) {
        uint64_t handle = nb::cast<uint64_t>(stream);
        nb::gil_scoped_release waiting;
        backend->wait_for_stream(handle);
    }
    std::vector<int64_t> element = element_strides(strides, t, shape.size(), "array_from_ptr");
    return adopt_view(*backend, address, t, std::move(shape), std::move(element), readonly,
                      owner.is_none() ? nullptr : keep_alive(owner), "array_from_ptr");
}

}  // namespace tack::python
