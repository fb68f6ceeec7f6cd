#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "frontend/resolver.h"

namespace tack::python {

class PyResolver : public frontend::Resolver {
public:
    explicit PyResolver(nb::object obj) : obj_(std::move(obj)) {}
    ~PyResolver() override {
        nb::gil_scoped_acquire gil;
        obj_.reset();
    }
    // The first answer for a path is kept: a kernel reads what its names
    // were bound to when it was first lowered, for every later variant too.
    frontend::Resolution resolve(const std::vector<std::string>& path) override;

private:
    frontend::Resolution lookup(const std::vector<std::string>& path);
    nb::object obj_;
    std::map<std::vector<std::string>, frontend::Resolution> memo_;
};

// A resolver's answer, a tuple from tack._resolver: ("func", ...),
// ("constant", value, dtype), ("dtype", name), ("other", description) ...
frontend::Resolution resolution_from(nb::handle answer);

std::shared_ptr<const syntax::Source> make_source(nb::handle text, nb::handle filename, int first_line, int indent);

}  // namespace tack::python
