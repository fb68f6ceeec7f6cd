// Statements Tack rejects: parsed fully (so malformed ones are still syntax
// errors, and validation can point inside them) into UnsupportedStmt, with
// their header lines kept verbatim for to_source.
#include "syntax/parser.h"

namespace tack::syntax {

namespace {

void end_at_bodies(Span& span, const std::vector<Body>& bodies) {
    for (auto it = bodies.rbegin(); it != bodies.rend(); ++it) {
        if (it->empty()) continue;
        span.end_line = it->back()->span.end_line;
        span.end_col = it->back()->span.end_col;
        return;
    }
}

bool is_open(TokenKind k) { return k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace; }
bool is_close(TokenKind k) { return k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace; }

}  // namespace

// A simple statement: its whole text is its one header.
StmtPtr Parser::unsupported_stmt(std::string construct, const Token& first, std::vector<ExprPtr> exprs) {
    auto s = std::make_unique<UnsupportedStmt>();
    s->construct = std::move(construct);
    s->exprs = std::move(exprs);
    s->headers.push_back(text_from(first));
    s->span = span_from(first);
    return s;
}

StmtPtr Parser::try_statement() {
    const Token& first = advance();
    auto s = std::make_unique<UnsupportedStmt>();
    s->construct = "try";
    expect(TokenKind::Colon, "':' after 'try'");
    s->headers.push_back(text_from(first));
    s->bodies.push_back(block("'try' statement", first));
    int handlers = 0;
    bool bare = false;
    while (at(TokenKind::KwExcept)) {
        const Token& clause = advance();
        if (bare) fail(clause, "default 'except:' must be last");
        const bool group = accept(TokenKind::Star);
        if (at(TokenKind::Colon)) {
            if (group) fail(tok(), "expected one or more exception types");
            bare = true;
        } else {
            s->exprs.push_back(expression());
            if (at(TokenKind::Comma)) fail(tok(), "multiple exception types must be parenthesized");
            if (accept(TokenKind::KwAs)) expect(TokenKind::Name, "name after 'as'");
        }
        expect(TokenKind::Colon, "':' after 'except' clause");
        s->headers.push_back(text_from(clause));
        s->bodies.push_back(block("'except' statement", clause));
        ++handlers;
    }
    if (handlers > 0 && at(TokenKind::KwElse)) {
        const Token& clause = advance();
        expect(TokenKind::Colon, "':' after 'else'");
        s->headers.push_back(text_from(clause));
        s->bodies.push_back(block("'else' statement", clause));
    }
    if (at(TokenKind::KwFinally)) {
        const Token& clause = advance();
        expect(TokenKind::Colon, "':' after 'finally'");
        s->headers.push_back(text_from(clause));
        s->bodies.push_back(block("'finally' statement", clause));
    } else if (handlers == 0) {
        fail_expected("'except' or 'finally' block");
    }
    s->span = span_from(first);
    end_at_bodies(s->span, s->bodies);
    return s;
}

StmtPtr Parser::with_statement(const Token& first, bool is_async) {
    if (is_async) advance();
    advance();
    auto s = std::make_unique<UnsupportedStmt>();
    s->construct = is_async ? "async with" : "with";
    auto item = [&]() {
        s->exprs.push_back(expression());
        if (accept(TokenKind::KwAs)) {
            ExprPtr target = star_target();
            check_target(*target, "assign to", false);
            s->exprs.push_back(std::move(target));
        }
    };
    // `with (a as b, c):` is a parenthesized item list when ':' follows the
    // matching ')'; otherwise the '(' opens the first item's expression.
    bool parenthesized = false;
    if (at(TokenKind::LParen)) {
        int depth = 0;
        size_t i = pos_;
        for (; i < toks_.size(); ++i) {
            if (is_open(toks_[i].kind)) ++depth;
            if (is_close(toks_[i].kind) && --depth == 0) break;
        }
        parenthesized = i + 1 < toks_.size() && toks_[i + 1].kind == TokenKind::Colon;
    }
    if (parenthesized) {
        advance();
        do {
            if (at(TokenKind::RParen)) break;
            item();
        } while (accept(TokenKind::Comma));
        expect(TokenKind::RParen, "',' or ')' after 'with' item");
    } else {
        do item();
        while (accept(TokenKind::Comma));
    }
    expect(TokenKind::Colon, "':' after 'with' items");
    s->headers.push_back(text_from(first));
    s->bodies.push_back(block("'with' statement", first));
    s->span = span_from(first);
    end_at_bodies(s->span, s->bodies);
    return s;
}

StmtPtr Parser::async_for_statement(const Token& first) {
    advance();
    advance();
    auto s = std::make_unique<UnsupportedStmt>();
    s->construct = "async for";
    ExprPtr target = star_targets();
    check_target(*target, "assign to", false);
    s->exprs.push_back(std::move(target));
    expect(TokenKind::KwIn, "'in' after 'for' target");
    s->exprs.push_back(star_expressions());
    expect(TokenKind::Colon, "':' after 'for' iterable");
    s->headers.push_back(text_from(first));
    s->bodies.push_back(loop_body("'for' statement", first));
    if (at(TokenKind::KwElse)) {
        const Token& clause = advance();
        expect(TokenKind::Colon, "':' after 'else'");
        s->headers.push_back(text_from(clause));
        s->bodies.push_back(block("'else' statement", clause));
    }
    s->span = span_from(first);
    end_at_bodies(s->span, s->bodies);
    return s;
}

// A def or class inside the kernel, decorated or not.
StmtPtr Parser::nested_definition() {
    const Token& first = tok();
    std::vector<std::string> headers;
    std::vector<ExprPtr> exprs = decorators(&headers);
    const Token& header = tok();
    if (at(TokenKind::KwClass)) return class_definition(first, header, std::move(exprs), std::move(headers));
    accept(TokenKind::KwAsync);
    if (!at(TokenKind::KwDef)) fail_expected("'def' or 'class' after decorators");
    Signature sig = signature();
    expect(TokenKind::Colon, "':' after the function signature");
    for (Param& p : sig.params) {
        if (p.annotation) exprs.push_back(std::move(p.annotation));
        if (p.default_value) exprs.push_back(std::move(p.default_value));
    }
    if (sig.returns) exprs.push_back(std::move(sig.returns));
    auto s = std::make_unique<UnsupportedStmt>();
    s->construct = "nested def";
    s->exprs = std::move(exprs);
    s->headers = std::move(headers);
    s->headers.push_back(text_from(header));
    s->bodies.push_back(definition_body("function definition", header));
    s->span = span_from(first);
    end_at_bodies(s->span, s->bodies);
    return s;
}

StmtPtr Parser::class_definition(const Token& first, const Token& header, std::vector<ExprPtr> exprs,
                                 std::vector<std::string> headers) {
    advance();
    expect(TokenKind::Name, "class name after 'class'");
    if (accept(TokenKind::LParen)) {
        std::vector<ExprPtr> args;
        std::vector<Keyword> keywords;
        call_arguments(args, keywords);
        for (ExprPtr& a : args) exprs.push_back(std::move(a));
        for (Keyword& k : keywords) exprs.push_back(std::move(k.value));
    }
    expect(TokenKind::Colon, "':' after class header");
    auto s = std::make_unique<UnsupportedStmt>();
    s->construct = "class";
    s->exprs = std::move(exprs);
    s->headers = std::move(headers);
    s->headers.push_back(text_from(header));
    s->bodies.push_back(definition_body("class definition", header));
    s->span = span_from(first);
    end_at_bodies(s->span, s->bodies);
    return s;
}

// `match` is a keyword only where a match statement can start: `match x:`
// at the end of a line. Anywhere else (`match = 1`, `match(x)`) it is a
// name, so the subject is parsed speculatively and abandoned on failure.
StmtPtr Parser::match_statement() {
    const size_t saved_pos = pos_;
    const int saved_nesting = nesting_;
    const Token& first = tok();
    if (!(peek().kind == TokenKind::Name || peek().kind == TokenKind::LParen || peek().kind == TokenKind::LBracket ||
          peek().kind == TokenKind::LBrace || peek().kind == TokenKind::Int || peek().kind == TokenKind::Float ||
          peek().kind == TokenKind::String || peek().kind == TokenKind::Minus || peek().kind == TokenKind::Star ||
          peek().kind == TokenKind::KwNone || peek().kind == TokenKind::KwTrue || peek().kind == TokenKind::KwFalse ||
          peek().kind == TokenKind::KwNot || peek().kind == TokenKind::Tilde || peek().kind == TokenKind::Plus ||
          peek().kind == TokenKind::KwAwait || peek().kind == TokenKind::KwLambda))
        return nullptr;
    ExprPtr subject;
    bool is_match = false;
    try {
        advance();
        subject = star_named_expression();
        if (at(TokenKind::Comma)) {
            auto t = node_at<Tuple>(toks_[saved_pos + 1]);
            t->elts.push_back(std::move(subject));
            while (accept(TokenKind::Comma)) {
                if (at(TokenKind::Colon)) break;
                t->elts.push_back(star_named_expression());
            }
            t->span = span_from(toks_[saved_pos + 1]);
            subject = finish(std::move(t));
        }
        is_match = at(TokenKind::Colon) && peek().kind == TokenKind::Newline;
    } catch (const CompileError&) {
        is_match = false;
    }
    if (!is_match) {
        pos_ = saved_pos;
        nesting_ = saved_nesting;
        return nullptr;
    }

    auto s = std::make_unique<UnsupportedStmt>();
    s->construct = "match";
    s->exprs.push_back(std::move(subject));
    advance();
    s->headers.push_back(text_from(first));
    advance();
    if (!at(TokenKind::Indent))
        fail(tok(), "expected an indented block after 'match' statement on line " + std::to_string(first.line));
    advance();
    Nesting nesting(*this);
    while (at_soft_keyword("case")) {
        const Token& clause = advance();
        // Patterns are not expressions; they are skipped up to the ':' (or
        // the guard's 'if') at bracket depth 0, which is all Tack needs to
        // report the statement.
        int depth = 0;
        bool any = false;
        while (true) {
            const TokenKind k = tok().kind;
            if (k == TokenKind::Newline || k == TokenKind::EndOfFile) fail_expected("':' after 'case' pattern");
            if (depth == 0 && (k == TokenKind::Colon || k == TokenKind::KwIf)) break;
            if (is_open(k)) ++depth;
            if (is_close(k)) --depth;
            any = true;
            advance();
        }
        if (!any) fail_expected("a pattern after 'case'");
        if (accept(TokenKind::KwIf)) s->exprs.push_back(named_expression());
        expect(TokenKind::Colon, "':' after 'case' pattern");
        s->headers.push_back(text_from(clause));
        s->bodies.push_back(block("'case' statement", clause));
    }
    if (s->bodies.empty() || !at(TokenKind::Dedent)) fail_expected("'case' block");
    advance();
    s->span = span_from(first);
    end_at_bodies(s->span, s->bodies);
    return s;
}

StmtPtr Parser::raise_statement() {
    const Token& first = advance();
    std::vector<ExprPtr> exprs;
    if (!at(TokenKind::Newline) && !at(TokenKind::Semi)) {
        exprs.push_back(expression());
        if (accept(TokenKind::KwFrom)) exprs.push_back(expression());
    }
    return unsupported_stmt("raise", first, std::move(exprs));
}

void Parser::dotted_name() {
    expect(TokenKind::Name, "module name");
    while (accept(TokenKind::Dot)) expect(TokenKind::Name, "name after '.'");
}

StmtPtr Parser::import_statement() {
    const Token& first = advance();
    do {
        dotted_name();
        if (accept(TokenKind::KwAs)) expect(TokenKind::Name, "name after 'as'");
    } while (accept(TokenKind::Comma));
    return unsupported_stmt("import", first, {});
}

StmtPtr Parser::from_import_statement() {
    const Token& first = advance();
    bool relative = false;
    while (at(TokenKind::Dot) || at(TokenKind::Ellipsis)) {
        advance();
        relative = true;
    }
    if (!relative || at(TokenKind::Name)) dotted_name();
    expect(TokenKind::KwImport, "'import' after module name");
    if (!accept(TokenKind::Star)) {
        const bool parenthesized = accept(TokenKind::LParen);
        do {
            if (parenthesized && at(TokenKind::RParen)) break;
            if (!parenthesized && prev().kind == TokenKind::Comma && (at(TokenKind::Newline) || at(TokenKind::Semi)))
                fail(prev(), "trailing comma not allowed without surrounding parentheses");
            expect(TokenKind::Name, "name to import");
            if (accept(TokenKind::KwAs)) expect(TokenKind::Name, "name after 'as'");
        } while (accept(TokenKind::Comma));
        if (parenthesized) expect(TokenKind::RParen, "',' or ')' after imported name");
    }
    return unsupported_stmt("from-import", first, {});
}

StmtPtr Parser::global_statement() {
    const Token& first = advance();
    std::vector<ExprPtr> names;
    do {
        const Token& name = expect(TokenKind::Name, "name");
        auto n = node_at<Name>(name);
        n->id = std::string(name.text);
        names.push_back(finish(std::move(n)));
    } while (accept(TokenKind::Comma));
    return unsupported_stmt(first.kind == TokenKind::KwGlobal ? "global" : "nonlocal", first, std::move(names));
}

StmtPtr Parser::del_statement() {
    const Token& first = advance();
    std::vector<ExprPtr> targets;
    do {
        if (!targets.empty() && (at(TokenKind::Newline) || at(TokenKind::Semi))) break;
        ExprPtr t = star_target();
        check_target(*t, "delete", false);
        targets.push_back(std::move(t));
    } while (accept(TokenKind::Comma));
    return unsupported_stmt("del", first, std::move(targets));
}

StmtPtr Parser::assert_statement() {
    const Token& first = advance();
    std::vector<ExprPtr> exprs;
    exprs.push_back(expression());
    if (accept(TokenKind::Comma)) exprs.push_back(expression());
    return unsupported_stmt("assert", first, std::move(exprs));
}

}  // namespace tack::syntax
