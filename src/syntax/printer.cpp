// to_source: the tree as Python source that parses back to the same tree.
//
// Parentheses are inserted exactly where precedence needs them, so printing
// never nests deeper than the source that was parsed. Constructs Tack
// rejects print as the text they were parsed from.
#include <cmath>

#include "syntax/ast.h"
#include "syntax/literals.h"

namespace tack::syntax {

namespace {

// Python's precedence levels, lowest first.
enum Precedence {
    kTop,  // a bare tuple: statement level and subscripts
    kTernary,
    kOr,
    kAnd,
    kNot,
    kCompare,
    kBitOr,
    kBitXor,
    kBitAnd,
    kShift,
    kArith,
    kTerm,
    kFactor,
    kPower,
    kAwait,
    kPrimary,
    kAtom,
};

int binary_precedence(BinaryOp op) {
    switch (op) {
        case BinaryOp::BitOr: return kBitOr;
        case BinaryOp::BitXor: return kBitXor;
        case BinaryOp::BitAnd: return kBitAnd;
        case BinaryOp::LShift:
        case BinaryOp::RShift: return kShift;
        case BinaryOp::Add:
        case BinaryOp::Sub: return kArith;
        case BinaryOp::Mul:
        case BinaryOp::Div:
        case BinaryOp::FloorDiv:
        case BinaryOp::Mod:
        case BinaryOp::MatMul: return kTerm;
        case BinaryOp::Pow: return kPower;
    }
    return kAtom;
}

// Unsupported constructs whose text is already one bracketed atom.
bool atom_like(const UnsupportedExpr& u) {
    const std::string& c = u.construct;
    if (c == "ellipsis" || c == "complex literal" || c == "list comprehension" || c == "set comprehension" || c == "dict comprehension" ||
        c == "dict display" || c == "set display")
        return true;
    return c == "generator expression" && !u.text.empty() && u.text.front() == '(';
}

int precedence(const Expr& e) {
    switch (e.kind) {
        case ExprKind::IntLit: return e.as<IntLit>()->negative ? kFactor : kAtom;
        case ExprKind::FloatLit: return std::signbit(e.as<FloatLit>()->value) ? kFactor : kAtom;
        case ExprKind::Unary: return e.as<Unary>()->op == UnaryOp::Not ? kNot : kFactor;
        case ExprKind::Binary: return binary_precedence(e.as<Binary>()->op);
        case ExprKind::BoolOp: return e.as<BoolOp>()->op == BoolOpKind::Or ? kOr : kAnd;
        case ExprKind::Compare: return kCompare;
        case ExprKind::IfExp: return kTernary;
        case ExprKind::Call:
        case ExprKind::Attribute:
        case ExprKind::Subscript: return kPrimary;
        case ExprKind::Tuple: return e.as<Tuple>()->parenthesized ? kAtom : kTop;
        case ExprKind::Starred: return kTop;
        default: return kAtom;  // unsupported constructs print in their own parentheses
    }
}

std::string float_source(double v) {
    if (std::isnan(v)) return "float('nan')";
    if (std::isinf(v)) return v < 0 ? "-1e999" : "1e999";
    return float_repr(v);
}

class Printer {
public:
    std::string out;

    void expr(const Expr& e, int min_precedence) {
        const bool parens = precedence(e) < min_precedence;
        if (parens) out += '(';
        bare(e);
        if (parens) out += ')';
    }

    // Statement-level expression lists: a bare tuple needs no parentheses.
    void top(const Expr& e) { expr(e, kTop); }

    // An assigned value may be a bare `yield`, unless its text spans lines
    // (it did so inside parentheses).
    void value(const Expr& e) {
        const auto* u = e.as<UnsupportedExpr>();
        if (u && u->construct == "yield" && !u->text.empty() && u->text.find_first_of("\r\n") == std::string::npos)
            out += u->text;
        else
            top(e);
    }

    void function(const FunctionDef& fn) {
        for (const ExprPtr& d : fn.decorators) {
            out += '@';
            expr(*d, kTernary);
            out += '\n';
        }
        if (fn.is_async) out += "async ";
        out += "def " + fn.name + "(";
        bool star_done = false;
        for (size_t i = 0; i < fn.params.size(); ++i) {
            const Param& p = fn.params[i];
            if (i > 0) out += ", ";
            if (p.kind == ParamKind::KeywordOnly && !star_done) out += "*, ";
            if (p.kind == ParamKind::VarArgs) out += '*';
            if (p.kind == ParamKind::VarKeywords) out += "**";
            if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::KeywordOnly) star_done = true;
            out += p.name;
            if (p.annotation) {
                out += ": ";
                expr(*p.annotation, kTernary);
            }
            if (p.default_value) {
                out += p.annotation ? " = " : "=";
                expr(*p.default_value, kTernary);
            }
            if (p.kind == ParamKind::PositionalOnly &&
                (i + 1 == fn.params.size() || fn.params[i + 1].kind != ParamKind::PositionalOnly))
                out += ", /";
        }
        out += ")";
        if (fn.returns) {
            out += " -> ";
            expr(*fn.returns, kTernary);
        }
        out += ":\n";
        body(fn.body, 1);
    }

    void body(const Body& b, int depth) {
        if (b.empty()) {
            indent(depth);
            out += "pass\n";
        }
        for (const StmtPtr& s : b) stmt(*s, depth);
    }

private:
    void indent(int depth) { out.append(static_cast<size_t>(depth) * 4, ' '); }

    void stmt(const Stmt& s, int depth) {
        if (const auto* u = s.as<UnsupportedStmt>()) return unsupported(*u, depth);
        indent(depth);
        switch (s.kind) {
            case StmtKind::ExprStmt: value(*s.as<ExprStmt>()->value); break;
            case StmtKind::Assign: {
                const auto* a = s.as<Assign>();
                for (const ExprPtr& t : a->targets) {
                    top(*t);
                    out += " = ";
                }
                value(*a->value);
                break;
            }
            case StmtKind::AugAssign: {
                const auto* a = s.as<AugAssign>();
                top(*a->target);
                out += std::string(" ") + to_string(a->op) + "= ";
                value(*a->value);
                break;
            }
            case StmtKind::For: {
                const auto* f = s.as<For>();
                out += "for ";
                top(*f->target);
                out += " in ";
                top(*f->iter);
                out += ":\n";
                body(f->body, depth + 1);
                else_body(f->orelse, depth);
                return;
            }
            case StmtKind::While: {
                const auto* w = s.as<While>();
                out += "while ";
                expr(*w->cond, kTernary);
                out += ":\n";
                body(w->body, depth + 1);
                else_body(w->orelse, depth);
                return;
            }
            case StmtKind::If: {
                const auto* i = s.as<If>();
                out += "if ";
                while (true) {
                    expr(*i->cond, kTernary);
                    out += ":\n";
                    body(i->body, depth + 1);
                    if (i->orelse.size() == 1 && i->orelse[0]->kind == StmtKind::If) {
                        i = i->orelse[0]->as<If>();
                        indent(depth);
                        out += "elif ";
                        continue;
                    }
                    else_body(i->orelse, depth);
                    return;
                }
            }
            case StmtKind::Return: {
                const auto* r = s.as<Return>();
                out += "return";
                if (r->value) {
                    out += ' ';
                    top(*r->value);
                }
                break;
            }
            case StmtKind::Break: out += "break"; break;
            case StmtKind::Continue: out += "continue"; break;
            case StmtKind::Pass: out += "pass"; break;
            case StmtKind::UnsupportedStmt: break;
        }
        out += '\n';
    }

    void else_body(const Body& b, int depth) {
        if (b.empty()) return;
        indent(depth);
        out += "else:\n";
        body(b, depth + 1);
    }

    // Headers verbatim, bodies printed: see UnsupportedStmt in ast.h.
    void unsupported(const UnsupportedStmt& u, int depth) {
        if (u.headers.empty()) {
            indent(depth);
            out += "pass  # " + u.construct + "\n";
            return;
        }
        const bool is_match = u.construct == "match";
        const size_t lead = is_match ? 1 : u.headers.size() - std::min(u.headers.size(), u.bodies.size());
        for (size_t i = 0; i < lead; ++i) {
            indent(depth);
            out += u.headers[i] + "\n";
        }
        const int clause_depth = is_match ? depth + 1 : depth;
        for (size_t i = lead; i < u.headers.size(); ++i) {
            indent(clause_depth);
            out += u.headers[i] + "\n";
            if (i - lead < u.bodies.size()) body(u.bodies[i - lead], clause_depth + 1);
        }
    }

    void elements(const std::vector<ExprPtr>& elts) {
        for (size_t i = 0; i < elts.size(); ++i) {
            if (i > 0) out += ", ";
            element(*elts[i]);
        }
    }

    void element(const Expr& e) {
        if (const auto* s = e.as<Starred>()) {
            out += s->double_star ? "**" : "*";
            expr(*s->value, kBitOr);
        } else {
            expr(e, kTernary);
        }
    }

    void subscript_item(const Expr& e) {
        if (const auto* s = e.as<Slice>()) {
            if (s->lower) expr(*s->lower, kTernary);
            out += ':';
            if (s->upper) expr(*s->upper, kTernary);
            if (s->step) {
                out += ':';
                expr(*s->step, kTernary);
            }
        } else if (const auto* st = e.as<Starred>()) {
            out += '*';
            expr(*st->value, kTernary);
        } else {
            expr(e, kTernary);
        }
    }

    void bare(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Name: out += e.as<Name>()->id; return;
            case ExprKind::IntLit: {
                const auto* n = e.as<IntLit>();
                if (n->negative) out += '-';
                out += n->text.empty() ? std::to_string(n->value) : n->text;
                return;
            }
            case ExprKind::FloatLit: out += float_source(e.as<FloatLit>()->value); return;
            case ExprKind::BoolLit: out += e.as<BoolLit>()->value ? "True" : "False"; return;
            case ExprKind::NoneLit: out += "None"; return;
            case ExprKind::StringLit: out += quote_string(e.as<StringLit>()->value); return;
            case ExprKind::Unary: {
                const auto* u = e.as<Unary>();
                if (u->op == UnaryOp::Not) {
                    out += "not ";
                    expr(*u->operand, kNot);
                } else {
                    out += to_string(u->op);
                    expr(*u->operand, kFactor);
                }
                return;
            }
            case ExprKind::Binary: {
                const auto* b = e.as<Binary>();
                if (b->op == BinaryOp::Pow) {
                    expr(*b->lhs, kAwait);
                    out += " ** ";
                    expr(*b->rhs, kFactor);
                    return;
                }
                const int p = binary_precedence(b->op);
                expr(*b->lhs, p);
                out += std::string(" ") + to_string(b->op) + " ";
                expr(*b->rhs, p + 1);
                return;
            }
            case ExprKind::BoolOp: {
                const auto* b = e.as<BoolOp>();
                const int p = b->op == BoolOpKind::Or ? kOr : kAnd;
                for (size_t i = 0; i < b->values.size(); ++i) {
                    if (i > 0) out += std::string(" ") + to_string(b->op) + " ";
                    expr(*b->values[i], p + 1);
                }
                return;
            }
            case ExprKind::Compare: {
                const auto* c = e.as<Compare>();
                expr(*c->left, kBitOr);
                for (size_t i = 0; i < c->ops.size() && i < c->comparators.size(); ++i) {
                    out += std::string(" ") + to_string(c->ops[i]) + " ";
                    expr(*c->comparators[i], kBitOr);
                }
                return;
            }
            case ExprKind::IfExp: {
                const auto* i = e.as<IfExp>();
                expr(*i->then_value, kOr);
                out += " if ";
                expr(*i->cond, kOr);
                out += " else ";
                expr(*i->else_value, kTernary);
                return;
            }
            case ExprKind::Call: {
                const auto* c = e.as<Call>();
                expr(*c->func, kPrimary);
                out += '(';
                bool first = true;
                for (const ExprPtr& a : c->args) {
                    if (!first) out += ", ";
                    first = false;
                    subscript_item(*a);  // `*args` take a full expression, like subscripts
                }
                for (const Keyword& k : c->keywords) {
                    if (!first) out += ", ";
                    first = false;
                    out += k.name.empty() ? "**" : k.name + "=";
                    expr(*k.value, kTernary);
                }
                out += ')';
                return;
            }
            case ExprKind::Attribute: {
                const auto* a = e.as<Attribute>();
                // `1.real` would lex as the float `1.`.
                const bool int_value = a->value->kind == ExprKind::IntLit;
                if (int_value) out += '(';
                expr(*a->value, kPrimary);
                if (int_value) out += ')';
                out += '.' + a->attr;
                return;
            }
            case ExprKind::Subscript: {
                const auto* s = e.as<Subscript>();
                expr(*s->value, kPrimary);
                out += '[';
                const auto* t = s->index->as<Tuple>();
                if (t && !t->parenthesized && !t->elts.empty()) {
                    for (size_t i = 0; i < t->elts.size(); ++i) {
                        if (i > 0) out += ", ";
                        subscript_item(*t->elts[i]);
                    }
                    if (t->elts.size() == 1 && t->elts[0]->kind != ExprKind::Starred) out += ',';
                } else {
                    subscript_item(*s->index);
                }
                out += ']';
                return;
            }
            case ExprKind::Tuple: {
                const auto* t = e.as<Tuple>();
                // Called bare only where a bare tuple is allowed, or when
                // expr() already opened parentheses around it.
                if (t->elts.empty()) {
                    out += "()";
                    return;
                }
                const bool parens = t->parenthesized;
                if (parens) out += '(';
                elements(t->elts);
                if (t->elts.size() == 1) out += ',';
                if (parens) out += ')';
                return;
            }
            case ExprKind::List: {
                out += '[';
                elements(e.as<List>()->elts);
                out += ']';
                return;
            }
            case ExprKind::Slice: subscript_item(e); return;
            case ExprKind::Starred: element(e); return;
            case ExprKind::UnsupportedExpr: {
                const auto* u = e.as<UnsupportedExpr>();
                if (u->text.empty()) {
                    out += "<" + u->construct + ">";
                } else if (atom_like(*u)) {
                    out += u->text;
                } else {
                    out += "(" + u->text + ")";
                }
                return;
            }
        }
    }
};

}  // namespace

std::string to_source(const FunctionDef& fn) {
    Printer p;
    p.function(fn);
    return std::move(p.out);
}

std::string to_source(const Expr& e) {
    Printer p;
    p.top(e);
    return std::move(p.out);
}

}  // namespace tack::syntax
