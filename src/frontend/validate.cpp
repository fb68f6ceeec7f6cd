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

// Where a statement sits, as far as the rules below care.
struct Place {
    bool top = true;             // directly in the function body
    int loop_depth = 0;          // loops of this function around it, the parallel loop included
    bool in_parallel = false;    // kernel: inside the parallel loop's body
    bool innermost_parallel = false;  // kernel: the nearest enclosing loop is the parallel loop
};

// The span of the `def` (or `async`) keyword: the decorators above it are
// host metadata, so a diagnostic about the function itself points here.
Span def_keyword_span(const FunctionDef& fn) {
    Span s = fn.name_span;
    if (!fn.source || s.line <= 0) return fn.span;
    std::string_view text = fn.source->line_text(s.line);
    size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return fn.name_span;
    std::string_view rest = text.substr(first);
    size_t len = rest.rfind("async", 0) == 0 ? 5 : rest.rfind("def", 0) == 0 ? 3 : 0;
    if (len == 0) return fn.name_span;
    s.col = static_cast<int>(first) + 1;  // only spaces and tabs precede it, one column each
    s.end_line = s.line;
    s.end_col = s.col + static_cast<int>(len);
    return s;
}

class Validator {
public:
    Validator(const FunctionDef& fn, FunctionRole role) : fn_(fn), role_(role) {}

    void run() {
        if (fn_.is_async) reject(def_keyword_span(fn_), "async def");
        for (auto& p : fn_.params) {
            if (p.kind == ParamKind::VarArgs) reject(p.span, "*args parameter", "parameters are positional");
            if (p.kind == ParamKind::VarKeywords) reject(p.span, "**kwargs parameter", "parameters are positional");
            if (p.kind == ParamKind::KeywordOnly) reject(p.span, "keyword-only parameter", "parameters are positional");
            if (p.default_value) reject(p.default_value->span, "parameter default", "parameters take no defaults; pass every argument");
        }
        body(fn_.body, Place{});
        if (role_ == FunctionRole::Kernel && !parallel_loop_seen_)
            reject(def_keyword_span(fn_), "kernel without a parallel loop",
                   "write one top-level `for i in range(n):` directly in the kernel body", "missing parallel loop");
    }

private:
    [[noreturn]] void reject(Span span, const std::string& construct, std::string hint = {}) {
        std::string where = role_ == FunctionRole::Kernel ? "kernels" : "device functions";
        throw CompileError(make_diagnostic(ErrorKind::Unsupported, fn_, role_, span,
                                           construct + " is not supported in " + where, construct, std::move(hint)));
    }

    // A rejection whose message is not "<construct> is not supported".
    [[noreturn]] void reject(Span span, std::string message, std::string hint, std::string construct,
                             ErrorKind kind = ErrorKind::Unsupported) {
        throw CompileError(make_diagnostic(kind, fn_, role_, span, std::move(message), std::move(construct),
                                           std::move(hint)));
    }

    void body(const Body& b, const Place& at) {
        for (size_t i = 0; i < b.size(); ++i) {
            const Stmt& s = *b[i];
            // A string expression statement first in the function is its docstring.
            if (auto* e = s.as<ExprStmt>(); e && e->value->as<StringLit>() && at.top && i == 0) continue;
            stmt(s, at, at.top && i + 1 == b.size());
        }
    }

    // A kernel's `for` outside the parallel loop is the parallel loop when it
    // sits directly in the body, and is rejected anywhere else.
    bool is_parallel_loop(const Stmt& s, const Place& at) {
        if (role_ != FunctionRole::Kernel || at.in_parallel) return false;
        if (!at.top)
            reject(s.span,
                   "parallel loop nested in a branch or while loop; it must be a for statement directly in the "
                   "kernel body",
                   "statements outside the parallel loop run any number of times per launch, so they hold no loops "
                   "but while loops over locals",
                   "nested parallel loop");
        if (parallel_loop_seen_)
            reject(s.span, "a second parallel loop", "a kernel has exactly one top-level parallel loop; nest further "
                                                     "loops inside it, or write a second kernel",
                   "second parallel loop");
        parallel_loop_seen_ = true;
        return true;
    }

    // range(a, b, step) with a literal step of zero or below.
    void range_step(const Expr& iter, bool parallel) {
        auto* call = iter.as<syntax::Call>();
        if (!call || call->args.size() != 3) return;
        auto* callee = call->func->as<Name>();
        if (!callee || callee->id != "range") return;
        const Expr& step = *call->args[2];
        const IntLit* lit = step.as<IntLit>();
        bool negative = false;
        if (auto* u = step.as<syntax::Unary>(); u && u->op == UnaryOp::Neg) {
            lit = u->operand->as<IntLit>();
            negative = lit && lit->value != 0;
        }
        if (!lit || (!negative && lit->value != 0)) return;
        std::string loop = parallel ? "the parallel range" : "range()";
        reject(step.span, loop + " step is " + (negative ? "negative" : "zero"),
               negative ? "loops take positive steps; count upward and compute the index, e.g. j = n - 1 - k"
                        : "loops take positive steps",
               "range step", ErrorKind::Value);
    }

    void stmt(const Stmt& s, const Place& at, bool last_in_function) {
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
                bool parallel = is_parallel_loop(s, at);
                target(*f.target);
                expr(*f.iter);
                range_step(*f.iter, parallel);
                if (!f.orelse.empty()) reject(f.orelse.front()->span, "for-else");
                Place inner{false, at.loop_depth + 1, at.in_parallel || parallel, parallel};
                body(f.body, inner);
                break;
            }
            case StmtKind::While: {
                auto& w = *s.as<While>();
                expr(*w.cond);
                if (!w.orelse.empty()) reject(w.orelse.front()->span, "while-else");
                body(w.body, Place{false, at.loop_depth + 1, at.in_parallel, false});
                break;
            }
            case StmtKind::If: {
                auto& f = *s.as<If>();
                expr(*f.cond);
                Place inner = at;
                inner.top = false;
                body(f.body, inner);
                body(f.orelse, inner);
                break;
            }
            case StmtKind::Return: {
                auto& r = *s.as<Return>();
                if (at.loop_depth > 0)
                    reject(s.span, "return inside a loop",
                           role_ == FunctionRole::Kernel
                               ? "a kernel may return a value only as its last statement; use continue to end an "
                                 "iteration"
                               : "a return may end a device function only outside loops; set a flag and break instead");
                if (role_ == FunctionRole::Kernel && !(at.top && last_in_function))
                    reject(s.span, "return that is not the kernel's last statement",
                           "a kernel may return a value only as its last statement");
                if (r.value) expr(*r.value);
                break;
            }
            case StmtKind::Break:
                if (at.innermost_parallel)
                    reject(s.span, "break out of the parallel loop",
                           "parallel iterations have no order to stop; use continue to skip the rest of an iteration",
                           "break");
                break;
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
    bool parallel_loop_seen_ = false;
};

}  // namespace

void validate(const FunctionDef& fn, FunctionRole role) { Validator(fn, role).run(); }

}  // namespace tack::frontend
