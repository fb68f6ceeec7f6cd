#include "runtime/texture.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace tack::runtime {

namespace {

// Extents are in the variant key as 32-bit words.
constexpr int64_t kMaxExtent = int64_t{1} << 31;

Array checked(Array source, int64_t w, int64_t h, int64_t d) {
    if (source.dtype() != DType::F32 || !source.element().shape.empty())
        throw std::domain_error("texture3d: the array must hold f32 numbers, not " + source.describe());
    for (int64_t e : {w, h, d})
        if (e < 1 || e >= kMaxExtent)
            throw std::invalid_argument("texture3d: extents must be from 1 to 2^31 - 1, not " + std::to_string(e));
    if (source.size() != w * h * d)
        throw std::invalid_argument("texture3d: shape (" + std::to_string(w) + ", " + std::to_string(h) + ", " +
                                    std::to_string(d) + ") needs " + std::to_string(w * h * d) +
                                    " elements, but the array has " + std::to_string(source.size()));
    return source;
}

}  // namespace

Texture3D::Texture3D(Array source, int64_t width, int64_t height, int64_t depth)
    : source_(checked(std::move(source), width, height, depth)), width_(width), height_(height), depth_(depth),
      storage_(Array::empty({depth, height, width}, DType::F32)) {
    update();
}

uint64_t Texture3D::image(const std::string& device,
                          const std::function<std::unique_ptr<DeviceImage>()>& make) const {
    std::lock_guard<std::mutex> hold(image_mutex_);
    if (!image_ || image_->device() != device) {
        image_.reset();
        image_ = make();
        image_version_ = version_ - 1;
    }
    if (image_version_ != version_) {
        image_->fill(reinterpret_cast<const float*>(storage_.data()));
        image_version_ = version_;
    }
    return image_->handle();
}

void Texture3D::update() {
    ++version_;
    // The source's elements in row-major order are the texels, x fastest.
    auto* out = reinterpret_cast<float*>(storage_.data());
    int64_t n = source_.size();
    if (source_.contiguous()) {
        std::memcpy(out, source_.data(), static_cast<size_t>(n) * sizeof(float));
        return;
    }
    std::vector<int64_t> idx(source_.ndim(), 0);
    for (int64_t i = 0; i < n; ++i) {
        int64_t off = 0;
        for (int d = 0; d < source_.ndim(); ++d) off += idx[d] * source_.strides()[d];
        std::memcpy(out + i, source_.data() + off * sizeof(float), sizeof(float));
        for (int d = source_.ndim() - 1; d >= 0; --d) {
            if (++idx[d] < source_.shape()[d]) break;
            idx[d] = 0;
        }
    }
}

}  // namespace tack::runtime
