// The ten scalar element types of Tack arrays and values.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tack {

#define TACK_DTYPES(X)           \
    X(I8, i8, int8_t, 1)         \
    X(I16, i16, int16_t, 2)      \
    X(I32, i32, int32_t, 4)      \
    X(I64, i64, int64_t, 8)      \
    X(U8, u8, uint8_t, 1)        \
    X(U16, u16, uint16_t, 2)     \
    X(U32, u32, uint32_t, 4)     \
    X(U64, u64, uint64_t, 8)     \
    X(F32, f32, float, 4)        \
    X(F64, f64, double, 8)

enum class DType : uint8_t {
#define X(E, name, ctype, size) E,
    TACK_DTYPES(X)
#undef X
};
inline constexpr int kNumDTypes = 10;

constexpr int size_of(DType t) {
    switch (t) {
#define X(E, name, ctype, size) case DType::E: return size;
        TACK_DTYPES(X)
#undef X
    }
    return 0;
}
constexpr int bits_of(DType t) { return size_of(t) * 8; }
constexpr bool is_float(DType t) { return t == DType::F32 || t == DType::F64; }
constexpr bool is_int(DType t) { return !is_float(t); }
constexpr bool is_signed_int(DType t) {
    return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64;
}
constexpr bool is_unsigned_int(DType t) { return is_int(t) && !is_signed_int(t); }

constexpr std::string_view name_of(DType t) {
    switch (t) {
#define X(E, name, ctype, size) case DType::E: return #name;
        TACK_DTYPES(X)
#undef X
    }
    return "?";
}
std::optional<DType> dtype_from_name(std::string_view name);

// The integer type of `bits` width and the given signedness.
DType int_type(int bits, bool is_signed);

// The low bits_of(t) of `bits` (an integer of type t) widened to 64 bits by
// t's signedness: sign-extended for a signed type, zero-extended otherwise.
constexpr uint64_t widened_bits(uint64_t bits, DType t) {
    const int w = bits_of(t);
    if (w == 64) return bits;
    const uint64_t low = bits & ((uint64_t{1} << w) - 1);
    return is_signed_int(t) && (low >> (w - 1)) ? low | ~((uint64_t{1} << w) - 1) : low;
}

}  // namespace tack
