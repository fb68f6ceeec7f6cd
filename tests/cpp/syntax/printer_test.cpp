#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "syntax_test_util.h"

namespace tack::syntax {
namespace {

using testing::in_function;
using testing::parse;

// Parses `text`, prints it, and checks that the print parses to the same
// tree and prints the same again. Returns the print.
std::string round_trip(const std::string& text) {
    auto first = parse(text);
    const std::string printed = to_source(*first);
    std::unique_ptr<FunctionDef> second;
    try {
        second = parse(printed);
    } catch (const CompileError& e) {
        ADD_FAILURE() << "printed source does not parse: " << e.what() << "\n" << printed;
        return printed;
    }
    EXPECT_EQ(dump(*second), dump(*first)) << text << "\nprinted as\n" << printed;
    EXPECT_EQ(to_source(*second), printed);
    return printed;
}

// The printed form of one expression.
std::string print_expr(const std::string& e) {
    auto fn = parse("def f():\n    return " + e + "\n");
    return to_source(*fn->body.at(0)->as<Return>()->value);
}

TEST(Printer, ParenthesesExactlyWherePrecedenceNeedsThem) {
    const std::pair<const char*, const char*> cases[] = {
        {"(a + b) * c", "(a + b) * c"},
        {"a + (b * c)", "a + b * c"},
        {"a - (b - c)", "a - (b - c)"},
        {"(a - b) - c", "a - b - c"},
        {"a / (b * c)", "a / (b * c)"},
        {"a ** (b ** c)", "a ** b ** c"},
        {"(a ** b) ** c", "(a ** b) ** c"},
        {"(-2) ** 2", "(-2) ** 2"},
        {"-(2 ** 2)", "-2 ** 2"},
        {"2 ** (-1)", "2 ** -1"},
        {"-(-a)", "--a"},
        {"~(-a)", "~-a"},
        {"-(a + b)", "-(a + b)"},
        {"not (a and b)", "not (a and b)"},
        {"(not a) and b", "not a and b"},
        {"not (not a)", "not not a"},
        {"(a or b) and c", "(a or b) and c"},
        {"a or (b and c)", "a or b and c"},
        {"(a and b) and c", "(a and b) and c"},
        {"(a < b) < c", "(a < b) < c"},
        {"a < b < c", "a < b < c"},
        {"(a | b) < c", "a | b < c"},
        {"not a == b", "not a == b"},
        {"(a == b) + 1", "(a == b) + 1"},
        {"a if (b if c else d) else e", "a if (b if c else d) else e"},
        {"(a if b else c) if d else e", "(a if b else c) if d else e"},
        {"a if b else (c if d else e)", "a if b else c if d else e"},
        {"(a if b else c) + 1", "(a if b else c) + 1"},
        {"(a + b).c", "(a + b).c"},
        {"(-a)[0]", "(-a)[0]"},
        {"(a.b)(c)[d]", "a.b(c)[d]"},
        {"(1).real", "(1).real"},
        {"1.5.real", "1.5.real"},
        {"a, (b, c)", "a, (b, c)"},
        {"(a, b)", "(a, b)"},
        {"(a,)", "(a,)"},
        {"a,", "a,"},
        {"()", "()"},
        {"[a, *b, (c, d)]", "[a, *b, (c, d)]"},
        {"*a, b", "*a, b"},
        {"f(*a, k=1, **b)", "f(*a, k=1, **b)"},
        {"f(a if b else c, *(d + e))", "f(a if b else c, *d + e)"},
        {"x[1:2, ::3]", "x[1:2, ::3]"},
        {"x[a:b:c, :, 1:]", "x[a:b:c, :, 1:]"},
        {"x[i,]", "x[i,]"},
        {"x[(i, j)]", "x[(i, j)]"},
        {"x[i, j]", "x[i, j]"},
        {"x[*a]", "x[*a]"},
        {"x[...]", "x[...]"},
    };
    for (const auto& [source, printed] : cases) EXPECT_EQ(print_expr(source), printed) << source;
}

TEST(Printer, Literals) {
    const std::pair<const char*, const char*> cases[] = {
        {"0x_ff", "0x_ff"},
        {"1_000", "1_000"},
        {"18446744073709551616", "18446744073709551616"},
        {"1_000.5", "1000.5"},
        {"1e10", "10000000000.0"},
        {"1e22", "1e+22"},
        {".1", "0.1"},
        {"1e400", "1e999"},
        {"True, False, None", "True, False, None"},
        {"'a' \"b\"", "\"ab\""},
        {"'it\\'s \"q\"\\n\\t\\x00\\\\'", "\"it's \\\"q\\\"\\n\\t\\x00\\\\\""},
        {"'\\u00e9'", "\"\xC3\xA9\""},
        {"b'\\xff\\x00a'", "b\"\\xff\\x00a\""},
        {"'\\ud800'", "b\"\\xed\\xa0\\x80\""},
        {"1j", "1j"},
        {"...", "..."},
    };
    for (const auto& [source, printed] : cases) EXPECT_EQ(print_expr(source), printed) << source;
}

TEST(Printer, UnsupportedExpressionsPrintAsWritten) {
    const std::pair<const char*, const char*> cases[] = {
        {"lambda x, y=1: x + y", "(lambda x, y=1: x + y)"},
        {"(lambda: 1)()", "(lambda: 1)()"},
        {"[i for i in a]", "[i for i in a]"},
        {"{a: b}", "{a: b}"},
        {"f(i for i in a)", "f((i for i in a))"},
        {"f((i for i in a))", "f((i for i in a))"},
        {"f'{a!r}' 'b'", "(f'{a!r}' 'b')"},
        {"(x := 1)", "(x := 1)"},
        {"await x", "(await x)"},
        {"(yield\n  a)", "(yield\n  a)"},
    };
    for (const auto& [source, printed] : cases) EXPECT_EQ(print_expr(source), printed) << source;
}

TEST(Printer, WholeFunction) {
    const std::string source =
        "@tack.kernel\n"
        "def k(a, b: int=1, /, c=2, *args, d, **kw) -> tack.f32:\n"
        "    '''Doc.'''\n"
        "    for i, j in zip(a,b):\n"
        "        if i<j: continue\n"
        "        elif i>j:\n"
        "            break\n"
        "        else:\n"
        "            x=yield\n"
        "    else:\n"
        "        pass\n"
        "    while (a):\n"
        "        a -= 1;b[i, j] = c\n"
        "    try:  # comment\n"
        "        import m\n"
        "    except (E,\n"
        "            F) as e:\n"
        "        @dec\n"
        "        def g(): return\n"
        "    match a:\n"
        "        case [x]:\n"
        "            pass\n"
        "    return\n";
    EXPECT_EQ(round_trip(source),
              "@tack.kernel\n"
              "def k(a, b: int = 1, /, c=2, *args, d, **kw) -> tack.f32:\n"
              "    \"Doc.\"\n"
              "    for i, j in zip(a, b):\n"
              "        if i < j:\n"
              "            continue\n"
              "        elif i > j:\n"
              "            break\n"
              "        else:\n"
              "            x = yield\n"
              "    else:\n"
              "        pass\n"
              "    while a:\n"
              "        a -= 1\n"
              "        b[i, j] = c\n"
              "    try:\n"
              "        import m\n"
              "    except (E,\n"
              "            F) as e:\n"
              "        @dec\n"
              "        def g():\n"
              "            return\n"
              "    match a:\n"
              "        case [x]:\n"
              "            pass\n"
              "    return\n");
}

TEST(Printer, KeywordOnlyAndPositionalOnlyParameters) {
    EXPECT_EQ(round_trip("def f(a, /, *, b): pass\n"), "def f(a, /, *, b):\n    pass\n");
    EXPECT_EQ(round_trip("async def f(*a, b=1, **c): pass\n"), "async def f(*a, b=1, **c):\n    pass\n");
}

TEST(Printer, RoundTripsEveryForm) {
    const char* const bodies[] = {
        "x = a + b * -c ** d // e % f @ g << h >> i & j | k ^ ~l",
        "x = not a < b <= c != d == e > f >= g and h is not i or j not in k and l in m",
        "a = b = c, d = e",
        "a, *b = [c, d], (e,)",
        "x[i:j, ::2, ...][0].y += 1",
        "x **= 2; x //= 3; x @= y; x >>= 1; x <<= 1; x &= 1; x |= 2; x ^= 3; x %= 4",
        "for (i, j), k in a: continue\nelse: pass",
        "while x: break\nelse:\n    if a: pass\n    elif b: pass\n    else: pass",
        "return *a, b",
        "x = [1, 2.5, 'x', b'y', True, None, 1j, ..., 0o17]",
        "x = lambda a, *b, c=1, **d: (a, b)",
        "x = [i for i in a if i], {i for i in a}, {k: v for k, v in a}, (i for i in a), {**d, 1: 2}, {1, *s}",
        "x = f(*a, *b, k=1, **c)(i for i in x)",
        "x = (y := 1), f'{a}', await b",
        "x = yield a, b\ny = yield from c\nyield",
        "import a.b as c, d\nfrom . import (e as f, g,)\nfrom h import *",
        "global a, b\nnonlocal c\ndel a[0], (b, c)\nassert a, 'm'\nraise E from e\nraise",
        "x: int\ny.z: 'T' = 1",
        "try: pass\nexcept* E: pass\nelse: pass\nfinally: pass",
        "with a as b, (c): pass\nasync with (d as e, f,): pass\nasync for x in y: pass\nelse: pass",
        "@a.b(c)\nclass C(D, metaclass=M):\n    def m(self): return self\n    x = 1",
        "@d\nasync def g(a, /, b: int = 2, *, c) -> 'R':\n    return [x async for x in a]",
        "match p:\n    case {'k': v, **r} if v:\n        pass\n    case Point(x=0) | [1, *_]:\n        match = 1",
        "match = case = _ = 1\nmatch(x)",
        "x = 'a' \\\n    'b'\nif (a and\n    b): pass",
        "x = r'\\d' + '\\N{EM DASH}' + '\\t\\x01\\u00e9\\U0001F600'",
        "x = 0x_ff + 1_000 + 0b1 + 00 + 1e400 + 1.5e-7 + 123456789.123456789",
        "x = a[(yield)]\ny = (yield\n   z)",
        "raise \\\n  E",
        "if a:\n    try:\n        pass\n    finally:\n        x = '''multi\nline'''",
    };
    for (const char* body : bodies) round_trip(in_function(body));
}

TEST(Printer, RoundTripsTheFuzzCorpus) {
    int parsed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(TACK_FUZZ_CORPUS_DIR)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        try {
            parse(text.str());
        } catch (const CompileError&) {
            continue;  // the corpus holds malformed inputs too
        }
        round_trip(text.str());
        ++parsed;
    }
    EXPECT_GE(parsed, 10);
}

// Trees that other stages build need not come from source.
TEST(Printer, BuiltTrees) {
    auto lit = std::make_unique<IntLit>();
    lit->value = 5;
    lit->negative = true;
    auto pow = std::make_unique<Binary>();
    pow->op = BinaryOp::Pow;
    pow->lhs = std::move(lit);
    auto f = std::make_unique<FloatLit>();
    f->value = 0.25;
    pow->rhs = std::move(f);
    EXPECT_EQ(to_source(*pow), "(-5) ** 0.25");
    EXPECT_EQ(dump(*pow), "(** -5 0.25)");

    auto nan = std::make_unique<FloatLit>();
    nan->value = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(to_source(*nan), "float('nan')");

    auto u = std::make_unique<UnsupportedExpr>();
    u->construct = "lambda";
    EXPECT_EQ(to_source(*u), "<lambda>");
}

}  // namespace
}  // namespace tack::syntax
