#include "transforms/zero_unassigned_reads.h"

#include <set>
#include <vector>

#include "ir/traverse.h"

namespace tack::transforms {

using namespace ir;

namespace {

// Which variables are assigned on every path to a point of the body, walked
// in evaluation order; every read of a variable not among them is noted.
// Past a break or continue nothing runs: every variable counts as assigned
// there, so the path drops out of the join after a branch. A loop may run
// no trip, so after it only what was assigned before it counts, and its
// body starts from that too (a value carried from an earlier trip is not
// assigned on the first).
class Assigned {
public:
    using Set = std::vector<bool>;

    explicit Assigned(size_t vars) : vars_(vars) {}

    std::set<int> maybe_unassigned;  // variables read where they may not be assigned

    Set block(Block& b, Set in) {
        for (auto& s : b) in = stmt(*s, std::move(in));
        return in;
    }

private:
    size_t vars_;

    Set everything() const { return Set(vars_, true); }

    static Set both(const Set& a, const Set& b) {
        Set r(a.size());
        for (size_t v = 0; v < a.size(); ++v) r[v] = a[v] && b[v];
        return r;
    }

    Set children(Expr& e, Set in) {
        for_each_child(
            e, [&](ExprPtr& c) { in = expr(*c, std::move(in)); }, [&](Block& b) { in = block(b, std::move(in)); });
        return in;
    }

    Set expr(Expr& e, Set in) {
        if (auto* r = e.as<VarRef>()) {
            if (!in[r->var]) maybe_unassigned.insert(r->var);
            return in;
        }
        if (auto* s = e.as<Select>()) {
            Set c = expr(*s->cond, std::move(in));
            return both(expr(*s->if_true, c), expr(*s->if_false, c));
        }
        if (auto* l = e.as<Logical>()) {  // the right operand may not run
            Set left = expr(*l->lhs, std::move(in));
            expr(*l->rhs, left);
            return left;
        }
        return children(e, std::move(in));  // StmtExpr: its statements, then its value
    }

    Set stmt(Stmt& s, Set in) {
        switch (s.kind) {
            case StmtKind::Assign: {
                auto* a = s.as<Assign>();
                in = expr(*a->value, std::move(in));
                in[a->var] = true;
                return in;
            }
            case StmtKind::If: {
                auto* i = s.as<If>();
                Set c = expr(*i->cond, std::move(in));
                return both(block(i->then_body, c), block(i->else_body, c));
            }
            case StmtKind::For: {
                auto* f = s.as<For>();
                in = expr(*f->step, expr(*f->end, expr(*f->start, std::move(in))));
                Set trip = in;
                trip[f->var] = true;
                block(f->body, std::move(trip));
                return in;
            }
            case StmtKind::While: {
                auto* w = s.as<While>();
                in = expr(*w->cond, std::move(in));
                block(w->body, in);
                return in;
            }
            case StmtKind::Break:
            case StmtKind::Continue: return everything();
            default:
                for_each_child(
                    s, [&](ExprPtr& c) { in = expr(*c, std::move(in)); },
                    [&](Block& b) { in = block(b, std::move(in)); });
                return in;
        }
    }
};

ExprPtr zero_of(DType t, Span span) {
    ExprPtr z;
    if (is_float(t)) z = std::make_unique<FloatConst>();
    else z = std::make_unique<IntConst>();
    z->type = t;
    z->span = span;
    return z;
}

}  // namespace

void zero_unassigned_reads(Kernel& typed) {
    Assigned walk(typed.vars.size());
    // Parameters, the parallel loop's variables and what the statements
    // before the loop assign hold values when an iteration starts.
    Assigned::Set start(typed.vars.size(), false);
    for (size_t v = 0; v < typed.vars.size(); ++v)
        if (typed.vars[v].role == VarRole::Param) start[v] = true;
    for (auto& d : typed.dims) start[d.var] = true;
    start = walk.block(typed.prologue, std::move(start));
    walk.maybe_unassigned.clear();  // the prologue's own reads are not the body's concern
    walk.block(typed.body, start);
    if (walk.maybe_unassigned.empty()) return;

    Block body;
    for (int v : walk.maybe_unassigned) {
        auto a = std::make_unique<Assign>();
        a->var = v;
        a->value = zero_of(*typed.vars[v].type, typed.loop_span);
        a->span = typed.loop_span;
        body.push_back(std::move(a));
    }
    for (auto& s : typed.body) body.push_back(std::move(s));
    typed.body = std::move(body);
}

}  // namespace tack::transforms
