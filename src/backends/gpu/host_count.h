// The iteration count of a launch, worked out on the host where the kernel
// lets it: every bound of the range, and every value the statements before
// the loop last assigned to a variable it reads, made of constants, integer
// scalar parameters, arrays' extents and such variables by casts, +, -, *,
// min and max (what else those statements compute is the device's). The
// C-family
// runtime then queues the body without running the count entry on the
// device and waiting for its answer: a launch costs one kernel on the
// device instead of two and a read, and a loop of launches queues ahead of
// the device instead of waiting on it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "backends/backend.h"
#include "codegen/launch_abi.h"
#include "ir/ir.h"
#include "support/byte_codec.h"

namespace tack::backends::gpu {

class HostCount {
public:
    // The plan for `typed`, or nullopt where the count needs the device (a
    // bound that reads or computes anything else, or reads a variable last
    // assigned something else or under a branch or loop; a statement before
    // the loop with an effect; a dimension of an unsigned type). A bound
    // reads a variable the prologue assigned as the program of the value it
    // last assigned, converted to the variable's type.
    static std::optional<HostCount> plan(const ir::Kernel& typed);

    // What the kernel's count entry gives for these arguments (`args`, one
    // per parameter): the count, or -1 with the refusal in *refusal. Nullopt
    // where a value on the way is not exact in its type (a sum past it, a
    // scalar or an extent past the loop variable's type): the device wraps
    // it as the kernel says, and the count comes from there.
    std::optional<int64_t> count(const LaunchArg* args, size_t n, codegen::LaunchRefusal* refusal) const;

    void write(support::ByteWriter& out) const;
    static std::optional<HostCount> read(support::ByteReader& in);

private:
    // A bound as a program for a stack of values, in postfix order: a
    // constant (its bits in `type`), a scalar parameter, an array
    // parameter's extent along `dim`; a conversion to `type`; or the sum,
    // difference, product, least or greatest of the two values on top, in
    // `type`. Every value must be exact in its type: where the device's
    // arithmetic would wrap, the host leaves the count to it.
    struct Step {
        enum class Op : uint8_t { Constant, Scalar, Extent, Cast, Add, Sub, Mul, Min, Max } op = Op::Constant;
        DType type = DType::I64;
        uint64_t bits = 0;  // Constant
        int param = -1;     // Scalar, Extent
        int dim = 0;        // Extent
    };
    using Bound = std::vector<Step>;
    // The most steps a bound has, its locals' programs included (a longer
    // one is left to the device): the launch evaluates bounds on a stack of
    // this many values, allocating nothing.
    static constexpr size_t kMaxSteps = 32;
    struct Dim {
        DType type = DType::I64;  // the loop variable's: the bounds convert to it
        Bound start, end, step;
        bool has_step = false;  // ndindex's dimensions step by one, unchecked
    };
    std::vector<Dim> dims_;

    // What the prologue has assigned each variable so far, indexed by
    // variable: `assigned` marks those it assigned, `program` holds the
    // value's program where the host follows it (a variable assigned a
    // value it does not follow has none: a bound that reads it leaves the
    // count to the device).
    struct Locals {
        std::vector<bool> assigned;
        std::vector<std::optional<Bound>> program;
    };
    static bool compile(const ir::Kernel& typed, const Locals& locals, const ir::Expr& e, Bound& out);
    static std::optional<int64_t> value(const Bound& b, const LaunchArg* args, size_t n, DType to);
};

}  // namespace tack::backends::gpu
