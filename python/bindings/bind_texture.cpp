// tack._core.Texture3D: a 3D texture's private f32 snapshot of an array.
// tack.texture3d (python/tack/_textures.py) checks the interpolation mode
// and makes one.
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "runtime/texture.h"

namespace tack::python {

using runtime::Array;
using runtime::Texture3D;

void bind_texture(nb::module_& m) {
    nb::class_<Texture3D>(m, "Texture3D",
                          "A 3D texture: an f32 snapshot of an array's W*H*D elements, x fastest, sampled in kernels "
                          "with tex.sample(u, v, w). Make one with tack.texture3d.")
        .def("__init__", [](Texture3D* self, const Array& source, int64_t width, int64_t height, int64_t depth) {
            try {
                new (self) Texture3D(source, width, height, depth);
                // The snapshot lives where the array does.
                place_on(self->storage(), source.storage()->device_name());
            } catch (const std::domain_error& e) {
                throw nb::type_error(e.what());
            } catch (const std::invalid_argument& e) {
                throw nb::value_error(e.what());
            }
        }, nb::arg("array"), nb::arg("width"), nb::arg("height"), nb::arg("depth"))
        .def("update", &Texture3D::update, "Copies the array again; sampling afterwards sees its data as of this call.")
        .def_prop_ro("shape", [](const Texture3D& t) { return nb::make_tuple(t.width(), t.height(), t.depth()); },
                     "(W, H, D).")
        .def_prop_ro("array", [](const Texture3D& t) { return t.source(); }, "The array the texture copies.")
        .def("__repr__", [](const Texture3D& t) {
            return "tack.texture3d(shape=(" + std::to_string(t.width()) + ", " + std::to_string(t.height()) + ", " +
                   std::to_string(t.depth()) + "), interp='linear')";
        });
}

}  // namespace tack::python
