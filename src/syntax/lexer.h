// Python 3.11 tokenization of one function's source.
//
// The token stream is CPython's, minus comments and non-logical newlines:
// NEWLINE ends each logical line, INDENT and DEDENT bracket blocks, and
// brackets and backslashes join physical lines. Keywords get their own kinds;
// the soft keywords `match`, `case` and `_` stay names. Positions are 1-based
// lines and code-point columns, like Span.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "syntax/source.h"

namespace tack::syntax {

// X(kind, spelling): the spelling is what diagnostics print.
#define TACK_TOKEN_KINDS(X)              \
    X(EndOfFile, "end of input")         \
    X(Newline, "end of line")            \
    X(Indent, "indent")                  \
    X(Dedent, "dedent")                  \
    X(Name, "name")                      \
    X(Int, "integer literal")            \
    X(Float, "float literal")            \
    X(Imaginary, "imaginary literal")    \
    X(String, "string literal")          \
    X(KwFalse, "'False'")                \
    X(KwNone, "'None'")                  \
    X(KwTrue, "'True'")                  \
    X(KwAnd, "'and'")                    \
    X(KwAs, "'as'")                      \
    X(KwAssert, "'assert'")              \
    X(KwAsync, "'async'")                \
    X(KwAwait, "'await'")                \
    X(KwBreak, "'break'")                \
    X(KwClass, "'class'")                \
    X(KwContinue, "'continue'")          \
    X(KwDef, "'def'")                    \
    X(KwDel, "'del'")                    \
    X(KwElif, "'elif'")                  \
    X(KwElse, "'else'")                  \
    X(KwExcept, "'except'")              \
    X(KwFinally, "'finally'")            \
    X(KwFor, "'for'")                    \
    X(KwFrom, "'from'")                  \
    X(KwGlobal, "'global'")              \
    X(KwIf, "'if'")                      \
    X(KwImport, "'import'")              \
    X(KwIn, "'in'")                      \
    X(KwIs, "'is'")                      \
    X(KwLambda, "'lambda'")              \
    X(KwNonlocal, "'nonlocal'")          \
    X(KwNot, "'not'")                    \
    X(KwOr, "'or'")                      \
    X(KwPass, "'pass'")                  \
    X(KwRaise, "'raise'")                \
    X(KwReturn, "'return'")              \
    X(KwTry, "'try'")                    \
    X(KwWhile, "'while'")                \
    X(KwWith, "'with'")                  \
    X(KwYield, "'yield'")                \
    X(LParen, "'('")                     \
    X(RParen, "')'")                     \
    X(LBracket, "'['")                   \
    X(RBracket, "']'")                   \
    X(LBrace, "'{'")                     \
    X(RBrace, "'}'")                     \
    X(Colon, "':'")                      \
    X(Comma, "','")                      \
    X(Semi, "';'")                       \
    X(Dot, "'.'")                        \
    X(Ellipsis, "'...'")                 \
    X(Arrow, "'->'")                     \
    X(ColonEqual, "':='")                \
    X(Assign, "'='")                     \
    X(Plus, "'+'")                       \
    X(Minus, "'-'")                      \
    X(Star, "'*'")                       \
    X(DoubleStar, "'**'")                \
    X(Slash, "'/'")                      \
    X(DoubleSlash, "'//'")               \
    X(Percent, "'%'")                    \
    X(At, "'@'")                         \
    X(LeftShift, "'<<'")                 \
    X(RightShift, "'>>'")                \
    X(Amp, "'&'")                        \
    X(VBar, "'|'")                       \
    X(Caret, "'^'")                      \
    X(Tilde, "'~'")                      \
    X(Less, "'<'")                       \
    X(Greater, "'>'")                    \
    X(LessEqual, "'<='")                 \
    X(GreaterEqual, "'>='")              \
    X(EqEqual, "'=='")                   \
    X(NotEqual, "'!='")                  \
    X(PlusEqual, "'+='")                 \
    X(MinusEqual, "'-='")                \
    X(StarEqual, "'*='")                 \
    X(DoubleStarEqual, "'**='")          \
    X(SlashEqual, "'/='")                \
    X(DoubleSlashEqual, "'//='")         \
    X(PercentEqual, "'%='")              \
    X(AtEqual, "'@='")                   \
    X(LeftShiftEqual, "'<<='")           \
    X(RightShiftEqual, "'>>='")          \
    X(AmpEqual, "'&='")                  \
    X(VBarEqual, "'|='")                 \
    X(CaretEqual, "'^='")

enum class TokenKind {
#define X(name, spelling) name,
    TACK_TOKEN_KINDS(X)
#undef X
};

// "end of line", "'('", "'if'", "name" ...
const char* to_string(TokenKind k);

struct Token {
    TokenKind kind = TokenKind::EndOfFile;
    // The token as written, a view into Source::text, valid while that
    // Source lives (empty for NEWLINE, INDENT, DEDENT and EndOfFile).
    std::string_view text;
    // String tokens: the decoded value (bytes literals byte for byte, str
    // literals as UTF-8); empty for f-strings, which are never decoded.
    std::string value;
    bool is_bytes = false;
    bool is_fstring = false;
    int line = 0, col = 0, end_line = 0, end_col = 0;  // end exclusive
    size_t begin = 0, end = 0;                         // byte offsets into the text
};

// Limits from CPython's tokenizer: nesting this deep is a syntax error.
inline constexpr int kMaxBracketDepth = 200;
inline constexpr int kMaxIndentDepth = 100;

// Tokenizes the whole source; the last token is EndOfFile. Throws
// CompileError(ErrorKind::Syntax) with the position of the first error.
std::vector<Token> tokenize(const std::shared_ptr<const Source>& source);

}  // namespace tack::syntax
