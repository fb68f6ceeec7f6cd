#include <gtest/gtest.h>

#include <string>

#include "syntax_test_util.h"

namespace tack::syntax {
namespace {

using testing::error;
using testing::expr;
using testing::parse;
using testing::stmts;

struct Case {
    const char* source;
    const char* dump;
};

// ------------------------------------------------------------ precedence

TEST(Parser, PrecedenceAndAssociativity) {
    const Case cases[] = {
        {"a + b * c", "(+ a (* b c))"},
        {"a * b + c", "(+ (* a b) c)"},
        {"a - b - c", "(- (- a b) c)"},
        {"a - (b - c)", "(- a (- b c))"},
        {"a @ b / c // d % e * f", "(* (% (// (/ (@ a b) c) d) e) f)"},
        {"a ** b ** c", "(** a (** b c))"},
        {"(a ** b) ** c", "(** (** a b) c)"},
        {"-2 ** 2", "(- (** 2 2))"},
        {"2 ** -1", "(** 2 (- 1))"},
        {"-a ** -b ** c", "(- (** a (- (** b c))))"},
        {"~a + -b", "(+ (~ a) (- b))"},
        {"- - +a", "(- (- (+ a)))"},
        {"a << b + c", "(<< a (+ b c))"},
        {"a >> b << c", "(<< (>> a b) c)"},
        {"a & b << c", "(& a (<< b c))"},
        {"a ^ b & c", "(^ a (& b c))"},
        {"a | b ^ c", "(| a (^ b c))"},
        {"a < b | c", "(cmp a < (| b c))"},
        {"not a < b", "(not (cmp a < b))"},
        {"not not a", "(not (not a))"},
        {"not a and b", "(and (not a) b)"},
        {"a and not b", "(and a (not b))"},
        {"a and b or c and d", "(or (and a b) (and c d))"},
        {"a or b or c", "(or a b c)"},
        {"a and b and c", "(and a b c)"},
        {"(a or b) or c", "(or (or a b) c)"},
        {"a if b else c or d", "(if b a (or c d))"},
        {"a if b else c if d else e", "(if b a (if d c e))"},
        {"(a if b else c) if d else e", "(if d (if b a c) e)"},
        {"lambda: a if b else c", "(unsupported \"lambda\" (if b a c))"},
        {"-a.b[c](d)", "(- (call ([] (. a b) c) d))"},
        {"await a ** b", "(** (unsupported \"await\" a) b)"},
        {"-await a", "(- (unsupported \"await\" a))"},
        {"a.b.c", "(. (. a b) c)"},
        {"f(a)(b)[c]", "([] (call (call f a) b) c)"},
        {"(a + b) * c", "(* (+ a b) c)"},
        {"a, b", "(tuple a b)"},
        {"a,", "(tuple a)"},
        {"*a, b", "(tuple (* a) b)"},
        {"a if b else c, d", "(tuple (if b a c) d)"},
    };
    for (const Case& c : cases) EXPECT_EQ(expr(c.source), c.dump) << c.source;
}

TEST(Parser, ChainedComparisonsAreOneNode) {
    EXPECT_EQ(expr("a < b < c"), "(cmp a < b < c)");
    EXPECT_EQ(expr("a == b != c >= d <= e > f in g is h"), "(cmp a == b != c >= d <= e > f in g is h)");
    EXPECT_EQ(expr("a is not b not in c"), "(cmp a is not b not in c)");
    EXPECT_EQ(expr("(a < b) < c"), "(cmp (cmp a < b) < c)");
    EXPECT_EQ(expr("a < (b < c)"), "(cmp a < (cmp b < c))");
    auto fn = parse("def f():\n    return a < b <= c\n");
    const auto* c = fn->body[0]->as<Return>()->value->as<Compare>();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->ops.size(), 2u);
    EXPECT_EQ(c->ops[0], CmpOp::Lt);
    EXPECT_EQ(c->ops[1], CmpOp::Le);
    EXPECT_EQ(c->comparators.size(), 2u);
}

TEST(Parser, Atoms) {
    const Case cases[] = {
        {"1, 2.5, 'x', True, False, None", "(tuple 1 2.5 \"x\" True False None)"},
        {"0xff, 0o17, 0b11, 1_000, 00", "(tuple 255 15 3 1000 0)"},
        {"18446744073709551615", "18446744073709551615"},
        {"0x1_0000_0000_0000_0000", "0x1_0000_0000_0000_0000"},
        {"1e400, 1e-400, 1., .5", "(tuple inf 0.0 1.0 0.5)"},
        {"'a' \"b\" '''c'''", "\"abc\""},
        {"b'a' B'b'", "\"ab\""},
        {"(a)", "a"},
        {"((a))", "a"},
        {"(a, b)", "(tuple() a b)"},
        {"(a,)", "(tuple() a)"},
        {"()", "(tuple())"},
        {"((a, b),)", "(tuple() (tuple() a b))"},
        {"[a, *b]", "(list a (* b))"},
        {"[]", "(list)"},
        {"[a,]", "(list a)"},
        {"(*a, b)", "(tuple() (* a) b)"},
        {"\xC3\xA9 + \xCE\xB2", "(+ \xC3\xA9 \xCE\xB2)"},
    };
    for (const Case& c : cases) EXPECT_EQ(expr(c.source), c.dump) << c.source;
}

TEST(Parser, IntegerLiteralKeepsItsText) {
    auto fn = parse("def f():\n    return 0x_FF\n");
    const auto* lit = fn->body[0]->as<Return>()->value->as<IntLit>();
    ASSERT_NE(lit, nullptr);
    EXPECT_EQ(lit->value, 255u);
    EXPECT_EQ(lit->text, "0x_FF");
    EXPECT_FALSE(lit->overflow);
    EXPECT_FALSE(lit->negative);
    auto big = parse("def f():\n    return 18446744073709551616\n");
    EXPECT_TRUE(big->body[0]->as<Return>()->value->as<IntLit>()->overflow);
}

TEST(Parser, CallsSubscriptsAndSlices) {
    const Case cases[] = {
        {"f()", "(call f)"},
        {"f(a,)", "(call f a)"},
        {"f(a, *b, c=1, **d)", "(call f a (* b) (kw c 1) (kw ** d))"},
        {"f(*a, b=1, *c)", "(call f (* a) (* c) (kw b 1))"},
        {"f(a, (x := 1))", "(call f a (unsupported \"walrus operator (:=)\" x 1))"},
        {"f(x := 1)", "(call f (unsupported \"walrus operator (:=)\" x 1))"},
        {"a[i]", "([] a i)"},
        {"a[i, j]", "([] a (tuple i j))"},
        {"a[i,]", "([] a (tuple i))"},
        {"a[(i, j)]", "([] a (tuple() i j))"},
        {"a[*b]", "([] a (tuple (* b)))"},
        {"a[1:2, ::3]", "([] a (tuple (slice 1 2 _) (slice _ _ 3)))"},
        {"a[:]", "([] a (slice _ _ _))"},
        {"a[::]", "([] a (slice _ _ _))"},
        {"a[1:]", "([] a (slice 1 _ _))"},
        {"a[:2]", "([] a (slice _ 2 _))"},
        {"a[::-1]", "([] a (slice _ _ (- 1)))"},
        {"a[i:j:k, ..., None]", "([] a (tuple (slice i j k) (unsupported \"ellipsis\") None))"},
        {"a[b][c]", "([] ([] a b) c)"},
        {"a.b(c).d[e]", "([] (. (call (. a b) c) d) e)"},
    };
    for (const Case& c : cases) EXPECT_EQ(expr(c.source), c.dump) << c.source;
}

// ------------------------------------------------------------ statements

TEST(Parser, EveryStatementForm) {
    const Case cases[] = {
        {"x = 1", "(= x 1)"},
        {"a = b = c", "(= a b c)"},
        {"a, b = b, a", "(= (tuple a b) (tuple b a))"},
        {"(a, b) = [c, d] = e", "(= (tuple() a b) (list c d) e)"},
        {"a, *b = c", "(= (tuple a (* b)) c)"},
        {"x[i, j] = v", "(= ([] x (tuple i j)) v)"},
        {"x.y = f()", "(= (. x y) (call f))"},
        {"x.y += 1", "(+= (. x y) 1)"},
        {"x -= 1; x *= 1; x /= 1; x //= 1; x %= 1; x **= 1",
         "(-= x 1) (*= x 1) (/= x 1) (//= x 1) (%= x 1) (**= x 1)"},
        {"x @= 1; x <<= 1; x >>= 1; x &= 1; x |= 1; x ^= 1;",
         "(@= x 1) (<<= x 1) (>>= x 1) (&= x 1) (|= x 1) (^= x 1)"},
        {"f(x)", "(expr (call f x))"},
        {"\"\"\"doc\"\"\"", "(expr \"doc\")"},
        {"a, b", "(expr (tuple a b))"},
        {"pass; pass", "(pass) (pass)"},
        {"return", "(return)"},
        {"return a, b", "(return (tuple a b))"},
        {"return *a, b", "(return (tuple (* a) b))"},
        {"for i in range(n): pass", "(for i (call range n) (body (pass)))"},
        {"for i, j in a, b:\n    break\nelse:\n    pass", "(for (tuple i j) (tuple a b) (body (break)) (else (pass)))"},
        {"for (i, j) in x: continue", "(for (tuple() i j) x (body (continue)))"},
        {"for x.y[0] in z: pass", "(for ([] (. x y) 0) z (body (pass)))"},
        {"while a: pass\nelse: pass", "(while a (body (pass)) (else (pass)))"},
        {"while (n := n - 1): break", "(while (unsupported \"walrus operator (:=)\" n (- n 1)) (body (break)))"},
        {"if a: pass", "(if a (body (pass)))"},
        {"if a: x = 1; y = 2", "(if a (body (= x 1) (= y 2)))"},
        {"if a:\n    pass\nelif b:\n    pass\nelif c:\n    pass\nelse:\n    pass",
         "(if a (body (pass)) (else (if b (body (pass)) (else (if c (body (pass)) (else (pass)))))))"},
        {"if a:\n    pass\nelse:\n    if b:\n        pass", "(if a (body (pass)) (else (if b (body (pass)))))"},
        {"x = yield", "(= x (unsupported \"yield\"))"},
        {"x = yield a, b", "(= x (unsupported \"yield\" (tuple a b)))"},
        {"yield", "(expr (unsupported \"yield\"))"},
        {"yield from g", "(expr (unsupported \"yield\" g))"},
        {"x += yield", "(+= x (unsupported \"yield\"))"},
    };
    for (const Case& c : cases) EXPECT_EQ(stmts(c.source), c.dump) << c.source;
}

TEST(Parser, FunctionHeader) {
    auto fn = parse(
        "@tack.kernel\n@other(1)\nasync def k(a, b: int = 1, /, c=2, *args: float, d, e=3, **kw) -> tack.f32:\n"
        "    pass\n");
    EXPECT_EQ(dump(*fn),
              "(def k async (params (param/ a) (param/ b : int = 1) (param c = 2) (param* args : float) "
              "(param-kw d) (param-kw e = 3) (param** kw)) (-> (. tack f32)) (decorators (. tack kernel) "
              "(call other 1)) (body (pass)))");
    EXPECT_EQ(fn->name, "k");
    EXPECT_TRUE(fn->is_async);
    EXPECT_EQ(dump(*parse("def f(*, a): pass")), "(def f (params (param-kw a)) (body (pass)))");
    EXPECT_EQ(dump(*parse("def f(a, /): pass")), "(def f (params (param/ a)) (body (pass)))");
    EXPECT_EQ(dump(*parse("def f(a,): return")), "(def f (params (param a)) (body (return)))");
    EXPECT_EQ(dump(*parse("def f(): return")), "(def f (params) (body (return)))");
}

TEST(Parser, FunctionDefKeepsItsSource) {
    auto src = testing::make_source("def f():\n    pass\n");
    auto fn = parse_function(src);
    EXPECT_EQ(fn->source, src);
}

TEST(Parser, SoftKeywordsAreNamesOutsideMatchStatements) {
    EXPECT_EQ(stmts("match = 1"), "(= match 1)");
    EXPECT_EQ(stmts("match(x)"), "(expr (call match x))");
    EXPECT_EQ(stmts("match.x = case"), "(= (. match x) case)");
    EXPECT_EQ(stmts("match[x] = 1"), "(= ([] match x) 1)");
    EXPECT_EQ(stmts("match, case = _, 1"), "(= (tuple match case) (tuple _ 1))");
    EXPECT_EQ(stmts("match - x"), "(expr (- match x))");
    EXPECT_EQ(stmts("match[x]: int = 1"),
              "(unsupported-stmt \"annotated assignment\" (exprs ([] match x) int 1))");
}

// --------------------------------------------------- unsupported constructs

TEST(Parser, UnsupportedStatements) {
    const Case cases[] = {
        {"import a.b as c, d", "(unsupported-stmt \"import\" (exprs))"},
        {"from .. import (a, b as c,)", "(unsupported-stmt \"from-import\" (exprs))"},
        {"from a.b import *", "(unsupported-stmt \"from-import\" (exprs))"},
        {"global a, b", "(unsupported-stmt \"global\" (exprs a b))"},
        {"nonlocal a", "(unsupported-stmt \"nonlocal\" (exprs a))"},
        {"del a[0], b.c", "(unsupported-stmt \"del\" (exprs ([] a 0) (. b c)))"},
        {"assert a, 'm'", "(unsupported-stmt \"assert\" (exprs a \"m\"))"},
        {"raise", "(unsupported-stmt \"raise\" (exprs))"},
        {"raise E(1) from e", "(unsupported-stmt \"raise\" (exprs (call E 1) e))"},
        {"x: int = 1", "(unsupported-stmt \"annotated assignment\" (exprs x int 1))"},
        {"x.y: int", "(unsupported-stmt \"annotated assignment\" (exprs (. x y) int))"},
        {"try:\n    a\nexcept E as e:\n    b\nexcept:\n    c\nelse:\n    d\nfinally:\n    e",
         "(unsupported-stmt \"try\" (exprs E) (body (expr a)) (body (expr b)) (body (expr c)) (body (expr d)) "
         "(body (expr e)))"},
        {"try:\n    a\nfinally:\n    b", "(unsupported-stmt \"try\" (exprs) (body (expr a)) (body (expr b)))"},
        {"try:\n    a\nexcept* (E, F):\n    b", "(unsupported-stmt \"try\" (exprs (tuple() E F)) (body (expr a)) (body (expr b)))"},
        {"with a as b, c: pass", "(unsupported-stmt \"with\" (exprs a b c) (body (pass)))"},
        {"with (a as b, c as d,): pass", "(unsupported-stmt \"with\" (exprs a b c d) (body (pass)))"},
        {"with (a, b) as c: pass", "(unsupported-stmt \"with\" (exprs (tuple() a b) c) (body (pass)))"},
        {"with (a): pass", "(unsupported-stmt \"with\" (exprs a) (body (pass)))"},
        {"async with a as (b, c): pass", "(unsupported-stmt \"async with\" (exprs a (tuple() b c)) (body (pass)))"},
        {"async for x in y: pass\nelse: pass", "(unsupported-stmt \"async for\" (exprs x y) (body (pass)) (body (pass)))"},
        {"def g(x: T = 1) -> R: return x", "(unsupported-stmt \"nested def\" (exprs T 1 R) (body (return x)))"},
        {"@d\ndef g(): pass", "(unsupported-stmt \"nested def\" (exprs d) (body (pass)))"},
        {"async def g(): await x", "(unsupported-stmt \"nested def\" (exprs) (body (expr (unsupported \"await\" x))))"},
        {"@d\nclass C(B, *bs, m=M): pass", "(unsupported-stmt \"class\" (exprs d B (* bs) M) (body (pass)))"},
        {"class C: pass", "(unsupported-stmt \"class\" (exprs) (body (pass)))"},
        {"match x:\n    case 1: pass\n    case [a, (b, c)] | {'k': _} if a > b:\n        pass",
         "(unsupported-stmt \"match\" (exprs x (cmp a > b)) (body (pass)) (body (pass)))"},
        {"match a, *b:\n    case _: pass", "(unsupported-stmt \"match\" (exprs (tuple a (* b))) (body (pass)))"},
    };
    for (const Case& c : cases) EXPECT_EQ(stmts(c.source), c.dump) << c.source;
}

TEST(Parser, UnsupportedStatementsKeepTheirHeaders) {
    auto fn = parse(
        "def f():\n    @dec\n    def g(a=(1,\n           2)):\n        pass\n    try:  # c\n        pass\n"
        "    except E as e:\n        pass\n    import x\n");
    const auto* g = fn->body[0]->as<UnsupportedStmt>();
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->headers, (std::vector<std::string>{"@dec", "def g(a=(1,\n           2)):"}));
    const auto* t = fn->body[1]->as<UnsupportedStmt>();
    EXPECT_EQ(t->headers, (std::vector<std::string>{"try:", "except E as e:"}));
    EXPECT_EQ(fn->body[2]->as<UnsupportedStmt>()->headers, std::vector<std::string>{"import x"});
}

TEST(Parser, UnsupportedExpressions) {
    const Case cases[] = {
        {"lambda x, y=1, *, z=2: x + y", "(unsupported \"lambda\" 1 2 (+ x y))"},
        {"[i for i in a if i if j for k in b]", "(unsupported \"list comprehension\" i i a i j k b)"},
        {"[x async for x in y]", "(unsupported \"list comprehension\" x x y)"},
        {"{i for i in a}", "(unsupported \"set comprehension\" i i a)"},
        {"{k: v for k, v in a}", "(unsupported \"dict comprehension\" k v (tuple k v) a)"},
        {"(i for i in a)", "(unsupported \"generator expression\" i i a)"},
        {"f(i for i in a)", "(call f (unsupported \"generator expression\" i i a))"},
        {"{}", "(unsupported \"dict display\")"},
        {"{a: b, **c}", "(unsupported \"dict display\" a b (** c))"},
        {"{**c, a: b,}", "(unsupported \"dict display\" (** c) a b)"},
        {"{a, *b}", "(unsupported \"set display\" a (* b))"},
        {"f'{a}'", "(unsupported \"f-string\")"},
        {"'a' f'{b}' 'c'", "(unsupported \"f-string\")"},
        {"(x := 1)", "(unsupported \"walrus operator (:=)\" x 1)"},
        {"(yield)", "(unsupported \"yield\")"},
        {"(yield a)", "(unsupported \"yield\" a)"},
        {"(yield from a)", "(unsupported \"yield\" a)"},
        {"await a", "(unsupported \"await\" a)"},
        {"...", "(unsupported \"ellipsis\")"},
        {"1j", "(unsupported \"complex literal\")"},
        {"1 + 2.5j", "(+ 1 (unsupported \"complex literal\"))"},
    };
    for (const Case& c : cases) EXPECT_EQ(expr(c.source), c.dump) << c.source;
}

TEST(Parser, UnsupportedExpressionsKeepTheirText) {
    auto fn = parse("def f():\n    return (lambda x: x), f(i for i in a), {1: 2}\n");
    const auto* t = fn->body[0]->as<Return>()->value->as<Tuple>();
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->elts[0]->as<UnsupportedExpr>()->text, "lambda x: x");
    EXPECT_EQ(t->elts[1]->as<Call>()->args[0]->as<UnsupportedExpr>()->text, "i for i in a");
    EXPECT_EQ(t->elts[2]->as<UnsupportedExpr>()->text, "{1: 2}");
}

// ------------------------------------------------------------------ spans

Span span(int line, int col, int end_line, int end_col) { return Span{line, col, end_line, end_col}; }

void expect_span(const Span& got, const Span& want, const char* what) {
    EXPECT_EQ(got.line, want.line) << what;
    EXPECT_EQ(got.col, want.col) << what;
    EXPECT_EQ(got.end_line, want.end_line) << what;
    EXPECT_EQ(got.end_col, want.end_col) << what;
}

TEST(Parser, SpansOfRepresentativeNodes) {
    auto fn = parse(
        "@deco\n"
        "def f(a, b=1):\n"
        "    x = a + b * c\n"
        "    if (x):\n"
        "        return x[1:2], (a, b)\n"
        "    y = g(k=v, *s)\n");
    expect_span(fn->span, span(1, 1, 6, 19), "function");
    expect_span(fn->name_span, span(2, 5, 2, 6), "name");
    expect_span(fn->params[1].span, span(2, 10, 2, 13), "param b=1");

    const auto* assign = fn->body[0]->as<Assign>();
    expect_span(assign->span, span(3, 5, 3, 18), "assign");
    const auto* sum = assign->value->as<Binary>();
    expect_span(sum->span, span(3, 9, 3, 18), "a + b * c");
    expect_span(sum->rhs->span, span(3, 13, 3, 18), "b * c");
    expect_span(sum->rhs->as<Binary>()->rhs->span, span(3, 17, 3, 18), "c");

    const auto* branch = fn->body[1]->as<If>();
    expect_span(branch->span, span(4, 5, 5, 30), "if ends with its body");
    expect_span(branch->cond->span, span(4, 9, 4, 10), "a parenthesized name excludes the parentheses");
    const auto* ret = branch->body[0]->as<Return>();
    expect_span(ret->span, span(5, 9, 5, 30), "return");
    const auto* values = ret->value->as<Tuple>();
    expect_span(values->span, span(5, 16, 5, 30), "bare tuple");
    expect_span(values->elts[0]->span, span(5, 16, 5, 22), "subscript");
    expect_span(values->elts[0]->as<Subscript>()->index->span, span(5, 18, 5, 21), "slice");
    expect_span(values->elts[1]->span, span(5, 24, 5, 30), "a parenthesized tuple includes the parentheses");

    const auto* call = fn->body[2]->as<Assign>()->value->as<Call>();
    expect_span(call->span, span(6, 9, 6, 19), "call");
    expect_span(call->keywords[0].span, span(6, 11, 6, 14), "keyword");
    expect_span(call->args[0]->span, span(6, 16, 6, 18), "starred");
}

TEST(Parser, SpansCountCodePoints) {
    auto fn = parse("def f():\n    \xC3\xA9 = '\xE2\x82\xAC' + \xCE\xB2\n");
    const auto* sum = fn->body[0]->as<Assign>()->value->as<Binary>();
    expect_span(sum->span, span(2, 9, 2, 16), "sum");
    expect_span(sum->rhs->span, span(2, 15, 2, 16), "beta");
}

TEST(Parser, SpansOfMultiLineNodes) {
    auto fn = parse("def f():\n    x = (1 +\n         2)\n    while a:\n        pass\n    else:\n        y = 'a' \\\n  'b'\n");
    expect_span(fn->body[0]->as<Assign>()->value->span, span(2, 10, 3, 11), "joined lines");
    expect_span(fn->body[1]->span, span(4, 5, 8, 6), "while ends with its else");
    expect_span(fn->body[1]->as<While>()->orelse[0]->as<Assign>()->value->span, span(7, 13, 8, 6),
                "concatenated strings");
}

// ----------------------------------------------------------- syntax errors

TEST(Parser, SyntaxErrorsAtExactPositions) {
    using testing::in_function;
    const Case cases[] = {
        {"if a\n    pass", "2:9 expected ':' after 'if' condition, found end of line"},
        {"elif a: pass", "2:5 'elif' without a matching 'if'"},
        {"else: pass", "2:5 'else' without a matching 'if', 'for', 'while' or 'try'"},
        {"while a pass", "2:13 expected ':' after 'while' condition, found 'pass'"},
        {"for x y: pass", "2:11 expected 'in' after 'for' target, found name 'y'"},
        {"for x in y pass", "2:16 expected ':' after 'for' iterable, found 'pass'"},
        {"x = ", "2:9 expected an expression, found end of line"},
        {"x = (1 2)", "2:12 expected ',' or ')' in parenthesized expression, found number '2'"},
        {"x = [1 2]", "2:12 expected ',' or ']' in list, found number '2'"},
        {"f(a b)", "2:9 expected ',' or ')' after call argument, found name 'b'"},
        {"x[1 2]", "2:9 expected ',' or ']' in subscript, found number '2'"},
        {"x = a if b", "2:15 expected 'else' after 'if' expression, found end of line"},
        {"x = 1 2", "2:11 expected end of line after statement, found number '2'"},
        {"x = a.if", "2:11 expected attribute name after '.', found 'if'"},
        {"x = a not b", "2:11 expected end of line after statement, found 'not'"},
        {"if a:\n        x = 1\n      y = 2", "4:11 unindent does not match any outer indentation level"},
        {"x = 1\n    y = 2", "3:9 unexpected indent"},
        {"if a:\npass", "3:5 expected an indented block after 'if' statement on line 2"},
        {"if a: if b: pass", "2:11 expected a simple statement, found 'if' (a compound statement starts on its own line)"},
        {"f() = 1", "2:5 cannot assign to function call"},
        {"a + 1 = 2", "2:5 cannot assign to expression"},
        {"1 = a", "2:5 cannot assign to literal"},
        {"None = a", "2:5 cannot assign to None"},
        {"a < b = c", "2:5 cannot assign to comparison"},
        {"(a, f()) = 1", "2:9 cannot assign to function call"},
        {"x = f() = 1", "2:9 cannot assign to function call"},
        {"lambda: 1 = a", "2:5 cannot assign to lambda"},
        {"a, *b, *c = d", "2:12 multiple starred expressions in assignment"},
        {"*a = b", "2:5 can't use starred expression here"},
        {"x = *a", "2:9 can't use starred expression here"},
        {"for f() in x: pass", "2:9 cannot assign to function call"},
        {"(a, b) += 1", "2:5 'tuple' is an illegal expression for augmented assignment"},
        {"f() += 1", "2:5 'function call' is an illegal expression for augmented assignment"},
        {"a, b: int", "2:5 only single target (not tuple) can be annotated"},
        {"[a]: int", "2:5 only single target (not list) can be annotated"},
        {"f(): int", "2:5 illegal target for annotation"},
        {"del f()", "2:9 cannot delete function call"},
        {"del *a", "2:9 cannot delete starred"},
        {"f(x for x in y, 1)", "2:7 generator expression must be parenthesized"},
        {"f(1, x for x in y)", "2:10 generator expression must be parenthesized"},
        {"f(a=1, b)", "2:12 positional argument follows keyword argument"},
        {"f(**a, b)", "2:12 positional argument follows keyword argument unpacking"},
        {"f(**a, *b)", "2:12 iterable argument unpacking follows keyword argument unpacking"},
        {"f(a=1, a=2)", "2:12 keyword argument repeated: a"},
        {"f(a.b=1)", "2:10 expression cannot contain assignment, perhaps you meant \"==\"?"},
        {"x = (a.b := 1)", "2:14 cannot use assignment expressions with attribute"},
        {"x = (*a)", "2:10 can't use starred expression here"},
        {"x = [*a for a in b]", "2:10 iterable unpacking cannot be used in comprehension"},
        {"break", "2:5 'break' outside loop"},
        {"continue", "2:5 'continue' not properly in loop"},
        {"for x in y:\n    pass\nelse:\n    break", "5:9 'break' outside loop"},
        {"while a:\n    def g():\n        continue", "4:13 'continue' not properly in loop"},
        {"try:\n    pass", "3:13 expected 'except' or 'finally' block, found end of block"},
        {"try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass", "6:5 default 'except:' must be last"},
        {"try:\n    pass\nexcept E, F:\n    pass", "4:13 multiple exception types must be parenthesized"},
        {"x = 'a' b'b'", "2:9 cannot mix bytes and nonbytes literals"},
        {"match x:\n    pass", "3:9 expected 'case' block, found 'pass'"},
        {"match x:\n    case : pass", "3:14 expected a pattern after 'case', found ':'"},
        {"async x", "2:11 expected 'def', 'for' or 'with' after 'async', found name 'x'"},
        {"import", "2:11 expected module name, found end of line"},
        {"from . import", "2:18 expected name to import, found end of line"},
        {"from x import a,", "2:20 trailing comma not allowed without surrounding parentheses"},
        {"global", "2:11 expected name, found end of line"},
        {"x = lambda a, a: 1", "2:19 duplicate argument 'a' in function definition"},
    };
    for (const Case& c : cases) EXPECT_EQ(error(in_function(c.source)), c.dump) << c.source;
}

TEST(Parser, FunctionDefinitionErrors) {
    const Case cases[] = {
        {"", "1:1 expected a function definition ('def'), found end of input"},
        {"x = 1", "1:1 expected a function definition ('def'), found name 'x'"},
        {"  def f(): pass", "1:3 unexpected indent"},
        {"class C: pass", "1:1 expected a function definition ('def'), found 'class'"},
        {"@d\nx = 1", "2:1 expected 'def' after decorators, found name 'x'"},
        {"async x", "1:7 expected 'def' after 'async', found name 'x'"},
        {"def (): pass", "1:5 expected function name after 'def', found '('"},
        {"def f: pass", "1:6 expected '(' after function name, found ':'"},
        {"def f()", "1:8 expected ':' after the function signature, found end of line"},
        {"def f():", "1:9 expected an indented block after function definition on line 1"},
        {"def f():\n    pass\ndef g(): pass", "3:1 expected end of input after the function definition, found 'def'"},
        {"def f(a, a): pass", "1:10 duplicate argument 'a' in function definition"},
        {"def f(a=1, b): pass", "1:12 non-default argument follows default argument"},
        {"def f(*, **k): pass", "1:10 named arguments must follow bare *"},
        {"def f(*): pass", "1:8 named arguments must follow bare *"},
        {"def f(/, a): pass", "1:7 at least one argument must precede /"},
        {"def f(a, /, b, /): pass", "1:16 / may appear only once"},
        {"def f(*a, /): pass", "1:11 / must be ahead of *"},
        {"def f(*a, *b): pass", "1:11 * argument may appear only once"},
        {"def f(**k, a): pass", "1:12 arguments cannot follow var-keyword argument"},
        {"def f(*a=1): pass", "1:9 var-positional argument cannot have default value"},
        {"def f(**a=1): pass", "1:10 var-keyword argument cannot have default value"},
        {"def f(a b): pass", "1:9 expected ',' or ')' in parameter list, found name 'b'"},
        {"def f(1): pass", "1:7 expected parameter name, found number '1'"},
    };
    for (const Case& c : cases) EXPECT_EQ(error(c.source), c.dump) << c.source;
}

TEST(Parser, ErrorsAreSyntaxErrorsWithTheSource) {
    auto src = testing::make_source("def f():\n    x = (1 2)\n");
    try {
        parse_function(src);
        FAIL() << "expected a syntax error";
    } catch (const CompileError& e) {
        EXPECT_EQ(e.diagnostic().kind, ErrorKind::Syntax);
        EXPECT_EQ(e.diagnostic().source, src);
        EXPECT_EQ(e.diagnostic().span.end_col, 13);
    }
}

// ------------------------------------------------------------ nesting limits

std::string message_of(std::string text) { return testing::error_of(std::move(text)).message; }

TEST(Parser, NestingIsBounded) {
    using testing::in_function;
    // Brackets and unary chains recurse: 200 levels in all.
    EXPECT_NO_THROW(parse(in_function("x = " + std::string(150, '(') + "1" + std::string(150, ')'))));
    EXPECT_NO_THROW(parse(in_function("x = " + std::string(150, '-') + "1")));
    EXPECT_EQ(message_of(in_function("x = " + std::string(300, '-') + "1")), "too deeply nested (more than 200 levels)");
    EXPECT_EQ(message_of(in_function("x = " + std::string(300, '~') + "1")), "too deeply nested (more than 200 levels)");
    std::string nots;
    for (int i = 0; i < 300; ++i) nots += "not ";
    EXPECT_EQ(message_of(in_function("x = " + nots + "a")), "too deeply nested (more than 200 levels)");
    std::string lambdas;
    for (int i = 0; i < 300; ++i) lambdas += "lambda: ";
    EXPECT_EQ(message_of(in_function("x = " + lambdas + "a")), "too deeply nested (more than 200 levels)");
    std::string elifs = "if a: pass\n";
    for (int i = 0; i < 300; ++i) elifs += "elif a: pass\n";
    EXPECT_EQ(message_of(in_function(elifs)), "too deeply nested (more than 200 levels)");

    // Trees are bounded in depth too: a long chain of `+` is as deep as it is long.
    std::string sum = "a";
    for (int i = 1; i < kMaxExprDepth; ++i) sum += " + a";
    EXPECT_NO_THROW(parse(in_function("x = " + sum)));
    EXPECT_EQ(error(in_function("x = " + sum + " + a")), "2:9 expression too deeply nested (more than 1000 levels)");
    std::string attrs = "a";
    for (int i = 0; i < kMaxExprDepth; ++i) attrs += ".b";
    EXPECT_EQ(message_of(in_function("x = " + attrs)), "expression too deeply nested (more than 1000 levels)");
}

}  // namespace
}  // namespace tack::syntax
