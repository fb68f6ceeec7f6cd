#include "tack/dtype.h"

namespace tack {

std::optional<DType> dtype_from_name(std::string_view name) {
#define X(E, n, ctype, size) if (name == #n) return DType::E;
    TACK_DTYPES(X)
#undef X
    return std::nullopt;
}

DType int_type(int bits, bool is_signed) {
    switch (bits) {
        case 8: return is_signed ? DType::I8 : DType::U8;
        case 16: return is_signed ? DType::I16 : DType::U16;
        case 32: return is_signed ? DType::I32 : DType::U32;
        default: return is_signed ? DType::I64 : DType::U64;
    }
}

}  // namespace tack
