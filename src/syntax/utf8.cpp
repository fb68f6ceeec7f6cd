#include "syntax/utf8.h"

namespace tack::syntax::utf8 {

size_t find_invalid(std::string_view s) {
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        int len = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;       // overlong
            if (c == 0xED) hi = 0x9F;       // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;       // overlong
            if (c == 0xF4) hi = 0x8F;       // past U+10FFFF
        } else {
            return i;
        }
        if (i + len > n) return i;
        const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
        if (c1 < lo || c1 > hi) return i;
        for (int k = 2; k < len; ++k)
            if (!is_continuation(static_cast<unsigned char>(s[i + k]))) return i;
        i += len;
    }
    return npos;
}

char32_t decode(std::string_view s, size_t i, int* length) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    auto cont = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
    if (c < 0x80) {
        *length = 1;
        return c;
    }
    if (c < 0xE0 && i + 1 < s.size()) {
        *length = 2;
        return (static_cast<char32_t>(c & 0x1F) << 6) | cont(1);
    }
    if (c < 0xF0 && i + 2 < s.size()) {
        *length = 3;
        return (static_cast<char32_t>(c & 0x0F) << 12) | (cont(1) << 6) | cont(2);
    }
    if (i + 3 < s.size()) {
        *length = 4;
        return (static_cast<char32_t>(c & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
    }
    *length = 1;  // truncated input: never happens on validated text
    return 0xFFFD;
}

void append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

size_t count_code_points(std::string_view s) {
    size_t n = 0;
    for (char c : s)
        if (!is_continuation(static_cast<unsigned char>(c))) ++n;
    return n;
}

}  // namespace tack::syntax::utf8
