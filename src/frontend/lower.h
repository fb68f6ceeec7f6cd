// Lowers a validated syntax tree to kernel IR: resolves names, inlines
// device functions, shapes the parallel loop and fixes evaluation order with
// explicit temporaries. The result is untyped; analysis/infer_types settles
// types per variant.
#pragma once

#include <memory>
#include <vector>

#include "frontend/resolver.h"
#include "frontend/template.h"
#include "ir/ir.h"
#include "syntax/ast.h"

namespace tack::frontend {

// What lowering needs to know of each argument: arrays and scalars lower to
// different IR, and an array's rank decides how subscripts read. A
// device-class instance is a marker (`object` set) followed by the shapes of
// its leaves.
struct ParamShape {
    bool is_array = false;
    int ndim = 0;
    const TemplateInfo* object = nullptr;  // lives as long as the process
};

// Throws syntax::CompileError with the kernel or device function and the
// source position of the first problem.
std::unique_ptr<ir::Kernel> lower_kernel(const syntax::FunctionDef& fn, std::shared_ptr<Resolver> resolver,
                                         const std::vector<ParamShape>& params);

}  // namespace tack::frontend
