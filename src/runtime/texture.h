// A 3D texture: a private f32 snapshot of an array's W*H*D elements (x
// varying fastest), sampled by generated code with trilinear interpolation.
// Later writes to the array are invisible until update() copies it again;
// the snapshot is never shared with another texture or array.
#pragma once

#include <cstdint>

#include "runtime/array.h"

namespace tack::runtime {

class Texture3D {
public:
    // Throws std::invalid_argument (wrong size or extents) or
    // std::domain_error (not an f32 array of numbers) before copying.
    Texture3D(Array source, int64_t width, int64_t height, int64_t depth);

    // Copies the source array again.
    void update();

    int64_t width() const { return width_; }
    int64_t height() const { return height_; }
    int64_t depth() const { return depth_; }
    const Array& source() const { return source_; }
    // The snapshot: a contiguous f32 array of shape (depth, height, width).
    const Array& storage() const { return storage_; }

private:
    Array source_;
    int64_t width_, height_, depth_;
    Array storage_;
};

}  // namespace tack::runtime
