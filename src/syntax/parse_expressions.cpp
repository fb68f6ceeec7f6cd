// Expressions: Python 3.11's precedence, lowest first:
//   lambda < if-else < or < and < not < comparisons < | < ^ < & < << >>
//   < + - < * @ / // % < unary + - ~ < ** < await < primaries < atoms
#include <set>

#include "syntax/literals.h"
#include "syntax/parser.h"

namespace tack::syntax {

namespace {

bool starts_expression(TokenKind k) {
    switch (k) {
        case TokenKind::Name:
        case TokenKind::Int:
        case TokenKind::Float:
        case TokenKind::Imaginary:
        case TokenKind::String:
        case TokenKind::KwFalse:
        case TokenKind::KwNone:
        case TokenKind::KwTrue:
        case TokenKind::KwNot:
        case TokenKind::KwLambda:
        case TokenKind::KwAwait:
        case TokenKind::LParen:
        case TokenKind::LBracket:
        case TokenKind::LBrace:
        case TokenKind::Minus:
        case TokenKind::Plus:
        case TokenKind::Tilde:
        case TokenKind::Star:
        case TokenKind::Ellipsis: return true;
        default: return false;
    }
}

// Binary operators between `|` and `*`, by precedence (higher binds tighter).
bool binary_operator(TokenKind k, BinaryOp* op, int* precedence) {
    switch (k) {
        case TokenKind::VBar: *op = BinaryOp::BitOr, *precedence = 1; return true;
        case TokenKind::Caret: *op = BinaryOp::BitXor, *precedence = 2; return true;
        case TokenKind::Amp: *op = BinaryOp::BitAnd, *precedence = 3; return true;
        case TokenKind::LeftShift: *op = BinaryOp::LShift, *precedence = 4; return true;
        case TokenKind::RightShift: *op = BinaryOp::RShift, *precedence = 4; return true;
        case TokenKind::Plus: *op = BinaryOp::Add, *precedence = 5; return true;
        case TokenKind::Minus: *op = BinaryOp::Sub, *precedence = 5; return true;
        case TokenKind::Star: *op = BinaryOp::Mul, *precedence = 6; return true;
        case TokenKind::Slash: *op = BinaryOp::Div, *precedence = 6; return true;
        case TokenKind::DoubleSlash: *op = BinaryOp::FloorDiv, *precedence = 6; return true;
        case TokenKind::Percent: *op = BinaryOp::Mod, *precedence = 6; return true;
        case TokenKind::At: *op = BinaryOp::MatMul, *precedence = 6; return true;
        default: return false;
    }
}

bool starts_comprehension(const Parser& p) {
    return p.at(TokenKind::KwFor) || (p.at(TokenKind::KwAsync) && p.peek().kind == TokenKind::KwFor);
}

}  // namespace

// ------------------------------------------------------- expression lists

ExprPtr Parser::star_expressions() {
    const Token& first = tok();
    ExprPtr e = star_expression();
    if (!at(TokenKind::Comma)) {
        if (e->kind == ExprKind::Starred) fail(e->span, "can't use starred expression here");
        return e;
    }
    auto t = node_at<Tuple>(first);
    t->elts.push_back(std::move(e));
    while (accept(TokenKind::Comma)) {
        if (!starts_expression(tok().kind)) break;
        t->elts.push_back(star_expression());
    }
    t->span = span_from(first);
    return finish(std::move(t));
}

ExprPtr Parser::star_expression() { return at(TokenKind::Star) ? starred() : expression(); }

ExprPtr Parser::star_named_expression() { return at(TokenKind::Star) ? starred() : named_expression(); }

ExprPtr Parser::starred() {
    const Token& star = advance();
    auto s = node_at<Starred>(star);
    s->value = bitwise(0);
    s->span = span_from(star);
    return finish(std::move(s));
}

ExprPtr Parser::named_expression() {
    if (at(TokenKind::Name) && peek().kind == TokenKind::ColonEqual) {
        const Token& name = advance();
        auto target = node_at<Name>(name);
        target->id = std::string(name.text);
        std::vector<ExprPtr> children;
        children.push_back(finish(std::move(target)));
        advance();
        children.push_back(expression());
        return unsupported("walrus operator (:=)", name, std::move(children));
    }
    ExprPtr e = expression();
    if (at(TokenKind::ColonEqual)) fail(tok(), "cannot use assignment expressions with " + describe(*e));
    return e;
}

ExprPtr Parser::expression() {
    Nesting nesting(*this);
    if (at(TokenKind::KwLambda)) return lambda();
    const Token& first = tok();
    ExprPtr body = disjunction();
    if (!accept(TokenKind::KwIf)) return body;
    auto n = node_at<IfExp>(first);
    n->then_value = std::move(body);
    n->cond = disjunction();
    expect(TokenKind::KwElse, "'else' after 'if' expression");
    n->else_value = expression();
    n->span = span_from(first);
    return finish(std::move(n));
}

ExprPtr Parser::lambda() {
    const Token& first = advance();
    std::vector<Param> params;
    parameters(params, true);
    expect(TokenKind::Colon, "':' after lambda parameters");
    std::vector<ExprPtr> children;
    for (Param& p : params)
        if (p.default_value) children.push_back(std::move(p.default_value));
    children.push_back(expression());
    return unsupported("lambda", first, std::move(children));
}

ExprPtr Parser::yield_expression() {
    const Token& first = advance();
    std::vector<ExprPtr> children;
    if (accept(TokenKind::KwFrom))
        children.push_back(expression());
    else if (starts_expression(tok().kind))
        children.push_back(star_expressions());
    return unsupported("yield", first, std::move(children));
}

// ------------------------------------------------------------ operators

ExprPtr Parser::disjunction() {
    const Token& first = tok();
    ExprPtr e = conjunction();
    if (!at(TokenKind::KwOr)) return e;
    auto n = node_at<BoolOp>(first);
    n->op = BoolOpKind::Or;
    n->values.push_back(std::move(e));
    while (accept(TokenKind::KwOr)) n->values.push_back(conjunction());
    n->span = span_from(first);
    return finish(std::move(n));
}

ExprPtr Parser::conjunction() {
    const Token& first = tok();
    ExprPtr e = inversion();
    if (!at(TokenKind::KwAnd)) return e;
    auto n = node_at<BoolOp>(first);
    n->op = BoolOpKind::And;
    n->values.push_back(std::move(e));
    while (accept(TokenKind::KwAnd)) n->values.push_back(inversion());
    n->span = span_from(first);
    return finish(std::move(n));
}

ExprPtr Parser::inversion() {
    if (!at(TokenKind::KwNot)) return comparison();
    Nesting nesting(*this);
    const Token& first = advance();
    auto n = node_at<Unary>(first);
    n->op = UnaryOp::Not;
    n->operand = inversion();
    n->span = span_from(first);
    return finish(std::move(n));
}

ExprPtr Parser::comparison() {
    const Token& first = tok();
    ExprPtr left = bitwise(0);
    auto comparison_operator = [this](CmpOp* op) -> bool {
        switch (tok().kind) {
            case TokenKind::Less: *op = CmpOp::Lt; break;
            case TokenKind::LessEqual: *op = CmpOp::Le; break;
            case TokenKind::Greater: *op = CmpOp::Gt; break;
            case TokenKind::GreaterEqual: *op = CmpOp::Ge; break;
            case TokenKind::EqEqual: *op = CmpOp::Eq; break;
            case TokenKind::NotEqual: *op = CmpOp::Ne; break;
            case TokenKind::KwIn: *op = CmpOp::In; break;
            case TokenKind::KwIs:
                if (peek().kind == TokenKind::KwNot) {
                    advance();
                    *op = CmpOp::IsNot;
                } else {
                    *op = CmpOp::Is;
                }
                break;
            case TokenKind::KwNot:
                if (peek().kind != TokenKind::KwIn) return false;
                advance();
                *op = CmpOp::NotIn;
                break;
            default: return false;
        }
        advance();
        return true;
    };
    CmpOp op;
    if (!comparison_operator(&op)) return left;
    auto n = node_at<Compare>(first);
    n->left = std::move(left);
    do {
        n->ops.push_back(op);
        n->comparators.push_back(bitwise(0));
    } while (comparison_operator(&op));
    n->span = span_from(first);
    return finish(std::move(n));
}

// Precedence climbing over the left-associative binary operators.
ExprPtr Parser::bitwise(int min_precedence) {
    const Token& first = tok();
    ExprPtr lhs = factor();
    BinaryOp op;
    int precedence;
    while (binary_operator(tok().kind, &op, &precedence) && precedence >= min_precedence) {
        advance();
        auto n = node_at<Binary>(first);
        n->op = op;
        n->lhs = std::move(lhs);
        n->rhs = bitwise(precedence + 1);
        n->span = span_from(first);
        lhs = finish(std::move(n));
    }
    return lhs;
}

ExprPtr Parser::factor() {
    UnaryOp op;
    switch (tok().kind) {
        case TokenKind::Minus: op = UnaryOp::Neg; break;
        case TokenKind::Plus: op = UnaryOp::Pos; break;
        case TokenKind::Tilde: op = UnaryOp::Invert; break;
        default: return power();
    }
    Nesting nesting(*this);
    const Token& first = advance();
    auto n = node_at<Unary>(first);
    n->op = op;
    n->operand = factor();
    n->span = span_from(first);
    return finish(std::move(n));
}

// `**` binds tighter than a unary operator on its left and looser than one
// on its right: -2**2 is -(2**2), 2**-1 is 2**(-1).
ExprPtr Parser::power() {
    const Token& first = tok();
    ExprPtr base = await_primary();
    if (!accept(TokenKind::DoubleStar)) return base;
    Nesting nesting(*this);  // the right operand recurses through factor()
    auto n = node_at<Binary>(first);
    n->op = BinaryOp::Pow;
    n->lhs = std::move(base);
    n->rhs = factor();
    n->span = span_from(first);
    return finish(std::move(n));
}

ExprPtr Parser::await_primary() {
    if (!at(TokenKind::KwAwait)) return primary();
    const Token& first = advance();
    std::vector<ExprPtr> children;
    children.push_back(primary());
    return unsupported("await", first, std::move(children));
}

// ------------------------------------------------------------- primaries

ExprPtr Parser::primary() {
    const Token& first = tok();
    ExprPtr e = atom();
    while (true) {
        if (accept(TokenKind::Dot)) {
            const Token& name = expect(TokenKind::Name, "attribute name after '.'");
            auto n = node_at<Attribute>(first);
            n->value = std::move(e);
            n->attr = std::string(name.text);
            n->span = span_from(first);
            e = finish(std::move(n));
        } else if (accept(TokenKind::LParen)) {
            auto n = node_at<Call>(first);
            n->func = std::move(e);
            call_arguments(n->args, n->keywords);
            n->span = span_from(first);
            e = finish(std::move(n));
        } else if (accept(TokenKind::LBracket)) {
            auto n = node_at<Subscript>(first);
            n->value = std::move(e);
            n->index = slices();
            expect(TokenKind::RBracket, "',' or ']' in subscript");
            n->span = span_from(first);
            e = finish(std::move(n));
        } else {
            return e;
        }
    }
}

// After the '(' of a call, up to and including its ')'.
void Parser::call_arguments(std::vector<ExprPtr>& args, std::vector<Keyword>& keywords) {
    bool seen_keyword = false, seen_double_star = false;
    std::set<std::string_view> names;
    while (!at(TokenKind::RParen)) {
        const Token& first = tok();
        const size_t first_index = pos_;
        if (accept(TokenKind::Star)) {
            if (seen_double_star) fail(first, "iterable argument unpacking follows keyword argument unpacking");
            auto s = node_at<Starred>(first);
            s->value = expression();
            s->span = span_from(first);
            args.push_back(finish(std::move(s)));
        } else if (accept(TokenKind::DoubleStar)) {
            Keyword k;
            k.value = expression();
            k.span = span_from(first);
            keywords.push_back(std::move(k));
            seen_double_star = true;
        } else if (at(TokenKind::Name) && peek().kind == TokenKind::Assign) {
            const Token& name = advance();
            advance();
            if (!names.insert(name.text).second) fail(name, "keyword argument repeated: " + std::string(name.text));
            Keyword k;
            k.name = std::string(name.text);
            k.value = expression();
            k.span = span_from(first);
            keywords.push_back(std::move(k));
            seen_keyword = true;
        } else {
            ExprPtr a = named_expression();
            if (starts_comprehension(*this)) {
                std::vector<ExprPtr> children;
                children.push_back(std::move(a));
                comprehension_clauses(children);
                a = unsupported("generator expression", toks_[first_index], std::move(children));
                if (!args.empty() || !keywords.empty() || !at(TokenKind::RParen))
                    fail(a->span, "generator expression must be parenthesized");
            } else if (at(TokenKind::Assign)) {
                fail(tok(), "expression cannot contain assignment, perhaps you meant \"==\"?");
            } else if (seen_double_star) {
                fail(a->span, "positional argument follows keyword argument unpacking");
            } else if (seen_keyword) {
                fail(a->span, "positional argument follows keyword argument");
            }
            args.push_back(std::move(a));
        }
        if (!accept(TokenKind::Comma)) break;
    }
    expect(TokenKind::RParen, "',' or ')' after call argument");
}

ExprPtr Parser::slices() {
    const Token& first = tok();
    ExprPtr item = slice();
    // `a[*b]` is a one-element tuple, as in Python 3.11.
    if (!at(TokenKind::Comma) && item->kind != ExprKind::Starred) return item;
    auto t = node_at<Tuple>(first);
    t->elts.push_back(std::move(item));
    while (accept(TokenKind::Comma)) {
        if (at(TokenKind::RBracket)) break;
        t->elts.push_back(slice());
    }
    t->span = span_from(first);
    return finish(std::move(t));
}

ExprPtr Parser::slice() {
    const Token& first = tok();
    if (accept(TokenKind::Star)) {
        auto s = node_at<Starred>(first);
        s->value = expression();
        s->span = span_from(first);
        return finish(std::move(s));
    }
    ExprPtr lower;
    if (!at(TokenKind::Colon)) {
        lower = named_expression();
        if (!at(TokenKind::Colon)) return lower;
    }
    advance();
    auto n = node_at<Slice>(first);
    n->lower = std::move(lower);
    auto bound_follows = [this]() {
        return !at(TokenKind::Colon) && !at(TokenKind::Comma) && !at(TokenKind::RBracket);
    };
    if (bound_follows()) n->upper = expression();
    if (accept(TokenKind::Colon) && bound_follows()) n->step = expression();
    n->span = span_from(first);
    return finish(std::move(n));
}

// ----------------------------------------------------------------- atoms

ExprPtr Parser::atom() {
    const Token& t = tok();
    switch (t.kind) {
        case TokenKind::Name: {
            advance();
            auto n = node_at<Name>(t);
            n->id = std::string(t.text);
            return finish(std::move(n));
        }
        case TokenKind::KwTrue:
        case TokenKind::KwFalse: {
            advance();
            auto n = node_at<BoolLit>(t);
            n->value = t.kind == TokenKind::KwTrue;
            return finish(std::move(n));
        }
        case TokenKind::KwNone: advance(); return finish(node_at<NoneLit>(t));
        case TokenKind::Int:
        case TokenKind::Float: return number();
        case TokenKind::Imaginary: advance(); return unsupported("complex literal", t, {});
        case TokenKind::String: return strings();
        case TokenKind::LParen: return paren_atom();
        case TokenKind::LBracket: return list_atom();
        case TokenKind::LBrace: return brace_atom();
        case TokenKind::Ellipsis: advance(); return unsupported("ellipsis", t, {});
        default: fail_expected("an expression");
    }
}

ExprPtr Parser::number() {
    const Token& t = advance();
    if (t.kind == TokenKind::Float) {
        auto n = node_at<FloatLit>(t);
        n->text = std::string(t.text);
        n->value = float_literal_value(t.text);
        return finish(std::move(n));
    }
    auto n = node_at<IntLit>(t);
    n->text = std::string(t.text);
    const IntValue v = int_literal_value(t.text);
    n->value = v.value;
    n->overflow = v.overflow;
    return finish(std::move(n));
}

// Adjacent literals concatenate: "a" 'b' is "ab".
ExprPtr Parser::strings() {
    const Token& first = tok();
    bool fstring = false, bytes = false, text = false;
    std::string value;
    while (at(TokenKind::String)) {
        const Token& t = advance();
        fstring |= t.is_fstring;
        (t.is_bytes ? bytes : text) = true;
        if (bytes && text) fail(first, "cannot mix bytes and nonbytes literals");
        value += t.value;
    }
    if (fstring) return unsupported("f-string", first, {});
    auto n = node_at<StringLit>(first);
    n->value = std::move(value);
    n->span = span_from(first);
    return finish(std::move(n));
}

ExprPtr Parser::paren_atom() {
    const Token& first = advance();
    if (accept(TokenKind::RParen)) {
        auto t = node_at<Tuple>(first);
        t->parenthesized = true;
        t->span = span_from(first);
        return finish(std::move(t));
    }
    if (at(TokenKind::KwYield)) {
        ExprPtr y = yield_expression();
        expect(TokenKind::RParen, "')' after yield expression");
        return y;
    }
    ExprPtr e = star_named_expression();
    if (starts_comprehension(*this)) {
        if (e->kind == ExprKind::Starred) fail(e->span, "iterable unpacking cannot be used in comprehension");
        std::vector<ExprPtr> children;
        children.push_back(std::move(e));
        comprehension_clauses(children);
        expect(TokenKind::RParen, "')' after generator expression");
        return unsupported("generator expression", first, std::move(children));
    }
    if (!at(TokenKind::Comma)) {
        if (e->kind == ExprKind::Starred) fail(e->span, "can't use starred expression here");
        expect(TokenKind::RParen, "',' or ')' in parenthesized expression");
        return e;
    }
    auto t = node_at<Tuple>(first);
    t->parenthesized = true;
    t->elts.push_back(std::move(e));
    while (accept(TokenKind::Comma)) {
        if (at(TokenKind::RParen)) break;
        t->elts.push_back(star_named_expression());
    }
    expect(TokenKind::RParen, "',' or ')' in tuple");
    t->span = span_from(first);
    return finish(std::move(t));
}

ExprPtr Parser::list_atom() {
    const Token& first = advance();
    auto list = node_at<List>(first);
    if (!at(TokenKind::RBracket)) {
        ExprPtr e = star_named_expression();
        if (starts_comprehension(*this)) {
            if (e->kind == ExprKind::Starred) fail(e->span, "iterable unpacking cannot be used in comprehension");
            std::vector<ExprPtr> children;
            children.push_back(std::move(e));
            comprehension_clauses(children);
            expect(TokenKind::RBracket, "']' after list comprehension");
            return unsupported("list comprehension", first, std::move(children));
        }
        list->elts.push_back(std::move(e));
        while (accept(TokenKind::Comma)) {
            if (at(TokenKind::RBracket)) break;
            list->elts.push_back(star_named_expression());
        }
    }
    expect(TokenKind::RBracket, "',' or ']' in list");
    list->span = span_from(first);
    return finish(std::move(list));
}

// Dicts and sets, displays and comprehensions: all unsupported, but parsed
// so their sub-expressions are checked and positioned.
ExprPtr Parser::brace_atom() {
    const Token& first = advance();
    std::vector<ExprPtr> children;
    if (accept(TokenKind::RBrace)) return unsupported("dict display", first, {});

    auto double_starred = [&]() {
        const Token& star = advance();
        auto s = node_at<Starred>(star);
        s->double_star = true;
        s->value = bitwise(0);
        s->span = span_from(star);
        children.push_back(finish(std::move(s)));
    };
    auto dict_items = [&]() {
        while (accept(TokenKind::Comma)) {
            if (at(TokenKind::RBrace)) break;
            if (at(TokenKind::DoubleStar)) {
                double_starred();
                continue;
            }
            children.push_back(expression());
            expect(TokenKind::Colon, "':' after dict key");
            children.push_back(expression());
        }
        expect(TokenKind::RBrace, "',' or '}' in dict display");
        return unsupported("dict display", first, std::move(children));
    };

    if (at(TokenKind::DoubleStar)) {
        double_starred();
        return dict_items();
    }
    ExprPtr e = star_named_expression();
    if (e->kind != ExprKind::Starred && accept(TokenKind::Colon)) {
        children.push_back(std::move(e));
        children.push_back(expression());
        if (!starts_comprehension(*this)) return dict_items();
        comprehension_clauses(children);
        expect(TokenKind::RBrace, "'}' after dict comprehension");
        return unsupported("dict comprehension", first, std::move(children));
    }
    if (starts_comprehension(*this)) {
        if (e->kind == ExprKind::Starred) fail(e->span, "iterable unpacking cannot be used in comprehension");
        children.push_back(std::move(e));
        comprehension_clauses(children);
        expect(TokenKind::RBrace, "'}' after set comprehension");
        return unsupported("set comprehension", first, std::move(children));
    }
    children.push_back(std::move(e));
    while (accept(TokenKind::Comma)) {
        if (at(TokenKind::RBrace)) break;
        children.push_back(star_named_expression());
    }
    expect(TokenKind::RBrace, "',' or '}' in set display");
    return unsupported("set display", first, std::move(children));
}

void Parser::comprehension_clauses(std::vector<ExprPtr>& children) {
    while (starts_comprehension(*this)) {
        accept(TokenKind::KwAsync);
        advance();
        ExprPtr target = star_targets();
        check_target(*target, "assign to", false);
        children.push_back(std::move(target));
        expect(TokenKind::KwIn, "'in' after comprehension target");
        children.push_back(disjunction());
        while (accept(TokenKind::KwIf)) children.push_back(disjunction());
    }
}

// --------------------------------------------------------------- targets

ExprPtr Parser::star_targets() {
    const Token& first = tok();
    ExprPtr e = star_target();
    if (!at(TokenKind::Comma)) return e;
    auto t = node_at<Tuple>(first);
    t->elts.push_back(std::move(e));
    while (accept(TokenKind::Comma)) {
        if (!starts_expression(tok().kind)) break;
        t->elts.push_back(star_target());
    }
    t->span = span_from(first);
    return finish(std::move(t));
}

ExprPtr Parser::star_target() {
    if (!at(TokenKind::Star)) return bitwise(0);
    const Token& star = advance();
    auto s = node_at<Starred>(star);
    s->value = bitwise(0);
    s->span = span_from(star);
    return finish(std::move(s));
}

std::string Parser::describe(const Expr& e) const {
    switch (e.kind) {
        case ExprKind::Name: return "name";
        case ExprKind::IntLit:
        case ExprKind::FloatLit:
        case ExprKind::StringLit: return "literal";
        case ExprKind::BoolLit: return e.as<BoolLit>()->value ? "True" : "False";
        case ExprKind::NoneLit: return "None";
        case ExprKind::Unary:
        case ExprKind::Binary:
        case ExprKind::BoolOp: return "expression";
        case ExprKind::Compare: return "comparison";
        case ExprKind::IfExp: return "conditional expression";
        case ExprKind::Call: return "function call";
        case ExprKind::Attribute: return "attribute";
        case ExprKind::Subscript: return "subscript";
        case ExprKind::Tuple: return "tuple";
        case ExprKind::List: return "list";
        case ExprKind::Slice: return "slice";
        case ExprKind::Starred: return "starred";
        case ExprKind::UnsupportedExpr: {
            const std::string& c = e.as<UnsupportedExpr>()->construct;
            if (c == "walrus operator (:=)") return "named expression";
            if (c == "complex literal") return "literal";
            if (c == "yield" || c == "await") return c + " expression";
            return c;
        }
    }
    return "expression";
}

void Parser::check_target(const Expr& e, const char* verb, bool allow_starred) const {
    switch (e.kind) {
        case ExprKind::Name:
        case ExprKind::Attribute:
        case ExprKind::Subscript: return;
        case ExprKind::Tuple:
        case ExprKind::List: {
            const auto& elts = e.kind == ExprKind::Tuple ? e.as<Tuple>()->elts : e.as<List>()->elts;
            int starred = 0;
            for (const ExprPtr& elt : elts) {
                check_target(*elt, verb, true);
                if (elt->kind == ExprKind::Starred && ++starred == 2)
                    fail(elt->span, "multiple starred expressions in assignment");
            }
            return;
        }
        case ExprKind::Starred:
            if (std::string_view(verb) == "delete") fail(e.span, "cannot delete starred");
            if (!allow_starred) fail(e.span, "starred assignment target must be in a list or tuple");
            check_target(*e.as<Starred>()->value, verb, false);
            return;
        default: fail(e.span, std::string("cannot ") + verb + " " + describe(e));
    }
}

}  // namespace tack::syntax
