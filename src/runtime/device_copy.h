// A copy of an array's storage in a device's memory.
//
// Host memory stays every array's home: an array on a device ("opencl") is
// host storage with a device copy beside it, and whichever side was touched
// last is the newer one. Every host access (Array::data(): NumPy views,
// element reads, fill, copies, DLPack) first brings the host bytes up to
// date and then counts the host as newer, since a NumPy view may be written
// at any time; a launch first brings the device's bytes up to date and
// then counts the device as newer for the arrays the kernel may write.
//
// A copy shared with another library (memory imported from it, or exported
// to it through DLPack or __cuda_array_interface__) may change on the
// device between any two of Tack's calls, so the device is its home: every
// host access reads the device bytes again, host views of it are read-only
// (a snapshot), and host writes (fill, copyto) go to the device at once.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>

namespace tack::runtime {

class DeviceCopy {
public:
    enum class Newer : unsigned char { Same, Host, Device };

    // `newer`: Device for memory that already holds the array's data (an
    // import), which also makes the copy shared.
    explicit DeviceCopy(std::string device, Newer newer = Newer::Host)
        : device_(std::move(device)), newer_(newer), shared_(newer == Newer::Device) {}
    virtual ~DeviceCopy() = default;
    DeviceCopy(const DeviceCopy&) = delete;
    DeviceCopy& operator=(const DeviceCopy&) = delete;

    // The backend's name: "opencl".
    const std::string& device() const { return device_; }

    // Makes the host bytes current and counts the host as newer (the same,
    // for a shared copy, whose host views are read-only).
    void for_host(char* host, size_t bytes) {
        std::lock_guard<std::mutex> hold(mutex_);
        if (shared_ || newer_ == Newer::Device) read_range(host, 0, bytes);
        newer_ = shared_ ? Newer::Same : Newer::Host;
    }
    // The host bytes were written (fill, copyto): a shared copy takes them
    // at once; any other when a launch next needs them.
    void host_written(const char* host, size_t bytes) {
        std::lock_guard<std::mutex> hold(mutex_);
        if (shared_) {
            write(host, bytes);
            newer_ = Newer::Same;
        } else {
            newer_ = Newer::Host;
        }
    }
    // Makes bytes [offset, offset + n) of the host copy current without
    // counting the host as newer: reading one element copies that element
    // alone, and the rest stays where it is newest.
    void peek(char* host, size_t offset, size_t n) {
        std::lock_guard<std::mutex> hold(mutex_);
        if (shared_ || newer_ == Newer::Device) read_range(host, offset, n);
    }
    // Makes the device bytes current; `written` counts the device as newer
    // afterwards (a launch that may store to the array).
    void for_device(const char* host, size_t bytes, bool written) {
        std::lock_guard<std::mutex> hold(mutex_);
        if (newer_ == Newer::Host) {
            write(host, bytes);
            newer_ = Newer::Same;
        }
        if (written) newer_ = Newer::Device;
    }
    // The device bytes, current, handed to another library that may read
    // and write them from now on.
    void share(const char* host, size_t bytes) {
        for_device(host, bytes, true);
        std::lock_guard<std::mutex> hold(mutex_);
        shared_ = true;
    }
    bool shared() const {
        std::lock_guard<std::mutex> hold(mutex_);
        return shared_;
    }

protected:
    // Device to host, bytes [offset, offset + n) into host + offset, and
    // host to device, the whole storage; each waits for work queued before.
    virtual void read_range(char* host, size_t offset, size_t n) = 0;
    virtual void write(const char* host, size_t bytes) = 0;

private:
    std::string device_;
    mutable std::mutex mutex_;
    Newer newer_;
    bool shared_;
};

}  // namespace tack::runtime
