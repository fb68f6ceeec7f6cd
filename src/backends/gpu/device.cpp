#include "backends/gpu/device.h"

#include <stdexcept>

namespace tack::backends::gpu {

Arguments& Arguments::bytes(const void* data, size_t size) {
    // Aligned slots, so that a driver reading the value in place sees it
    // aligned as its type.
    size_t offset = (data_.size() + 15) & ~size_t(15);
    data_.resize(offset + size);
    if (size) std::memcpy(data_.data() + offset, data, size);
    slots_.push_back({offset, size});
    return *this;
}

Arguments& Arguments::local(size_t size) {
    slots_.push_back({0, size, true});
    return *this;
}

Arguments& Arguments::overwrite(size_t index, const void* data) {
    const Slot& slot = slots_.at(index);
    if (!slot.local && slot.size) std::memcpy(data_.data() + slot.offset, data, slot.size);
    return *this;
}

// A device without addresses is never asked: the backend reports no
// DLPack device for it, and sharing is refused above.
std::unique_ptr<Memory> Device::adopt(uint64_t, size_t) {
    throw std::logic_error("this device's memory has no addresses to share");
}
uint64_t Device::stream_handle(Queue) const { throw std::logic_error("this device has no streams to share"); }
void Device::wait_for_stream(uint64_t) { throw std::logic_error("this device has no streams to share"); }
// Nor is a device without images: the backend lowers textures to memory.
std::unique_ptr<Image> Device::create_image(int64_t, int64_t, int64_t) {
    throw std::logic_error("this device has no hardware textures");
}
void Device::write_image(Image&, const float*) { throw std::logic_error("this device has no hardware textures"); }

}  // namespace tack::backends::gpu
