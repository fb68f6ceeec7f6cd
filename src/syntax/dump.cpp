// dump: one-line S-expressions of syntax trees, the form tests compare.
//
//   (+ a (* b c))          Binary          (- x) (not x)     Unary
//   (and a b c)            BoolOp          (cmp a < b <= c)  Compare
//   (if c then else)       IfExp           (call f a (kw k v) (kw ** d))
//   (. v attr)             Attribute       ([] v index)      Subscript
//   (tuple a b)            bare tuple      (tuple() a b)     parenthesized
//   (list a b)  (slice lo hi step)  (* v)  (unsupported "lambda" children...)
//
// Statements: (expr e) (= t1 t2 v) (+= t v) (for t it (body ...) (else ...))
// (while c (body ...)) (if c (body ...) (else ...)) (return v) (pass) ...
// A missing operand prints as `_`.
#include "syntax/ast.h"
#include "syntax/literals.h"

namespace tack::syntax {

namespace {

class Dumper {
public:
    std::string out;

    void expr(const Expr* e) {
        if (!e) {
            out += '_';
            return;
        }
        switch (e->kind) {
            case ExprKind::Name: out += e->as<Name>()->id; return;
            case ExprKind::IntLit: {
                const auto* n = e->as<IntLit>();
                if (n->negative) out += '-';
                out += n->overflow ? n->text : std::to_string(n->value);
                return;
            }
            case ExprKind::FloatLit: out += float_repr(e->as<FloatLit>()->value); return;
            case ExprKind::BoolLit: out += e->as<BoolLit>()->value ? "True" : "False"; return;
            case ExprKind::NoneLit: out += "None"; return;
            case ExprKind::StringLit: out += quote_string(e->as<StringLit>()->value); return;
            case ExprKind::Unary: {
                const auto* u = e->as<Unary>();
                open(to_string(u->op));
                arg(u->operand.get());
                break;
            }
            case ExprKind::Binary: {
                const auto* b = e->as<Binary>();
                open(to_string(b->op));
                arg(b->lhs.get());
                arg(b->rhs.get());
                break;
            }
            case ExprKind::BoolOp: {
                const auto* b = e->as<BoolOp>();
                open(to_string(b->op));
                args(b->values);
                break;
            }
            case ExprKind::Compare: {
                const auto* c = e->as<Compare>();
                open("cmp");
                arg(c->left.get());
                for (size_t i = 0; i < c->ops.size(); ++i) {
                    out += ' ';
                    out += to_string(c->ops[i]);
                    arg(i < c->comparators.size() ? c->comparators[i].get() : nullptr);
                }
                break;
            }
            case ExprKind::IfExp: {
                const auto* i = e->as<IfExp>();
                open("if");
                arg(i->cond.get());
                arg(i->then_value.get());
                arg(i->else_value.get());
                break;
            }
            case ExprKind::Call: {
                const auto* c = e->as<Call>();
                open("call");
                arg(c->func.get());
                args(c->args);
                for (const Keyword& k : c->keywords) {
                    out += " (kw ";
                    out += k.name.empty() ? "**" : k.name;
                    arg(k.value.get());
                    out += ')';
                }
                break;
            }
            case ExprKind::Attribute: {
                const auto* a = e->as<Attribute>();
                open(".");
                arg(a->value.get());
                out += ' ' + a->attr;
                break;
            }
            case ExprKind::Subscript: {
                const auto* s = e->as<Subscript>();
                open("[]");
                arg(s->value.get());
                arg(s->index.get());
                break;
            }
            case ExprKind::Tuple: {
                const auto* t = e->as<Tuple>();
                open(t->parenthesized ? "tuple()" : "tuple");
                args(t->elts);
                break;
            }
            case ExprKind::List:
                open("list");
                args(e->as<List>()->elts);
                break;
            case ExprKind::Slice: {
                const auto* s = e->as<Slice>();
                open("slice");
                arg(s->lower.get());
                arg(s->upper.get());
                arg(s->step.get());
                break;
            }
            case ExprKind::Starred: {
                const auto* s = e->as<Starred>();
                open(s->double_star ? "**" : "*");
                arg(s->value.get());
                break;
            }
            case ExprKind::UnsupportedExpr: {
                const auto* u = e->as<UnsupportedExpr>();
                open("unsupported");
                out += ' ' + quote_string(u->construct);
                args(u->children);
                break;
            }
        }
        out += ')';
    }

    void stmt(const Stmt& s) {
        switch (s.kind) {
            case StmtKind::ExprStmt:
                open("expr");
                arg(s.as<ExprStmt>()->value.get());
                break;
            case StmtKind::Assign: {
                const auto* a = s.as<Assign>();
                open("=");
                args(a->targets);
                arg(a->value.get());
                break;
            }
            case StmtKind::AugAssign: {
                const auto* a = s.as<AugAssign>();
                open(std::string(to_string(a->op)) + "=");
                arg(a->target.get());
                arg(a->value.get());
                break;
            }
            case StmtKind::For: {
                const auto* f = s.as<For>();
                open("for");
                arg(f->target.get());
                arg(f->iter.get());
                body("body", f->body);
                if (!f->orelse.empty()) body("else", f->orelse);
                break;
            }
            case StmtKind::While: {
                const auto* w = s.as<While>();
                open("while");
                arg(w->cond.get());
                body("body", w->body);
                if (!w->orelse.empty()) body("else", w->orelse);
                break;
            }
            case StmtKind::If: {
                const auto* i = s.as<If>();
                open("if");
                arg(i->cond.get());
                body("body", i->body);
                if (!i->orelse.empty()) body("else", i->orelse);
                break;
            }
            case StmtKind::Return: {
                const auto* r = s.as<Return>();
                open("return");
                if (r->value) arg(r->value.get());
                break;
            }
            case StmtKind::Break: open("break"); break;
            case StmtKind::Continue: open("continue"); break;
            case StmtKind::Pass: open("pass"); break;
            case StmtKind::UnsupportedStmt: {
                const auto* u = s.as<UnsupportedStmt>();
                open("unsupported-stmt");
                out += ' ' + quote_string(u->construct);
                out += " (exprs";
                args(u->exprs);
                out += ')';
                for (const Body& b : u->bodies) body("body", b);
                break;
            }
        }
        out += ')';
    }

    void function(const FunctionDef& fn) {
        open("def");
        out += ' ' + fn.name;
        if (fn.is_async) out += " async";
        out += " (params";
        for (const Param& p : fn.params) {
            static const char* const kinds[] = {"param", "param/", "param*", "param-kw", "param**"};
            out += " (";
            out += kinds[static_cast<int>(p.kind)];
            out += ' ' + p.name;
            if (p.annotation) {
                out += " :";
                arg(p.annotation.get());
            }
            if (p.default_value) {
                out += " =";
                arg(p.default_value.get());
            }
            out += ')';
        }
        out += ')';
        if (fn.returns) {
            out += " (->";
            arg(fn.returns.get());
            out += ')';
        }
        if (!fn.decorators.empty()) {
            out += " (decorators";
            args(fn.decorators);
            out += ')';
        }
        body("body", fn.body);
        out += ')';
    }

private:
    void open(const std::string& head) { out += "(" + head; }
    void arg(const Expr* e) {
        out += ' ';
        expr(e);
    }
    void args(const std::vector<ExprPtr>& es) {
        for (const ExprPtr& e : es) arg(e.get());
    }
    void body(const char* head, const Body& b) {
        out += " (";
        out += head;
        for (const StmtPtr& s : b) {
            out += ' ';
            stmt(*s);
        }
        out += ')';
    }
};

}  // namespace

std::string dump(const Expr& e) {
    Dumper d;
    d.expr(&e);
    return std::move(d.out);
}

std::string dump(const Stmt& s) {
    Dumper d;
    d.stmt(s);
    return std::move(d.out);
}

std::string dump(const FunctionDef& fn) {
    Dumper d;
    d.function(fn);
    return std::move(d.out);
}

}  // namespace tack::syntax
