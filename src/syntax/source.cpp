#include "syntax/source.h"

#include <string>

namespace tack::syntax {

namespace {

// Lines end at "\n", "\r\n" or "\r", as in Python's universal newlines; the
// lexer counts lines the same way, so spans and line_text agree.
// Returns the number of lines and, when `want` is in range, its text.
int scan_lines(std::string_view text, int want, std::string_view* found) {
    int line = 1;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c != '\n' && c != '\r') continue;
        if (line == want && found) *found = text.substr(start, i - start);
        if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        start = i + 1;
        ++line;
    }
    if (start == text.size()) return line - 1;  // text ends with a line break (or is empty)
    if (line == want && found) *found = text.substr(start);
    return line;
}

}  // namespace

std::string_view Source::line_text(int line) const {
    std::string_view found;
    if (line >= 1) scan_lines(text, line, &found);
    return found;
}

const char* to_string(ErrorKind k) {
    switch (k) {
        case ErrorKind::Syntax: return "syntax";
        case ErrorKind::Unsupported: return "unsupported";
        case ErrorKind::Name: return "name";
        case ErrorKind::Type: return "type";
        case ErrorKind::Value: return "value";
        case ErrorKind::Index: return "index";
        case ErrorKind::Internal: return "internal";
    }
    return "?";
}

std::string Diagnostic::render() const {
    const std::string filename = source ? source->filename : std::string("<unknown>");
    const int first_line = source ? source->first_line : 1;
    const int indent = source ? source->indent : 0;

    std::string out = filename;
    if (span.line > 0) {
        out += ':' + std::to_string(first_line + span.line - 1);
        out += ':' + std::to_string(span.col + indent);
    }
    if (!function.empty()) out += " in " + function_kind + " '" + function + "'";
    out += ": " + message + "\n";

    if (source && span.line > 0 && span.line <= scan_lines(source->text, 0, nullptr)) {
        out += "    ";
        out += source->line_text(span.line);
        out += "\n    ";
        // The caret goes under the column's code point; a tab counts as one.
        if (span.col > 1) out.append(static_cast<size_t>(span.col - 1), ' ');
        out += "^\n";
    }
    if (!hint.empty()) out += "hint: " + hint + "\n";
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

CompileError::CompileError(Diagnostic d) : std::runtime_error(d.render()), diag_(std::move(d)) {}

void internal_error(std::string_view pass, std::string_view message) {
    Diagnostic d;
    d.kind = ErrorKind::Internal;
    d.message = "internal compiler error in pass '" + std::string(pass) + "': " + std::string(message);
    d.hint = "this is a bug in Tack, not in the kernel; please report it";
    throw CompileError(std::move(d));
}

}  // namespace tack::syntax
