#include "syntax/literals.h"

#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <locale.h>
#if defined(__APPLE__)
#include <xlocale.h>  // strtod_l
#endif

#include "syntax/utf8.h"

namespace tack::syntax {

namespace {

int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

// strtod reads the decimal point of the current locale; kernels must not
// change meaning under LC_NUMERIC=de_DE, so conversion uses the C locale.
locale_t c_locale() {
    static const locale_t loc = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
    return loc;
}

double parse_c_double(const char* s) { return strtod_l(s, nullptr, c_locale()); }

}  // namespace

IntValue int_literal_value(std::string_view text) {
    int base = 10;
    size_t i = 0;
    if (text.size() >= 2 && text[0] == '0') {
        const char p = text[1];
        if (p == 'x' || p == 'X') base = 16;
        if (p == 'o' || p == 'O') base = 8;
        if (p == 'b' || p == 'B') base = 2;
        if (base != 10) i = 2;
    }
    IntValue r;
    for (; i < text.size(); ++i) {
        const int d = digit_value(text[i]);
        if (d >= base) continue;  // underscores
        if (r.overflow) continue;
        if (r.value > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) {
            r.overflow = true;
            r.value = UINT64_MAX;
            continue;
        }
        r.value = r.value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    }
    return r;
}

double float_literal_value(std::string_view text) {
    std::string clean;
    clean.reserve(text.size());
    for (char c : text)
        if (c != '_') clean += c;
    return parse_c_double(clean.c_str());
}

std::string float_repr(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    // The shortest mantissa that reads back exactly, laid out as Python's
    // repr does: positional for exponents in [-4, 16), scientific otherwise.
    char buf[64];
    for (int precision = 0; precision <= 16; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*e", precision, v);
        for (char* c = buf; *c; ++c)
            if (*c == ',') *c = '.';  // snprintf formats through the locale too
        if (parse_c_double(buf) == v) break;
    }
    const std::string sci = buf;
    const size_t e = sci.find('e');
    std::string digits;
    for (size_t i = 0; i < e; ++i)
        if (sci[i] >= '0' && sci[i] <= '9') digits += sci[i];
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    const int exponent = std::atoi(sci.c_str() + e + 1);
    std::string out = v < 0 || std::signbit(v) ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            out += "0.";
            out.append(static_cast<size_t>(-exponent - 1), '0');
            out += digits;
        } else {
            const size_t int_digits = static_cast<size_t>(exponent) + 1;
            if (digits.size() <= int_digits) {
                out += digits;
                out.append(int_digits - digits.size(), '0');
                out += ".0";
            } else {
                out.append(digits, 0, int_digits);
                out += '.';
                out.append(digits, int_digits);
            }
        }
        return out;
    }
    out += digits[0];
    if (digits.size() > 1) {
        out += '.';
        out.append(digits, 1);
    }
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
    return out + exp;
}

bool decode_string_body(std::string_view body, bool raw, bool bytes, std::string* out, std::string* error) {
    out->clear();
    const size_t n = body.size();
    for (size_t i = 0; i < n; ++i) {
        const char c = body[i];
        if (c == '\r') {
            *out += '\n';
            if (i + 1 < n && body[i + 1] == '\n') ++i;
            continue;
        }
        if (c != '\\' || raw) {
            *out += c;
            continue;
        }
        if (i + 1 >= n) {  // the lexer never ends a body on a lone backslash
            *out += '\\';
            break;
        }
        const char e = body[++i];
        switch (e) {
            case '\n': break;
            case '\r':
                if (i + 1 < n && body[i + 1] == '\n') ++i;
                break;
            case '\\': *out += '\\'; break;
            case '\'': *out += '\''; break;
            case '"': *out += '"'; break;
            case 'a': *out += '\a'; break;
            case 'b': *out += '\b'; break;
            case 'f': *out += '\f'; break;
            case 'n': *out += '\n'; break;
            case 'r': *out += '\r'; break;
            case 't': *out += '\t'; break;
            case 'v': *out += '\v'; break;
            case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
                uint32_t v = static_cast<uint32_t>(e - '0');
                for (int k = 0; k < 2 && i + 1 < n && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
                    v = v * 8 + static_cast<uint32_t>(body[++i] - '0');
                if (bytes)
                    *out += static_cast<char>(v & 0xFF);
                else
                    utf8::append(*out, v);
                break;
            }
            case 'x':
            case 'u':
            case 'U': {
                if (bytes && e != 'x') {
                    *out += '\\';
                    *out += e;
                    break;
                }
                const int width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                uint32_t v = 0;
                for (int k = 0; k < width; ++k) {
                    if (i + 1 >= n || digit_value(body[i + 1]) >= 16) {
                        *error = std::string("truncated \\") + e + " escape: expected " + std::to_string(width) +
                                 " hex digits";
                        return false;
                    }
                    v = v * 16 + static_cast<uint32_t>(digit_value(body[++i]));
                }
                if (bytes) {
                    *out += static_cast<char>(v);
                } else if (v > 0x10FFFF) {
                    *error = "illegal Unicode character in \\U escape";
                    return false;
                } else {
                    utf8::append(*out, v);
                }
                break;
            }
            default:
                // Unknown escapes, \N{...} included (no name table here), stay
                // as written; only docstrings read string values.
                *out += '\\';
                *out += e;
                break;
        }
    }
    return true;
}

std::string quote_string(std::string_view value) {
    const bool text = utf8::find_invalid(value) == utf8::npos;
    std::string out = text ? "\"" : "b\"";
    for (char ch : value) {
        const unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
            case '\\': out += "\\\\"; continue;
            case '"': out += "\\\""; continue;
            case '\n': out += "\\n"; continue;
            case '\r': out += "\\r"; continue;
            case '\t': out += "\\t"; continue;
            default: break;
        }
        if (c < 0x20 || c == 0x7F || (c >= 0x80 && !text)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    out += '"';
    return out;
}

}  // namespace tack::syntax
