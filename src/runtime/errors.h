// Errors about call arguments, raised before anything runs. The binding
// maps them to TypeError, ValueError, IndexError, ZeroDivisionError,
// RuntimeError and tack.RaceError (debug mode's race detector); an
// allocation that fails is an OutOfMemory (MemoryError).
#pragma once

#include <cstddef>
#include <new>
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

// An array's storage that a device could not allocate: how much it asked
// for, as NumPy says it ("unable to allocate 4.0 GiB for an array"), then
// `where` (the device and why, for a device's memory). Every backend's
// allocation throws it, so Python sees one MemoryError.
class OutOfMemory : public std::bad_alloc {
public:
    explicit OutOfMemory(size_t bytes, const std::string& where = "");
    const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string message_;
};

}  // namespace tack::runtime
