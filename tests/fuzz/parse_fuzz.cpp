// libFuzzer target for the syntax layer.
//
// Any byte string must either parse or raise a syntax CompileError whose
// diagnostic renders; nothing may crash, hang or overflow the stack. A tree
// that parses must have sane spans, print to source that parses back to the
// same tree, and print identically the second time.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "syntax/ast.h"
#include "syntax/parser.h"

using namespace tack::syntax;

namespace {

[[noreturn]] void die(const char* what, const std::string& a, const std::string& b = {}) {
    std::fprintf(stderr, "parse_fuzz: %s\n----\n%s\n----\n%s\n", what, a.c_str(), b.c_str());
    std::abort();
}

bool before(const Span& s) {
    return s.line >= 1 && s.col >= 1 && (s.end_line > s.line || (s.end_line == s.line && s.end_col >= s.col));
}

void check_spans(const Expr& e, const std::string& text) {
    if (!before(e.span)) die("expression with an invalid span", dump(e), text);
    for_each_child(e, [&](const Expr& c) { check_spans(c, text); });
}

void check_spans(const Body& body, const std::string& text);

void check_spans(const Stmt& s, const std::string& text) {
    if (!before(s.span)) die("statement with an invalid span", dump(s), text);
    auto expr = [&](const ExprPtr& e) {
        if (e) check_spans(*e, text);
    };
    switch (s.kind) {
        case StmtKind::ExprStmt: expr(s.as<ExprStmt>()->value); break;
        case StmtKind::Assign:
            for (const auto& t : s.as<Assign>()->targets) expr(t);
            expr(s.as<Assign>()->value);
            break;
        case StmtKind::AugAssign: expr(s.as<AugAssign>()->target), expr(s.as<AugAssign>()->value); break;
        case StmtKind::For: {
            const auto* f = s.as<For>();
            expr(f->target), expr(f->iter), check_spans(f->body, text), check_spans(f->orelse, text);
            break;
        }
        case StmtKind::While: {
            const auto* w = s.as<While>();
            expr(w->cond), check_spans(w->body, text), check_spans(w->orelse, text);
            break;
        }
        case StmtKind::If: {
            const auto* i = s.as<If>();
            expr(i->cond), check_spans(i->body, text), check_spans(i->orelse, text);
            break;
        }
        case StmtKind::Return: expr(s.as<Return>()->value); break;
        case StmtKind::UnsupportedStmt:
            for (const auto& e : s.as<UnsupportedStmt>()->exprs) expr(e);
            for (const auto& b : s.as<UnsupportedStmt>()->bodies) check_spans(b, text);
            break;
        default: break;
    }
}

void check_spans(const Body& body, const std::string& text) {
    for (const StmtPtr& s : body) check_spans(*s, text);
}

std::unique_ptr<FunctionDef> parse(const std::string& text) {
    auto source = std::make_shared<Source>();
    source->text = text;
    source->filename = "<fuzz>";
    return parse_function(source);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::unique_ptr<FunctionDef> fn;
    try {
        fn = parse(text);
    } catch (const CompileError& e) {
        const Diagnostic& d = e.diagnostic();
        if (d.kind != ErrorKind::Syntax || d.message.empty() || d.span.line < 1 || d.span.col < 1)
            die("malformed diagnostic", d.render(), text);
        (void)d.render();
        return 0;
    }
    check_spans(fn->body, text);
    const std::string printed = to_source(*fn);
    const std::string tree = dump(*fn);
    std::unique_ptr<FunctionDef> again;
    try {
        again = parse(printed);
    } catch (const CompileError& e) {
        die("printed source does not parse", e.what(), printed);
    }
    if (dump(*again) != tree) die("printed source parses to another tree", tree, dump(*again));
    if (to_source(*again) != printed) die("printing is not stable", printed, to_source(*again));
    return 0;
}
