#include "runtime/print.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "tack/dtype.h"

namespace {

// Python's repr of a float: the shortest digits that round-trip, with ".0"
// on integral values.
template <typename F>
void append_float(std::string& out, F v) {
    if (std::isnan(v)) {
        out += "nan";
        return;
    }
    if (std::isinf(v)) {
        out += v < 0 ? "-inf" : "inf";
        return;
    }
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    out += s;
}

}  // namespace

extern "C" void tack_rt_print(int32_t n, const uint8_t* kinds, const uint64_t* values) {
    std::string line;
    bool in_vector = false;
    for (int32_t i = 0; i < n; ++i) {
        if (i) line += in_vector ? ", " : " ";
        if (kinds[i] & 0x40) {
            line += '[';
            in_vector = true;
        }
        auto t = static_cast<tack::DType>(kinds[i] & 0x3f);
        uint64_t bits = values[i];
        if (t == tack::DType::F32 || t == tack::DType::F64) {
            double d;
            std::memcpy(&d, &bits, sizeof d);
            if (t == tack::DType::F32) append_float(line, static_cast<float>(d));
            else append_float(line, d);
        } else if (tack::is_signed_int(t)) {
            line += std::to_string(static_cast<int64_t>(bits));
        } else {
            line += std::to_string(bits);
        }
        if (kinds[i] & 0x80) {
            line += ']';
            in_vector = false;
        }
    }
    line += '\n';
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        ssize_t w = ::write(1, p, left);
        if (w <= 0) break;
        p += w;
        left -= static_cast<size_t>(w);
    }
}
