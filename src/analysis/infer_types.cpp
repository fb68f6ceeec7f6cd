#include "analysis/infer_types.h"

#include <algorithm>
#include <functional>

#include "ir/traverse.h"

namespace tack::analysis {

using namespace ir;
using syntax::ErrorKind;

std::optional<DType> promote_int(DType a, DType b) {
    if (a == b) return a;
    bool sa = is_signed_int(a), sb = is_signed_int(b);
    if (sa == sb) return bits_of(a) >= bits_of(b) ? a : b;
    DType s = sa ? a : b, u = sa ? b : a;
    if (u == DType::U64) return std::nullopt;
    return int_type(std::max(bits_of(s), 2 * bits_of(u)), true);
}

namespace {

struct Info {
    std::optional<DType> type;  // nullopt while a local it reads is unsettled
    bool weak = false;          // a literal expression containing a float literal
    // A literal expression: literals combined by unary +/-, binary operators,
    // math builtins and conditional arms. An integer one (1 + 2, 1 / 3)
    // keeps the integer rules but does not make a weak operand strong.
    bool lit = false;
};

// What the assignments to one local have contributed so far.
struct VarJoin {
    std::optional<DType> strong;  // join of non-weak assignments
    bool weak = false;            // some assignment is a weak float expression
    Span span;                    // the first assignment, for diagnostics
};

DType int_literal_type(const IntConst& c) {
    if (c.negative) {
        auto v = static_cast<int64_t>(c.bits);
        return v >= INT32_MIN ? DType::I32 : DType::I64;
    }
    if (c.bits <= static_cast<uint64_t>(INT32_MAX)) return DType::I32;
    if (c.bits <= static_cast<uint64_t>(INT64_MAX)) return DType::I64;
    return DType::U64;
}

// ------------------------------------------------ weak single-assignment locals
//
// A local assigned exactly once, to a weak literal expression (a = 0.1), is
// that expression wherever it is read, so each read takes the precision of
// what it meets. Reads are replaced by copies of the literal before typing;
// the assignment itself stays and is dead. A device function's literal
// results qualify through the temporaries that carry them: a StmtExpr's
// literal value stands for the StmtExpr without repeating its statements.

// Applies `f` to every expression slot directly below `e` or `s`.
template <typename F> void each_slot(Expr& e, F&& f);
template <typename F> void each_slot(Stmt& s, F&& f);

template <typename F> void each_slot(Block& b, F&& f) {
    for (auto& s : b) each_slot(*s, f);
}

template <typename F> void each_slot(Expr& e, F&& f) {
    for_each_child(e, f, [&](Block& b) { each_slot(b, f); });
}

template <typename F> void each_slot(Stmt& s, F&& f) {
    for_each_child(s, f, [&](Block& b) { each_slot(b, f); });
}

template <typename F> void each_slot(Kernel& k, F&& f) {
    each_slot(k.prologue, f);
    for (auto& d : k.dims) {
        f(d.start);
        f(d.end);
        if (d.step) f(d.step);
    }
    each_slot(k.body, f);
    each_slot(k.epilogue, f);
    if (k.result) f(k.result);
}

// Reads nothing but constants.
bool constant_only(const Expr& e) {
    switch (e.kind) {
        case ExprKind::IntConst:
        case ExprKind::FloatConst: return true;
        case ExprKind::Unary: return constant_only(*e.as<Unary>()->operand);
        case ExprKind::Binary: return constant_only(*e.as<Binary>()->lhs) && constant_only(*e.as<Binary>()->rhs);
        case ExprKind::Compare: return constant_only(*e.as<Compare>()->lhs) && constant_only(*e.as<Compare>()->rhs);
        case ExprKind::Logical: return constant_only(*e.as<Logical>()->lhs) && constant_only(*e.as<Logical>()->rhs);
        case ExprKind::Cast: return constant_only(*e.as<Cast>()->operand);
        case ExprKind::Select: {
            auto& s = *e.as<Select>();
            return constant_only(*s.cond) && constant_only(*s.if_true) && constant_only(*s.if_false);
        }
        case ExprKind::Math:
            for (auto& a : e.as<Math>()->args)
                if (!constant_only(*a)) return false;
            return true;
        default: return false;
    }
}

// A literal expression whose conditional expressions have constant
// conditions; `has_float` reports a float literal inside.
bool substitutable_literal(const Expr& e, bool& has_float) {
    switch (e.kind) {
        case ExprKind::IntConst: return true;
        case ExprKind::FloatConst: has_float = true; return true;
        case ExprKind::Unary:
            return e.as<Unary>()->op == UnOp::Neg && substitutable_literal(*e.as<Unary>()->operand, has_float);
        case ExprKind::Binary:
            return substitutable_literal(*e.as<Binary>()->lhs, has_float) &&
                   substitutable_literal(*e.as<Binary>()->rhs, has_float);
        case ExprKind::Math:
            for (auto& a : e.as<Math>()->args)
                if (!substitutable_literal(*a, has_float)) return false;
            return true;
        case ExprKind::Select: {
            auto& s = *e.as<Select>();
            return constant_only(*s.cond) && substitutable_literal(*s.if_true, has_float) &&
                   substitutable_literal(*s.if_false, has_float);
        }
        default: return false;
    }
}

const Expr& literal_part(const Expr& e) {
    const Expr* v = &e;
    while (auto* se = v->as<StmtExpr>()) v = se->value.get();
    return *v;
}

void substitute_weak_locals(Kernel& k) {
    // Assignments per local; loop variables never qualify.
    std::vector<int> count(k.vars.size(), 0);
    std::vector<Assign*> single(k.vars.size(), nullptr);
    std::function<void(Stmt&)> count_stmt = [&](Stmt& s) {
        if (auto* a = s.as<Assign>()) {
            ++count[a->var];
            single[a->var] = a;
        } else if (auto* f = s.as<For>()) {
            count[f->var] += 2;
        }
    };
    auto count_all = [&](Block& b) { ir::visit(b, [](Expr&) {}, count_stmt); };
    count_all(k.prologue);
    count_all(k.body);
    count_all(k.epilogue);
    for (auto& d : k.dims) {
        count[d.var] += 2;
        ir::visit(*d.start, [](Expr&) {}, count_stmt);
        ir::visit(*d.end, [](Expr&) {}, count_stmt);
        if (d.step) ir::visit(*d.step, [](Expr&) {}, count_stmt);
    }
    if (k.result) ir::visit(*k.result, [](Expr&) {}, count_stmt);

    std::vector<const Expr*> known(k.vars.size(), nullptr);
    std::function<void(ExprPtr&)> rewrite = [&](ExprPtr& slot) {
        if (auto* r = slot->as<VarRef>(); r && known[r->var]) {
            Span span = slot->span;
            slot = clone(*known[r->var]);
            slot->span = span;
            return;
        }
        each_slot(*slot, rewrite);
    };
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t v = 0; v < k.vars.size(); ++v) {
            VarRole role = k.vars[v].role;
            if (known[v] || count[v] != 1 || (role != VarRole::Local && role != VarRole::Temp)) continue;
            rewrite(single[v]->value);
            bool has_float = false;
            const Expr& lit = literal_part(*single[v]->value);
            if (substitutable_literal(lit, has_float) && has_float) {
                known[v] = &lit;
                grew = true;
            }
        }
    }
    // The literals stay in their assignments, which no read reaches now.
    each_slot(k, rewrite);
}

class Inference {
public:
    Inference(Kernel& k, DType float_precision) : k_(k), precision_(float_precision), joins_(k.vars.size()) {}

    void run() {
        substitute_weak_locals(k_);
        for (auto& v : k_.vars) {
            if (v.role == VarRole::Param) v.type = k_.params[v.param].dtype;
        }
        // Locals take the join of their assignments; iterate to a fixed point
        // because a local can be read (around a loop) before it is assigned.
        for (int round = 0; round < 64; ++round) {
            changed_ = false;
            settle_phase_ = false;
            walk_all();
            if (!changed_) break;
        }
        for (size_t i = 0; i < k_.vars.size(); ++i) {
            auto& v = k_.vars[i];
            if (v.role == VarRole::Param) continue;
            v.type = final_var_type(i);
        }
        settle_phase_ = true;
        walk_all();
        insert_casts_all();
        k_.typed = true;
    }

private:
    // ---------------------------------------------------------- traversal

    void walk_all() {
        block(k_.prologue);
        for (auto& d : k_.dims) dim(d);
        block(k_.body);
        block(k_.epilogue);
        if (k_.result) {
            Info r = expr(*k_.result, DType::F32);
            if (settle_phase_ && k_.result_type) settle_to(*k_.result, r, *k_.result_type);
        }
    }

    void dim(ParallelDim& d) {
        Info s = expr(*d.start, DType::F32), e = expr(*d.end, DType::F32);
        Info st = d.step ? expr(*d.step, DType::F32) : Info{DType::I32, false};
        auto t = range_type({{&s, adopting(*d.start)}, {&e, false}, {&st, !d.step || adopting(*d.step)}}, d.span);
        if (t) contribute(d.var, Info{t, false}, d.span);
    }

    // The loop variable's type: the join of the bounds' and the step's. An
    // implicit start or step (an adopting constant) joins only where its
    // type can: range(n) of a u64 n counts in u64.
    std::optional<DType> range_type(std::initializer_list<std::pair<Info*, bool>> parts, Span span) {
        std::optional<DType> t;
        for (auto [p, implicit] : parts) {
            if (!p->type) return std::nullopt;
            if (is_float(*p->type))
                k_.fail(ErrorKind::Type, span, "range bounds and steps must be integers, not " +
                                                   std::string(name_of(*p->type)),
                        "range", "convert with int(...) or an integer cast");
            if (!implicit) t = t ? join_int(*t, *p->type, span) : *p->type;
        }
        for (auto [p, implicit] : parts)
            if (implicit && t && promote_int(*t, *p->type)) t = join_int(*t, *p->type, span);
        return t;
    }

    void block(Block& b) {
        for (auto& s : b) stmt(*s);
    }

    void stmt(Stmt& s) {
        switch (s.kind) {
            case StmtKind::Assign: {
                auto& a = *s.as<Assign>();
                Info v = expr(*a.value, DType::F32);
                if (!settle_phase_) {
                    contribute(a.var, v, s.span);
                } else {
                    settle_to(*a.value, v, *k_.vars[a.var].type);
                }
                break;
            }
            case StmtKind::Store: {
                auto& st = *s.as<Store>();
                DType elem = k_.params[st.array].dtype;
                Info v = expr(*st.value, elem);
                if (settle_phase_) settle_to(*st.value, v, elem);
                for (auto& i : st.indices) index(*i);
                break;
            }
            case StmtKind::Eval: expr(*s.as<Eval>()->value, DType::F32); break;
            case StmtKind::Print:
                for (auto& a : s.as<Print>()->args) expr(*a, DType::F32);
                break;
            case StmtKind::If: {
                auto& i = *s.as<If>();
                expr(*i.cond, DType::F32);
                block(i.then_body);
                block(i.else_body);
                break;
            }
            case StmtKind::For: {
                auto& f = *s.as<For>();
                Info a = expr(*f.start, DType::F32), b = expr(*f.end, DType::F32), c = expr(*f.step, DType::F32);
                auto t = range_type({{&a, adopting(*f.start)}, {&b, false}, {&c, adopting(*f.step)}}, f.span);
                if (t) contribute(f.var, Info{t, false}, f.span);
                block(f.body);
                break;
            }
            case StmtKind::While:
                expr(*s.as<While>()->cond, DType::F32);
                block(s.as<While>()->body);
                break;
            case StmtKind::Break:
            case StmtKind::Continue:
            case StmtKind::Barrier: break;
        }
    }

    void index(Expr& i) {
        Info t = expr(i, DType::F32);
        if (t.type && is_float(*t.type))
            k_.fail(ErrorKind::Type, i.span, "an array index must be an integer, not " + std::string(name_of(*t.type)),
                    "index", "convert with int(...)");
    }

    // ------------------------------------------------------------ locals

    DType join_int(DType a, DType b, Span span) {
        auto t = promote_int(a, b);
        if (!t)
            k_.fail(ErrorKind::Type, span,
                    "mixing " + std::string(name_of(a)) + " and " + std::string(name_of(b)) +
                        " needs an explicit cast (no integer type holds both ranges)",
                    "integer promotion", "cast one side explicitly, e.g. tack.u64(x) or tack.i64(y)");
        return *t;
    }

    DType join(DType a, DType b, Span span) {
        if (is_int(a) && is_int(b)) return join_int(a, b, span);
        if (a == DType::F64 || b == DType::F64) return DType::F64;
        return DType::F32;
    }

    void contribute(int var, Info v, Span span) {
        if (!v.type) return;
        VarJoin& j = joins_[var];
        VarJoin before = j;
        if (v.weak) {
            j.weak = true;
        } else {
            j.strong = j.strong ? join(*j.strong, *v.type, span) : *v.type;
        }
        if (j.strong != before.strong || j.weak != before.weak) changed_ = true;
    }

    std::optional<DType> current_var_type(int var) const {
        const Var& v = k_.vars[var];
        if (v.role == VarRole::Param) return v.type;
        const VarJoin& j = joins_[var];
        if (!j.strong && !j.weak) return std::nullopt;
        return final_var_type(var);
    }

    DType final_var_type(size_t var) const {
        const VarJoin& j = joins_[var];
        if (j.strong) {
            if (j.weak && is_int(*j.strong)) return DType::F32;
            return *j.strong;
        }
        if (j.weak) return precision_;
        return DType::I32;  // never assigned: only read
    }

    // ------------------------------------------------------- expressions

    // Types `e`; weak float literals inside a wholly weak `e` take
    // `weak_as`. Every call rewrites the annotations of the whole subtree,
    // so settling a weak operand is re-typing it with another `weak_as`.
    Info expr(Expr& e, DType weak_as) {
        if (!is_float(weak_as)) weak_as = DType::F32;  // an integer destination decides nothing
        Info r = compute(e, weak_as);
        e.type = r.type;
        e.weak = r.weak;
        return r;
    }

    // A weak operand meeting a non-weak floating type T takes T.
    void settle_to(Expr& e, Info& info, DType target) {
        if (info.weak && is_float(target)) info = expr(e, target);
    }

    // An adopting constant (IntConst::adopts) beside an integer its own type
    // cannot be mixed with (u64) takes that integer's type.
    static void adopt(Expr& e, Info& info, const Info& partner) {
        if (!adopting(e) || !info.type || !partner.type || !is_int(*partner.type)) return;
        if (!promote_int(*info.type, *partner.type)) info.type = e.type = partner.type;
    }

    static bool adopting(const Expr& e) {
        auto* c = e.as<IntConst>();
        return c && c->adopts;
    }

    Info arith_pair(Expr& lhs, Expr& rhs, DType weak_as, Span span, bool* int_pair) {
        Info a = expr(lhs, weak_as), b = expr(rhs, weak_as);
        *int_pair = false;
        if (!a.type || !b.type) return Info{};
        adopt(rhs, b, a);
        adopt(lhs, a, b);
        bool lit = a.lit && b.lit;
        // Literal expressions together stay weak when one of them is; an
        // integer literal inside converts at this operation.
        if (lit && (a.weak || b.weak)) return Info{weak_as, true, true};
        if (a.weak) {
            // A weak float with an integer is an f32 value, no longer weak.
            DType t = is_float(*b.type) ? *b.type : DType::F32;
            a = expr(lhs, t);
            return Info{t, false};
        }
        if (b.weak) {
            DType t = is_float(*a.type) ? *a.type : DType::F32;
            b = expr(rhs, t);
            return Info{t, false};
        }
        if (is_int(*a.type) && is_int(*b.type)) {
            *int_pair = true;
            return Info{join_int(*a.type, *b.type, span), false, lit};
        }
        return Info{join(*a.type, *b.type, span), false, lit};
    }

    // A tree of Select::joins_all links, a runtime index's choice among a
    // vector's or a matrix's components: the type of all of them together.
    // Any float makes it a float (f64 where one is f64; a weak float
    // literal beside integers only, f32); integers alone join as integers
    // do.
    Info component_choice(Select& s, DType weak_as) {
        // The links (a matrix's runtime row and column nest one chain per
        // row in the chain of rows) and the components they choose among.
        std::vector<Select*> chain;
        std::vector<Expr*> arms;
        std::function<void(Select&)> gather = [&](Select& link) {
            chain.push_back(&link);
            expr(*link.cond, DType::F32);
            for (Expr* arm : {link.if_true.get(), link.if_false.get()}) {
                if (auto* inner = arm->as<Select>(); inner && inner->joins_all)
                    gather(*inner);
                else
                    arms.push_back(arm);
            }
        };
        gather(s);
        std::vector<Info> infos;
        for (Expr* a : arms) infos.push_back(expr(*a, weak_as));
        bool all_weak = true, any_weak = false, any_float = false, any_f64 = false;
        for (const Info& i : infos) {
            if (!i.type) return Info{};
            any_weak |= i.weak;
            all_weak &= i.weak;
            any_float |= !i.weak && is_float(*i.type);
            any_f64 |= !i.weak && *i.type == DType::F64;
        }
        std::optional<DType> ints;  // (integers alone join as integers)
        if (!any_float && !any_weak)
            for (const Info& i : infos) ints = ints ? join_int(*ints, *i.type, s.span) : *i.type;
        Info out;
        if (all_weak) {
            out = Info{weak_as, true, true};
        } else {
            DType t = any_f64 ? DType::F64 : any_float || any_weak ? DType::F32 : *ints;
            for (size_t k = 0; k < arms.size(); ++k) settle_to(*arms[k], infos[k], t);
            out = Info{t, false};
        }
        for (Select* link : chain) {  // (the outermost takes it from expr())
            link->type = out.type;
            link->weak = out.weak;
        }
        return out;
    }

    Info compute(Expr& e, DType weak_as) {
        switch (e.kind) {
            case ExprKind::IntConst: return Info{int_literal_type(*e.as<IntConst>()), false, true};
            case ExprKind::FloatConst: return Info{weak_as, true, true};
            case ExprKind::VarRef: {
                const int var = e.as<VarRef>()->var;
                auto t = current_var_type(var);
                // Every assignment of the local reads the local itself
                // (s = s + 1 around a loop): the first one to run reads it
                // before any value was assigned.
                if (!t && settle_phase_)
                    k_.fail(ErrorKind::Name, e.span,
                            "local variable '" + k_.vars[var].name + "' is read before any value is assigned to it",
                            "", "assign it a starting value before the loop");
                return Info{t, false};
            }
            case ExprKind::Load: {
                auto& l = *e.as<Load>();
                for (auto& i : l.indices) index(*i);
                return Info{k_.params[l.array].dtype, false};
            }
            case ExprKind::ArrayDim: return Info{DType::I64, false};
            case ExprKind::Unary: {
                auto& u = *e.as<Unary>();
                Info a = expr(*u.operand, u.op == UnOp::Not ? DType::F32 : weak_as);
                if (u.op == UnOp::Not) return Info{DType::I32, false};
                if (!a.type) return Info{};
                if (u.op == UnOp::Invert && is_float(*a.type))
                    k_.fail(ErrorKind::Type, e.span, "'~' needs an integer operand, not " + std::string(name_of(*a.type)));
                return a;
            }
            case ExprKind::Binary: return binary(*e.as<Binary>(), weak_as);
            case ExprKind::Compare: {
                auto& c = *e.as<Compare>();
                bool int_pair;
                // Two weak operands meet nothing that decides: f32.
                arith_pair(*c.lhs, *c.rhs, DType::F32, e.span, &int_pair);
                return Info{DType::I32, false};
            }
            case ExprKind::Logical: {
                auto& l = *e.as<Logical>();
                expr(*l.lhs, DType::F32);
                expr(*l.rhs, DType::F32);
                return Info{DType::I32, false};
            }
            case ExprKind::Select: {
                auto& s = *e.as<Select>();
                if (s.joins_all) return component_choice(s, weak_as);
                expr(*s.cond, DType::F32);
                bool int_pair;
                return arith_pair(*s.if_true, *s.if_false, weak_as, e.span, &int_pair);
            }
            case ExprKind::Cast: {
                auto& c = *e.as<Cast>();
                // The operand of a cast to a floating T takes T; a conversion
                // to an integer type evaluates a literal in f32.
                expr(*c.operand, is_float(c.to) ? c.to : DType::F32);
                return Info{c.to, false};
            }
            case ExprKind::Math: return math(*e.as<Math>(), weak_as);
            case ExprKind::Atomic: {
                auto& a = *e.as<Atomic>();
                for (auto& i : a.indices) index(*i);
                DType elem = k_.params[a.array].dtype;
                if (a.expected) {
                    Info x = expr(*a.expected, elem);
                    if (settle_phase_) settle_to(*a.expected, x, elem);
                }
                Info v = expr(*a.value, elem);
                if (settle_phase_) settle_to(*a.value, v, elem);
                return Info{elem, false};
            }
            case ExprKind::ThreadId: return Info{DType::I32, false};
            case ExprKind::BlockReduce: {
                // f32 in, f32 out: anything else is refused rather than narrowed.
                auto& r = *e.as<BlockReduce>();
                Info v = expr(*r.value, DType::F32);
                if (v.type && *v.type != DType::F32)
                    k_.fail(ErrorKind::Type, r.value->span,
                            std::string("tack.") + to_string(r.op) + "() reduces f32 values, not " +
                                std::string(name_of(*v.type)),
                            to_string(r.op), "convert explicitly with tack.f32(...)");
                if (settle_phase_) settle_to(*r.value, v, DType::F32);
                return Info{DType::F32, false};
            }
            case ExprKind::TextureSample:
                // The frontend converted each coordinate to f32.
                for (auto& c : e.as<TextureSample>()->coords) expr(*c, DType::F32);
                return Info{DType::F32, false};
            case ExprKind::StmtExpr: {
                auto& s = *e.as<StmtExpr>();
                block(s.stmts);
                return expr(*s.value, weak_as);
            }
        }
        return Info{};
    }

    Info binary(Binary& b, DType weak_as) {
        bool int_pair = false;
        switch (b.op) {
            case BinOp::Shl:
            case BinOp::Shr: {
                Info a = expr(*b.lhs, weak_as), c = expr(*b.rhs, weak_as);
                if (!a.type || !c.type) return Info{};
                if (is_float(*a.type) || is_float(*c.type))
                    k_.fail(ErrorKind::Type, b.span, std::string("'") + to_string(b.op) + "' needs integer operands");
                return Info{a.type, false, a.lit && c.lit};  // shifts keep the left operand's type
            }
            case BinOp::BitAnd:
            case BinOp::BitOr:
            case BinOp::BitXor: {
                Info r = arith_pair(*b.lhs, *b.rhs, weak_as, b.span, &int_pair);
                if (r.type && !int_pair)
                    k_.fail(ErrorKind::Type, b.span, std::string("'") + to_string(b.op) + "' needs integer operands");
                return r;
            }
            case BinOp::Pow: {
                Info a = expr(*b.lhs, weak_as), c = expr(*b.rhs, weak_as);
                if (!a.type || !c.type) return Info{};
                if (is_int(*a.type) && is_int(*c.type) && !a.weak && !c.weak) {
                    if (auto* lit = b.rhs->as<IntConst>(); lit && lit->negative)
                        k_.fail(ErrorKind::Value, b.rhs->span, "negative integer exponent", "integer power",
                                "cast the base to a float for negative powers: tack.f32(a) ** e");
                    return Info{a.type, false, a.lit && c.lit};  // integer power keeps the base's type
                }
                return arith_pair(*b.lhs, *b.rhs, weak_as, b.span, &int_pair);
            }
            case BinOp::Div: {
                // True division of integers converts each operand to f32 on
                // its own, so signed/u64 pairs need no common integer type.
                Info a = expr(*b.lhs, weak_as), c = expr(*b.rhs, weak_as);
                if (!a.type || !c.type) return Info{};
                if (is_int(*a.type) && is_int(*c.type)) return Info{DType::F32, false, a.lit && c.lit};
                return arith_pair(*b.lhs, *b.rhs, weak_as, b.span, &int_pair);
            }
            default: return arith_pair(*b.lhs, *b.rhs, weak_as, b.span, &int_pair);
        }
    }

    Info math(Math& m, DType weak_as) {
        std::vector<Info> args;
        for (auto& a : m.args) args.push_back(expr(*a, weak_as));
        for (auto& a : args)
            if (!a.type) return Info{};
        if (m.fn == MathFn::Abs && is_int(*args[0].type)) return args[0];
        bool all_lit = true, any_weak = false, any_f64 = false;
        for (auto& a : args) {
            all_lit = all_lit && a.lit;
            any_weak = any_weak || a.weak;
            any_f64 = any_f64 || (!a.weak && *a.type == DType::F64);
        }
        if (all_lit && any_weak) return Info{weak_as, true, true};
        DType t = any_f64 ? DType::F64 : DType::F32;
        for (size_t i = 0; i < args.size(); ++i) settle_to(*m.args[i], args[i], t);
        return Info{t, false, all_lit};
    }

    // ---------------------------------------------------------- casts

    ExprPtr converted(ExprPtr e, DType to) {
        if (e->dtype() == to) return e;
        auto c = std::make_unique<Cast>();
        c->to = to;
        c->type = to;
        c->span = e->span;
        c->operand = std::move(e);
        return c;
    }

    void insert_casts_all() {
        auto on_expr = [&](Expr& e) { casts_in(e); };
        auto on_stmt = [&](Stmt& s) { casts_in(s); };
        visit(k_.prologue, on_expr, on_stmt);
        for (auto& d : k_.dims) {
            DType t = *k_.vars[d.var].type;
            visit(*d.start, on_expr, on_stmt);
            visit(*d.end, on_expr, on_stmt);
            d.start = converted(std::move(d.start), t);
            d.end = converted(std::move(d.end), t);
            if (d.step) {
                visit(*d.step, on_expr, on_stmt);
                d.step = converted(std::move(d.step), t);
            }
        }
        visit(k_.body, on_expr, on_stmt);
        visit(k_.epilogue, on_expr, on_stmt);
        if (k_.result) {
            visit(*k_.result, on_expr, on_stmt);
            if (k_.result_type) k_.result = converted(std::move(k_.result), *k_.result_type);
        }
    }

    void casts_in(Stmt& s) {
        switch (s.kind) {
            case StmtKind::Assign: {
                auto& a = *s.as<Assign>();
                a.value = converted(std::move(a.value), *k_.vars[a.var].type);
                break;
            }
            case StmtKind::Store: {
                auto& st = *s.as<Store>();
                st.value = converted(std::move(st.value), k_.params[st.array].dtype);
                break;
            }
            case StmtKind::For: {
                auto& f = *s.as<For>();
                DType t = *k_.vars[f.var].type;
                f.start = converted(std::move(f.start), t);
                f.end = converted(std::move(f.end), t);
                f.step = converted(std::move(f.step), t);
                break;
            }
            default: break;
        }
    }

    void casts_in(Expr& e) {
        switch (e.kind) {
            case ExprKind::Binary: {
                auto& b = *e.as<Binary>();
                DType t = b.dtype();
                if (b.op == BinOp::Pow && is_int(t)) {
                    b.lhs = converted(std::move(b.lhs), t);
                } else if (b.op == BinOp::Shl || b.op == BinOp::Shr) {
                    b.lhs = converted(std::move(b.lhs), t);
                    b.rhs = converted(std::move(b.rhs), t);
                } else {
                    b.lhs = converted(std::move(b.lhs), t);
                    b.rhs = converted(std::move(b.rhs), t);
                }
                break;
            }
            case ExprKind::Compare: {
                auto& c = *e.as<Compare>();
                DType l = c.lhs->dtype(), r = c.rhs->dtype();
                DType t = join(l, r, e.span);
                c.lhs = converted(std::move(c.lhs), t);
                c.rhs = converted(std::move(c.rhs), t);
                break;
            }
            case ExprKind::Select: {
                auto& s = *e.as<Select>();
                s.if_true = converted(std::move(s.if_true), s.dtype());
                s.if_false = converted(std::move(s.if_false), s.dtype());
                break;
            }
            case ExprKind::Math: {
                auto& m = *e.as<Math>();
                for (auto& a : m.args) a = converted(std::move(a), m.dtype());
                break;
            }
            case ExprKind::Atomic: {
                auto& a = *e.as<Atomic>();
                if (a.expected) a.expected = converted(std::move(a.expected), k_.params[a.array].dtype);
                a.value = converted(std::move(a.value), k_.params[a.array].dtype);
                break;
            }
            case ExprKind::Unary: {
                auto& u = *e.as<Unary>();
                if (u.op != UnOp::Not) u.operand = converted(std::move(u.operand), u.dtype());
                break;
            }
            default: break;
        }
    }

    Kernel& k_;
    DType precision_;
    std::vector<VarJoin> joins_;
    bool changed_ = false;
    bool settle_phase_ = false;
};

}  // namespace

void infer_types(Kernel& k, DType float_precision) { Inference(k, float_precision).run(); }

}  // namespace tack::analysis
