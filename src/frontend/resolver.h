// Name resolution: what a global name or dotted path in a kernel refers to.
//
// The compiler never looks names up itself. The Python package implements
// Resolver over one function's globals and closure (module dictionaries only,
// never properties), so each device function resolves in its own defining
// namespace and no process-wide registry exists.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "syntax/source.h"
#include "tack/dtype.h"

namespace tack::frontend {

class Resolver;

// A @tack.func: its source and the resolver of its own defining namespace.
struct DeviceFunctionRef {
    std::string name;
    std::shared_ptr<const syntax::Source> source;
    std::shared_ptr<Resolver> resolver;
    uintptr_t identity = 0;  // the function object's identity, for recursion checks and caching
};

// The disk cache compares answers across processes by everything lowering
// reads from them (driver/disk_cache.cpp, fingerprint()): a new field that
// lowering reads must join that fingerprint.
struct Resolution {
    enum class Kind {
        Unbound,         // no such name: NameError
        DeviceFunction,  // a @tack.func
        Builtin,         // range, len, abs, min, max, pow, int, float, ndindex, math functions ...
        DType,           // tack.f32 ... : a cast
        Constant,        // math.pi, a tack.constant
        Module,          // a module (only as a prefix of a longer path)
        Other,           // a Python object Tack cannot use in a kernel
    };
    Kind kind = Kind::Unbound;
    std::string builtin;                 // Builtin: its canonical name ("sqrt", "range", ...)
    DType dtype = DType::I32;            // DType; Constant with a declared dtype
    bool has_dtype = false;              // Constant: declared with a dtype
    bool is_float = false;               // Constant
    double float_value = 0;              // Constant
    uint64_t int_bits = 0;               // Constant (two's complement)
    bool int_negative = false;           // Constant
    // A vector or matrix constant: its shape ({n} or {rows, cols}) and its
    // components, row-major, each a number Constant (with the dtype above).
    std::vector<int> shape;
    std::vector<Resolution> components;
    std::shared_ptr<DeviceFunctionRef> function;  // DeviceFunction
    std::string description;             // Other: what the object is, for the message
};

class Resolver {
public:
    virtual ~Resolver() = default;
    // Resolves a name (path of length 1) or a dotted path such as
    // {"math", "sqrt"} or {"mymodule", "helpers", "clamp"}.
    virtual Resolution resolve(const std::vector<std::string>& path) = 0;
};

}  // namespace tack::frontend
