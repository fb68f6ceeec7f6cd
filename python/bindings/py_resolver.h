#pragma once

#include <memory>

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
    frontend::Resolution resolve(const std::vector<std::string>& path) override;

private:
    nb::object obj_;
};

std::shared_ptr<const syntax::Source> make_source(nb::handle text, nb::handle filename, int first_line, int indent);

}  // namespace tack::python
