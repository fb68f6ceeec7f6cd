// Rejects everything outside the kernel surface, on the original syntax tree,
// before any lowering: unreachable statements are checked too, and nothing
// unsupported can be dropped by a later stage.
#pragma once

#include "syntax/ast.h"

namespace tack::frontend {

enum class FunctionRole { Kernel, DeviceFunction };

// Throws syntax::CompileError (ErrorKind::Unsupported) for the first
// unsupported construct in source order.
void validate(const syntax::FunctionDef& fn, FunctionRole role);

// The diagnostic for `construct` at `span` in `fn`, for rejections found
// later, during lowering.
syntax::Diagnostic make_diagnostic(syntax::ErrorKind kind, const syntax::FunctionDef& fn, FunctionRole role,
                                   syntax::Span span, std::string message, std::string construct = {},
                                   std::string hint = {});

}  // namespace tack::frontend
