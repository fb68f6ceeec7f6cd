#include "codegen/cfamily/prelude.h"

#include <cctype>
#include <map>

#include "codegen/cfamily/abi.h"
#include "syntax/source.h"

namespace tack::codegen::cfamily {

namespace {

using Fill = std::map<std::string, std::string>;

// Replaces each `$name` (letters only) in `code` by its value in `fill`.
std::string expand(const std::string& code, const Fill& fill) {
    std::string out;
    for (size_t i = 0; i < code.size();) {
        if (code[i] != '$') {
            out += code[i++];
            continue;
        }
        size_t j = i + 1;
        while (j < code.size() && std::isalpha(static_cast<unsigned char>(code[j]))) ++j;
        auto it = fill.find(code.substr(i + 1, j - i - 1));
        TACK_CHECK(it != fill.end(), "emit_c", "prelude template names unknown '" + code.substr(i, j - i) + "'");
        out += it->second;
        i = j;
    }
    return out;
}

std::string tname(DType t) { return std::string(name_of(t)); }

}  // namespace

std::string literal64(const DialectTable& d, DType t, const std::string& digits) {
    return digits + (t == DType::U64 ? d.u64_suffix : d.i64_suffix);
}

Prelude::Prelude(Dialect d) : t_(cfamily::table(d)) {}

bool Prelude::define(const std::string& name) { return defined_.insert(name).second; }

void Prelude::add(const std::string& code) {
    Fill f{{"Q", t_.helper},
           {"N", t_.helper_noinline},
           {"G", t_.global},
           {"L", ty(DType::I64)},
           {"UL", ty(DType::U64)},
           {"U", ty(DType::U32)},
           {"I", ty(DType::I32)},
           {"ls", t_.i64_suffix},
           {"uls", t_.u64_suffix}};
    text_ += expand(code, f);
}

std::string Prelude::signed_from_bits(DType t) {
    std::string name = "tk_s" + std::to_string(bits_of(t));
    if (!define(name)) return name;
    std::string T = ty(t), C = ty(carrier(t)), n = name;
    if (t_.dialect == Dialect::Metal) {
        std::string bits = bits_of(t) < 32 ? "(" + ty(int_type(bits_of(t), false)) + ")u" : "u";
        add("$Q " + T + " " + n + "(" + C + " u) { return as_type<" + T + ">(" + bits + "); }\n");
    } else if (bits_of(t) == 64) {
        add("$Q $L " + n + "($UL u) {\n    return u <= 9223372036854775807$uls ? ($L)u : ($L)(u - 9223372036854775808$uls) - "
            "9223372036854775807$ls - 1$ls;\n}\n");
    } else if (bits_of(t) == 32) {
        add("$Q $I " + n + "($U u) { return u <= 2147483647u ? ($I)u : ($I)(u - 2147483648u) - 2147483647 - 1; }\n");
    } else {
        std::string mask = bits_of(t) == 8 ? "255u" : "65535u", max = bits_of(t) == 8 ? "127u" : "32767u",
                    span = bits_of(t) == 8 ? "256" : "65536";
        add("$Q " + T + " " + n + "($U u) {\n    u &= " + mask + ";\n    return (" + T + ")(u <= " + max +
            " ? ($I)u : ($I)u - " + span + ");\n}\n");
    }
    return name;
}

// The contract's device-compiler workarounds: OpenCL (Intel's IGC widened
// a wrapped narrow negation to its magnitude) keeps i8 and i16 negation out
// of line; CUDA (ptxas 12.0 to 13.2, the same fault) negates them with a
// 32-bit PTX subtraction, so the compiler never sees a 16-bit negation.
std::string Prelude::negate(DType t) {
    bool narrow = bits_of(t) < 32 && is_signed_int(t);
    if (!narrow || (t_.dialect != Dialect::OpenCL && t_.dialect != Dialect::Cuda)) return "";
    std::string name = "tk_neg_" + tname(t);
    if (!define(name)) return name;
    std::string S = signed_from_bits(t), T = ty(t);
    if (t_.dialect == Dialect::OpenCL) {
        add("$N " + T + " " + name + "(" + T + " x) { return " + S + "(0u - ($U)x); }\n");
    } else {
        add("$Q " + T + " " + name + "(" + T + " x) {\n#ifdef __CUDA_ARCH__\n    int r;\n"
            "    asm(\"sub.s32 %0, 0, %1;\" : \"=r\"(r) : \"r\"((int)x));\n    return " + S +
            "(($U)r);\n#else\n    return " + S + "(0u - ($U)x);\n#endif\n}\n");
    }
    return name;
}

// OpenCL keeps signed abs below 64 bits out of line, for the same fault.
std::string Prelude::abs(DType t) {
    std::string name = "tk_abs_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t), C = ty(carrier(t));
    std::string neg = negate(t);
    std::string negated = neg.empty() ? signed_from_bits(t) + "((" + C + ")0 - (" + C + ")x)" : neg + "(x)";
    const char* q = t_.dialect == Dialect::OpenCL && bits_of(t) < 64 ? "$N" : "$Q";
    add(std::string(q) + " " + T + " " + name + "(" + T + " x) { return x < 0 ? " + negated + " : x; }\n");
    return name;
}

std::string Prelude::shr(DType t) {
    std::string name = "tk_shr_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t), C = ty(carrier(t)), S = signed_from_bits(t);
    add("$Q " + T + " " + name + "(" + T + " a, $U c) {\n    " + C + " u = (" + C + ")a;\n    return " + S +
        "(a < 0 ? ~(~u >> c) : u >> c);\n}\n");
    return name;
}

std::string Prelude::min_max(bool is_min, DType t) {
    std::string name = std::string(is_min ? "tk_min_" : "tk_max_") + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t);
    add("$Q " + T + " " + name + "(" + T + " a, " + T + " b) { return a < b ? " + (is_min ? "a : b" : "b : a") +
        "; }\n");
    return name;
}

std::string Prelude::floordiv(DType t) {
    std::string name = "tk_floordiv_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t);
    if (is_float(t)) {
        std::string s = t == DType::F32 ? t_.f32_math_suffix : "", l = t == DType::F32 ? "f" : "";
        add("$Q " + T + " " + name + "(" + T + " a, " + T + " b) {\n    " + T + " m = fmod" + s + "(a, b);\n    " + T +
            " d = (a - m) / b;\n    if (m != 0.0" + l + " && (b < 0.0" + l + ") != (m < 0.0" + l + ")) d -= 1.0" + l +
            ";\n    if (d != 0.0" + l + ") {\n        " + T + " f = floor" + s + "(d);\n        if (d - f > 0.5" + l +
            ") f += 1.0" + l + ";\n        return f;\n    }\n    return copysign" + s + "(0.0" + l + ", a / b);\n}\n");
    } else if (is_unsigned_int(t)) {
        add("$Q " + T + " " + name + "(" + T + " a, " + T + " b) { return b == 0 ? (" + T + ")0 : (" + T +
            ")(a / b); }\n");
    } else {
        std::string C = ty(carrier(t)), W = bits_of(t) == 64 ? ty(DType::I64) : ty(DType::I32);
        std::string S = signed_from_bits(t);
        add("$Q " + T + " " + name + "(" + T + " a, " + T + " b) {\n    if ((" + C + ")b + (" + C + ")1 <= (" + C +
            ")1) return " + S + "((" + C + ")a * (" + C + ")b);\n    " + W + " q = (" + W + ")a / (" + W + ")b, m = (" +
            W + ")a % (" + W + ")b;\n    return (" + T + ")(m != 0 && (m < 0) != (b < 0) ? q - 1 : q);\n}\n");
    }
    return name;
}

std::string Prelude::mod(DType t) {
    std::string name = "tk_mod_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t);
    if (is_float(t)) {
        std::string s = t == DType::F32 ? t_.f32_math_suffix : "", l = t == DType::F32 ? "f" : "";
        add("$Q " + T + " " + name + "(" + T + " a, " + T + " b) {\n    " + T + " m = fmod" + s + "(a, b);\n" +
            "    if (m != 0.0" + l + ") {\n        if ((b < 0.0" + l + ") != (m < 0.0" + l + ")) m += b;\n" +
            "    } else {\n        m = copysign" + s + "(0.0" + l + ", b);\n    }\n    return m;\n}\n");
    } else if (is_unsigned_int(t)) {
        add("$Q " + T + " " + name + "(" + T + " a, " + T + " b) { return b == 0 ? (" + T + ")0 : (" + T +
            ")(a % b); }\n");
    } else {
        std::string C = ty(carrier(t)), W = bits_of(t) == 64 ? ty(DType::I64) : ty(DType::I32);
        add("$Q " + T + " " + name + "(" + T + " a, " + T + " b) {\n    if ((" + C + ")b + (" + C + ")1 <= (" + C +
            ")1) return 0;\n    " + W + " m = (" + W + ")a % (" + W + ")b;\n    return (" + T +
            ")(m != 0 && (m < 0) != (b < 0) ? m + b : m);\n}\n");
    }
    return name;
}

std::string Prelude::pow(DType t) {
    std::string name = "tk_pow_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t), C = ty(carrier(t));
    std::string result = is_signed_int(t) ? signed_from_bits(t) + "(acc)" : "(" + T + ")acc";
    add("$Q " + T + " " + name + "(" + T + " b, $UL e) {\n    " + C + " acc = 1, sq = (" + C + ")b;\n" +
        "    while (e != 0) {\n        if (e & 1) acc *= sq;\n        sq *= sq;\n        e >>= 1;\n    }\n" +
        "    return " + result + ";\n}\n");
    return name;
}

// Pipeline compilation crashed on the tested M1 Max when wrapping 64-bit
// additions updating a local inside loops with runtime bounds were inlined.
std::string Prelude::add64(DType t) {
    std::string name = "tk_add64_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t);
    std::string sum = is_signed_int(t) ? signed_from_bits(t) + "(($UL)a + ($UL)b)" : "a + b";
    add("$N " + T + " " + name + "(" + T + " a, " + T + " b) { return " + sum + "; }\n");
    return name;
}

// The number of values start, start + step, ... below end (above it for a
// negative step); 0 for an empty or reversed interval or a zero step. It
// fits 64 unsigned bits: the interval holds at most 2^64 - 1 steps of 1.
std::string Prelude::trip_count(bool is_signed) {
    std::string name = is_signed ? "tk_trip_s" : "tk_trip_u";
    if (!define(name)) return name;
    if (is_signed) {
        add("$Q $UL tk_trip_s($L s, $L e, $L st) {\n"
            "    if (st > 0 && e > s) return (($UL)e - ($UL)s - 1) / ($UL)st + 1;\n"
            "    if (st < 0 && s > e) return (($UL)s - ($UL)e - 1) / (($UL)0 - ($UL)st) + 1;\n"
            "    return 0;\n}\n");
    } else {
        add("$Q $UL tk_trip_u($UL s, $UL e, $UL st) { return st != 0 && e > s ? (e - s - 1) / st + 1 : 0; }\n");
    }
    return name;
}

std::string Prelude::cap63() {
    std::string name = "tk_cap63";
    if (define(name))
        add("$Q $L tk_cap63($UL n) { return n > 9223372036854775807$uls ? 9223372036854775807$ls : ($L)n; }\n");
    return name;
}

std::string Prelude::to_bits(DType t) {
    std::string name = "tk_bits_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t), B = ty(t == DType::F32 ? DType::U32 : DType::U64), body;
    switch (t_.dialect) {
        case Dialect::OpenCL: body = t == DType::F32 ? "as_uint(x)" : "as_ulong(x)"; break;
        case Dialect::Metal: body = "as_type<" + B + ">(x)"; break;
        case Dialect::Cuda:
        case Dialect::Hip: body = t == DType::F32 ? "__float_as_uint(x)" : "(" + B + ")__double_as_longlong(x)"; break;
    }
    add("$Q " + B + " " + name + "(" + T + " x) { return " + body + "; }\n");
    return name;
}

std::string Prelude::from_bits(DType t) {
    std::string name = "tk_from_bits_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t), B = ty(t == DType::F32 ? DType::U32 : DType::U64), body;
    switch (t_.dialect) {
        case Dialect::OpenCL: body = t == DType::F32 ? "as_float(u)" : "as_double(u)"; break;
        case Dialect::Metal: body = "as_type<" + T + ">(u)"; break;
        case Dialect::Cuda:
        case Dialect::Hip: body = t == DType::F32 ? "__uint_as_float(u)" : "__longlong_as_double((long long)u)"; break;
    }
    add("$Q " + T + " " + name + "(" + B + " u) { return " + body + "; }\n");
    return name;
}

// Relaxed, device-scope atomics returning the old value. Where the target
// has no native operation, a compare-and-swap loop on the element's integer
// bits combines the contributed value, which is computed once, before it.
// Exchange and compare-and-swap work on the bits too: a floating
// compare-and-swap compares bit patterns, as the CPU's does.
std::string Prelude::atomic(ir::AtomicOp op, DType t) {
    using ir::AtomicOp;
    std::string opname = std::string(ir::to_string(op)).substr(7);  // "atomic_add" -> "add"
    std::string name = "tk_atomic_" + opname + "_" + tname(t);
    if (!define(name)) return name;
    std::string T = ty(t), P = std::string(t_.global) + T + "* p";
    bool cas = op == AtomicOp::Cas;
    std::string head = "$Q " + T + " " + name + "(" + P + (cas ? ", " + T + " e" : "") + ", " + T + " v) {\n";
    bool f = is_float(t);
    DType bt = bits_of(t) == 64 ? DType::U64 : DType::U32;
    std::string B = ty(bt);
    auto bits = [&](const std::string& x) { return f ? to_bits(t) + "(" + x + ")" : "(" + B + ")" + x; };
    // The value to install, from the old bits `old`, and the value to return;
    // printed (with the helpers they call) only by a compare-and-swap loop.
    auto combined = [&] {
        if (op == AtomicOp::Exch) return bits("v");
        if (f) {
            std::string old = from_bits(t) + "(old)";
            std::string s = t == DType::F32 ? t_.f32_math_suffix : "";
            std::string value = op == AtomicOp::Add   ? old + " + v"
                                : op == AtomicOp::Sub ? old + " - v"
                                                      : std::string(op == AtomicOp::Min ? "fmin" : "fmax") + s + "(" + old + ", v)";
            return to_bits(t) + "(" + value + ")";
        }
        if (op == AtomicOp::Add) return "old + (" + B + ")v";
        if (op == AtomicOp::Sub) return "old - (" + B + ")v";
        std::string cur = is_signed_int(t) ? signed_from_bits(t) + "(old)" : "old";
        return "(" + cur + (op == AtomicOp::Min ? " < v" : " > v") + ") ? old : (" + B + ")v";
    };
    auto result = [&] { return f ? from_bits(t) + "(old)" : is_signed_int(t) ? signed_from_bits(t) + "(old)" : std::string("old"); };
    bool arithmetic = op == AtomicOp::Add || op == AtomicOp::Sub || op == AtomicOp::Min || op == AtomicOp::Max;
    switch (t_.dialect) {
        case Dialect::OpenCL: {
            const char* order = "memory_order_relaxed, memory_scope_device";
            std::string A = "volatile __global " + std::string(is_signed_int(t) ? "atomic_int" : "atomic_uint");
            if (cas) {
                std::string e = bits("e"), v = bits("v"), r = result();
                add(head + "    $U old = " + e + ";\n    atomic_compare_exchange_strong_explicit((volatile __global "
                    "atomic_uint*)p, &old, " + v + ", memory_order_relaxed, " + order + ");\n    return " + r + ";\n}\n");
            } else if (!f && arithmetic) {
                add(head + "    return atomic_fetch_" + opname + "_explicit((" + A + "*)p, v, " + order + ");\n}\n");
            } else if (op == AtomicOp::Exch) {
                std::string v = bits("v"), r = result();
                add(head + "    $U old = atomic_exchange_explicit((volatile __global atomic_uint*)p, " + v + ", " + order +
                    ");\n    return " + r + ";\n}\n");
            } else {
                std::string c = combined(), r = result();
                add(head + "    volatile __global atomic_uint* a = (volatile __global atomic_uint*)p;\n    $U old = "
                    "atomic_load_explicit(a, " + order + ");\n    while (!atomic_compare_exchange_strong_explicit(a, &old, " +
                    c + ", memory_order_relaxed, " + order + ")) {\n    }\n    return " + r + ";\n}\n");
            }
            break;
        }
        case Dialect::Metal: {
            std::string A = std::string("device ") + (is_signed_int(t) ? "atomic_int" : f && op == AtomicOp::Add ? "atomic_float" : "atomic_uint");
            if (cas) {
                // The weak form may fail spuriously: it retries while the
                // element still holds the expected bits.
                std::string e = bits("e"), v = bits("v"), r = result();
                add(head + "    device atomic_uint* a = (device atomic_uint*)p;\n    uint want = " + e +
                    ", old = want;\n    while (!atomic_compare_exchange_weak_explicit(a, &old, " + v +
                    ", memory_order_relaxed, memory_order_relaxed) && old == want) {\n    }\n    return " + r + ";\n}\n");
            } else if (arithmetic && (!f || op == AtomicOp::Add)) {
                add(head + "    return atomic_fetch_" + opname + "_explicit((" + A + "*)p, v, memory_order_relaxed);\n}\n");
            } else if (op == AtomicOp::Exch) {
                std::string v = bits("v"), r = result();
                add(head + "    uint old = atomic_exchange_explicit((device atomic_uint*)p, " + v +
                    ", memory_order_relaxed);\n    return " + r + ";\n}\n");
            } else {
                std::string c = combined(), r = result();
                add(head + "    device atomic_uint* a = (device atomic_uint*)p;\n    uint old = atomic_load_explicit(a, "
                    "memory_order_relaxed);\n    while (!atomic_compare_exchange_weak_explicit(a, &old, " + c +
                    ", memory_order_relaxed, memory_order_relaxed)) {\n    }\n    return " + r + ";\n}\n");
            }
            break;
        }
        case Dialect::Cuda:
        case Dialect::Hip: {
            // Native 32-bit operations: atomicAdd (integers and f32),
            // atomicSub/Min/Max (integers), atomicExch (integers and f32).
            bool native = bits_of(t) == 32 && (op == AtomicOp::Add || op == AtomicOp::Exch || (!f && arithmetic));
            if (cas) {
                std::string e = bits("e"), v = bits("v"), r = result();
                add(head + "    " + B + " old = atomicCAS((" + B + "*)p, " + e + ", " + v + ");\n    return " + r + ";\n}\n");
            } else if (native) {
                std::string fn = op == AtomicOp::Exch ? "atomicExch"
                                                      : "atomic" + std::string(1, static_cast<char>(opname[0] - 'a' + 'A')) +
                                                            opname.substr(1);
                add(head + "    return " + fn + "(p, v);\n}\n");
            } else {
                // 64-bit operations, f32 subtraction and extrema, through
                // integer CAS starting from a plain (volatile) read.
                std::string c = combined(), r = result();
                add(head + "    " + B + "* a = (" + B + "*)p;\n    " + B + " old = *(volatile " + B + "*)a;\n    for (;;) {\n        " +
                    B + " seen = atomicCAS(a, old, " + c + ");\n        if (seen == old) return " + r +
                    ";\n        old = seen;\n    }\n}\n");
            }
            break;
        }
    }
    return name;
}

// Debug records: word 0 goes from 0 to 1 once (a 32-bit compare-exchange on
// its low half; the runtime clears the record), and the winner writes the
// check's index to word 1. Its caller then writes the values.
// Two partial results of a reduction combined. Extrema: any NaN wins (a + b
// keeps it), min prefers -0.0 and max +0.0 between equal values, which makes
// the result independent of the combining order. The device array
// reductions use the same rules.
std::string Prelude::block_combine(ir::BlockOp op) {
    const char* opname = op == ir::BlockOp::Sum ? "sum" : op == ir::BlockOp::Min ? "min" : "max";
    std::string name = std::string("tk_block_") + opname + "_combine";
    if (!define(name)) return name;
    std::string body;
    if (op == ir::BlockOp::Sum) {
        body = "    return a + b;\n";
    } else {
        std::string negative = "(" + to_bits(DType::F32) + "(a) >> 31) != 0u";
        std::string tie = op == ir::BlockOp::Min ? negative + " ? a : b" : negative + " ? b : a";
        std::string pick = op == ir::BlockOp::Min ? "a < b ? a : b" : "a < b ? b : a";
        body = "    if (a != a || b != b) return a + b;\n    if (a == b) return " + tie + ";\n    return " + pick + ";\n";
    }
    add("$Q float " + name + "(float a, float b) {\n" + body + "}\n");
    return name;
}

std::string Prelude::block_reduce(ir::BlockOp op) {
    const char* opname = op == ir::BlockOp::Sum ? "sum" : op == ir::BlockOp::Min ? "min" : "max";
    std::string name = std::string("tk_block_") + opname;
    if (!define(name)) return name;
    std::string combine = block_combine(op);
    std::string sp = t_.shared_pointer;
    std::string wait = std::string(t_.shared_barrier) + ";\n";
    add("$Q float " + name + "(" + sp + "float* s, int lane, float v) {\n    s[lane] = v;\n    " + wait +
        "    for (int w = " + std::to_string(kGroupSize / 2) + "; w > 0; w >>= 1) {\n        if (lane < w) s[lane] = " +
        combine + "(s[lane], s[lane + w]);\n        " + wait + "    }\n    float r = s[0];\n    " + wait +
        "    return r;\n}\n");
    return name;
}

std::string Prelude::debug_claim() {
    std::string name = "tk_debug_claim";
    if (!define(name)) return name;
    std::string head = "$Q int tk_debug_claim($G$L* d, int id) {\n";
    std::string tail = "    d[1] = id;\n    return 1;\n}\n";
    switch (t_.dialect) {
        case Dialect::OpenCL:
            add(head + "    int zero = 0;\n    if (!atomic_compare_exchange_strong_explicit((volatile __global atomic_int*)d, "
                       "&zero, 1, memory_order_relaxed, memory_order_relaxed, memory_scope_device)) return 0;\n" + tail);
            break;
        case Dialect::Metal:
            add(head + "    int zero = 0;\n    while (!atomic_compare_exchange_weak_explicit((device atomic_int*)d, &zero, 1, "
                       "memory_order_relaxed, memory_order_relaxed)) {\n        if (zero != 0) return 0;\n    }\n" + tail);
            break;
        case Dialect::Cuda:
        case Dialect::Hip: add(head + "    if (atomicCAS((int*)d, 0, 1) != 0) return 0;\n" + tail); break;
    }
    return name;
}

// Claims `words` words of the print buffer (abi.h): the index of the first,
// or -1 when they do not fit.
std::string Prelude::print_claim() {
    std::string name = "tk_print_claim";
    if (!define(name)) return name;
    std::string head = "$Q $L tk_print_claim($G$L* p, int words) {\n";
    std::string tail = "    return ($L)at + ($L)words <= p[1] ? 2 + ($L)at : -1;\n}\n";
    switch (t_.dialect) {
        case Dialect::OpenCL:
            add(head + "    int at = atomic_fetch_add_explicit((volatile __global atomic_int*)p, words, "
                       "memory_order_relaxed, memory_scope_device);\n" + tail);
            break;
        case Dialect::Metal:
            add(head + "    int at = atomic_fetch_add_explicit((device atomic_int*)p, words, memory_order_relaxed);\n" +
                tail);
            break;
        case Dialect::Cuda:
        case Dialect::Hip: add(head + "    int at = atomicAdd((int*)p, words);\n" + tail); break;
    }
    return name;
}

void Prelude::use_all_arithmetic() {
    for (int i = 0; i < kNumDTypes; ++i) {
        DType t = static_cast<DType>(i);
        if (t == DType::F64 && !t_.has_f64) continue;
        floordiv(t);
        mod(t);
        if (is_float(t)) continue;
        pow(t);
        min_max(true, t);
        min_max(false, t);
        if (is_signed_int(t)) {
            signed_from_bits(t);
            negate(t);
            abs(t);
            shr(t);
        }
        if (bits_of(t) == 64 && t_.dialect == Dialect::Metal) add64(t);
    }
    trip_count(true);
    trip_count(false);
    cap63();
    to_bits(DType::F32);
    from_bits(DType::F32);
    if (t_.has_f64) {
        to_bits(DType::F64);
        from_bits(DType::F64);
    }
}

}  // namespace tack::codegen::cfamily
