// Expressions. Every printed expression has the C type of its dtype; integer
// arithmetic runs in the unsigned carrier (u32, or u64 for 64-bit types),
// which wraps without undefined behaviour, and a signed result is rebuilt
// from the carrier's low bits by tk_sN (representable conversions only).
#include <charconv>
#include <cmath>
#include <cstring>

#include "codegen/cfamily/printer.h"

namespace tack::codegen::cfamily {

namespace {

bool is_stable(const std::string& text) {
    if (text.rfind("tk_e", 0) == 0 && text.size() > 4) {
        for (size_t i = 4; i < text.size(); ++i)
            if (text[i] < '0' || text[i] > '9') return false;
        return true;
    }
    return !text.empty() && text[0] >= '0' && text[0] <= '9';
}

// Python's repr of a float from its shortest round-trip digits: fixed
// notation for decimal exponents in [-4, 16), otherwise d.ddde+XX.
std::string python_repr(const char* scientific) {
    std::string s = scientific;
    bool negative = s[0] == '-';
    if (negative) s.erase(0, 1);
    size_t e = s.find('e');
    std::string mantissa = s.substr(0, e);
    int exponent = std::stoi(s.substr(e + 1));
    std::string digits;
    for (char c : mantissa)
        if (c != '.') digits += c;
    std::string out;
    if (exponent >= -4 && exponent < 16) {
        if (exponent >= 0) {
            while (static_cast<int>(digits.size()) < exponent + 1) digits += '0';
            out = digits.substr(0, exponent + 1) + "." + (digits.size() > static_cast<size_t>(exponent + 1)
                                                              ? digits.substr(exponent + 1)
                                                              : "0");
        } else {
            out = "0." + std::string(-exponent - 1, '0') + digits;
        }
    } else {
        out = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + "e" +
              (exponent < 0 ? "-" : "+") + (std::abs(exponent) < 10 ? "0" : "") + std::to_string(std::abs(exponent));
    }
    return negative ? "-" + out : out;
}

// A literal's value as 64 bits, extended from its own type by its signedness.
uint64_t literal_bits(const IntConst& c) { return widened_bits(c.bits, c.dtype()); }

}  // namespace

// ----------------------------------------------------------------- literals

std::string Printer::int_literal(uint64_t bits, DType t) const {
    int w = bits_of(t);
    uint64_t mask = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
    bits &= mask;
    if (is_unsigned_int(t)) {
        std::string d = std::to_string(bits);
        return w == 64 ? lit64(t, d) : w == 32 ? d + "u" : d;
    }
    int64_t v = static_cast<int64_t>(w == 64 || !(bits >> (w - 1)) ? bits : bits | ~mask);
    auto lit = [&](int64_t x) { return w == 64 ? lit64(t, std::to_string(x)) : std::to_string(x); };
    if (w >= 32 && v == (w == 64 ? INT64_MIN : INT32_MIN)) return "(" + lit(v + 1) + " - " + lit(1) + ")";
    return v < 0 ? "(" + lit(v) + ")" : lit(v);
}

// The literal's exact binary64 value, rounded once to its type, printed as
// Python's repr of that value (which reads back exactly); f32 takes the `f`
// suffix. Non-finite values are spelled by their bits.
std::string Printer::float_literal(double v, DType t) {
    char buf[64];
    if (t == DType::F32) {
        float f = static_cast<float>(v);
        if (!std::isfinite(f)) {
            uint32_t b;
            std::memcpy(&b, &f, 4);
            return prelude_.from_bits(t) + "(" + std::to_string(b) + "u)";
        }
        *std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific).ptr = 0;
        std::string s = python_repr(buf) + "f";
        return s[0] == '-' ? "(" + s + ")" : s;
    }
    if (!std::isfinite(v)) {
        uint64_t b;
        std::memcpy(&b, &v, 8);
        return prelude_.from_bits(t) + "(" + lit64(DType::U64, std::to_string(b)) + ")";
    }
    *std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr = 0;
    std::string s = python_repr(buf);
    return s[0] == '-' ? "(" + s + ")" : s;
}

// --------------------------------------------------------------- conversions

std::string Printer::wrap(DType t, const std::string& v) {
    if (is_signed_int(t)) return prelude_.signed_from_bits(t) + "(" + v + ")";
    if (bits_of(t) >= 32) return "(" + v + ")";
    return "(" + ty(t) + ")(" + v + ")";
}

std::string Printer::carrier_cast(DType t, const std::string& v) const {
    return "(" + ty(bits_of(t) == 64 ? DType::U64 : DType::U32) + ")" + v;
}

// Tack's casts: integers reduce modulo 2^N at the destination and read the
// bits with its signedness; float to integer truncates (the caller keeps it
// in range); the rest are C's conversions.
std::string Printer::convert(DType from, DType to, const std::string& v) {
    if (from == to) return v;
    if (is_int(from) && is_signed_int(to)) {
        bool representable = is_signed_int(from) ? bits_of(from) <= bits_of(to) : bits_of(from) < bits_of(to);
        if (!representable) return wrap(to, carrier_cast(to, v));
    }
    return "(" + ty(to) + ")" + v;
}

std::string Printer::index64(const Expr& e, const std::string& text) {
    if (auto* lit = e.as<IntConst>()) return int_literal(literal_bits(*lit), DType::I64);
    return convert(e.dtype(), DType::I64, text);
}

std::string Printer::truth(const Expr& e) {
    // A comparison or a pure `and` / `or` is its own C condition.
    if (auto* c = e.as<Compare>()) {
        std::string v = compare(*c);
        return v.substr(5);  // without the (int) of its value
    }
    if (auto* u = e.as<Unary>(); u && u->op == UnOp::Not) return "(!" + truth(*u->operand) + ")";
    if (auto* l = e.as<Logical>(); l && !effectful(*l->rhs)) {
        std::string lhs = truth(*l->lhs);
        return "(" + lhs + (l->op == LogicOp::And ? " && " : " || ") + truth(*l->rhs) + ")";
    }
    return truth(expr(e), e.dtype());
}

std::string Printer::truth(const std::string& text, DType t) const {
    // NaN compares unequal to zero, so it is true.
    const char* zero = t == DType::F32 ? "0.0f" : t == DType::F64 ? "0.0" : "0";
    return "(" + text + " != " + zero + ")";
}

// -------------------------------------------------------------- expressions

bool Printer::effectful(const Expr& e) {
    auto it = effectful_.find(&e);
    if (it != effectful_.end()) return it->second;
    bool y = e.kind == ExprKind::Atomic || e.kind == ExprKind::StmtExpr || e.kind == ExprKind::BlockReduce;
    if (debug_) {
        y = y || e.kind == ExprKind::Load;
        if (auto* b = e.as<Binary>())
            y = y || ((b->op == BinOp::FloorDiv || b->op == BinOp::Mod) && is_int(b->dtype()));
    }
    if (!y) for_each_child(e, [&](const ExprPtr& c) { y = y || effectful(*c); }, [&](const Block&) { y = true; });
    effectful_[&e] = y;
    return y;
}

std::vector<std::string> Printer::operands(const std::vector<const Expr*>& kids) {
    std::vector<std::string> texts;
    for (size_t i = 0; i < kids.size(); ++i) {
        if (effectful(*kids[i]))
            for (size_t j = 0; j < i; ++j)
                if (!is_stable(texts[j])) texts[j] = temp(kids[j]->dtype(), texts[j]);
        texts.push_back(expr(*kids[i]));
    }
    return texts;
}

std::string Printer::expr(const Expr& e) {
    switch (e.kind) {
        case ExprKind::IntConst: return int_literal(e.as<IntConst>()->bits, e.dtype());
        case ExprKind::FloatConst: return float_literal(e.as<FloatConst>()->value, e.dtype());
        case ExprKind::VarRef: {
            int v = e.as<VarRef>()->var;
            TACK_CHECK(k_.vars[v].type.has_value(), kEmitPass, "local '" + k_.vars[v].name + "' has no type");
            return var_names_[v];
        }
        case ExprKind::Load: return load(*e.as<Load>());
        case ExprKind::ArrayDim: {
            auto& d = *e.as<ArrayDim>();
            return convert(DType::I64, e.dtype(), extent(d.array, d.dim));
        }
        case ExprKind::Unary: return unary(*e.as<Unary>());
        case ExprKind::Binary: return binary(*e.as<Binary>());
        case ExprKind::Compare: return compare(*e.as<Compare>());
        case ExprKind::Logical: return logical(*e.as<Logical>());
        case ExprKind::Select: return select(*e.as<Select>());
        case ExprKind::Cast: {
            // An integer literal converts as it is printed: its bits reduced
            // at the destination.
            auto& c = *e.as<Cast>();
            if (auto* lit = c.operand->as<IntConst>(); lit && is_int(c.to)) return int_literal(literal_bits(*lit), c.to);
            return convert(c.operand->dtype(), c.to, expr(*c.operand));
        }
        case ExprKind::Math: return math(*e.as<Math>());
        case ExprKind::Atomic: return atomic(*e.as<Atomic>());
        case ExprKind::StmtExpr: return stmt_expr(*e.as<StmtExpr>());
        case ExprKind::TextureSample: {
            auto& t = *e.as<TextureSample>();
            TACK_CHECK(t_.texture_sample != nullptr, kEmitPass, "a hardware texture sample in a dialect without them");
            std::vector<const Expr*> kids;
            for (auto& c : t.coords) kids.push_back(c.get());
            auto texts = operands(kids);
            return std::string(t_.texture_sample) + "(" + array_names_[t.texture] + ", " + texts[0] + ", " + texts[1] +
                   ", " + texts[2] + ")";
        }
        case ExprKind::ThreadId: return t_.lane_index;
        case ExprKind::BlockReduce: {
            // Every lane evaluates it once, in order (the participation proof
            // keeps it out of conditional operands), so it is a statement.
            auto& r = *e.as<BlockReduce>();
            note_collective();
            std::string v = expr(*r.value);
            return temp(DType::F32, prelude_.block_reduce(r.op) + "(tk_scratch, " + t_.lane_index + ", " + v + ")");
        }
    }
    syntax::internal_error(kEmitPass, "unknown expression");
}

std::string Printer::unary(const Unary& u) {
    std::string v = expr(*u.operand);
    DType t = u.dtype();
    switch (u.op) {
        case UnOp::Not: {
            DType ot = u.operand->dtype();
            return "(int)(" + v + (ot == DType::F32 ? " == 0.0f)" : ot == DType::F64 ? " == 0.0)" : " == 0)");
        }
        case UnOp::Neg: {
            if (is_float(t)) return "(-" + v + ")";
            std::string helper = prelude_.negate(t);
            if (!helper.empty()) return helper + "(" + v + ")";
            return wrap(t, carrier_cast(t, "0") + " - " + carrier_cast(t, v));
        }
        case UnOp::Invert: return wrap(t, "~" + carrier_cast(t, v));
    }
    syntax::internal_error(kEmitPass, "unknown unary operator");
}

std::string Printer::binary(const Binary& b) {
    bool add64 = add64_next_;
    add64_next_ = false;
    bool rounded = rounded_next_;
    rounded_next_ = false;
    std::vector<std::string> o = operands({b.lhs.get(), b.rhs.get()});
    std::string l = o[0], r = o[1];
    DType t = b.dtype();
    bool f = is_float(t);
    std::string sfx = t == DType::F32 ? t_.f32_math_suffix : "";
    auto arith = [&](const char* op) {
        if (f) return "(" + l + " " + op + " " + r + ")";
        return wrap(t, carrier_cast(t, l) + " " + op + " " + carrier_cast(t, r));
    };
    auto count = [&] { return "((" + ty(DType::U32) + ")" + r + (bits_of(t) == 64 ? " & 63u)" : " & 31u)"); };
    switch (b.op) {
        case BinOp::Add:
            if (add64) return prelude_.add64(t) + "(" + l + ", " + r + ")";
            return arith("+");
        case BinOp::Sub: return arith("-");
        case BinOp::Mul:
            if (rounded) return std::string(t_.rounded_product[t == DType::F64]) + "(" + l + ", " + r + ")";
            return arith("*");
        case BinOp::Div: return "(" + l + " / " + r + ")";
        case BinOp::FloorDiv:
        case BinOp::Mod: {
            if (debug_ && !f) {
                if (!is_stable(r)) r = temp(b.rhs->dtype(), r);
                check_divisor(r, b.span);
            }
            std::string helper = b.op == BinOp::FloorDiv ? prelude_.floordiv(t) : prelude_.mod(t);
            return helper + "(" + l + ", " + r + ")";
        }
        case BinOp::Pow: {
            if (f) return "pow" + sfx + "(" + l + ", " + r + ")";
            // The exponent's 64 bits: sign-extended when it is signed.
            DType et = b.rhs->dtype();
            std::string e = is_signed_int(et) && bits_of(et) < 64 ? "(" + u64() + ")(" + i64() + ")" + r : "(" + u64() + ")" + r;
            return prelude_.pow(t) + "(" + l + ", " + e + ")";
        }
        case BinOp::Shl: return wrap(t, carrier_cast(t, l) + " << " + count());
        case BinOp::Shr:
            if (is_signed_int(t)) return prelude_.shr(t) + "(" + l + ", " + count() + ")";
            return wrap(t, carrier_cast(t, l) + " >> " + count());
        case BinOp::BitAnd: return arith("&");
        case BinOp::BitOr: return arith("|");
        case BinOp::BitXor: return arith("^");
        case BinOp::Min:
        case BinOp::Max: {
            bool mn = b.op == BinOp::Min;
            if (f) return std::string(mn ? "fmin" : "fmax") + sfx + "(" + l + ", " + r + ")";
            return prelude_.min_max(mn, t) + "(" + l + ", " + r + ")";
        }
    }
    syntax::internal_error(kEmitPass, "unknown binary operator");
}

std::string Printer::compare(const Compare& c) {
    std::vector<std::string> o = operands({c.lhs.get(), c.rhs.get()});
    const char* op = "";
    switch (c.op) {
        case CmpOp::Lt: op = "<"; break;
        case CmpOp::Le: op = "<="; break;
        case CmpOp::Gt: op = ">"; break;
        case CmpOp::Ge: op = ">="; break;
        case CmpOp::Eq: op = "=="; break;
        case CmpOp::Ne: op = "!="; break;  // true for NaN, as Python's
    }
    return "(int)(" + o[0] + " " + op + " " + o[1] + ")";
}

std::string Printer::logical(const Logical& l) {
    bool is_and = l.op == LogicOp::And;
    if (!effectful(*l.rhs)) return "(int)" + truth(l);
    std::string lhs = truth(*l.lhs);
    std::string r = fresh("tk_e");
    line("int " + r + (is_and ? " = 0;" : " = 1;"));
    open("if " + parenthesized(is_and ? lhs : "!" + lhs));
    std::string rhs = truth(*l.rhs);
    line(r + " = " + rhs + ";");
    close();
    return r;
}

std::string Printer::select(const Select& s) {
    std::string c = truth(*s.cond);
    if (!effectful(*s.if_true) && !effectful(*s.if_false))
        return "(" + c + " ? " + expr(*s.if_true) + " : " + expr(*s.if_false) + ")";
    DType t = s.dtype();
    std::string r = fresh("tk_e");
    line(ty(t) + " " + r + " = 0;");
    open("if " + parenthesized(c));
    std::string a = expr(*s.if_true);
    line(r + " = " + a + ";");
    --indent_;
    line("} else {");
    ++indent_;
    std::string b = expr(*s.if_false);
    line(r + " = " + b + ";");
    close();
    return r;
}

std::string Printer::math(const Math& m) {
    std::vector<const Expr*> kids;
    for (auto& a : m.args) kids.push_back(a.get());
    std::vector<std::string> a = operands(kids);
    DType t = m.dtype();
    if (m.fn == MathFn::Abs && is_int(t)) return is_signed_int(t) ? prelude_.abs(t) + "(" + a[0] + ")" : a[0];
    std::string name = c_name(m.fn);
    name += t == DType::F32 ? t_.f32_math_suffix : "";
    std::string s = name + "(" + a[0];
    for (size_t i = 1; i < a.size(); ++i) s += ", " + a[i];
    return s + ")";
}

std::string Printer::stmt_expr(const StmtExpr& s) {
    block(s.stmts);
    return expr(*s.value);
}

// ------------------------------------------------------------------- memory

std::string Printer::extent(int array, int dim) const {
    auto& p = k_.params[array];
    if (p.kind == ParamKind::LocalArray) return lit64(DType::I64, std::to_string(p.local_shape[dim]));
    return "tk_n" + std::to_string(dim) + "_" + array_names_[array];
}

// The indices' texts (`texts`, printed by the caller) as 64-bit integers.
// An index read twice (by a debug check, or to unravel a flat index into a
// strided view) is bound once.
std::vector<std::string> Printer::indices(int array, const std::vector<ExprPtr>& idx, const std::vector<std::string>& texts) {
    auto& p = k_.params[array];
    bool unravel = idx.size() == 1 && p.ndim > 1 && p.kind != ParamKind::LocalArray && !p.contiguous;
    std::vector<std::string> out;
    for (size_t i = 0; i < idx.size(); ++i) {
        std::string v = index64(*idx[i], texts[i]);
        if (!is_stable(v) && (debug_ || unravel)) v = temp(DType::I64, v);
        out.push_back(v);
    }
    return out;
}

std::string Printer::offset(int array, std::vector<std::string> idx, int component) {
    auto& p = k_.params[array];
    bool local = p.kind == ParamKind::LocalArray;
    bool contiguous = local || p.contiguous;
    int es = local || p.soa ? 1 : p.components();
    std::string es_factor = es == 1 ? "" : " * " + std::to_string(es);
    std::string off;
    if (static_cast<int>(idx.size()) == p.ndim) {
        if (contiguous) {
            off = idx[0];
            for (int d = 1; d < p.ndim; ++d) off = "(" + off + " * " + extent(array, d) + " + " + idx[d] + ")";
            if (es != 1) off = "(" + off + es_factor + ")";
        } else {
            for (int d = 0; d < p.ndim; ++d)
                off += (d ? " + " : "(") + idx[d] + " * tk_s" + std::to_string(d) + "_" + array_names_[array];
            off += ")";
        }
    } else if (contiguous) {
        off = es == 1 ? idx[0] : "(" + idx[0] + es_factor + ")";
    } else {
        // A flat index into a strided view, unravelled by the extents.
        std::string q = idx[0];
        std::vector<std::string> terms;
        for (int d = p.ndim - 1; d >= 0; --d) {
            std::string i = d == 0 ? q : "(" + q + " % " + extent(array, d) + ")";
            if (d > 0) q = "(" + q + " / " + extent(array, d) + ")";
            terms.push_back(i + " * tk_s" + std::to_string(d) + "_" + array_names_[array]);
        }
        off = "(";
        for (size_t i = 0; i < terms.size(); ++i) off += (i ? " + " : "") + terms[i];
        off += ")";
    }
    if (component != 0) {
        std::string cs = p.soa ? " * tk_c_" + array_names_[array] : "";
        off = "(" + off + " + " + std::to_string(component) + cs + ")";
    }
    return off;
}

// Debug mode: each index within its extent (a flat index within the
// element count), compared unsigned so a negative index fails too. The
// first failure of the launch records its check and values.
std::string Printer::bounds_check(int array, std::vector<std::string>& idx, Span span) {
    if (!debug_) return "";
    auto& p = k_.params[array];
    int id = static_cast<int>(accesses_.size());
    accesses_.push_back(DebugAccess{array, span, static_cast<int>(idx.size()), DebugAccess::Check::Bounds});
    std::string U = "(" + u64() + ")";
    std::string cond, total;
    bool per_dim = static_cast<int>(idx.size()) == p.ndim;
    if (per_dim) {
        for (int d = 0; d < p.ndim; ++d) cond += (d ? " && " : "") + U + idx[d] + " < " + U + extent(array, d);
    } else {
        total = extent(array, 0);
        for (int d = 1; d < p.ndim; ++d) total += " * " + extent(array, d);
        total = "(" + total + ")";
        cond = U + idx[0] + " < " + U + total;
    }
    std::string ok = fresh("tk_ok");
    line("const int " + ok + " = " + cond + ";");
    open("if (!" + ok + " && " + prelude_.debug_claim() + "(tk_debug, " + std::to_string(id) + "))");
    for (size_t d = 0; d < idx.size(); ++d) line("tk_debug[" + std::to_string(2 + d) + "] = " + idx[d] + ";");
    if (per_dim) {
        for (int d = 0; d < p.ndim; ++d) line("tk_debug[" + std::to_string(10 + d) + "] = " + extent(array, d) + ";");
    } else {
        line("tk_debug[10] = " + total + ";");
    }
    close();
    return ok;
}

void Printer::check_divisor(const std::string& divisor, Span span) {
    int id = static_cast<int>(accesses_.size());
    accesses_.push_back(DebugAccess{-1, span, 0, DebugAccess::Check::ZeroDivisor});
    line("if (" + divisor + " == 0) (void)" + prelude_.debug_claim() + "(tk_debug, " + std::to_string(id) + ");");
}

static std::vector<const Expr*> raw(const std::vector<ExprPtr>& v) {
    std::vector<const Expr*> out;
    for (auto& e : v) out.push_back(e.get());
    return out;
}

std::string Printer::load(const Load& l) {
    std::vector<std::string> idx = indices(l.array, l.indices, operands(raw(l.indices)));
    std::string ok = bounds_check(l.array, idx, l.span);
    std::string text = array_names_[l.array] + "[" + offset(l.array, idx, l.component) + "]";
    if (ok.empty()) return text;
    // A skipped load yields zero.
    std::string r = fresh("tk_e");
    line(ty(l.dtype()) + " " + r + " = 0;");
    line("if " + parenthesized(ok) + " " + r + " = " + text + ";");
    return r;
}

std::string Printer::atomic(const Atomic& a) {
    bool discard = discard_atomic_;
    discard_atomic_ = false;
    // The indices, then the expected value (compare-and-swap), then the
    // value, evaluated once.
    std::vector<const Expr*> kids = raw(a.indices);
    if (a.expected) kids.push_back(a.expected.get());
    kids.push_back(a.value.get());
    std::vector<std::string> texts = operands(kids);
    DType t = k_.params[a.array].dtype;
    std::string v = texts.back();
    texts.pop_back();
    if (!is_stable(v)) v = temp(t, v);
    if (a.expected) {
        std::string expected = texts.back();
        texts.pop_back();
        v = (is_stable(expected) ? expected : temp(t, expected)) + ", " + v;
    }
    std::vector<std::string> idx = indices(a.array, a.indices, texts);
    std::string ok = bounds_check(a.array, idx, a.span);
    std::string call = prelude_.atomic(a.op, t) + "(&" + array_names_[a.array] + "[" + offset(a.array, idx, a.component) +
                       "], " + v + ")";
    if (discard) {
        line(ok.empty() ? call + ";" : "if " + parenthesized(ok) + " (void)" + call + ";");
        return "";
    }
    if (ok.empty()) return temp(t, call);
    std::string r = fresh("tk_e");
    line(ty(t) + " " + r + " = 0;");
    line("if " + parenthesized(ok) + " " + r + " = " + call + ";");
    return r;
}

}  // namespace tack::codegen::cfamily
