#include "codegen/cfamily/names.h"

#include <cstdint>
#include <cstdio>

#include "syntax/source.h"

namespace tack::codegen::cfamily {

namespace {

// The next code point of `s` from `i`, advancing `i`; an invalid byte reads
// as 0xdc80 + byte.
uint32_t next_code_point(std::string_view s, size_t& i) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char b0 = byte(i);
    int len = b0 < 0x80 ? 1 : (b0 >> 5) == 6 ? 2 : (b0 >> 4) == 14 ? 3 : (b0 >> 3) == 30 ? 4 : 0;
    if (len == 1) return s[i++];
    bool ok = len > 0 && i + len <= s.size();
    uint32_t cp = ok ? (b0 & (0x7f >> len)) : 0;
    for (int k = 1; ok && k < len; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80) ok = false;
        cp = (cp << 6) | (byte(i + k) & 0x3f);
    }
    // Overlong forms and surrogates are not valid UTF-8 either.
    static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (ok && (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    if (!ok) return 0xdc80 + byte(i++);
    i += len;
    return cp;
}

bool is_alnum(uint32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

}  // namespace

std::string encode_identifier(std::string_view name) {
    std::string out;
    uint32_t previous = 0;
    bool first = true;
    for (size_t i = 0; i < name.size();) {
        uint32_t c = next_code_point(name, i);
        if (c == 'Z') {
            out += "ZZ";
        } else if (is_alnum(c) || (c == '_' && !first && previous != '_' && i < name.size())) {
            out += static_cast<char>(c);
        } else {
            char buf[16];
            std::snprintf(buf, sizeof buf, "Z%xZ", static_cast<unsigned>(c));
            out += buf;
        }
        previous = c;
        first = false;
    }
    return out;
}

std::string entry_symbol(std::string_view kernel_name, std::string_view variant_suffix) {
    bool ok = !variant_suffix.empty();
    for (char c : variant_suffix) ok = ok && is_alnum(static_cast<unsigned char>(c));
    TACK_CHECK(ok, "emit_c", "entry suffix '" + std::string(variant_suffix) + "' is not letters and digits");
    return "tk_" + encode_identifier(kernel_name) + "_" + std::string(variant_suffix);
}

std::string BindingNames::add(std::string_view name) {
    std::string spelling = "v_" + encode_identifier(name);
    int n = uses_[spelling]++;
    if (n > 0) spelling += "Zn" + std::to_string(n);
    return spelling;
}

}  // namespace tack::codegen::cfamily
