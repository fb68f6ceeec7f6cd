// Name resolution for tackc, which runs without Python: `math` and the
// `tack` module (under any alias it is imported as), Python's builtins, and
// @tack.func functions defined at the top level of the same file.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "frontend/resolver.h"

namespace tack::tools {

struct FileFunctions {
    std::map<std::string, std::shared_ptr<const syntax::Source>> device_functions;
    std::map<std::string, std::shared_ptr<const syntax::Source>> kernels;
    std::vector<std::string> kernel_order;
    std::set<std::string> tack_aliases{"tack"};
};

// Splits a file into its top-level function definitions.
FileFunctions scan_file(const std::string& text, const std::string& filename);

class StaticResolver : public frontend::Resolver {
public:
    explicit StaticResolver(std::shared_ptr<const FileFunctions> file) : file_(std::move(file)) {}
    frontend::Resolution resolve(const std::vector<std::string>& path) override;

private:
    std::shared_ptr<const FileFunctions> file_;
};

}  // namespace tack::tools
