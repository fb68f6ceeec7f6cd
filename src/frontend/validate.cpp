#include "frontend/validate.h"

namespace tack::frontend {

using namespace syntax;

Diagnostic make_diagnostic(ErrorKind kind, const FunctionDef& fn, FunctionRole role, Span span, std::string message,
                           std::string construct, std::string hint) {
    Diagnostic d;
    d.kind = kind;
    d.message = std::move(message);
    d.construct = std::move(construct);
    d.function = fn.name;
    d.function_kind = role == FunctionRole::Kernel ? "kernel" : "device function";
    d.hint = std::move(hint);
    d.span = span;
    d.source = fn.source;
    return d;
}

namespace {

class Validator {
public:
    Validator(const FunctionDef& fn, FunctionRole role) : fn_(fn), role_(role) {}

    void run() {
        for (auto& p : fn_.params) {
            if (p.kind == ParamKind::VarArgs) reject(p.span, "*args parameter");
            if (p.kind == ParamKind::VarKeywords) reject(p.span, "**kwargs parameter");
            if (p.kind == ParamKind::KeywordOnly) reject(p.span, "keyword-only parameter");
            if (p.default_value) reject(p.default_value->span, "parameter default", "parameters take no defaults; pass every argument");
        }
        if (fn_.is_async) reject(fn_.span, "async def");
        body(fn_.body, /*top=*/true, /*loop_depth=*/0);
    }

private:
    [[noreturn]] void reject(Span span, const std::string& construct, std::string hint = {}) {
        std::string where = role_ == FunctionRole::Kernel ? "kernels" : "device functions";
        throw CompileError(make_diagnostic(ErrorKind::Unsupported, fn_, role_, span,
                                           construct + " is not supported in " + where, construct, std::move(hint)));
    }

    void body(const Body& b, bool top, int loop_depth) {
        for (size_t i = 0; i < b.size(); ++i) {
            const Stmt& s = *b[i];
            // A string expression statement first in the function is its docstring.
            if (auto* e = s.as<ExprStmt>(); e && e->value->as<StringLit>() && top && i == 0) continue;
            stmt(s, top, loop_depth, top && i + 1 == b.size());
        }
    }

    void stmt(const Stmt& s, bool top, int loop_depth, bool last_in_function) {
        switch (s.kind) {
            case StmtKind::ExprStmt: {
                auto& e = *s.as<ExprStmt>()->value;
                if (e.as<StringLit>()) reject(e.span, "string value", "only a function's first statement may be a docstring");
                expr(e);
                break;
            }
            case StmtKind::Assign: {
                auto& a = *s.as<Assign>();
                for (auto& t : a.targets) target(*t);
                expr(*a.value);
                break;
            }
            case StmtKind::AugAssign: {
                auto& a = *s.as<AugAssign>();
                target(*a.target);
                if (a.target->as<syntax::Tuple>() || a.target->as<List>()) reject(a.target->span, "augmented assignment to a tuple");
                expr(*a.value);
                break;
            }
            case StmtKind::For: {
                auto& f = *s.as<For>();
                target(*f.target);
                expr(*f.iter);
                if (!f.orelse.empty()) reject(f.orelse.front()->span, "for-else");
                body(f.body, false, loop_depth + 1);
                break;
            }
            case StmtKind::While: {
                auto& w = *s.as<While>();
                expr(*w.cond);
                if (!w.orelse.empty()) reject(w.orelse.front()->span, "while-else");
                body(w.body, false, loop_depth + 1);
                break;
            }
            case StmtKind::If: {
                auto& f = *s.as<If>();
                expr(*f.cond);
                body(f.body, false, loop_depth);
                body(f.orelse, false, loop_depth);
                break;
            }
            case StmtKind::Return: {
                auto& r = *s.as<Return>();
                if (loop_depth > 0)
                    reject(s.span, "return inside a loop",
                           "a return may end a device function only outside loops; set a flag and break instead");
                if (role_ == FunctionRole::Kernel && !(top && last_in_function))
                    reject(s.span, "return that is not the kernel's last statement",
                           "a kernel may return a value only as its last statement");
                if (r.value) expr(*r.value);
                break;
            }
            case StmtKind::Break:
            case StmtKind::Continue:
            case StmtKind::Pass: break;
            case StmtKind::UnsupportedStmt: {
                auto& u = *s.as<UnsupportedStmt>();
                std::string hint;
                if (u.construct == "assert") hint = "device assertions are not part of the language; check on the host";
                reject(s.span, u.construct, hint);
            }
        }
    }

    void target(const Expr& t) {
        switch (t.kind) {
            case ExprKind::Name: break;
            case ExprKind::Subscript: expr(t); break;
            case ExprKind::Tuple:
                for (auto& e : t.as<syntax::Tuple>()->elts) target(*e);
                break;
            case ExprKind::List:
                for (auto& e : t.as<List>()->elts) target(*e);
                break;
            case ExprKind::Attribute: expr(t); break;  // obj.attr = v is checked during lowering
            case ExprKind::Starred: reject(t.span, "starred assignment target");
            default: reject(t.span, "assignment to an expression");
        }
    }

    void expr(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Name:
            case ExprKind::IntLit:
            case ExprKind::FloatLit:
            case ExprKind::BoolLit: break;
            case ExprKind::NoneLit: reject(e.span, "None value");
            case ExprKind::StringLit: reject(e.span, "string value");
            case ExprKind::Unary: expr(*e.as<syntax::Unary>()->operand); break;
            case ExprKind::Binary: {
                auto& b = *e.as<syntax::Binary>();
                expr(*b.lhs);
                expr(*b.rhs);
                break;
            }
            case ExprKind::BoolOp:
                for (auto& v : e.as<BoolOp>()->values) expr(*v);
                break;
            case ExprKind::Compare: {
                auto& c = *e.as<syntax::Compare>();
                expr(*c.left);
                for (size_t i = 0; i < c.ops.size(); ++i) {
                    switch (c.ops[i]) {
                        case syntax::CmpOp::Is:
                        case syntax::CmpOp::IsNot:
                        case syntax::CmpOp::In:
                        case syntax::CmpOp::NotIn:
                            reject(e.span, std::string("'") + to_string(c.ops[i]) + "' operator",
                                   c.ops[i] == syntax::CmpOp::Is || c.ops[i] == syntax::CmpOp::IsNot
                                       ? "compare numbers with == and !="
                                       : "");
                        default: break;
                    }
                    expr(*c.comparators[i]);
                }
                break;
            }
            case ExprKind::IfExp: {
                auto& i = *e.as<IfExp>();
                expr(*i.cond);
                expr(*i.then_value);
                expr(*i.else_value);
                break;
            }
            case ExprKind::Call: {
                auto& c = *e.as<syntax::Call>();
                expr(*c.func);
                for (auto& a : c.args) {
                    if (a->as<Starred>()) reject(a->span, "starred argument");
                    expr(*a);
                }
                if (!c.keywords.empty())
                    reject(c.keywords.front().span, c.keywords.front().name.empty() ? "**kwargs argument" : "keyword argument",
                           "kernel and device-function arguments are positional");
                break;
            }
            case ExprKind::Attribute: expr(*e.as<Attribute>()->value); break;
            case ExprKind::Subscript: {
                auto& s = *e.as<Subscript>();
                expr(*s.value);
                index(*s.index);
                break;
            }
            case ExprKind::Tuple:
                for (auto& v : e.as<syntax::Tuple>()->elts) expr(*v);
                break;
            case ExprKind::List:
                for (auto& v : e.as<List>()->elts) expr(*v);
                break;
            case ExprKind::Slice: reject(e.span, "slice", "kernels index one element at a time");
            case ExprKind::Starred: reject(e.span, "starred expression");
            case ExprKind::UnsupportedExpr: reject(e.span, e.as<UnsupportedExpr>()->construct);
        }
    }

    void index(const Expr& e) {
        if (auto* t = e.as<syntax::Tuple>()) {
            for (auto& v : t->elts) index(*v);
            return;
        }
        expr(e);
    }

    const FunctionDef& fn_;
    FunctionRole role_;
};

}  // namespace

void validate(const FunctionDef& fn, FunctionRole role) { Validator(fn, role).run(); }

}  // namespace tack::frontend
