// The typed helpers printed kernels call: one text for the four dialects,
// filled in with each dialect's type names and qualifiers. Each helper
// follows the LLVM emitter's arithmetic (codegen/llvm/emit_arith.cpp) bit
// for bit:
//
//   tk_s8 .. tk_s64        a signed value from its unsigned carrier's low bits,
//                          by representable conversions (MSL: as_type)
//   tk_floordiv_T, tk_mod_T   Python // and %; an integer divisor 0 gives
//                          quotient 0 and remainder 0, a signed divisor -1
//                          the wrapped -a and 0; floats follow CPython's
//                          float_divmod
//   tk_pow_T               integer power by squaring over the exponent's 64
//                          bits (a negative exponent is its two's complement)
//   tk_shr_T               signed right shift without implementation-defined C
//   tk_abs_T, tk_neg_T     wrapping abs, and the out-of-line negations the
//                          contract prescribes for OpenCL and CUDA
//   tk_min_T, tk_max_T     integer extrema
//   tk_trip_s, tk_trip_u   exact range trip counts in 64 bits; tk_cap63
//   tk_atomic_OP_T         relaxed device-scope read-modify-write returning
//                          the old value; CAS loops on the integer bits
//   tk_debug_claim         the first failing debug check takes the record
//   tk_block_OP_combine    two partial results of a reduction combined (sum,
//                          or min/max with the NaN and signed-zero rules)
//   tk_block_OP            a block reduction over the group's kGroupSize
//                          lanes through a shared scratch array: a tree of
//                          halving strides, then a barrier once every lane
//                          has read the result, so the scratch is free again
//
// Only the helpers a kernel asks for are printed, dependencies first, so
// the device compiler parses little beyond the kernel.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "codegen/cfamily/dialect.h"
#include "ir/ir.h"

namespace tack::codegen::cfamily {

class Prelude {
public:
    explicit Prelude(Dialect d);
    const DialectTable& table() const { return t_; }

    // Each call returns the helper's name and has the prelude define it.
    std::string signed_from_bits(DType t);
    std::string negate(DType t);  // empty where inline negation is safe
    std::string abs(DType t);     // signed types
    std::string shr(DType t);     // signed types
    std::string min_max(bool is_min, DType t);  // integer types
    std::string floordiv(DType t);
    std::string mod(DType t);
    std::string pow(DType t);     // integer bases
    std::string add64(DType t);   // MSL's out-of-line 64-bit addition
    std::string trip_count(bool is_signed);
    std::string cap63();
    std::string to_bits(DType t);    // f32 -> u32, f64 -> u64 bits
    std::string from_bits(DType t);  // and back
    std::string atomic(ir::AtomicOp op, DType t);
    std::string debug_claim();
    std::string block_combine(ir::BlockOp op);  // f32; (a, b): two partial results
    std::string block_reduce(ir::BlockOp op);   // f32; (scratch, lane, value)
    std::string print_claim();

    // Every arithmetic helper (not atomics or debug), for the host tests.
    void use_all_arithmetic();

    // The definitions asked for so far, in dependency order.
    std::string text() const { return text_; }

private:
    bool define(const std::string& name);  // false when already defined
    void add(const std::string& code);

    // The unsigned carrier (u32 or u64) that wraps arithmetic of type t.
    DType carrier(DType t) const { return bits_of(t) == 64 ? DType::U64 : DType::U32; }
    std::string ty(DType t) const { return type_name(t_, t); }

    const DialectTable& t_;
    std::set<std::string> defined_;
    std::string text_;
};

// A literal of the 64-bit type `t` (i64 or u64) in dialect `d`, e.g. 5L, 5ULL.
std::string literal64(const DialectTable& d, DType t, const std::string& digits);

}  // namespace tack::codegen::cfamily
