#include "syntax/parser.h"

#include <set>

namespace tack::syntax {

Parser::Parser(std::shared_ptr<const Source> source, std::vector<Token> tokens)
    : source_(std::move(source)), toks_(std::move(tokens)) {}

// ------------------------------------------------------------------ tokens

const Token& Parser::advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
}

bool Parser::accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
}

const Token& Parser::expect(TokenKind k, std::string_view what) {
    if (!at(k)) fail_expected(what);
    return advance();
}

std::string Parser::describe(const Token& t) const {
    switch (t.kind) {
        case TokenKind::Name: return "name '" + std::string(t.text) + "'";
        case TokenKind::Int:
        case TokenKind::Float:
        case TokenKind::Imaginary: return "number '" + std::string(t.text) + "'";
        case TokenKind::Dedent: return "end of block";
        default: return to_string(t.kind);
    }
}

void Parser::fail(const Span& at, std::string message) const {
    Diagnostic d;
    d.kind = ErrorKind::Syntax;
    d.message = std::move(message);
    d.span = at;
    d.source = source_;
    throw CompileError(std::move(d));
}

void Parser::fail(const Token& at, std::string message) const { fail(span_of(at), std::move(message)); }

void Parser::fail_expected(std::string_view what) const {
    if (at(TokenKind::Indent)) fail(tok(), "unexpected indent");
    fail(tok(), "expected " + std::string(what) + ", found " + describe(tok()));
}

// ------------------------------------------------------------------- spans

Span Parser::span_from(const Token& first) const {
    return Span{first.line, first.col, prev().end_line, prev().end_col};
}

Span Parser::span_from(const Span& first) const { return Span{first.line, first.col, prev().end_line, prev().end_col}; }

std::string Parser::text_from(const Token& first) const {
    const size_t end = std::max(prev().end, first.begin);
    return source_->text.substr(first.begin, end - first.begin);
}

std::string Parser::text_from(size_t first_token) const { return text_from(toks_[first_token]); }

Parser::Nesting::Nesting(Parser& p) : p_(p) {
    if (++p_.nesting_ > kMaxParseNesting) {
        --p_.nesting_;
        p_.fail(p_.tok(), "too deeply nested (more than " + std::to_string(kMaxParseNesting) + " levels)");
    }
}

ExprPtr Parser::finish_expr(ExprPtr e) {
    int height = 0;
    for_each_child(*e, [&](const Expr& c) {
        const auto it = heights_.find(&c);
        height = std::max(height, it == heights_.end() ? 1 : it->second);
    });
    ++height;
    if (height > kMaxExprDepth)
        fail(e->span, "expression too deeply nested (more than " + std::to_string(kMaxExprDepth) + " levels)");
    heights_[e.get()] = height;
    return e;
}

ExprPtr Parser::unsupported(std::string construct, const Token& first, std::vector<ExprPtr> children) {
    auto n = node_at<UnsupportedExpr>(first);
    n->span = span_from(first);
    n->construct = std::move(construct);
    n->children = std::move(children);
    n->text = text_from(first);
    return finish(std::move(n));
}

// --------------------------------------------------------------- functions

std::vector<ExprPtr> Parser::decorators(std::vector<std::string>* headers) {
    std::vector<ExprPtr> out;
    while (at(TokenKind::At)) {
        const Token& at_sign = advance();
        out.push_back(named_expression());
        if (headers) headers->push_back(text_from(at_sign));
        expect(TokenKind::Newline, "end of line after decorator");
    }
    return out;
}

Parser::Signature Parser::signature() {
    Signature sig;
    expect(TokenKind::KwDef, "'def'");
    const Token& name = expect(TokenKind::Name, "function name after 'def'");
    sig.name = std::string(name.text);
    sig.name_span = span_of(name);
    expect(TokenKind::LParen, "'(' after function name");
    parameters(sig.params, false);
    expect(TokenKind::RParen, "',' or ')' in parameter list");
    if (accept(TokenKind::Arrow)) sig.returns = expression();
    return sig;
}

// Parameters of a `def` (up to its ')') or a lambda (up to its ':'), with
// CPython's rules for '/', '*', defaults and duplicates.
void Parser::parameters(std::vector<Param>& params, bool lambda) {
    const TokenKind closing = lambda ? TokenKind::Colon : TokenKind::RParen;
    bool seen_slash = false, seen_star = false, seen_kwargs = false, seen_default = false;
    bool bare_star = false;  // a bare '*' still waiting for its keyword-only parameter
    std::set<std::string_view> names;

    auto one = [&](ParamKind kind, const Token& first) {
        const Token& name = expect(TokenKind::Name, "parameter name");
        if (!names.insert(name.text).second)
            fail(name, "duplicate argument '" + std::string(name.text) + "' in function definition");
        Param p;
        p.name = std::string(name.text);
        p.kind = kind;
        if (!lambda && accept(TokenKind::Colon)) p.annotation = expression();
        if (at(TokenKind::Assign)) {
            if (kind == ParamKind::VarArgs) fail(tok(), "var-positional argument cannot have default value");
            if (kind == ParamKind::VarKeywords) fail(tok(), "var-keyword argument cannot have default value");
            advance();
            p.default_value = expression();
            if (kind == ParamKind::Positional) seen_default = true;
        } else if (kind == ParamKind::Positional && seen_default) {
            fail(name, "non-default argument follows default argument");
        }
        p.span = span_from(first);
        params.push_back(std::move(p));
    };

    while (!at(closing)) {
        const Token& first = tok();
        if (seen_kwargs) fail(first, "arguments cannot follow var-keyword argument");
        if (accept(TokenKind::Slash)) {
            if (seen_slash) fail(first, "/ may appear only once");
            if (seen_star) fail(first, "/ must be ahead of *");
            if (params.empty()) fail(first, "at least one argument must precede /");
            for (Param& p : params) p.kind = ParamKind::PositionalOnly;
            seen_slash = true;
        } else if (accept(TokenKind::Star)) {
            if (seen_star) fail(first, "* argument may appear only once");
            seen_star = true;
            if (at(TokenKind::Name))
                one(ParamKind::VarArgs, first);
            else
                bare_star = true;
        } else if (accept(TokenKind::DoubleStar)) {
            if (bare_star) fail(first, "named arguments must follow bare *");
            one(ParamKind::VarKeywords, first);
            seen_kwargs = true;
        } else {
            one(seen_star ? ParamKind::KeywordOnly : ParamKind::Positional, first);
            bare_star = false;
        }
        if (!accept(TokenKind::Comma)) break;
    }
    if (bare_star) fail(tok(), "named arguments must follow bare *");
}

std::unique_ptr<FunctionDef> Parser::file() {
    if (at(TokenKind::Indent)) fail(tok(), "unexpected indent");
    const Token& first = tok();
    auto fn = std::make_unique<FunctionDef>();
    fn->source = source_;
    fn->decorators = decorators(nullptr);
    const Token& header = tok();
    fn->is_async = accept(TokenKind::KwAsync);
    if (!at(TokenKind::KwDef))
        fail_expected(fn->is_async ? "'def' after 'async'"
                                   : fn->decorators.empty() ? "a function definition ('def')" : "'def' after decorators");
    Signature sig = signature();
    fn->name = std::move(sig.name);
    fn->name_span = sig.name_span;
    fn->params = std::move(sig.params);
    fn->returns = std::move(sig.returns);
    expect(TokenKind::Colon, "':' after the function signature");
    fn->body = block("function definition", header);
    fn->span = span_from(first);
    if (!fn->body.empty()) {
        fn->span.end_line = fn->body.back()->span.end_line;
        fn->span.end_col = fn->body.back()->span.end_col;
    }
    if (!at(TokenKind::EndOfFile)) fail_expected("end of input after the function definition");
    return fn;
}

std::unique_ptr<FunctionDef> parse_function(std::shared_ptr<const Source> source) {
    std::vector<Token> tokens = tokenize(source);
    return Parser(std::move(source), std::move(tokens)).file();
}

}  // namespace tack::syntax
