// Source text, positions and user-facing diagnostics.
//
// Every AST node carries a Span into the captured, dedented source. A
// Diagnostic renders as
//
//   file.py:LINE:COL in kernel 'name': message
//       source line
//       ^
//   hint: ...
//
// where LINE is the absolute file line when the Python side knows it.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tack::syntax {

// 1-based line and column in the captured, dedented source. Columns count
// Unicode code points, as Python's tracebacks do. The end is exclusive: a
// one-character token at column 5 has col 5 and end_col 6.
struct Span {
    int line = 0;
    int col = 0;
    int end_line = 0;
    int end_col = 0;
    // Which function's source the position is in, once the compiler has
    // inlined device functions (an index into ir::Kernel::origins); the
    // parser leaves it 0.
    int origin = 0;
};

// The text of one function as Python captured it.
struct Source {
    std::string text;       // dedented source of one `def`
    std::string filename;   // "<unknown>" when Python does not know it
    int first_line = 1;     // absolute file line of text's line 1
    int indent = 0;         // columns removed by dedenting

    std::string_view line_text(int line) const;  // 1-based; empty if out of range
};

// The kind decides which Python exception the binding raises.
enum class ErrorKind {
    Syntax,       // malformed source                    -> tack.KernelSyntaxError (SyntaxError)
    Unsupported,  // a construct outside the surface     -> tack.UnsupportedError
    Name,         // unbound or unresolvable name        -> tack.KernelNameError (NameError)
    Type,         // type or arity mismatch              -> tack.KernelTypeError (TypeError)
    Value,        // bad value (a literal step of 0 ...) -> tack.KernelValueError (ValueError)
    Index,        // debug-mode bounds violation          -> IndexError
    Internal,     // a compiler bug; carries the pass name
};

const char* to_string(ErrorKind k);  // "syntax", "unsupported", ...

struct Diagnostic {
    ErrorKind kind = ErrorKind::Syntax;
    std::string message;     // one line: what is wrong
    std::string construct;   // e.g. "assert", "lambda", "try"; may be empty
    std::string function;    // kernel or device function name
    std::string function_kind = "kernel";  // "kernel" or "device function"
    std::string hint;        // may be empty
    Span span;
    std::shared_ptr<const Source> source;  // may be null

    // The full multi-line rendering described above.
    std::string render() const;
};

class CompileError : public std::runtime_error {
public:
    explicit CompileError(Diagnostic d);
    const Diagnostic& diagnostic() const { return diag_; }

private:
    Diagnostic diag_;
};

// Internal compiler errors name the pass that failed; the message is built
// only when the check fails.
[[noreturn]] void internal_error(std::string_view pass, std::string_view message);

#define TACK_CHECK(cond, pass, msg)                                   \
    do {                                                              \
        if (!(cond)) ::tack::syntax::internal_error((pass), (msg));   \
    } while (0)

}  // namespace tack::syntax
