// Reads NUL-separated function sources on stdin; for each prints one line:
// "OK <dump>" or "ERR line:col <message>". Also checks the printer's round
// trip, printing "RT <dump of the re-parsed print>" when it differs.
// Used by compare_with_cpython.py.
#include <iostream>
#include <iterator>
#include <string>

#include "syntax/ast.h"

using namespace tack::syntax;

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
            std::cout << "OK " << d << "\n";
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
