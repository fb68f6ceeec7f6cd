// Helpers shared by the syntax tests: parse snippets, dump what they parse
// to, and catch the diagnostics they raise.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "syntax/ast.h"

namespace tack::syntax::testing {

inline std::shared_ptr<Source> make_source(std::string text) {
    auto s = std::make_shared<Source>();
    s->text = std::move(text);
    s->filename = "kernel.py";
    return s;
}

inline std::unique_ptr<FunctionDef> parse(std::string text) { return parse_function(make_source(std::move(text))); }

// Indents every line of `body` by four spaces under `def f(a, b):`.
inline std::string in_function(std::string_view body) {
    std::string out = "def f(a, b):\n";
    bool line_start = true;
    for (char c : body) {
        if (line_start && c != '\n') out += "    ";
        out += c;
        line_start = c == '\n';
    }
    if (out.back() != '\n') out += '\n';
    return out;
}

// The dumps of the statements `body` parses to, space-separated.
inline std::string stmts(std::string_view body) {
    auto fn = parse(in_function(body));
    std::string out;
    for (const StmtPtr& s : fn->body) {
        if (!out.empty()) out += ' ';
        out += dump(*s);
    }
    return out;
}

// The dump of one expression, parsed as `return EXPR`.
inline std::string expr(std::string_view e) {
    auto fn = parse("def f():\n    return " + std::string(e) + "\n");
    const auto* r = fn->body.at(0)->as<Return>();
    return r && r->value ? dump(*r->value) : "<no expression>";
}

// The diagnostic that parsing `text` raises; fails the test if it parses.
inline Diagnostic error_of(std::string text) {
    try {
        parse(std::move(text));
    } catch (const CompileError& e) {
        return e.diagnostic();
    }
    ADD_FAILURE() << "expected a syntax error";
    return {};
}

// "LINE:COL message" of the error parsing `text` raises.
inline std::string error(std::string text) {
    const Diagnostic d = error_of(std::move(text));
    return std::to_string(d.span.line) + ":" + std::to_string(d.span.col) + " " + d.message;
}

}  // namespace tack::syntax::testing
