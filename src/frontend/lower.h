// Lowers a validated syntax tree to kernel IR: resolves names, inlines
// device functions, shapes the parallel loop and fixes evaluation order with
// explicit temporaries. The result is untyped; analysis/infer_types settles
// types per variant.
#pragma once

#include <compare>
#include <memory>
#include <vector>

#include "frontend/resolver.h"
#include "frontend/template.h"
#include "ir/ir.h"
#include "syntax/ast.h"

namespace tack::frontend {

// What lowering needs to know of each argument: arrays and scalars lower to
// different IR, an array's rank decides how subscripts read, and its element
// shape ({n} for vectors, {rows, cols} for matrices, empty for numbers) and
// layout decide what an element is and which atomics it takes. A
// device-class instance is a marker (`object` set) followed by the shapes of
// its leaves.
struct ParamShape {
    bool is_array = false;
    int ndim = 0;
    std::vector<int> element_shape;
    bool soa = false;
    bool texture = false;  // a texture argument: sampled, never indexed or written
    bool image = false;    // and sampled by the device's texture hardware, not in code
    const TemplateInfo* object = nullptr;  // lives as long as the process

    auto operator<=>(const ParamShape&) const = default;
};

// Throws syntax::CompileError with the kernel or device function and the
// source position of the first problem.
std::unique_ptr<ir::Kernel> lower_kernel(const syntax::FunctionDef& fn, std::shared_ptr<Resolver> resolver,
                                         const std::vector<ParamShape>& params);

}  // namespace tack::frontend
