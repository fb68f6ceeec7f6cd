// Errors about call arguments, raised before anything runs. The binding
// maps them to TypeError, ValueError, IndexError, ZeroDivisionError,
// RuntimeError and tack.RaceError (debug mode's race detector).
#pragma once

#include <stdexcept>
#include <string>

namespace tack::runtime {

class ArgumentError : public std::runtime_error {
public:
    enum class Kind { Type, Value, Index, ZeroDivision, Runtime, Race };
    ArgumentError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

}  // namespace tack::runtime
