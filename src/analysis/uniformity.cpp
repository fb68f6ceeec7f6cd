#include "analysis/uniformity.h"

#include <cstdint>
#include <optional>

#include "analysis/workgroups.h"
#include "ir/traverse.h"

namespace tack::analysis {

bool Uniformity::varying(const ir::Expr& e) const {
    switch (e.kind) {
        case ir::ExprKind::IntConst:
        case ir::ExprKind::FloatConst:
        case ir::ExprKind::ArrayDim:
        case ir::ExprKind::BlockReduce: return false;
        case ir::ExprKind::VarRef: return varying_vars[e.as<ir::VarRef>()->var];
        case ir::ExprKind::Load: {
            auto& l = *e.as<ir::Load>();
            if (l.array >= static_cast<int>(lockstep_arrays.size()) || !lockstep_arrays[l.array]) return true;
            for (auto& i : l.indices)
                if (varying(*i)) return true;
            return false;
        }
        case ir::ExprKind::Atomic:
        case ir::ExprKind::TextureSample:
        case ir::ExprKind::ThreadId: return true;
        case ir::ExprKind::Unary:
        case ir::ExprKind::Binary:
        case ir::ExprKind::Compare:
        case ir::ExprKind::Logical:
        case ir::ExprKind::Select:
        case ir::ExprKind::Cast:
        case ir::ExprKind::Math: {
            bool y = false;
            ir::for_each_child(e, [&](const ir::ExprPtr& c) { y = y || varying(*c); }, [](const ir::Block&) {});
            return y;
        }
        // The statements reach the value only through the variables they
        // assign, whose labels already count every assignment and the
        // control it stands under.
        case ir::ExprKind::StmtExpr: return varying(*e.as<ir::StmtExpr>()->value);
    }
    return true;
}

namespace {

// Whether `b`, a loop body or a block within it, has a break or continue
// of that loop which only some of the lanes running the body may take;
// `varying_here` says whether `b` itself runs in only some of them.
bool partial_exit(const ir::Block& b, bool varying_here, const Uniformity& labels) {
    for (auto& s : b) {
        switch (s->kind) {
            case ir::StmtKind::Break:
            case ir::StmtKind::Continue:
                if (varying_here) return true;
                break;
            case ir::StmtKind::If: {
                auto& i = *s->as<ir::If>();
                bool v = varying_here || labels.varying(*i.cond);
                if (partial_exit(i.then_body, v, labels) || partial_exit(i.else_body, v, labels)) return true;
                break;
            }
            // An inner loop's exits leave only that loop; an inlined
            // function's (in a StmtExpr) leave only its own loops.
            case ir::StmtKind::For:
            case ir::StmtKind::While:
            case ir::StmtKind::Assign:
            case ir::StmtKind::Store:
            case ir::StmtKind::Eval:
            case ir::StmtKind::Print:
            case ir::StmtKind::Barrier: break;
        }
    }
    return false;
}

}  // namespace

bool has_partial_exit(const ir::Block& loop_body, const Uniformity& labels) {
    return partial_exit(loop_body, false, labels);
}

namespace {

// Why some lanes of a workgroup may not run a statement.
enum class Divergence { None, Condition, Loop, Continue };

const char* reason(Divergence d) {
    switch (d) {
        case Divergence::None: break;
        case Divergence::Condition: return "under a condition that differs between lanes of a workgroup";
        case Divergence::Loop: return "in a loop that lanes of a workgroup leave at different iterations";
        case Divergence::Continue: return "after a `continue` that only some lanes of a workgroup take";
    }
    return "";
}

constexpr const char* kOutsideBody = "outside the parallel loop body; collectives must be inside it";
constexpr const char* kSelectArm =
    "in an arm of a conditional expression, whose guarded evaluation the generated code cannot keep; "
    "compute it in a statement of its own";
constexpr const char* kAndOperand =
    "in the right operand of `and`, whose short-circuit evaluation the generated code cannot keep; "
    "compute it in a statement of its own";
constexpr const char* kOrOperand =
    "in the right operand of `or`, whose short-circuit evaluation the generated code cannot keep; "
    "compute it in a statement of its own";
constexpr const char* kWhileCondition =
    "in a `while` condition, whose repeated evaluation the generated code cannot keep; "
    "compute it in a statement of its own";

// Where a statement or expression runs.
struct Context {
    Divergence control = Divergence::None;
    bool in_body = false;           // in the parallel loop body
    bool in_loop = false;           // a break or continue here leaves a sequential loop
    const char* guarded = nullptr;  // why a block reduction cannot stand here, or null
};

// One pass over the kernel under the current variable labels: it marks
// further variables varying and finds the first failure. A pass that marks
// nothing saw the final labels throughout, so its failure is the answer.
class Checker {
public:
    Checker(const ir::Kernel& k, Participation& p) : k_(k), p_(p) {}

    // Returns whether any variable became varying.
    bool pass() {
        changed_ = false;
        p_.failure.reset();
        Context outside;
        block(k_.prologue, outside);
        for (auto& d : k_.dims) {
            expr(*d.start, outside);
            expr(*d.end, outside);
            if (d.step) expr(*d.step, outside);
        }
        Context body;
        body.in_body = true;
        partial_exit_ = false;
        block(k_.body, body);
        partial_exit_ = false;
        block(k_.epilogue, outside);
        if (k_.result) expr(*k_.result, outside);
        return changed_;
    }

private:
    const ir::Kernel& k_;
    Participation& p_;
    bool changed_ = false;
    // Some lanes, not all, have left this parallel iteration by `continue`.
    bool partial_exit_ = false;

    const Uniformity& labels() const { return p_.labels; }

    void mark(int var) {
        if (p_.labels.varying_vars[var]) return;
        p_.labels.varying_vars[var] = true;
        changed_ = true;
    }

    // A local array shared by the lanes (simd_lane_labels) stops being
    // shared at a store that could differ between lanes.
    void unshare(int array) {
        auto& lockstep = p_.labels.lockstep_arrays;
        if (array < 0 || array >= static_cast<int>(lockstep.size()) || !lockstep[array]) return;
        if (k_.params[array].kind != ir::ParamKind::LocalArray) return;
        lockstep[array] = false;
        changed_ = true;
    }

    void collective(const char* primitive, ir::Span span, const Context& c, bool reduction) {
        if (p_.failure) return;
        const char* why = nullptr;
        if (!c.in_body) why = kOutsideBody;
        else if (reduction && c.guarded) why = c.guarded;
        else if (c.control != Divergence::None) why = reason(c.control);
        if (why) p_.failure = ParticipationFailure{primitive, span, why};
    }

    void block(const ir::Block& b, Context c) {
        for (auto& s : b) {
            if (partial_exit_ && c.control == Divergence::None) c.control = Divergence::Continue;
            stmt(*s, c);
        }
    }

    // The context of operands that run only when `guard` is true (or false).
    Context guarded_by(const Context& c, const ir::Expr& guard, const char* why) const {
        Context g = c;
        g.guarded = why;
        if (g.control == Divergence::None && labels().varying(guard)) g.control = Divergence::Condition;
        return g;
    }

    // The context of a loop body: varying when lanes may run different
    // numbers of iterations.
    Context loop_body(const Context& c, bool exit_varies, const ir::Block& body) const {
        Context inner = c;
        inner.in_loop = true;
        if (c.control == Divergence::None && (exit_varies || has_partial_exit(body, labels())))
            inner.control = Divergence::Loop;
        return inner;
    }

    void stmt(const ir::Stmt& s, const Context& c) {
        switch (s.kind) {
            case ir::StmtKind::Assign: {
                auto& a = *s.as<ir::Assign>();
                expr(*a.value, c);
                if (c.control != Divergence::None || labels().varying(*a.value)) mark(a.var);
                return;
            }
            case ir::StmtKind::Store: {
                ir::for_each_child(
                    s, [&](const ir::ExprPtr& e) { expr(*e, c); }, [&](const ir::Block& b) { block(b, c); });
                auto& st = *s.as<ir::Store>();
                bool uniform = c.control == Divergence::None && !labels().varying(*st.value);
                for (auto& i : st.indices) uniform = uniform && !labels().varying(*i);
                if (!uniform) unshare(st.array);
                return;
            }
            case ir::StmtKind::Eval:
            case ir::StmtKind::Print:
                ir::for_each_child(
                    s, [&](const ir::ExprPtr& e) { expr(*e, c); }, [&](const ir::Block& b) { block(b, c); });
                return;
            case ir::StmtKind::If: {
                auto& i = *s.as<ir::If>();
                expr(*i.cond, c);
                Context inner = c;
                if (c.control == Divergence::None && labels().varying(*i.cond)) inner.control = Divergence::Condition;
                // Lanes that leave in one branch do not skip the other.
                bool before = partial_exit_;
                block(i.then_body, inner);
                bool after_then = partial_exit_;
                partial_exit_ = before;
                block(i.else_body, inner);
                partial_exit_ = partial_exit_ || after_then;
                return;
            }
            case ir::StmtKind::For: {
                auto& f = *s.as<ir::For>();
                expr(*f.start, c);
                expr(*f.end, c);
                expr(*f.step, c);
                bool bounds_vary = labels().varying(*f.start) || labels().varying(*f.end) || labels().varying(*f.step);
                // Lanes that leave the loop early keep the value of their
                // last iteration.
                if (c.control != Divergence::None || bounds_vary || has_partial_exit(f.body, labels())) mark(f.var);
                block(f.body, loop_body(c, bounds_vary, f.body));
                return;
            }
            case ir::StmtKind::While: {
                auto& w = *s.as<ir::While>();
                // The condition runs again before every iteration, so in
                // the body's context.
                Context inner = loop_body(c, labels().varying(*w.cond), w.body);
                Context cond = inner;
                cond.guarded = kWhileCondition;
                expr(*w.cond, cond);
                block(w.body, inner);
                return;
            }
            case ir::StmtKind::Break: return;  // counted by the loop (has_partial_exit)
            case ir::StmtKind::Continue:
                if (!c.in_loop && c.control != Divergence::None) partial_exit_ = true;
                return;
            case ir::StmtKind::Barrier: collective("barrier", s.span, c, false); return;
        }
    }

    void expr(const ir::Expr& e, const Context& c) {
        switch (e.kind) {
            case ir::ExprKind::IntConst:
            case ir::ExprKind::FloatConst:
            case ir::ExprKind::VarRef:
            case ir::ExprKind::ArrayDim:
            case ir::ExprKind::ThreadId: return;
            case ir::ExprKind::Atomic:
                unshare(e.as<ir::Atomic>()->array);
                ir::for_each_child(
                    e, [&](const ir::ExprPtr& x) { expr(*x, c); }, [&](const ir::Block& b) { block(b, c); });
                return;
            case ir::ExprKind::Load:
            case ir::ExprKind::Unary:
            case ir::ExprKind::Binary:
            case ir::ExprKind::Compare:
            case ir::ExprKind::Cast:
            case ir::ExprKind::Math:
            case ir::ExprKind::TextureSample:
            case ir::ExprKind::StmtExpr:
                ir::for_each_child(
                    e, [&](const ir::ExprPtr& x) { expr(*x, c); }, [&](const ir::Block& b) { block(b, c); });
                return;
            case ir::ExprKind::Logical: {
                auto& l = *e.as<ir::Logical>();
                expr(*l.lhs, c);
                expr(*l.rhs, guarded_by(c, *l.lhs, l.op == ir::LogicOp::And ? kAndOperand : kOrOperand));
                return;
            }
            case ir::ExprKind::Select: {
                auto& s = *e.as<ir::Select>();
                expr(*s.cond, c);
                Context arm = guarded_by(c, *s.cond, kSelectArm);
                expr(*s.if_true, arm);
                expr(*s.if_false, arm);
                return;
            }
            case ir::ExprKind::BlockReduce: {
                auto& r = *e.as<ir::BlockReduce>();
                expr(*r.value, c);
                collective(ir::to_string(r.op), e.span, c, true);
                return;
            }
        }
    }
};

}  // namespace

Uniformity simd_lane_labels(const ir::Kernel& typed) {
    Participation p;
    p.labels.varying_vars.assign(typed.vars.size(), false);
    if (!typed.dims.empty()) p.labels.varying_vars[typed.dims.back().var] = true;
    p.labels.lockstep_arrays.assign(typed.params.size(), false);
    for (size_t a = 0; a < typed.params.size(); ++a) {
        auto kind = typed.params[a].kind;
        // Local arrays start shared and stop at the first store that could
        // differ between lanes (Checker::unshare).
        p.labels.lockstep_arrays[a] =
            kind == ir::ParamKind::Array || kind == ir::ParamKind::Texture || kind == ir::ParamKind::LocalArray;
    }
    Checker checker(typed, p);
    while (checker.pass()) continue;
    return std::move(p.labels);
}

namespace {

// The value of `e` when it is a nonnegative integer constant (under casts).
std::optional<int64_t> constant_of(const ir::Expr& e) {
    if (auto* c = e.as<ir::Cast>()) return constant_of(*c->operand);
    if (auto* i = e.as<ir::IntConst>(); i && !i->negative && i->bits <= uint64_t(INT64_MAX)) return int64_t(i->bits);
    return std::nullopt;
}

// Whether the innermost parallel dimension is exactly one workgroup,
// [0, kWorkgroupLanes) in steps of 1, with at least one dimension outside
// it: then every group runs one combination of the outer dimensions' values,
// and those are uniform in it.
bool innermost_dim_is_the_group(const ir::Kernel& k) {
    if (k.dims.size() < 2) return false;
    const ir::ParallelDim& d = k.dims.back();
    auto start = constant_of(*d.start), end = constant_of(*d.end);
    auto step = d.step ? constant_of(*d.step) : std::optional<int64_t>(1);
    return start == 0 && end == ir::kWorkgroupLanes && step == 1;
}

}  // namespace

Participation check_participation(const ir::Kernel& typed) {
    Participation p;
    p.labels.varying_vars.assign(typed.vars.size(), false);
    if (innermost_dim_is_the_group(typed))
        p.labels.varying_vars[typed.dims.back().var] = true;
    else
        for (auto& d : typed.dims) p.labels.varying_vars[d.var] = true;
    p.has_collectives = needs_complete_groups(typed);
    Checker checker(typed, p);
    while (checker.pass()) continue;  // each pass but the last marks a variable, so this ends
    return p;
}

void require_participation(const ir::Kernel& typed) {
    auto failure = check_participation(typed).failure;
    if (!failure) return;
    typed.fail(syntax::ErrorKind::Value, failure->span,
               "tack." + failure->primitive + "() is " + failure->reason +
                   ": every lane of a workgroup must reach it together",
               failure->primitive,
               "keep collectives under conditions and loops that depend only on scalar arguments, shapes and "
               "collective results");
}

}  // namespace tack::analysis
