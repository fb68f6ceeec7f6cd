// Inputs that once crashed, hung or misparsed, and adversarial inputs of the
// same families: each must parse or fail with a syntax error, and a parsed
// tree must print to source that parses back to it.
#include <gtest/gtest.h>

#include <string>

#include "syntax_test_util.h"

namespace tack::syntax {
namespace {

using testing::make_source;

// What the fuzz target checks, for one input.
void survives(const std::string& text) {
    std::unique_ptr<FunctionDef> fn;
    try {
        fn = parse_function(make_source(text));
    } catch (const CompileError& e) {
        EXPECT_EQ(e.diagnostic().kind, ErrorKind::Syntax);
        EXPECT_GE(e.diagnostic().span.line, 1);
        EXPECT_GE(e.diagnostic().span.col, 1);
        EXPECT_FALSE(e.diagnostic().render().empty());
        return;
    }
    const std::string printed = to_source(*fn);
    std::unique_ptr<FunctionDef> again;
    try {
        again = parse_function(make_source(printed));
    } catch (const CompileError& e) {
        FAIL() << "printed source does not parse: " << e.what() << "\n" << printed;
    }
    EXPECT_EQ(dump(*again), dump(*fn));
    EXPECT_EQ(to_source(*again), printed);
}

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

// Each recursive family runs far past the limits: without them, these
// overflow the stack.
TEST(FuzzRegressions, DeepNestingIsAnErrorNotACrash) {
    const std::string def = "def f():\n    x = ";
    survives(def + repeat("(", 100000));
    survives(def + repeat("[", 199) + repeat("]", 199) + "\n");
    survives(def + repeat("-", 100000) + "1\n");
    survives(def + repeat("not ", 50000) + "a\n");
    survives(def + repeat("lambda: ", 50000) + "a\n");
    survives(def + repeat("a if b else ", 50000) + "a\n");
    survives(def + repeat("a ** ", 50000) + "a\n");
    survives(def + repeat("a + ", 50000) + "a\n");
    survives(def + repeat("a < ", 5000) + "a\n");
    survives(def + repeat("a and ", 5000) + "a\n");
    survives(def + "a" + repeat(".b", 50000) + "\n");
    survives(def + "a" + repeat("(b)", 50000) + "\n");
    survives(def + "a" + repeat("[0]", 50000) + "\n");
    survives(def + repeat("*", 5000) + "a\n");
    survives(def + repeat("await ", 5000) + "a\n");
    survives(def + repeat("(yield ", 150) + repeat(")", 150) + "\n");
    survives(def + repeat("'s' ", 5000) + "\n");
    survives("def f():\n    if a: pass\n" + repeat("    elif a: pass\n", 5000));
    std::string indents = "def f():\n";
    for (int i = 1; i < 300; ++i) indents += std::string(static_cast<size_t>(i), ' ') + "if a:\n";
    survives(indents);
    survives("def f():\n    for " + repeat("(", 150) + "a" + repeat(")", 150) + " in b: pass\n");
    survives("def f():\n    x = " + repeat("[i for i in ", 150) + "a" + repeat("]", 150) + "\n");
}

TEST(FuzzRegressions, TruncatedInput) {
    const std::string full =
        "@tack.kernel\ndef f(a: int = 1, *b, c, **d) -> R:\n    '''doc'''\n    for i in range(10):\n"
        "        if a[i] < b: x = (1,\n 2)\n        else:\n            y = f'{a}' \\\n  + 1j\n    return x\n";
    for (size_t n = 0; n <= full.size(); ++n) survives(full.substr(0, n));
}

TEST(FuzzRegressions, HostileBytes) {
    survives("");
    survives("\n\n\n");
    survives("# only a comment");
    survives(std::string("def f():\n    x = 1\0\n", 19));
    survives(std::string(64, '\0'));
    survives("def f():\n    x = '\xFF\xFE'\n");
    survives("\xEF\xBB\xBF" "def f(): pass\n");
    survives("def f():\n    x = 1" + repeat("0", 100000) + "\n");
    survives("def f():\n    x = 0x" + repeat("f", 100000) + "\n");
    survives("def f():\n    x = 1." + repeat("5", 100000) + "e" + repeat("9", 1000) + "\n");
    survives("def f():\n    x = '" + repeat("\\u", 10000) + "'\n");
    survives("def f():\n    x = '''" + repeat("\n", 10000));
    survives("def f():\n\tx = 1\n        y = 2\n");
    survives("def f():\r    x = 1\r\n    return x");
    survives("def f():\n    \\\n");
    survives("def f():\n  \\\n\\\n    pass\n");
}

// Found by tests/fuzz/compare_with_cpython.py.
TEST(FuzzRegressions, DifferentialFindings) {
    // A `yield` spanning lines inside parentheses printed bare, breaking the line.
    survives("def k(a, b):\n    x, y= (yield \n0)\n");
    // CPython allows a backslash continuation inside indentation.
    auto fn = parse_function(make_source("def k(a, b):\n\\\n    while True:\n        break\n"));
    EXPECT_EQ(dump(*fn), "(def k (params (param a) (param b)) (body (while True (body (break)))))");
    // `a ** b ** ...` recursed without a nesting limit.
    survives("def f():\n    x = " + repeat("a ** ", 50000) + "a\n");
}

TEST(FuzzRegressions, SoftKeywordsInOddPlaces) {
    survives("def f():\n    match x:\n        case");
    survives("def f():\n    match x:\n        case (:\n");
    survives("def f():\n    match x:\n        case a if:\n            pass\n");
    survives("def f():\n    match (x:\n");
    survives("def f():\n    match x:\n");
    survives("def f():\n    match x:\n    pass\n");
    survives("def f():\n    match " + repeat("-", 1000) + "x:\n        case 1: pass\n");
}

}  // namespace
}  // namespace tack::syntax
