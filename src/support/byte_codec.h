#pragma once
// Byte strings that Tack writes to disk and reads back: the disk cache's
// entries and each backend's serialized executables. Integers are stored in
// host byte order (a cache folder belongs to one machine); strings carry a
// 64-bit length. A Reader never reads past its input: a short or corrupt
// input clears ok() and yields zeros and empty strings from then on.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tack::support {

class ByteWriter {
public:
    void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u32(uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void u64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void str(std::string_view s) {
        u64(s.size());
        out_.append(s);
    }
    std::string& bytes() { return out_; }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

class ByteReader {
public:
    explicit ByteReader(std::string_view in) : in_(in) {}
    uint8_t u8() { return take<uint8_t>(); }
    uint32_t u32() { return take<uint32_t>(); }
    uint64_t u64() { return take<uint64_t>(); }
    std::string str() {
        uint64_t n = u64();
        if (!ok_ || n > in_.size() - pos_) {
            ok_ = false;
            return {};
        }
        std::string s(in_.substr(pos_, n));
        pos_ += n;
        return s;
    }
    bool ok() const { return ok_; }
    bool at_end() const { return pos_ == in_.size(); }
    // Every byte read and none left over.
    bool complete() const { return ok_ && at_end(); }
    size_t pos() const { return pos_; }

private:
    template <typename T>
    T take() {
        T v{};
        if (!ok_ || in_.size() - pos_ < sizeof v) {
            ok_ = false;
            return v;
        }
        std::memcpy(&v, in_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }
    std::string_view in_;
    size_t pos_ = 0;
    bool ok_ = true;
};

}  // namespace tack::support
