// UTF-8 decoding and encoding for source text.
//
// Source text is validated once, before tokenizing, so everything after that
// may assume well-formed UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tack::syntax::utf8 {

inline constexpr size_t npos = std::string_view::npos;

// The byte offset of the first ill-formed sequence (overlong forms,
// surrogates and code points past U+10FFFF are ill-formed), or npos.
size_t find_invalid(std::string_view s);

// The code point starting at s[i] and its length in bytes. s must be valid.
char32_t decode(std::string_view s, size_t i, int* length);

// Appends cp as UTF-8. Lone surrogates (from "\ud800" escapes) are encoded
// as three bytes, as CPython's "surrogatepass" handler would.
void append(std::string& out, char32_t cp);

inline bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Code points in valid UTF-8 text.
size_t count_code_points(std::string_view s);

}  // namespace tack::syntax::utf8
