// The abstract syntax tree of one Python function, as the parser builds it.
//
// The tree records what was written, including constructs Tack rejects:
// those parse into `Unsupported*` nodes naming the construct, so validation
// (src/frontend/validate) can reject them with a position, in source order,
// after the whole function parsed. Nothing is dropped here.
//
// Nodes are plain structs owned by unique_ptr; `as<T>()` downcasts by kind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "syntax/source.h"

namespace tack::syntax {

// ---------------------------------------------------------------- expressions

#define TACK_EXPR_KINDS(X) \
    X(Name)                \
    X(IntLit)              \
    X(FloatLit)            \
    X(BoolLit)             \
    X(NoneLit)             \
    X(StringLit)           \
    X(Unary)               \
    X(Binary)              \
    X(BoolOp)              \
    X(Compare)             \
    X(IfExp)               \
    X(Call)                \
    X(Attribute)           \
    X(Subscript)           \
    X(Tuple)               \
    X(List)                \
    X(Slice)               \
    X(Starred)             \
    X(UnsupportedExpr)

enum class ExprKind {
#define X(name) name,
    TACK_EXPR_KINDS(X)
#undef X
};

enum class UnaryOp { Neg, Pos, Invert, Not };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, LShift, RShift, BitAnd, BitOr, BitXor };
enum class BoolOpKind { And, Or };
enum class CmpOp { Lt, Le, Gt, Ge, Eq, Ne, Is, IsNot, In, NotIn };

const char* to_string(ExprKind k);
const char* to_string(UnaryOp op);   // "-", "+", "~", "not"
const char* to_string(BinaryOp op);  // "+", "-", ..., "@"
const char* to_string(BoolOpKind op);
const char* to_string(CmpOp op);     // "<", ..., "is not", "not in"

struct Expr {
    ExprKind kind;
    Span span;
    explicit Expr(ExprKind k) : kind(k) {}
    virtual ~Expr() = default;

    template <typename T> T* as() { return kind == T::static_kind ? static_cast<T*>(this) : nullptr; }
    template <typename T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};
using ExprPtr = std::unique_ptr<Expr>;

#define TACK_EXPR_NODE(Name_) \
    static constexpr ExprKind static_kind = ExprKind::Name_; \
    Name_() : Expr(ExprKind::Name_) {}

// id is the UTF-8 spelling as written. It is not NFKC-normalized: Python
// would read `ﬁ` and `fi` as one name, Tack reads them as two (see lexer.cpp).
struct Name : Expr { TACK_EXPR_NODE(Name) std::string id; };

// An integer literal's exact value. `negative` is never set by the parser
// (Python has no negative literals); magnitude holds up to 2^64 - 1, and
// `overflow` marks a literal larger than that (value is then 2^64 - 1).
// `text` is the literal as written ("0x_ff"), empty for a built literal.
struct IntLit : Expr {
    TACK_EXPR_NODE(IntLit)
    uint64_t value = 0;
    bool overflow = false;
    bool negative = false;
    std::string text;
};
struct FloatLit : Expr { TACK_EXPR_NODE(FloatLit) double value = 0; std::string text; };  // value correctly rounded (strtod)
struct BoolLit : Expr { TACK_EXPR_NODE(BoolLit) bool value = false; };
struct NoneLit : Expr { TACK_EXPR_NODE(NoneLit) };
// Any string or bytes literal, including implicitly concatenated ones.
// f-strings parse as UnsupportedExpr("f-string").
struct StringLit : Expr { TACK_EXPR_NODE(StringLit) std::string value; };

struct Unary : Expr { TACK_EXPR_NODE(Unary) UnaryOp op; ExprPtr operand; };
struct Binary : Expr { TACK_EXPR_NODE(Binary) BinaryOp op; ExprPtr lhs, rhs; };
// `a and b and c` is one BoolOp with three values, as in Python's ast.
struct BoolOp : Expr { TACK_EXPR_NODE(BoolOp) BoolOpKind op; std::vector<ExprPtr> values; };
// `a < b <= c`: left = a, ops = {Lt, Le}, comparators = {b, c}.
struct Compare : Expr {
    TACK_EXPR_NODE(Compare)
    ExprPtr left;
    std::vector<CmpOp> ops;
    std::vector<ExprPtr> comparators;
};
struct IfExp : Expr { TACK_EXPR_NODE(IfExp) ExprPtr cond, then_value, else_value; };

struct Keyword {
    std::string name;  // empty for `**kwargs`
    ExprPtr value;
    Span span;
};
struct Call : Expr {
    TACK_EXPR_NODE(Call)
    ExprPtr func;
    std::vector<ExprPtr> args;       // may contain Starred
    std::vector<Keyword> keywords;
};
struct Attribute : Expr { TACK_EXPR_NODE(Attribute) ExprPtr value; std::string attr; };
// `a[i, j]` has index = Tuple(i, j); `a[1:2]` has index = Slice.
struct Subscript : Expr { TACK_EXPR_NODE(Subscript) ExprPtr value; ExprPtr index; };
struct Tuple : Expr { TACK_EXPR_NODE(Tuple) std::vector<ExprPtr> elts; bool parenthesized = false; };
struct List : Expr { TACK_EXPR_NODE(List) std::vector<ExprPtr> elts; };
struct Slice : Expr { TACK_EXPR_NODE(Slice) ExprPtr lower, upper, step; };  // each may be null
struct Starred : Expr { TACK_EXPR_NODE(Starred) ExprPtr value; bool double_star = false; };

// A construct Tack never accepts in an expression: "lambda", "list
// comprehension", "set comprehension", "dict comprehension", "generator
// expression", "dict display", "set display", "f-string", "walrus operator
// (:=)", "yield", "await", "ellipsis". `children` holds the sub-expressions
// the parser read (for position-ordered validation), possibly empty.
// `text` is the construct's source as written; to_source prints it verbatim,
// so a printed tree re-parses to the same children.
struct UnsupportedExpr : Expr {
    TACK_EXPR_NODE(UnsupportedExpr)
    std::string construct;
    std::vector<ExprPtr> children;
    std::string text;
};

#undef TACK_EXPR_NODE

// ----------------------------------------------------------------- statements

#define TACK_STMT_KINDS(X) \
    X(ExprStmt)            \
    X(Assign)              \
    X(AugAssign)           \
    X(For)                 \
    X(While)               \
    X(If)                  \
    X(Return)              \
    X(Break)               \
    X(Continue)            \
    X(Pass)                \
    X(UnsupportedStmt)

enum class StmtKind {
#define X(name) name,
    TACK_STMT_KINDS(X)
#undef X
};
const char* to_string(StmtKind k);

struct Stmt {
    StmtKind kind;
    Span span;
    explicit Stmt(StmtKind k) : kind(k) {}
    virtual ~Stmt() = default;

    template <typename T> T* as() { return kind == T::static_kind ? static_cast<T*>(this) : nullptr; }
    template <typename T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

#define TACK_STMT_NODE(Name_) \
    static constexpr StmtKind static_kind = StmtKind::Name_; \
    Name_() : Stmt(StmtKind::Name_) {}

struct ExprStmt : Stmt { TACK_STMT_NODE(ExprStmt) ExprPtr value; };
// `a = b = v` has targets {a, b}. Tuple targets are Tuple nodes.
struct Assign : Stmt { TACK_STMT_NODE(Assign) std::vector<ExprPtr> targets; ExprPtr value; };
struct AugAssign : Stmt { TACK_STMT_NODE(AugAssign) ExprPtr target; BinaryOp op; ExprPtr value; };
struct For : Stmt { TACK_STMT_NODE(For) ExprPtr target; ExprPtr iter; Body body; Body orelse; };
struct While : Stmt { TACK_STMT_NODE(While) ExprPtr cond; Body body; Body orelse; };
// `elif` parses as an If alone in the orelse of its parent, as in Python's ast.
struct If : Stmt { TACK_STMT_NODE(If) ExprPtr cond; Body body; Body orelse; };
struct Return : Stmt { TACK_STMT_NODE(Return) ExprPtr value; };  // value may be null
struct Break : Stmt { TACK_STMT_NODE(Break) };
struct Continue : Stmt { TACK_STMT_NODE(Continue) };
struct Pass : Stmt { TACK_STMT_NODE(Pass) };

// A statement Tack never accepts: "try", "with", "async with", "async for",
// "raise", "import", "from-import", "assert", "nested def", "class",
// "global", "nonlocal", "del", "match", "annotated assignment",
// "decorated definition" ... `exprs` and `bodies` hold what the parser read
// inside it, so validation can also report positions within.
//
// `headers` is the statement's source as written, one logical line each, so
// to_source can print it: a simple statement has one header and no bodies;
// a compound one has one header per clause ("try:", "except E as e:", ...),
// headers[i + headers.size() - bodies.size()] introducing bodies[i], and any
// leading extra headers are decorator lines. For "match", headers[0] is
// "match subject:" and each further header a case clause of bodies[i].
struct UnsupportedStmt : Stmt {
    TACK_STMT_NODE(UnsupportedStmt)
    std::string construct;
    std::vector<ExprPtr> exprs;
    std::vector<Body> bodies;
    std::vector<std::string> headers;
};

#undef TACK_STMT_NODE

// ------------------------------------------------------------------ functions

enum class ParamKind { Positional, PositionalOnly, VarArgs, KeywordOnly, VarKeywords };

struct Param {
    std::string name;
    ParamKind kind = ParamKind::Positional;
    ExprPtr annotation;  // may be null; host metadata only
    ExprPtr default_value;  // may be null; defaults are rejected by validation
    Span span;
};

struct FunctionDef {
    std::string name;
    std::vector<ExprPtr> decorators;  // host metadata only
    std::vector<Param> params;
    ExprPtr returns;  // return annotation; may be null
    Body body;
    bool is_async = false;
    Span span;       // the `def` line (or the first decorator)
    Span name_span;
    std::shared_ptr<const Source> source;
};

// The deepest expression tree the parser builds; deeper is a syntax error.
inline constexpr int kMaxExprDepth = 1000;

// Parses the dedented source of exactly one function definition (decorators
// allowed). Throws CompileError(ErrorKind::Syntax) with a position on
// malformed input; never crashes, however malformed. Trees are bounded in
// depth (kMaxExprDepth levels of expression, Python's 100 levels of
// indentation), so recursive visitors over them cannot exhaust the stack.
std::unique_ptr<FunctionDef> parse_function(std::shared_ptr<const Source> source);

// Prints the tree back as Python source. parse(print(t)) == t for every tree
// the parser builds (ignoring spans); used by round-trip tests and `tackc`.
std::string to_source(const FunctionDef& fn);
std::string to_source(const Expr& e);

// One-line S-expressions of a tree, without spans, for tests and debugging:
// `a + b * -c` dumps as "(+ a (* b (- c)))". Two trees are equal (ignoring
// spans and verbatim texts) exactly when their dumps are equal.
std::string dump(const Expr& e);
std::string dump(const Stmt& s);
std::string dump(const FunctionDef& fn);

}  // namespace tack::syntax
