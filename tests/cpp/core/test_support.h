// Compiles kernel source text in tests without Python: names resolve to
// Python's builtins, `math` and `tack`, and @tack.func functions given by
// the test.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "driver/pipeline.h"
#include "frontend/resolver.h"
#include "ir/ir.h"

namespace tack::testing {

class TestResolver : public frontend::Resolver {
public:
    std::map<std::string, std::string> device_functions;  // name -> source
    frontend::Resolution resolve(const std::vector<std::string>& path) override;
};

std::shared_ptr<const syntax::Source> source(const std::string& text);

// Lowers `text` for the given parameter facts and settles types.
std::unique_ptr<ir::Kernel> typed_kernel(const std::string& text, const std::vector<driver::ParamFacts>& params,
                                         std::shared_ptr<TestResolver> resolver = nullptr);

driver::ParamFacts array_of(DType t, int ndim = 1);
driver::ParamFacts scalar_of(DType t);

}  // namespace tack::testing
