// Values of numeric and string literals, and their printed forms.
//
// The lexer checks a literal's spelling; these functions convert spellings it
// accepted, so they need not re-diagnose malformed text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tack::syntax {

struct IntValue {
    uint64_t value = 0;     // UINT64_MAX when overflow
    bool overflow = false;  // the literal exceeds 2^64 - 1
};

// "0x_ff", "1_000", "0o17", "0b1", "00": any integer spelling the lexer accepts.
IntValue int_literal_value(std::string_view text);

// "1.", ".5", "1_0e-3": correctly rounded, as strtod in the C locale; values
// past the double range become inf or 0 as in Python.
double float_literal_value(std::string_view text);

// The shortest decimal that reads back as v and still reads as a float
// ("1.0", "0.1", "1e+100"); "inf", "-inf" and "nan" for non-finite values.
std::string float_repr(double v);

// Decodes the body of a string literal (between its quotes). Raw bodies are
// kept as written; bytes bodies decode \x and octal escapes to single bytes.
// Line breaks in the body read as "\n". Returns false and sets *error for a
// malformed escape.
bool decode_string_body(std::string_view body, bool raw, bool bytes, std::string* out, std::string* error);

// A Python literal whose value is exactly `value`: a str literal when value
// is valid UTF-8, otherwise a bytes literal (their values are both byte
// strings in StringLit).
std::string quote_string(std::string_view value);

}  // namespace tack::syntax
