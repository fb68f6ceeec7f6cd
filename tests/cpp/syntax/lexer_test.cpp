#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "syntax/lexer.h"
#include "syntax/literals.h"
#include "syntax_test_util.h"

namespace tack::syntax {
namespace {

using testing::make_source;

// Tokens view into their Source's text, which must outlive them: the last
// lexed source stays alive until the next call.
std::vector<Token> lex(std::string text) {
    static std::shared_ptr<Source> last;
    last = make_source(std::move(text));
    return tokenize(last);
}

// Tokens as "kind:text" words: `x = 1` is "name:x '=' int:1 NEWLINE EOF".
std::string words(std::string text) {
    std::string out;
    for (const Token& t : lex(std::move(text))) {
        if (!out.empty()) out += ' ';
        switch (t.kind) {
            case TokenKind::Name: out += "name:" + std::string(t.text); break;
            case TokenKind::Int: out += "int:" + std::string(t.text); break;
            case TokenKind::Float: out += "float:" + std::string(t.text); break;
            case TokenKind::Imaginary: out += "imag:" + std::string(t.text); break;
            case TokenKind::String: out += "str:" + std::string(t.text); break;
            case TokenKind::Newline: out += "NEWLINE"; break;
            case TokenKind::Indent: out += "INDENT"; break;
            case TokenKind::Dedent: out += "DEDENT"; break;
            case TokenKind::EndOfFile: out += "EOF"; break;
            default: out += to_string(t.kind); break;
        }
    }
    return out;
}

// The single token `text` lexes to (before NEWLINE and EOF).
Token one(std::string text) {
    std::vector<Token> ts = lex(text);
    EXPECT_EQ(ts.size(), 3u) << text;
    return ts.at(0);
}

std::string lex_error(std::string text) {
    try {
        lex(std::move(text));
    } catch (const CompileError& e) {
        const Diagnostic& d = e.diagnostic();
        EXPECT_EQ(d.kind, ErrorKind::Syntax);
        return std::to_string(d.span.line) + ":" + std::to_string(d.span.col) + " " + d.message;
    }
    return "no error";
}

// ------------------------------------------------------------------ integers

TEST(Lexer, IntegerLiteralsInEveryForm) {
    struct Case {
        const char* text;
        uint64_t value;
        bool overflow;
    };
    const Case cases[] = {
        {"0", 0, false},
        {"00", 0, false},
        {"0_0", 0, false},
        {"7", 7, false},
        {"1_000_000", 1000000, false},
        {"0x_ff", 255, false},
        {"0XfF", 255, false},
        {"0xDEAD_beef", 0xDEADBEEF, false},
        {"0o17", 15, false},
        {"0O1_7", 15, false},
        {"0b1010", 10, false},
        {"0B_1_0", 2, false},
        {"18446744073709551615", UINT64_MAX, false},
        {"0xffff_ffff_ffff_ffff", UINT64_MAX, false},
        {"18446744073709551616", UINT64_MAX, true},
        {"0x1_0000_0000_0000_0000", UINT64_MAX, true},
        {"99999999999999999999999999999999999999", UINT64_MAX, true},
    };
    for (const Case& c : cases) {
        const Token t = one(c.text);
        EXPECT_EQ(t.kind, TokenKind::Int) << c.text;
        EXPECT_EQ(t.text, c.text);
        const IntValue v = int_literal_value(t.text);
        EXPECT_EQ(v.value, c.value) << c.text;
        EXPECT_EQ(v.overflow, c.overflow) << c.text;
    }
}

TEST(Lexer, MalformedIntegersAreSyntaxErrors) {
    EXPECT_EQ(lex_error("x = 012"),
              "1:5 leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    EXPECT_EQ(lex_error("x = 0_7"),
              "1:5 leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    EXPECT_EQ(lex_error("1__0"), "1:1 invalid decimal literal");
    EXPECT_EQ(lex_error("1_"), "1:1 invalid decimal literal");
    EXPECT_EQ(lex_error("1abc"), "1:1 invalid decimal literal");
    EXPECT_EQ(lex_error("1e"), "1:1 invalid decimal literal");
    EXPECT_EQ(lex_error("1e+"), "1:1 invalid decimal literal");
    EXPECT_EQ(lex_error("0x"), "1:1 invalid hexadecimal literal");
    EXPECT_EQ(lex_error("0x1g"), "1:1 invalid hexadecimal literal");
    EXPECT_EQ(lex_error("0x__1"), "1:1 invalid hexadecimal literal");
    EXPECT_EQ(lex_error("0o8"), "1:1 invalid digit '8' in octal literal");
    EXPECT_EQ(lex_error("0o18"), "1:1 invalid digit '8' in octal literal");
    EXPECT_EQ(lex_error("0b102"), "1:1 invalid digit '2' in binary literal");
    EXPECT_EQ(lex_error("0b"), "1:1 invalid binary literal");
    EXPECT_EQ(lex_error("1jx"), "1:1 invalid imaginary literal");
}

TEST(Lexer, NumbersMayTouchTheKeywordsCPythonTolerates) {
    EXPECT_EQ(words("1if x else 2"), "int:1 'if' name:x 'else' int:2 NEWLINE EOF");
    EXPECT_EQ(words("1or 2"), "int:1 'or' int:2 NEWLINE EOF");
    EXPECT_EQ(words("1else"), "int:1 'else' NEWLINE EOF");
    EXPECT_EQ(lex_error("1.e"), "1:1 invalid decimal literal");
}

// ---------------------------------------------------------------- floats

TEST(Lexer, FloatLiteralsInEveryForm) {
    struct Case {
        const char* text;
        double value;
    };
    const Case cases[] = {
        {"1.", 1.0},           {".5", 0.5},          {"1.5", 1.5},         {"1e10", 1e10},
        {"1E-3", 1e-3},        {"1e+3", 1e3},        {"1_000.5e1_0", 1000.5e10}, {"012.5", 12.5},
        {"0e0", 0.0},          {"00.0", 0.0},        {"0.1", 0.1},         {"1.7976931348623157e308", 1.7976931348623157e308},
        {"4.9e-324", 4.9e-324},
    };
    for (const Case& c : cases) {
        const Token t = one(c.text);
        EXPECT_EQ(t.kind, TokenKind::Float) << c.text;
        EXPECT_EQ(float_literal_value(t.text), c.value) << c.text;
    }
}

TEST(Lexer, FloatsAreCorrectlyRounded) {
    // Halfway between two doubles: rounds to even.
    EXPECT_EQ(float_literal_value("9007199254740993.0"), 9007199254740992.0);
    EXPECT_EQ(float_literal_value("9007199254740995.0"), 9007199254740996.0);
    // Just above halfway: rounds up, however many digits it takes to see.
    EXPECT_EQ(float_literal_value("9007199254740993.0000000000000000001"), 9007199254740994.0);
    EXPECT_EQ(float_literal_value("2.2250738585072011e-308"), 2.2250738585072011e-308);
    EXPECT_EQ(float_literal_value("1e400"), std::numeric_limits<double>::infinity());
    EXPECT_EQ(float_literal_value("1e-400"), 0.0);
}

TEST(Lexer, FloatReprIsPythonsRepr) {
    EXPECT_EQ(float_repr(1.0), "1.0");
    EXPECT_EQ(float_repr(0.1), "0.1");
    EXPECT_EQ(float_repr(1500.0), "1500.0");
    EXPECT_EQ(float_repr(1e16), "1e+16");
    EXPECT_EQ(float_repr(1e15), "1000000000000000.0");
    EXPECT_EQ(float_repr(1e-5), "1e-05");
    EXPECT_EQ(float_repr(0.0001), "0.0001");
    EXPECT_EQ(float_repr(0.30000000000000004), "0.30000000000000004");
    EXPECT_EQ(float_repr(5e-324), "5e-324");
    EXPECT_EQ(float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
    EXPECT_EQ(float_repr(-2.5), "-2.5");
    EXPECT_EQ(float_repr(std::numeric_limits<double>::infinity()), "inf");
}

TEST(Lexer, ImaginaryLiterals) {
    EXPECT_EQ(one("1j").kind, TokenKind::Imaginary);
    EXPECT_EQ(one("1.5J").kind, TokenKind::Imaginary);
    EXPECT_EQ(one("1e3j").kind, TokenKind::Imaginary);
    EXPECT_EQ(one("012j").kind, TokenKind::Imaginary);
}

// --------------------------------------------------------------- strings

TEST(Lexer, EveryStringPrefixInEveryCase) {
    struct Case {
        const char* prefix;
        bool bytes, fstring;
    };
    const Case cases[] = {
        {"", false, false},  {"r", false, false}, {"R", false, false}, {"u", false, false}, {"U", false, false},
        {"b", true, false},  {"B", true, false},  {"br", true, false}, {"Br", true, false}, {"bR", true, false},
        {"BR", true, false}, {"rb", true, false}, {"rB", true, false}, {"Rb", true, false}, {"RB", true, false},
        {"f", false, true},  {"F", false, true},  {"fr", false, true}, {"Fr", false, true}, {"fR", false, true},
        {"FR", false, true}, {"rf", false, true}, {"rF", false, true}, {"Rf", false, true}, {"RF", false, true},
    };
    for (const Case& c : cases) {
        for (const char* quote : {"'", "\"", "'''", "\"\"\""}) {
            const std::string text = std::string(c.prefix) + quote + "x" + quote;
            const Token t = one(text);
            EXPECT_EQ(t.kind, TokenKind::String) << text;
            EXPECT_EQ(t.text, text);
            EXPECT_EQ(t.is_bytes, c.bytes) << text;
            EXPECT_EQ(t.is_fstring, c.fstring) << text;
            if (!c.fstring) {
                EXPECT_EQ(t.value, "x") << text;
            }
        }
    }
    // Not prefixes: a name followed by a string.
    EXPECT_EQ(words("ub'x'"), "name:ub str:'x' NEWLINE EOF");
    EXPECT_EQ(words("bf'x'"), "name:bf str:'x' NEWLINE EOF");
    EXPECT_EQ(words("rr'x'"), "name:rr str:'x' NEWLINE EOF");
}

TEST(Lexer, StringEscapes) {
    EXPECT_EQ(one(R"('\n\t\\\'\"\a\b\f\v\r')").value, "\n\t\\'\"\a\b\f\v\r");
    EXPECT_EQ(one(R"('\101\7\0')").value, std::string("A\a\0", 3));
    EXPECT_EQ(one(R"('\x41\xe9')").value, "A\xC3\xA9");
    EXPECT_EQ(one(R"('\u00e9\U0001F600')").value, "\xC3\xA9\xF0\x9F\x98\x80");
    EXPECT_EQ(one(R"('\ud800')").value, "\xED\xA0\x80") << "lone surrogates as CPython's surrogatepass";
    EXPECT_EQ(one(R"('\N{EM DASH}')").value, R"(\N{EM DASH})") << "names are not decoded";
    EXPECT_EQ(one(R"('\q\8')").value, R"(\q\8)") << "unknown escapes stay";
    EXPECT_EQ(one("'a\\\nb'").value, "ab") << "backslash-newline continues the string";
    EXPECT_EQ(one(R"(r'\n\'')").value, R"(\n\')");
    EXPECT_EQ(one(R"(b'\xff\x00\u1234')").value, std::string("\xFF\0\\u1234", 8));
    EXPECT_EQ(one(R"(b'\777')").value, "\xFF");
    EXPECT_EQ(one("'''a\r\nb\rc'''").value, "a\nb\nc") << "line breaks read as \\n";
    EXPECT_EQ(one("'\xC3\xA9'").value, "\xC3\xA9");
}

TEST(Lexer, MalformedStringsAreSyntaxErrors) {
    EXPECT_EQ(lex_error("x = 'abc\ny = 1"), "1:5 unterminated string literal (detected at line 1)");
    EXPECT_EQ(lex_error("x = 'abc\\"), "1:5 unterminated string literal (detected at line 1)");
    EXPECT_EQ(lex_error("x = '''abc\n\ny"), "1:5 unterminated triple-quoted string literal (detected at line 3)");
    EXPECT_EQ(lex_error("x = '\\x4'"), "1:5 truncated \\x escape: expected 2 hex digits");
    EXPECT_EQ(lex_error("x = '\\u12'"), "1:5 truncated \\u escape: expected 4 hex digits");
    EXPECT_EQ(lex_error("x = '\\U00110000'"), "1:5 illegal Unicode character in \\U escape");
    EXPECT_EQ(lex_error("x = b'\xC3\xA9'"), "1:5 bytes can only contain ASCII literal characters");
}

TEST(Lexer, FStringsAreOneUndecodedToken) {
    const Token t = one(R"(f"{a!r:>{width}} {'nested'}")");
    EXPECT_TRUE(t.is_fstring);
    EXPECT_TRUE(t.value.empty());
}

// ---------------------------------------------- names, keywords, operators

TEST(Lexer, KeywordsAndSoftKeywords) {
    EXPECT_EQ(words("False None True and as assert async await break class continue def del elif else except"),
              "'False' 'None' 'True' 'and' 'as' 'assert' 'async' 'await' 'break' 'class' 'continue' 'def' 'del' "
              "'elif' 'else' 'except' NEWLINE EOF");
    EXPECT_EQ(words("finally for from global if import in is lambda nonlocal not or pass raise return try"),
              "'finally' 'for' 'from' 'global' 'if' 'import' 'in' 'is' 'lambda' 'nonlocal' 'not' 'or' 'pass' "
              "'raise' 'return' 'try' NEWLINE EOF");
    EXPECT_EQ(words("while with yield match case _ type print"),
              "'while' 'with' 'yield' name:match name:case name:_ name:type name:print NEWLINE EOF");
}

TEST(Lexer, EveryOperator) {
    EXPECT_EQ(words("( ) [ ] { } : , ; . ... -> := = + - * ** / // % @ << >> & | ^ ~ < > <= >= == !="),
              "'(' ')' '[' ']' '{' '}' ':' ',' ';' '.' '...' '->' ':=' '=' '+' '-' '*' '**' '/' '//' '%' '@' "
              "'<<' '>>' '&' '|' '^' '~' '<' '>' '<=' '>=' '==' '!=' NEWLINE EOF");
    EXPECT_EQ(words("+= -= *= **= /= //= %= @= <<= >>= &= |= ^="),
              "'+=' '-=' '*=' '**=' '/=' '//=' '%=' '@=' '<<=' '>>=' '&=' '|=' '^=' NEWLINE EOF");
    // Longest match first.
    EXPECT_EQ(words("a**=b<<=c..d"), "name:a '**=' name:b '<<=' name:c '.' '.' name:d NEWLINE EOF");
    EXPECT_EQ(words("x[...]"), "name:x '[' '...' ']' NEWLINE EOF");
}

TEST(Lexer, InvalidCharacters) {
    EXPECT_EQ(lex_error("x = $"), "1:5 invalid character '$' (U+0024)");
    EXPECT_EQ(lex_error("x ? y"), "1:3 invalid character '?' (U+003F)");
    EXPECT_EQ(lex_error("x ! y"), "1:3 invalid character '!' (U+0021)");
    EXPECT_EQ(lex_error("x = `y`"), "1:5 invalid character '`' (U+0060)");
    EXPECT_EQ(lex_error("x\x01"), "1:2 invalid non-printable character U+0001");
    EXPECT_EQ(lex_error("x\v"), "1:2 invalid non-printable character U+000B");
}

TEST(Lexer, UnicodeIdentifiersKeepTheirSpelling) {
    EXPECT_EQ(words("r\xC3\xA9sultat = \xCE\xB2"), "name:r\xC3\xA9sultat '=' name:\xCE\xB2 NEWLINE EOF");
    // U+FB01 (the "fi" ligature) would be NFKC-normalized to "fi" by Python.
    EXPECT_EQ(one("\xEF\xAC\x81").text, "\xEF\xAC\x81");
}

TEST(Lexer, ColumnsCountCodePoints) {
    const std::vector<Token> ts = lex("\xC3\xA9\xCE\xB2 = '\xF0\x9F\x98\x80' + x");
    ASSERT_GE(ts.size(), 5u);
    EXPECT_EQ(ts[0].col, 1);
    EXPECT_EQ(ts[0].end_col, 3);
    EXPECT_EQ(ts[1].col, 4);   // '='
    EXPECT_EQ(ts[2].col, 6);   // the string
    EXPECT_EQ(ts[2].end_col, 9);
    EXPECT_EQ(ts[3].col, 10);  // '+'
    EXPECT_EQ(ts[4].col, 12);  // x
    EXPECT_EQ(ts[4].begin, 16u);
}

// ------------------------------------------------------------ layout

TEST(Lexer, IndentAndDedent) {
    EXPECT_EQ(words("if a:\n    b\n    if c:\n        d\ne\n"),
              "'if' name:a ':' NEWLINE INDENT name:b NEWLINE 'if' name:c ':' NEWLINE INDENT name:d NEWLINE DEDENT "
              "DEDENT name:e NEWLINE EOF");
    // Dedents still open at the end of input close there.
    EXPECT_EQ(words("if a:\n  if b:\n    c"), "'if' name:a ':' NEWLINE INDENT 'if' name:b ':' NEWLINE INDENT name:c "
                                             "NEWLINE DEDENT DEDENT EOF");
}

TEST(Lexer, BlankAndCommentLinesDoNotCount) {
    EXPECT_EQ(words("if a:\n\n  # comment\n        # deeper comment\n    b  # trailing\n\n   \n"),
              "'if' name:a ':' NEWLINE INDENT name:b NEWLINE DEDENT EOF");
    EXPECT_EQ(words(""), "EOF");
    EXPECT_EQ(words("# only a comment\n\n"), "EOF");
}

TEST(Lexer, ImplicitLineJoiningInsideBrackets) {
    EXPECT_EQ(words("x = (1,\n  2)\ny = [\n3\n]\nz = {\n\n}"),
              "name:x '=' '(' int:1 ',' int:2 ')' NEWLINE name:y '=' '[' int:3 ']' NEWLINE name:z '=' '{' '}' "
              "NEWLINE EOF");
}

TEST(Lexer, ExplicitLineJoining) {
    EXPECT_EQ(words("x = 1 + \\\n      2\ny"), "name:x '=' int:1 '+' int:2 NEWLINE name:y NEWLINE EOF");
    EXPECT_EQ(lex_error("x = 1 \\ 2"), "1:7 unexpected character after line continuation character");
    EXPECT_EQ(lex_error("x = 1 \\"), "1:7 unexpected end of input after line continuation character");
    // A continuation inside the indentation: the first backslash sets the level.
    EXPECT_EQ(words("if a:\n  \\\n    b\n  c\n"),
              "'if' name:a ':' NEWLINE INDENT name:b NEWLINE name:c NEWLINE DEDENT EOF");
}

TEST(Lexer, LineEndings) {
    const std::vector<Token> ts = lex("a\r\nb\rc\nd");
    ASSERT_EQ(ts.size(), 9u);
    EXPECT_EQ(ts[2].line, 2);
    EXPECT_EQ(ts[4].line, 3);
    EXPECT_EQ(ts[6].line, 4);
    EXPECT_EQ(ts[6].col, 1);
}

TEST(Lexer, TabsStopAtMultiplesOfEight) {
    EXPECT_EQ(words("if a:\n\tb\n\tc\n"), "'if' name:a ':' NEWLINE INDENT name:b NEWLINE name:c NEWLINE DEDENT EOF");
    EXPECT_EQ(words("if a:\n \tb\n \tc\n"), "'if' name:a ':' NEWLINE INDENT name:b NEWLINE name:c NEWLINE DEDENT EOF");
    // Eight spaces and a tab reach the same column only with 8-column tabs:
    // CPython calls that inconsistent.
    EXPECT_EQ(lex_error("if a:\n\tb\n        c\n"), "3:9 inconsistent use of tabs and spaces in indentation");
    EXPECT_EQ(lex_error("if a:\n\tb\n  \tc\n"), "3:4 inconsistent use of tabs and spaces in indentation");
    // A form feed resets the indentation count.
    EXPECT_EQ(words("if a:\n    b\n\f    c\n"), "'if' name:a ':' NEWLINE INDENT name:b NEWLINE name:c NEWLINE DEDENT EOF");
}

TEST(Lexer, InconsistentDedentIsAnError) {
    EXPECT_EQ(lex_error("if a:\n    b\n  c\n"), "3:3 unindent does not match any outer indentation level");
}

TEST(Lexer, BracketErrors) {
    EXPECT_EQ(lex_error("x = (1, 2]"), "1:10 closing parenthesis ']' does not match opening parenthesis '('");
    EXPECT_EQ(lex_error("x = (1,\n 2]"), "2:3 closing parenthesis ']' does not match opening parenthesis '(' on line 1");
    EXPECT_EQ(lex_error("x = 1)"), "1:6 unmatched ')'");
    EXPECT_EQ(lex_error("x = [1,\n(2"), "2:1 '(' was never closed");
    EXPECT_EQ(lex_error(std::string(200, '(') + std::string(200, ')')), "no error");
    EXPECT_EQ(lex_error(std::string(201, '[')), "1:201 too many nested parentheses");
}

TEST(Lexer, IndentationDepthIsBounded) {
    // 99 levels below the top one, as CPython.
    std::string deep;
    for (int i = 0; i < 100; ++i) deep += std::string(static_cast<size_t>(i), ' ') + "if a:\n";
    EXPECT_EQ(lex_error(deep), "no error");
    deep += std::string(100, ' ') + "pass\n";
    EXPECT_EQ(lex_error(deep), "101:101 too many levels of indentation");
}

TEST(Lexer, EncodingErrors) {
    EXPECT_EQ(lex_error(std::string("x = 1\ny = \0", 11)), "2:5 source code cannot contain null bytes");
    EXPECT_EQ(lex_error("x = '\xC3\xA9\xFF'"), "1:7 invalid UTF-8 byte 0xff in source");
    EXPECT_EQ(lex_error("x = \xC0\x80"), "1:5 invalid UTF-8 byte 0xc0 in source") << "overlong";
    EXPECT_EQ(lex_error("x = \xED\xA0\x80"), "1:5 invalid UTF-8 byte 0xed in source") << "surrogate";
    EXPECT_EQ(lex_error("x = \xF4\x90\x80\x80"), "1:5 invalid UTF-8 byte 0xf4 in source") << "past U+10FFFF";
    EXPECT_EQ(lex_error("x = \xE2\x82"), "1:5 invalid UTF-8 byte 0xe2 in source") << "truncated";
    EXPECT_EQ(words("\xEF\xBB\xBFx"), "name:x NEWLINE EOF") << "a byte order mark is skipped";
}

TEST(Lexer, EndTokensFollowTheLastToken) {
    const std::vector<Token> ts = lex("if a:\n    b  # c\n\n");
    const Token& eof = ts.back();
    EXPECT_EQ(eof.kind, TokenKind::EndOfFile);
    EXPECT_EQ(eof.line, 2);
    EXPECT_EQ(eof.col, 11);
}

}  // namespace
}  // namespace tack::syntax
