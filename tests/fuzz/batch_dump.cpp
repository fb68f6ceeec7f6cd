// Reads NUL-separated function sources on stdin; for each prints one line:
// "OK <dump>\t<spans>" or "ERR line:col <message>". Also checks the
// printer's round trip, printing "RT <dump of the re-parsed print>" when it
// differs. Used by compare_with_cpython.py.
//
// <spans> lists "Kind@line:col-line:col" for every statement and expression
// outside unsupported constructs, in dump order.
#include <iostream>
#include <iterator>
#include <string>

#include "syntax/ast.h"
#include "syntax/parser.h"

using namespace tack::syntax;

namespace {

void span(std::string& out, const char* kind, const Span& s) {
    out += std::string(kind) + "@" + std::to_string(s.line) + ":" + std::to_string(s.col) + "-" +
           std::to_string(s.end_line) + ":" + std::to_string(s.end_col) + " ";
}

void spans(std::string& out, const Expr& e) {
    if (e.kind == ExprKind::UnsupportedExpr) return;
    span(out, to_string(e.kind), e.span);
    for_each_child(e, [&](const Expr& c) { spans(out, c); });
}

void spans(std::string& out, const Body& body);

void spans(std::string& out, const Stmt& s) {
    if (s.kind == StmtKind::UnsupportedStmt) return;
    span(out, to_string(s.kind), s.span);
    auto e = [&](const ExprPtr& x) {
        if (x) spans(out, *x);
    };
    switch (s.kind) {
        case StmtKind::ExprStmt: e(s.as<ExprStmt>()->value); break;
        case StmtKind::Assign:
            for (const auto& t : s.as<Assign>()->targets) e(t);
            e(s.as<Assign>()->value);
            break;
        case StmtKind::AugAssign: e(s.as<AugAssign>()->target), e(s.as<AugAssign>()->value); break;
        case StmtKind::For: {
            const auto* f = s.as<For>();
            e(f->target), e(f->iter), spans(out, f->body), spans(out, f->orelse);
            break;
        }
        case StmtKind::While: {
            const auto* w = s.as<While>();
            e(w->cond), spans(out, w->body), spans(out, w->orelse);
            break;
        }
        case StmtKind::If: {
            const auto* i = s.as<If>();
            e(i->cond), spans(out, i->body), spans(out, i->orelse);
            break;
        }
        case StmtKind::Return: e(s.as<Return>()->value); break;
        default: break;
    }
}

void spans(std::string& out, const Body& body) {
    for (const StmtPtr& s : body) spans(out, *s);
}

}  // namespace

int main() {
    std::string all((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    size_t start = 0;
    while (start <= all.size()) {
        size_t end = all.find('\0', start);
        if (end == std::string::npos) end = all.size();
        auto src = std::make_shared<Source>();
        src->text = all.substr(start, end - start);
        try {
            auto fn = parse_function(src);
            const std::string d = dump(*fn);
            std::string sp;
            spans(sp, fn->body);
            std::cout << "OK " << d << "\t" << sp << "\n";
            auto again = std::make_shared<Source>();
            again->text = to_source(*fn);
            try {
                auto fn2 = parse_function(again);
                if (dump(*fn2) != d) std::cout << "RT " << dump(*fn2) << "\n";
            } catch (const CompileError& e) {
                std::cout << "RT error " << e.diagnostic().message << "\n";
            }
        } catch (const CompileError& e) {
            const Diagnostic& d = e.diagnostic();
            std::cout << "ERR " << d.span.line << ":" << d.span.col << " " << d.message << "\n";
        }
        if (end == all.size()) break;
        start = end + 1;
    }
}
