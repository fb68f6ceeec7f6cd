#include "syntax/lexer.h"

#include <cstdio>
#include <cstring>

#include "syntax/literals.h"
#include "syntax/utf8.h"

// Identifiers: ASCII letters, digits and '_', plus every code point at or
// above U+0080, kept exactly as written. Python would also check XID_Start /
// XID_Continue and NFKC-normalize the name; Tack carries no Unicode tables,
// and the source it reads already compiled under CPython, so the only
// difference a user can see is that two spellings Python merges under NFKC
// (`ﬁ` and `fi`) are two names here.

namespace tack::syntax {

const char* to_string(TokenKind k) {
    switch (k) {
#define X(name, spelling) \
    case TokenKind::name: return spelling;
        TACK_TOKEN_KINDS(X)
#undef X
    }
    return "?";
}

namespace {

struct KeywordEntry {
    const char* text;
    TokenKind kind;
};

constexpr KeywordEntry kKeywords[] = {
    {"False", TokenKind::KwFalse},       {"None", TokenKind::KwNone},         {"True", TokenKind::KwTrue},
    {"and", TokenKind::KwAnd},           {"as", TokenKind::KwAs},             {"assert", TokenKind::KwAssert},
    {"async", TokenKind::KwAsync},       {"await", TokenKind::KwAwait},       {"break", TokenKind::KwBreak},
    {"class", TokenKind::KwClass},       {"continue", TokenKind::KwContinue}, {"def", TokenKind::KwDef},
    {"del", TokenKind::KwDel},           {"elif", TokenKind::KwElif},         {"else", TokenKind::KwElse},
    {"except", TokenKind::KwExcept},     {"finally", TokenKind::KwFinally},   {"for", TokenKind::KwFor},
    {"from", TokenKind::KwFrom},         {"global", TokenKind::KwGlobal},     {"if", TokenKind::KwIf},
    {"import", TokenKind::KwImport},     {"in", TokenKind::KwIn},             {"is", TokenKind::KwIs},
    {"lambda", TokenKind::KwLambda},     {"nonlocal", TokenKind::KwNonlocal}, {"not", TokenKind::KwNot},
    {"or", TokenKind::KwOr},             {"pass", TokenKind::KwPass},         {"raise", TokenKind::KwRaise},
    {"return", TokenKind::KwReturn},     {"try", TokenKind::KwTry},           {"while", TokenKind::KwWhile},
    {"with", TokenKind::KwWith},         {"yield", TokenKind::KwYield},
};

struct OperatorEntry {
    const char* text;
    TokenKind kind;
};

// Longest first, so the first match is the longest.
constexpr OperatorEntry kOperators[] = {
    {"**=", TokenKind::DoubleStarEqual}, {"//=", TokenKind::DoubleSlashEqual}, {"<<=", TokenKind::LeftShiftEqual},
    {">>=", TokenKind::RightShiftEqual}, {"...", TokenKind::Ellipsis},         {"->", TokenKind::Arrow},
    {":=", TokenKind::ColonEqual},       {"**", TokenKind::DoubleStar},        {"//", TokenKind::DoubleSlash},
    {"<<", TokenKind::LeftShift},        {">>", TokenKind::RightShift},        {"<=", TokenKind::LessEqual},
    {">=", TokenKind::GreaterEqual},     {"==", TokenKind::EqEqual},           {"!=", TokenKind::NotEqual},
    {"+=", TokenKind::PlusEqual},        {"-=", TokenKind::MinusEqual},        {"*=", TokenKind::StarEqual},
    {"/=", TokenKind::SlashEqual},       {"%=", TokenKind::PercentEqual},      {"@=", TokenKind::AtEqual},
    {"&=", TokenKind::AmpEqual},         {"|=", TokenKind::VBarEqual},         {"^=", TokenKind::CaretEqual},
    {"(", TokenKind::LParen},            {")", TokenKind::RParen},             {"[", TokenKind::LBracket},
    {"]", TokenKind::RBracket},          {"{", TokenKind::LBrace},             {"}", TokenKind::RBrace},
    {":", TokenKind::Colon},             {",", TokenKind::Comma},              {";", TokenKind::Semi},
    {".", TokenKind::Dot},               {"=", TokenKind::Assign},             {"+", TokenKind::Plus},
    {"-", TokenKind::Minus},             {"*", TokenKind::Star},               {"/", TokenKind::Slash},
    {"%", TokenKind::Percent},           {"@", TokenKind::At},                 {"&", TokenKind::Amp},
    {"|", TokenKind::VBar},              {"^", TokenKind::Caret},              {"~", TokenKind::Tilde},
    {"<", TokenKind::Less},              {">", TokenKind::Greater},
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_ident_start(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

// String prefixes: any case of r, u, b, f, br, rb, fr, rf.
bool string_prefix(std::string_view word, bool* raw, bool* bytes, bool* fstring) {
    if (word.size() > 2) return false;
    *raw = *bytes = *fstring = false;
    bool unicode = false;
    for (char c : word) {
        switch (c | 0x20) {
            case 'r': if (*raw) return false; *raw = true; break;
            case 'b': if (*bytes) return false; *bytes = true; break;
            case 'f': if (*fstring) return false; *fstring = true; break;
            case 'u': if (unicode) return false; unicode = true; break;
            default: return false;
        }
    }
    if (unicode && word.size() > 1) return false;
    return !(*bytes && *fstring);
}

class Lexer {
public:
    explicit Lexer(const std::shared_ptr<const Source>& source) : source_(source), text_(source->text) {}

    std::vector<Token> run() {
        check_encoding();
        if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark
        bool line_start = true;
        while (true) {
            if (line_start) {
                line_start = false;
                if (!indentation()) {
                    line_start = true;
                    if (at_end()) break;
                    continue;
                }
            }
            skip_blanks();
            if (at_end()) break;
            const char c = cur();
            if (c == '#') {
                skip_comment();
            } else if (c == '\n' || c == '\r') {
                if (brackets_.empty()) {
                    if (!out_.empty() && out_.back().kind != TokenKind::Newline &&
                        out_.back().kind != TokenKind::Indent && out_.back().kind != TokenKind::Dedent) {
                        const size_t begin = pos_;
                        const int line = line_, col = col_;
                        consume_newline();
                        push(TokenKind::Newline, begin, begin, line, col, line, col + 1);
                    } else {
                        consume_newline();
                    }
                    line_start = true;
                } else {
                    consume_newline();
                }
            } else if (c == '\\') {
                continuation();
            } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
                number();
            } else if (is_ident_start(c)) {
                name_or_string();
            } else if (c == '"' || c == '\'') {
                string(pos_, line_, col_, false, false, false);
            } else {
                op();
            }
        }
        finish();
        return std::move(out_);
    }

private:
    const std::shared_ptr<const Source>& source_;
    std::string_view text_;
    size_t pos_ = 0;
    int line_ = 1, col_ = 1;
    std::vector<Token> out_;
    std::vector<int> indents_{0};
    std::vector<int> alt_indents_{0};  // indentation with tabs as one column
    struct Bracket {
        char ch;
        int line, col;
    };
    std::vector<Bracket> brackets_;

    bool at_end() const { return pos_ >= text_.size(); }
    char cur() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    char peek(size_t k) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }

    void advance() {
        if (!utf8::is_continuation(static_cast<unsigned char>(text_[pos_]))) ++col_;
        ++pos_;
    }
    void advance_code_point() {
        advance();
        while (!at_end() && utf8::is_continuation(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool at_newline() const { return cur() == '\n' || cur() == '\r'; }
    void consume_newline() {
        if (cur() == '\r' && peek(1) == '\n') ++pos_;
        ++pos_;
        ++line_;
        col_ = 1;
    }

    [[noreturn]] void fail(int line, int col, std::string message) const {
        Diagnostic d;
        d.kind = ErrorKind::Syntax;
        d.message = std::move(message);
        d.span = Span{line, col, line, col + 1};
        d.source = source_;
        throw CompileError(std::move(d));
    }

    // Line and column of a byte offset, for errors found before tokenizing.
    void position_of(size_t offset, int* line, int* col) const {
        *line = 1;
        *col = 1;
        for (size_t i = 0; i < offset; ++i) {
            const char c = text_[i];
            if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < offset && text_[i + 1] == '\n') ++i;
                ++*line;
                *col = 1;
            } else if (!utf8::is_continuation(static_cast<unsigned char>(c))) {
                ++*col;
            }
        }
    }

    void check_encoding() const {
        const size_t bad = utf8::find_invalid(text_);
        const size_t nul = text_.find('\0');
        if (bad == utf8::npos && nul == std::string_view::npos) return;
        int line, col;
        if (nul < bad) {
            position_of(nul, &line, &col);
            fail(line, col, "source code cannot contain null bytes");
        }
        position_of(bad, &line, &col);
        char buf[64];
        std::snprintf(buf, sizeof buf, "invalid UTF-8 byte 0x%02x in source", static_cast<unsigned char>(text_[bad]));
        fail(line, col, buf);
    }

    void push(TokenKind kind, size_t begin, size_t end, int line, int col, int end_line, int end_col) {
        Token t;
        t.kind = kind;
        t.text = text_.substr(begin, end - begin);
        t.begin = begin;
        t.end = end;
        t.line = line;
        t.col = col;
        t.end_line = end_line;
        t.end_col = end_col;
        out_.push_back(std::move(t));
    }
    // A token from `begin` (at line, col) to the current position.
    Token& emit(TokenKind kind, size_t begin, int line, int col) {
        push(kind, begin, pos_, line, col, line_, col_);
        return out_.back();
    }

    void skip_blanks() {
        while (cur() == ' ' || cur() == '\t' || cur() == '\f') advance();
    }
    void skip_comment() {
        while (!at_end() && !at_newline()) advance();
    }

    // At the start of a logical line: measures its indentation and emits
    // INDENT or DEDENTs. Returns false for a blank or comment-only line,
    // which it consumes whole.
    bool indentation() {
        int col = 0, alt = 0;
        int continued_col = 0;  // indentation before the first backslash, as CPython
        while (true) {
            const char c = cur();
            if (c == '\\') {
                // A backslash continuation inside the indentation: the
                // indentation continues on the next physical line.
                if (continued_col == 0) continued_col = col;
                continuation();
                continue;
            }
            if (c == ' ') {
                ++col;
                ++alt;
            } else if (c == '\t') {
                col = (col / 8 + 1) * 8;  // CPython's tab stops
                ++alt;
            } else if (c == '\f') {
                col = alt = 0;
            } else {
                break;
            }
            advance();
        }
        if (at_end()) return false;
        if (cur() == '#' || at_newline()) {
            skip_comment();
            if (at_newline()) consume_newline();
            return false;
        }
        if (continued_col != 0) col = alt = continued_col;
        const char* tab_error = "inconsistent use of tabs and spaces in indentation";
        if (col == indents_.back()) {
            if (alt != alt_indents_.back()) fail(line_, col_, tab_error);
        } else if (col > indents_.back()) {
            // CPython allows 99 levels below the top one.
            if (static_cast<int>(indents_.size()) >= kMaxIndentDepth) fail(line_, col_, "too many levels of indentation");
            if (alt <= alt_indents_.back()) fail(line_, col_, tab_error);
            indents_.push_back(col);
            alt_indents_.push_back(alt);
            push(TokenKind::Indent, pos_, pos_, line_, col_, line_, col_);
        } else {
            while (col < indents_.back()) {
                indents_.pop_back();
                alt_indents_.pop_back();
                push(TokenKind::Dedent, pos_, pos_, line_, col_, line_, col_);
            }
            if (col != indents_.back()) fail(line_, col_, "unindent does not match any outer indentation level");
            if (alt != alt_indents_.back()) fail(line_, col_, tab_error);
        }
        return true;
    }

    void continuation() {
        const int line = line_, col = col_;
        advance();
        if (at_end()) fail(line, col, "unexpected end of input after line continuation character");
        if (!at_newline()) fail(line, col, "unexpected character after line continuation character");
        consume_newline();
        if (at_end()) fail(line, col, "unexpected end of input after line continuation character");
    }

    // ------------------------------------------------------------- numbers
    // The spelling rules are CPython's tokenizer's, error messages included.

    // digit ('_'? digit)*, starting at a digit.
    void decimal_tail(int line, int col) {
        while (true) {
            while (is_digit(cur())) advance();
            if (cur() != '_') break;
            advance();
            if (!is_digit(cur())) fail(line, col, "invalid decimal literal");
        }
    }

    // A letter right after a number is an error, except where it starts one
    // of the keywords CPython tolerates there ("1if x else 2").
    void end_of_number(const char* kind, int line, int col) {
        if (!is_ident_char(cur())) return;
        static const char* const kAllowed[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
        for (const char* kw : kAllowed)
            if (text_.substr(pos_).starts_with(kw)) return;
        fail(line, col, std::string("invalid ") + kind + " literal");
    }

    void radix_digits(int base, const char* kind, int line, int col) {
        auto is_radix_digit = [base](char c) {
            return base == 16 ? is_hex_digit(c) : (c >= '0' && c < static_cast<char>('0' + base));
        };
        auto bad_digit = [&]() {
            if (base != 16 && is_digit(cur()))
                fail(line, col, std::string("invalid digit '") + cur() + "' in " + kind + " literal");
            fail(line, col, std::string("invalid ") + kind + " literal");
        };
        do {
            if (cur() == '_') advance();
            if (!is_radix_digit(cur())) bad_digit();
            while (is_radix_digit(cur())) advance();
        } while (cur() == '_');
        if (base != 16 && is_digit(cur())) bad_digit();
        end_of_number(kind, line, col);
    }

    void number() {
        const size_t begin = pos_;
        const int line = line_, col = col_;
        TokenKind kind = TokenKind::Int;
        if (cur() == '0' && (peek(1) | 0x20) == 'x') {
            advance(), advance();
            radix_digits(16, "hexadecimal", line, col);
        } else if (cur() == '0' && (peek(1) | 0x20) == 'o') {
            advance(), advance();
            radix_digits(8, "octal", line, col);
        } else if (cur() == '0' && (peek(1) | 0x20) == 'b') {
            advance(), advance();
            radix_digits(2, "binary", line, col);
        } else {
            bool leading_zero = false;
            if (cur() == '0') {
                while (true) {  // "0", "00", "0_0": zeros alone are a valid integer
                    if (cur() == '_') {
                        advance();
                        if (!is_digit(cur())) fail(line, col, "invalid decimal literal");
                    }
                    if (cur() != '0') break;
                    advance();
                }
                if (is_digit(cur())) {
                    leading_zero = true;
                    decimal_tail(line, col);
                }
            } else if (cur() != '.') {
                decimal_tail(line, col);
            }
            if (cur() == '.') {
                kind = TokenKind::Float;
                advance();
                if (is_digit(cur())) decimal_tail(line, col);
            }
            if ((cur() | 0x20) == 'e') {
                const size_t e_pos = pos_;
                const int e_col = col_;
                advance();
                if (cur() == '+' || cur() == '-') {
                    advance();
                    if (!is_digit(cur())) fail(line, col, "invalid decimal literal");
                    decimal_tail(line, col);
                    kind = TokenKind::Float;
                } else if (is_digit(cur())) {
                    decimal_tail(line, col);
                    kind = TokenKind::Float;
                } else {
                    pos_ = e_pos;  // "1else": the number ends before the 'e'
                    col_ = e_col;
                }
            }
            if ((cur() | 0x20) == 'j') {
                advance();
                kind = TokenKind::Imaginary;
            } else if (kind == TokenKind::Int && leading_zero) {
                fail(line, col,
                     "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
                     "integers");
            }
            end_of_number(kind == TokenKind::Imaginary ? "imaginary" : "decimal", line, col);
        }
        emit(kind, begin, line, col);
    }

    // ------------------------------------------------------ names, strings

    void name_or_string() {
        const size_t begin = pos_;
        const int line = line_, col = col_;
        while (!at_end() && is_ident_char(cur())) advance();
        const std::string_view word = text_.substr(begin, pos_ - begin);
        bool raw, bytes, fstring;
        if ((cur() == '"' || cur() == '\'') && string_prefix(word, &raw, &bytes, &fstring)) {
            string(begin, line, col, raw, bytes, fstring);
            return;
        }
        TokenKind kind = TokenKind::Name;
        if (word.size() >= 2 && word.size() <= 8) {
            for (const KeywordEntry& k : kKeywords) {
                if (word[0] == k.text[0] && word == k.text) {
                    kind = k.kind;
                    break;
                }
            }
        }
        emit(kind, begin, line, col);
    }

    void string(size_t begin, int line, int col, bool raw, bool bytes, bool fstring) {
        const char quote = cur();
        const bool triple = peek(1) == quote && peek(2) == quote;
        for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
        const size_t body_begin = pos_;
        size_t body_end = pos_;
        auto unterminated = [&]() {
            fail(line, col, std::string(triple ? "unterminated triple-quoted string literal" : "unterminated string literal") +
                                " (detected at line " + std::to_string(line_) + ")");
        };
        while (true) {
            if (at_end()) unterminated();
            const char c = cur();
            if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
                body_end = pos_;
                for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
                break;
            }
            if (c == '\\') {
                advance();
                if (at_end()) unterminated();
                if (at_newline())
                    consume_newline();
                else
                    advance_code_point();
            } else if (at_newline()) {
                if (!triple) unterminated();
                consume_newline();
            } else {
                advance_code_point();
            }
        }
        const std::string_view body = text_.substr(body_begin, body_end - body_begin);
        Token& t = emit(TokenKind::String, begin, line, col);
        t.is_bytes = bytes;
        t.is_fstring = fstring;
        if (bytes) {
            for (char c : body)
                if (static_cast<unsigned char>(c) >= 0x80) fail(line, col, "bytes can only contain ASCII literal characters");
        }
        if (!fstring) {
            std::string error;
            if (!decode_string_body(body, raw, bytes, &t.value, &error)) fail(line, col, error);
        }
    }

    // ----------------------------------------------------------- operators

    void op() {
        const size_t begin = pos_;
        const int line = line_, col = col_;
        const std::string_view rest = text_.substr(pos_);
        for (const OperatorEntry& o : kOperators) {
            if (o.text[0] != rest[0] || !rest.starts_with(o.text)) continue;
            for (size_t i = 0, n = std::strlen(o.text); i < n; ++i) advance();
            bracket(o.text[0], o.kind, line, col);
            emit(o.kind, begin, line, col);
            return;
        }
        int len = 0;
        const char32_t cp = utf8::decode(text_, pos_, &len);
        char buf[96];
        if (cp >= 0x21 && cp < 0x7F)
            std::snprintf(buf, sizeof buf, "invalid character '%c' (U+%04X)", static_cast<char>(cp), static_cast<unsigned>(cp));
        else
            std::snprintf(buf, sizeof buf, "invalid non-printable character U+%04X", static_cast<unsigned>(cp));
        fail(line, col, buf);
    }

    void bracket(char c, TokenKind kind, int line, int col) {
        if (kind == TokenKind::LParen || kind == TokenKind::LBracket || kind == TokenKind::LBrace) {
            if (static_cast<int>(brackets_.size()) >= kMaxBracketDepth) fail(line, col, "too many nested parentheses");
            brackets_.push_back({c, line, col});
            return;
        }
        if (kind != TokenKind::RParen && kind != TokenKind::RBracket && kind != TokenKind::RBrace) return;
        if (brackets_.empty()) fail(line, col, std::string("unmatched '") + c + "'");
        const Bracket open = brackets_.back();
        const char expected = open.ch == '(' ? ')' : open.ch == '[' ? ']' : '}';
        if (c != expected) {
            std::string msg = std::string("closing parenthesis '") + c + "' does not match opening parenthesis '" +
                              open.ch + "'";
            if (open.line != line) msg += " on line " + std::to_string(open.line);
            fail(line, col, msg);
        }
        brackets_.pop_back();
    }

    void finish() {
        if (!brackets_.empty()) {
            const Bracket& b = brackets_.back();
            fail(b.line, b.col, std::string("'") + b.ch + "' was never closed");
        }
        // End tokens sit at the end of the last line with a token, so errors
        // about a missing block or expression point at the line that lacks it.
        int line = 1, col = 1;
        size_t at = pos_;
        if (!out_.empty()) {
            const Token& last = out_.back();
            const bool newline = last.kind == TokenKind::Newline;
            line = newline ? last.line : last.end_line;
            col = newline ? last.col : last.end_col;
            at = newline ? last.begin : last.end;
        }
        if (!out_.empty() && out_.back().kind != TokenKind::Newline && out_.back().kind != TokenKind::Dedent &&
            out_.back().kind != TokenKind::Indent)
            push(TokenKind::Newline, at, at, line, col, line, col);
        for (size_t i = 1; i < indents_.size(); ++i) push(TokenKind::Dedent, at, at, line, col, line, col);
        push(TokenKind::EndOfFile, at, at, line, col, line, col);
    }
};

}  // namespace

std::vector<Token> tokenize(const std::shared_ptr<const Source>& source) { return Lexer(source).run(); }

}  // namespace tack::syntax
