// A 3D texture: a private f32 snapshot of an array's W*H*D elements (x
// varying fastest), sampled by generated code with trilinear interpolation.
// Later writes to the array are invisible until update() copies it again;
// the snapshot is never shared with another texture or array.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/array.h"

namespace tack::runtime {

// A texture's snapshot in a device's texture memory (a CUDA array with its
// texture object), made by the backend that samples it. The texture owns
// it, so it is released with the texture and never serves another one.
class DeviceImage {
public:
    explicit DeviceImage(std::string device) : device_(std::move(device)) {}
    virtual ~DeviceImage() = default;
    DeviceImage(const DeviceImage&) = delete;
    DeviceImage& operator=(const DeviceImage&) = delete;

    const std::string& device() const { return device_; }  // the backend's name
    // What compiled code samples (a texture object).
    virtual uint64_t handle() const = 0;
    // Copies the texels, width * height * depth f32 with x fastest, in.
    virtual void fill(const float* texels) = 0;

private:
    std::string device_;
};

class Texture3D {
public:
    // Throws std::invalid_argument (wrong size or extents) or
    // std::domain_error (not an f32 array of numbers) before copying.
    Texture3D(Array source, int64_t width, int64_t height, int64_t depth);

    // Copies the source array again.
    void update();

    // The snapshot as `device`'s image, current: made by `make` the first
    // time (and when another device made the one held), filled again after
    // each update(). Returns its handle.
    uint64_t image(const std::string& device, const std::function<std::unique_ptr<DeviceImage>()>& make) const;

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
    uint64_t version_ = 0;  // counts update()s
    mutable std::mutex image_mutex_;
    mutable std::unique_ptr<DeviceImage> image_;
    mutable uint64_t image_version_ = 0;
};

}  // namespace tack::runtime
