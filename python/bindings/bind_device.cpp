// Devices: which backends run here, the default one, and placing new
// arrays and texture snapshots on a device.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "backends/registry.h"
#include "bindings.h"
#include "driver/disk_cache.h"
#include "driver/kernel.h"
#include "runtime/parallel.h"

namespace tack::python {

backends::Backend& backend_or_raise(const std::string& device, const std::string& context) {
    std::string why_not;
    backends::Backend* b = backends::find_backend(device, &why_not);
    if (!b) throw std::runtime_error(context + "device '" + device + "' is not available: " + why_not);
    return *b;
}

void place_on(const runtime::Array& a, const std::string& device) {
    auto& storage = *a.storage();
    if (storage.device_name() == device) return;
    storage.device = backend_or_raise(device).device_copy(storage.bytes);
}

backends::Backend* backend_of(const runtime::Array& a) {
    const auto& storage = *a.storage();
    return storage.device ? &backend_or_raise(storage.device_name()) : nullptr;
}

void host_ready(const runtime::Array& a) {
    if (!a.storage()->device) return;
    nb::gil_scoped_release waiting;
    (void)a.data();
}

void bind_device(nb::module_& m) {
    m.def("available_devices", &backends::available_backends,
          "The backends that start on this machine, CPU first.");
    m.def("known_devices", [] { return backends::known_backends(); }, "Every backend name this build knows.");
    m.def("set_default_device", [](const std::string& name) {
        // The CPU's arrays are host memory, which every build has (a build
        // without LLVM names its missing backend when a kernel runs there),
        // so "cpu", the default at start, can always be chosen again.
        if (name != "cpu") backend_or_raise(name);
        driver::set_default_device(name);
    });
    m.def("default_device", &driver::default_device);
    m.def("device_unavailable_reason", [](const std::string& name) {
        std::string why_not;
        return backends::find_backend(name, &why_not) ? std::string() : why_not;
    });
    m.def("_build_identity", &driver::build_identity_key,
          "Tack's version and this build's identity, which keys what Tack keeps on disk.");
    m.def(
        "target_description", [](const std::string& name) { return backend_or_raise(name).target_description(); },
        "What a device's compiled code depends on besides its IR: for the CPU, LLVM's target triple, CPU and "
        "features.");
    m.def(
        "set_num_threads",
        [](int n) {
            if (n < 1)
                throw nb::value_error(("set_num_threads: the CPU backend needs at least 1 thread, not " +
                                       std::to_string(n)).c_str());
            runtime::set_worker_count(n);
        },
        "Threads the CPU backend's launches run on from now on (the calling thread among them).");
    m.def("get_num_threads", &runtime::worker_count, "Threads the CPU backend's launches run on.");
    m.def("_last_launch_threads", &runtime::last_launch_threads,
          "How many threads ran a part of the most recent divided CPU launch.");
    // Only the backends this process started can have work queued: sync
    // starts no other (tack's exit handler calls it too).
    m.def("sync", [] {
        for (backends::Backend* b : backends::started_backends()) {
            nb::gil_scoped_release waiting;
            b->synchronize();
        }
    });
}

}  // namespace tack::python
