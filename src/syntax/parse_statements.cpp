// Statements and blocks. Compound statements Tack rejects are parsed in
// parse_unsupported.cpp; this file dispatches to them.
#include "syntax/parser.h"

namespace tack::syntax {

namespace {

// A compound statement ends where its last body does, not at the DEDENT
// that closed it.
void end_at_body(Span& span, const Body& body) {
    if (body.empty()) return;
    span.end_line = body.back()->span.end_line;
    span.end_col = body.back()->span.end_col;
}

bool augmented_operator(TokenKind k, BinaryOp* op) {
    switch (k) {
        case TokenKind::PlusEqual: *op = BinaryOp::Add; return true;
        case TokenKind::MinusEqual: *op = BinaryOp::Sub; return true;
        case TokenKind::StarEqual: *op = BinaryOp::Mul; return true;
        case TokenKind::SlashEqual: *op = BinaryOp::Div; return true;
        case TokenKind::DoubleSlashEqual: *op = BinaryOp::FloorDiv; return true;
        case TokenKind::PercentEqual: *op = BinaryOp::Mod; return true;
        case TokenKind::DoubleStarEqual: *op = BinaryOp::Pow; return true;
        case TokenKind::AtEqual: *op = BinaryOp::MatMul; return true;
        case TokenKind::LeftShiftEqual: *op = BinaryOp::LShift; return true;
        case TokenKind::RightShiftEqual: *op = BinaryOp::RShift; return true;
        case TokenKind::AmpEqual: *op = BinaryOp::BitAnd; return true;
        case TokenKind::VBarEqual: *op = BinaryOp::BitOr; return true;
        case TokenKind::CaretEqual: *op = BinaryOp::BitXor; return true;
        default: return false;
    }
}

bool compound_keyword(TokenKind k) {
    switch (k) {
        case TokenKind::KwIf:
        case TokenKind::KwWhile:
        case TokenKind::KwFor:
        case TokenKind::KwTry:
        case TokenKind::KwWith:
        case TokenKind::KwDef:
        case TokenKind::KwClass:
        case TokenKind::KwAsync:
        case TokenKind::At: return true;
        default: return false;
    }
}

}  // namespace

// An indented block after NEWLINE, or simple statements on the header's line.
Body Parser::block(const char* after, const Token& header) {
    Nesting nesting(*this);
    Body body;
    if (!accept(TokenKind::Newline)) {
        simple_statements(body);
        return body;
    }
    if (!at(TokenKind::Indent))
        fail(tok(), std::string("expected an indented block after ") + after + " on line " + std::to_string(header.line));
    advance();
    while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile)) statement(body);
    expect(TokenKind::Dedent, "end of block");
    return body;
}

void Parser::statement(Body& out) {
    switch (tok().kind) {
        case TokenKind::KwIf: out.push_back(if_statement(false)); return;
        case TokenKind::KwWhile: out.push_back(while_statement()); return;
        case TokenKind::KwFor: out.push_back(for_statement()); return;
        case TokenKind::KwTry: out.push_back(try_statement()); return;
        case TokenKind::KwWith: out.push_back(with_statement(tok(), false)); return;
        case TokenKind::KwDef:
        case TokenKind::KwClass:
        case TokenKind::At: out.push_back(nested_definition()); return;
        case TokenKind::KwAsync:
            switch (peek().kind) {
                case TokenKind::KwDef: out.push_back(nested_definition()); return;
                case TokenKind::KwFor: out.push_back(async_for_statement(tok())); return;
                case TokenKind::KwWith: out.push_back(with_statement(tok(), true)); return;
                default: advance(); fail_expected("'def', 'for' or 'with' after 'async'");
            }
        case TokenKind::Indent: fail(tok(), "unexpected indent");
        case TokenKind::KwElif: fail(tok(), "'elif' without a matching 'if'");
        case TokenKind::KwElse: fail(tok(), "'else' without a matching 'if', 'for', 'while' or 'try'");
        case TokenKind::KwExcept: fail(tok(), "'except' without a matching 'try'");
        case TokenKind::KwFinally: fail(tok(), "'finally' without a matching 'try'");
        case TokenKind::Name:
            if (at_soft_keyword("match")) {
                if (StmtPtr m = match_statement()) {
                    out.push_back(std::move(m));
                    return;
                }
            }
            break;
        default: break;
    }
    simple_statements(out);
}

void Parser::simple_statements(Body& out) {
    while (true) {
        out.push_back(simple_statement());
        if (accept(TokenKind::Semi)) {
            if (accept(TokenKind::Newline)) return;
            continue;
        }
        if (accept(TokenKind::Newline)) return;
        fail_expected("end of line after statement");
    }
}

StmtPtr Parser::simple_statement() {
    const Token& first = tok();
    auto simple = [&](auto node) -> StmtPtr {
        advance();
        node->span = span_from(first);
        return node;
    };
    switch (first.kind) {
        case TokenKind::KwReturn: return return_statement();
        case TokenKind::KwPass: return simple(std::make_unique<Pass>());
        case TokenKind::KwBreak:
            if (loops_ == 0) fail(first, "'break' outside loop");
            return simple(std::make_unique<Break>());
        case TokenKind::KwContinue:
            if (loops_ == 0) fail(first, "'continue' not properly in loop");
            return simple(std::make_unique<Continue>());
        case TokenKind::KwRaise: return raise_statement();
        case TokenKind::KwGlobal:
        case TokenKind::KwNonlocal: return global_statement();
        case TokenKind::KwDel: return del_statement();
        case TokenKind::KwAssert: return assert_statement();
        case TokenKind::KwImport: return import_statement();
        case TokenKind::KwFrom: return from_import_statement();
        default:
            if (compound_keyword(first.kind))
                fail(first, "expected a simple statement, found " + describe(first) +
                                " (a compound statement starts on its own line)");
            return expression_statement();
    }
}

// Expression statements and every form of assignment.
StmtPtr Parser::expression_statement() {
    const Token& first = tok();
    auto value_or_yield = [this]() { return at(TokenKind::KwYield) ? yield_expression() : star_expressions(); };
    if (at(TokenKind::KwYield)) {
        auto s = std::make_unique<ExprStmt>();
        s->value = yield_expression();
        s->span = span_from(first);
        return s;
    }
    ExprPtr lhs = star_expressions();

    if (at(TokenKind::Colon)) {
        switch (lhs->kind) {
            case ExprKind::Name:
            case ExprKind::Attribute:
            case ExprKind::Subscript: break;
            case ExprKind::Tuple: fail(lhs->span, "only single target (not tuple) can be annotated");
            case ExprKind::List: fail(lhs->span, "only single target (not list) can be annotated");
            default: fail(lhs->span, "illegal target for annotation");
        }
        advance();
        std::vector<ExprPtr> exprs;
        exprs.push_back(std::move(lhs));
        exprs.push_back(expression());
        if (accept(TokenKind::Assign)) exprs.push_back(value_or_yield());
        return unsupported_stmt("annotated assignment", first, std::move(exprs));
    }

    BinaryOp op;
    if (augmented_operator(tok().kind, &op)) {
        switch (lhs->kind) {
            case ExprKind::Name:
            case ExprKind::Attribute:
            case ExprKind::Subscript: break;
            default: fail(lhs->span, "'" + describe(*lhs) + "' is an illegal expression for augmented assignment");
        }
        advance();
        auto s = std::make_unique<AugAssign>();
        s->target = std::move(lhs);
        s->op = op;
        s->value = value_or_yield();
        s->span = span_from(first);
        return s;
    }

    if (at(TokenKind::Assign)) {
        auto s = std::make_unique<Assign>();
        s->targets.push_back(std::move(lhs));
        while (accept(TokenKind::Assign)) {
            ExprPtr rhs = value_or_yield();
            if (at(TokenKind::Assign)) {
                s->targets.push_back(std::move(rhs));
            } else {
                s->value = std::move(rhs);
            }
        }
        for (const ExprPtr& t : s->targets) check_target(*t, "assign to", false);
        s->span = span_from(first);
        return s;
    }

    auto s = std::make_unique<ExprStmt>();
    s->value = std::move(lhs);
    s->span = span_from(first);
    return s;
}

StmtPtr Parser::return_statement() {
    const Token& first = advance();
    auto s = std::make_unique<Return>();
    if (!at(TokenKind::Newline) && !at(TokenKind::Semi)) s->value = star_expressions();
    s->span = span_from(first);
    return s;
}

// A loop's body, where break and continue are allowed (its else is not).
Body Parser::loop_body(const char* after, const Token& header) {
    ++loops_;
    Body body = block(after, header);
    --loops_;
    return body;
}

// A nested def or class body starts outside any loop.
Body Parser::definition_body(const char* after, const Token& header) {
    const int saved = loops_;
    loops_ = 0;
    Body body = block(after, header);
    loops_ = saved;
    return body;
}

Body Parser::else_block() {
    const Token& e = advance();
    expect(TokenKind::Colon, "':' after 'else'");
    return block("'else' statement", e);
}

// `elif` is an If alone in its parent's orelse. Each one nests a level, so
// the chain counts toward the nesting limit.
StmtPtr Parser::if_statement(bool is_elif) {
    Nesting nesting(*this);
    const Token& first = advance();
    auto s = std::make_unique<If>();
    s->cond = named_expression();
    expect(TokenKind::Colon, is_elif ? "':' after 'elif' condition" : "':' after 'if' condition");
    s->body = block(is_elif ? "'elif' statement" : "'if' statement", first);
    s->span = span_from(first);
    end_at_body(s->span, s->body);
    if (at(TokenKind::KwElif)) {
        s->orelse.push_back(if_statement(true));
        end_at_body(s->span, s->orelse);
    } else if (at(TokenKind::KwElse)) {
        s->orelse = else_block();
        end_at_body(s->span, s->orelse);
    }
    return s;
}

StmtPtr Parser::while_statement() {
    const Token& first = advance();
    auto s = std::make_unique<While>();
    s->cond = named_expression();
    expect(TokenKind::Colon, "':' after 'while' condition");
    s->body = loop_body("'while' statement", first);
    s->span = span_from(first);
    end_at_body(s->span, s->body);
    if (at(TokenKind::KwElse)) {
        s->orelse = else_block();
        end_at_body(s->span, s->orelse);
    }
    return s;
}

StmtPtr Parser::for_statement() {
    const Token& first = advance();
    auto s = std::make_unique<For>();
    s->target = star_targets();
    check_target(*s->target, "assign to", false);
    expect(TokenKind::KwIn, "'in' after 'for' target");
    s->iter = star_expressions();
    expect(TokenKind::Colon, "':' after 'for' iterable");
    s->body = loop_body("'for' statement", first);
    s->span = span_from(first);
    end_at_body(s->span, s->body);
    if (at(TokenKind::KwElse)) {
        s->orelse = else_block();
        end_at_body(s->span, s->orelse);
    }
    return s;
}

}  // namespace tack::syntax
