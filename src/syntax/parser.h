// The recursive-descent parser behind parse_function (internal to syntax/).
//
// One method per rule of CPython 3.11's grammar (Grammar/python.gram), named
// after the rule. Expressions live in parse_expressions.cpp, the statements
// Tack knows in parse_statements.cpp, those it rejects in
// parse_unsupported.cpp, and the function definition in parser.cpp.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "syntax/ast.h"
#include "syntax/lexer.h"

namespace tack::syntax {

// Recursion through the grammar (brackets, unary chains, blocks) deeper than
// this is a syntax error rather than a stack overflow. At the limit a parse
// uses about 0.5 MB of stack in an optimized build (some 15 grammar frames per
// bracket level), so callers on small-stack threads need at least 1 MB.
inline constexpr int kMaxParseNesting = 200;

class Parser {
public:
    Parser(std::shared_ptr<const Source> source, std::vector<Token> tokens);

    std::unique_ptr<FunctionDef> file();

    // ------------------------------------------------------------ tokens
    const Token& tok() const { return toks_[pos_]; }
    const Token& peek(size_t k = 1) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
    const Token& prev() const { return toks_[pos_ > 0 ? pos_ - 1 : 0]; }
    bool at(TokenKind k) const { return tok().kind == k; }
    bool at_soft_keyword(std::string_view word) const { return at(TokenKind::Name) && tok().text == word; }
    const Token& advance();
    bool accept(TokenKind k);
    // Consumes a `k` or fails with "expected {what}, found {token}".
    const Token& expect(TokenKind k, std::string_view what);
    [[noreturn]] void fail(const Token& at, std::string message) const;
    [[noreturn]] void fail(const Span& at, std::string message) const;
    [[noreturn]] void fail_expected(std::string_view what) const;
    std::string describe(const Token& t) const;  // "name 'x'", "')'", "end of line"

    // ------------------------------------------------------------- spans
    static Span span_of(const Token& t) { return Span{t.line, t.col, t.end_line, t.end_col}; }
    // From the start of `first` to the end of the last consumed token.
    Span span_from(const Token& first) const;
    Span span_from(const Span& first) const;
    // Source text from the start of `first` to the end of the last consumed token.
    std::string text_from(const Token& first) const;
    std::string text_from(size_t first_token) const;

    // Counts recursion through the grammar; see kMaxParseNesting.
    class Nesting {
    public:
        explicit Nesting(Parser& p);
        ~Nesting() { --p_.nesting_; }
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;

    private:
        Parser& p_;
    };

    // Every expression node passes through here once its children are set:
    // records its height and rejects trees deeper than kMaxExprDepth.
    template <typename T>
    ExprPtr finish(std::unique_ptr<T> node) {
        return finish_expr(ExprPtr(std::move(node)));
    }
    ExprPtr finish_expr(ExprPtr e);
    template <typename T>
    std::unique_ptr<T> node_at(const Token& first) {
        auto n = std::make_unique<T>();
        n->span = span_of(first);
        return n;
    }
    ExprPtr unsupported(std::string construct, const Token& first, std::vector<ExprPtr> children);

    // ------------------------------------------------------- expressions
    ExprPtr star_expressions();        // a, *b  (bare tuple allowed)
    ExprPtr star_expression();         // *a | expression
    ExprPtr star_named_expression();   // *a | named_expression
    ExprPtr starred();                 // *a, at the star
    ExprPtr named_expression();        // x := v | expression
    ExprPtr expression();              // lambda | a if c else b
    ExprPtr disjunction();
    ExprPtr conjunction();
    ExprPtr inversion();
    ExprPtr comparison();
    ExprPtr bitwise(int min_precedence);
    ExprPtr factor();
    ExprPtr power();
    ExprPtr await_primary();
    ExprPtr primary();
    ExprPtr atom();
    ExprPtr yield_expression();
    ExprPtr lambda();
    ExprPtr strings();
    ExprPtr number();
    ExprPtr paren_atom();
    ExprPtr list_atom();
    ExprPtr brace_atom();
    // The `for ... in ... if ...` clauses of a comprehension, appended to children.
    void comprehension_clauses(std::vector<ExprPtr>& children);
    void call_arguments(std::vector<ExprPtr>& args, std::vector<Keyword>& keywords);
    ExprPtr slices();
    ExprPtr slice();
    // star_targets for `for` and comprehensions: stops before `in`.
    ExprPtr star_targets();
    ExprPtr star_target();

    // Assignment targets. `context` completes "cannot assign to X" style
    // messages: "assign to", "delete".
    void check_target(const Expr& e, const char* verb, bool allow_starred) const;
    std::string describe(const Expr& e) const;

    // -------------------------------------------------------- statements
    Body block(const char* after, const Token& header);
    void statement(Body& out);
    void simple_statements(Body& out);
    StmtPtr simple_statement();
    StmtPtr expression_statement();
    StmtPtr if_statement(bool is_elif);
    StmtPtr while_statement();
    StmtPtr for_statement();
    StmtPtr return_statement();
    Body else_block();
    Body loop_body(const char* after, const Token& header);
    Body definition_body(const char* after, const Token& header);

    // Unsupported statements (parse_unsupported.cpp).
    StmtPtr unsupported_stmt(std::string construct, const Token& first, std::vector<ExprPtr> exprs);
    StmtPtr try_statement();
    StmtPtr with_statement(const Token& first, bool is_async);
    StmtPtr async_for_statement(const Token& first);
    StmtPtr nested_definition();
    StmtPtr class_definition(const Token& first, const Token& header, std::vector<ExprPtr> decorators,
                             std::vector<std::string> headers);
    StmtPtr match_statement();  // nullptr when `match` is a name here
    StmtPtr raise_statement();
    StmtPtr import_statement();
    StmtPtr from_import_statement();
    StmtPtr global_statement();
    StmtPtr del_statement();
    StmtPtr assert_statement();
    void dotted_name();

    // --------------------------------------------------------- functions
    struct Signature {
        std::string name;
        Span name_span;
        std::vector<Param> params;
        ExprPtr returns;
    };
    std::vector<ExprPtr> decorators(std::vector<std::string>* headers);
    Signature signature();  // from `def` to the ':' (not consumed)
    void parameters(std::vector<Param>& params, bool lambda);

private:
    std::shared_ptr<const Source> source_;
    std::vector<Token> toks_;
    size_t pos_ = 0;
    int nesting_ = 0;
    int loops_ = 0;  // enclosing loops of the current function, for break/continue
    std::unordered_map<const Expr*, int> heights_;
};

// The direct sub-expressions of e, in source order.
template <typename F>
void for_each_child(const Expr& e, F&& f) {
    auto visit = [&](const ExprPtr& c) {
        if (c) f(*c);
    };
    switch (e.kind) {
        case ExprKind::Unary: visit(e.as<Unary>()->operand); break;
        case ExprKind::Binary: visit(e.as<Binary>()->lhs), visit(e.as<Binary>()->rhs); break;
        case ExprKind::BoolOp:
            for (const auto& v : e.as<BoolOp>()->values) visit(v);
            break;
        case ExprKind::Compare:
            visit(e.as<Compare>()->left);
            for (const auto& v : e.as<Compare>()->comparators) visit(v);
            break;
        case ExprKind::IfExp: {
            const auto* n = e.as<IfExp>();
            visit(n->then_value), visit(n->cond), visit(n->else_value);
            break;
        }
        case ExprKind::Call: {
            const auto* n = e.as<Call>();
            visit(n->func);
            for (const auto& a : n->args) visit(a);
            for (const auto& k : n->keywords) visit(k.value);
            break;
        }
        case ExprKind::Attribute: visit(e.as<Attribute>()->value); break;
        case ExprKind::Subscript: visit(e.as<Subscript>()->value), visit(e.as<Subscript>()->index); break;
        case ExprKind::Tuple:
            for (const auto& v : e.as<Tuple>()->elts) visit(v);
            break;
        case ExprKind::List:
            for (const auto& v : e.as<List>()->elts) visit(v);
            break;
        case ExprKind::Slice: {
            const auto* n = e.as<Slice>();
            visit(n->lower), visit(n->upper), visit(n->step);
            break;
        }
        case ExprKind::Starred: visit(e.as<Starred>()->value); break;
        case ExprKind::UnsupportedExpr:
            for (const auto& v : e.as<UnsupportedExpr>()->children) visit(v);
            break;
        case ExprKind::Name:
        case ExprKind::IntLit:
        case ExprKind::FloatLit:
        case ExprKind::BoolLit:
        case ExprKind::NoneLit:
        case ExprKind::StringLit: break;
    }
}

}  // namespace tack::syntax
