// Kernels for the C-family printer's tests: source text lowered and typed
// without Python, with the builtins the printer's tests reach (atomics,
// local arrays, print, math functions) resolved.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../core/test_support.h"
#include "codegen/cfamily/emit_c.h"

namespace tack::testing {

class CodegenResolver : public TestResolver {
public:
    frontend::Resolution resolve(const std::vector<std::string>& path) override;
};

// `text` lowered and typed for `params`, with CodegenResolver.
std::unique_ptr<ir::Kernel> codegen_kernel(const std::string& text, const std::vector<driver::ParamFacts>& params);

// A kernel that reaches every IR node and, over its arrays, every dtype;
// the compile checks print it for each dialect.
struct SampleKernel {
    std::string name;
    std::string text;
    std::vector<driver::ParamFacts> params;
    bool f64 = false;        // needs a target with f64
    bool atomics64 = false;  // needs 64-bit atomics
    bool images = false;     // needs hardware textures
};
std::vector<SampleKernel> sample_kernels();

}  // namespace tack::testing
