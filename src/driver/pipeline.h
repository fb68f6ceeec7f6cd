// The compiler pipeline, as a script: source -> syntax tree -> kernel IR
// template -> typed variant, which a backend compiles. `tackc --ir` and
// inspect("ir") print the IR after each pass through the observer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "frontend/lower.h"
#include "ir/ir.h"
#include "syntax/ast.h"

namespace tack::driver {

using PassObserver = std::function<void(const char* pass, const ir::Kernel& k)>;

// Lowering: validation, resolution, inlining, iteration-state localization.
// The template is cached and never mutated afterwards.
std::unique_ptr<ir::Kernel> build_template(const syntax::FunctionDef& fn, std::shared_ptr<frontend::Resolver> resolver,
                                           const std::vector<frontend::ParamShape>& shapes,
                                           const PassObserver& observe = {});

// The facts a variant bakes in about one parameter.
struct ParamFacts {
    bool is_array = false;  // a kernel parameter that is an array (local arrays are not parameters)
    DType dtype = DType::I32;
    int ndim = 0;
    bool contiguous = true;
    std::vector<int> element_shape;  // arrays of vector or matrix elements
    bool soa = false;                // their layout: a structure of arrays
    bool texture = false;            // a 3D texture's f32 snapshot, (depth, height, width)
    bool image = false;              // and sampled as a hardware image (Capabilities::images)
};

// A typed copy of the template for these argument facts.
std::unique_ptr<ir::Kernel> specialize(const ir::Kernel& tmpl, const std::vector<ParamFacts>& params,
                                       DType float_precision, const PassObserver& observe = {});


// Refuses, before anything compiles, a kernel that needs what `backend`
// does not have: workgroup primitives where it has no workgroups. The
// diagnostic names the kernel, the backend and the first primitive, at its
// source position. On a backend with workgroups, the kernel's collectives
// must pass the participation proof (analysis/uniformity.h).
void check_supported(const ir::Kernel& k, const backends::Backend& backend);
// The same for a typed variant's dtypes: f64 where the device has none.
void check_supported_types(const ir::Kernel& typed, const backends::Backend& backend);

}  // namespace tack::driver
