#include <gtest/gtest.h>

#include <string>

#include "syntax/lexer.h"
#include "syntax_test_util.h"

namespace tack::syntax {
namespace {

using testing::make_source;

Diagnostic diagnostic(std::shared_ptr<Source> source, Span span, std::string message) {
    Diagnostic d;
    d.kind = ErrorKind::Unsupported;
    d.message = std::move(message);
    d.span = span;
    d.source = std::move(source);
    return d;
}

TEST(Diagnostics, RenderWithFunctionSourceAndHint) {
    auto src = make_source("def saxpy(a):\n    assert a > 0\n");
    src->filename = "model.py";
    src->first_line = 40;
    src->indent = 4;
    Diagnostic d = diagnostic(src, Span{2, 5, 2, 17}, "assertions are not supported in kernels");
    d.construct = "assert";
    d.function = "saxpy";
    d.hint = "check the condition on the host before the launch";
    EXPECT_EQ(d.render(),
              "model.py:41:9 in kernel 'saxpy': assertions are not supported in kernels\n"
              "        assert a > 0\n"
              "        ^\n"
              "hint: check the condition on the host before the launch");
}

TEST(Diagnostics, RenderWithoutFunctionOrHint) {
    auto src = make_source("def k(a):\n    return a +\n");
    const Diagnostic d = diagnostic(src, Span{2, 15, 2, 16}, "expected an expression");
    EXPECT_EQ(d.render(),
              "kernel.py:2:15: expected an expression\n"
              "        return a +\n"
              "                  ^");
}

TEST(Diagnostics, RenderForADeviceFunction) {
    auto src = make_source("def helper(x):\n    return y\n");
    Diagnostic d = diagnostic(src, Span{2, 12, 2, 13}, "name 'y' is not defined");
    d.function = "helper";
    d.function_kind = "device function";
    EXPECT_EQ(d.render(),
              "kernel.py:2:12 in device function 'helper': name 'y' is not defined\n"
              "        return y\n"
              "               ^");
}

TEST(Diagnostics, RenderWithoutSource) {
    Diagnostic d = diagnostic(nullptr, Span{3, 7, 3, 8}, "bad value");
    d.function = "saxpy";
    d.hint = "try again";
    EXPECT_EQ(d.render(), "<unknown>:3:7 in kernel 'saxpy': bad value\nhint: try again");
}

TEST(Diagnostics, RenderWithoutPosition) {
    const Diagnostic d = diagnostic(make_source("def k(): pass\n"), Span{}, "no position");
    EXPECT_EQ(d.render(), "kernel.py: no position");
}

TEST(Diagnostics, CaretCountsCodePointsAndTabsAsOne) {
    auto src = make_source("def k():\n    \xC3\xA9\xCE\xB2 = 1 + $\n\tx = 2\n");
    const Diagnostic d = diagnostic(src, Span{2, 14, 2, 15}, "invalid character");
    EXPECT_EQ(d.render(),
              "kernel.py:2:14: invalid character\n"
              "        \xC3\xA9\xCE\xB2 = 1 + $\n"
              "                 ^");
    const Diagnostic t = diagnostic(src, Span{3, 2, 3, 3}, "tab");
    EXPECT_EQ(t.render(), "kernel.py:3:2: tab\n    \tx = 2\n     ^");
}

TEST(Diagnostics, LineOutOfRangeOmitsTheSourceLine) {
    const Diagnostic d = diagnostic(make_source("def k(): pass"), Span{5, 1, 5, 2}, "past the end");
    EXPECT_EQ(d.render(), "kernel.py:5:1: past the end");
}

TEST(Diagnostics, RenderOfAParserError) {
    auto src = make_source("def k(a):\n    if a\n        pass\n");
    src->filename = "/src/kernels.py";
    src->first_line = 10;
    src->indent = 4;
    try {
        parse_function(src);
        FAIL() << "expected a syntax error";
    } catch (const CompileError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "/src/kernels.py:11:13: expected ':' after 'if' condition, found end of line\n"
                  "        if a\n"
                  "            ^");
        EXPECT_EQ(e.what(), e.diagnostic().render());
    }
}

TEST(Diagnostics, LineText) {
    Source s;
    s.text = "a\nbb\r\nccc\rdddd";
    EXPECT_EQ(s.line_text(1), "a");
    EXPECT_EQ(s.line_text(2), "bb");
    EXPECT_EQ(s.line_text(3), "ccc");
    EXPECT_EQ(s.line_text(4), "dddd");
    EXPECT_EQ(s.line_text(5), "");
    EXPECT_EQ(s.line_text(0), "");
    EXPECT_EQ(s.line_text(-1), "");
    s.text = "x\n\ny\n";
    EXPECT_EQ(s.line_text(2), "");
    EXPECT_EQ(s.line_text(3), "y");
    EXPECT_EQ(s.line_text(4), "");
}

TEST(Diagnostics, InternalErrorsNameThePass) {
    try {
        internal_error("infer_types", "no type for x");
        FAIL() << "internal_error returned";
    } catch (const CompileError& e) {
        EXPECT_EQ(e.diagnostic().kind, ErrorKind::Internal);
        EXPECT_EQ(std::string(e.what()),
                  "<unknown>: internal compiler error in pass 'infer_types': no type for x\n"
                  "hint: this is a bug in Tack, not in the kernel; please report it");
    }
    EXPECT_THROW(TACK_CHECK(1 + 1 == 3, "arith", "math is broken"), CompileError);
    EXPECT_NO_THROW(TACK_CHECK(1 + 1 == 2, "arith", "math is broken"));
}

TEST(Diagnostics, ToStringOfEveryEnum) {
    EXPECT_STREQ(to_string(ErrorKind::Syntax), "syntax");
    EXPECT_STREQ(to_string(ErrorKind::Internal), "internal");
    EXPECT_STREQ(to_string(ExprKind::Name), "Name");
    EXPECT_STREQ(to_string(ExprKind::UnsupportedExpr), "UnsupportedExpr");
    EXPECT_STREQ(to_string(StmtKind::AugAssign), "AugAssign");
    EXPECT_STREQ(to_string(UnaryOp::Neg), "-");
    EXPECT_STREQ(to_string(UnaryOp::Not), "not");
    EXPECT_STREQ(to_string(BinaryOp::FloorDiv), "//");
    EXPECT_STREQ(to_string(BinaryOp::MatMul), "@");
    EXPECT_STREQ(to_string(BoolOpKind::Or), "or");
    EXPECT_STREQ(to_string(CmpOp::IsNot), "is not");
    EXPECT_STREQ(to_string(CmpOp::NotIn), "not in");
    EXPECT_STREQ(to_string(TokenKind::Newline), "end of line");
    EXPECT_STREQ(to_string(TokenKind::DoubleSlashEqual), "'//='");
}

}  // namespace
}  // namespace tack::syntax
