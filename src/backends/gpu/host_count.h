// The iteration count of a launch, worked out on the host where the kernel
// lets it: no statements before the parallel loop, and every bound of the
// range a constant, an integer scalar parameter or an array's extent
// (through casts). The C-family runtime then queues the body without
// running the count entry on the device and waiting for its answer: a
// launch costs one kernel on the device instead of two and a read, and a
// loop of launches queues ahead of the device instead of waiting on it.
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
    // The plan for `typed`, or nullopt where the count needs the device
    // (statements before the loop, a bound that reads anything else, a
    // dimension of an unsigned type).
    static std::optional<HostCount> plan(const ir::Kernel& typed);

    // What the kernel's count entry gives for these arguments (`args`, one
    // per parameter): the count, or -1 with the refusal in *refusal. Nullopt
    // where a value does not keep its value through a conversion on its way
    // (a scalar or an extent past the loop variable's type): the device
    // converts it as the kernel says, and the count comes from there.
    std::optional<int64_t> count(const LaunchArg* args, size_t n, codegen::LaunchRefusal* refusal) const;

    void write(support::ByteWriter& out) const;
    static std::optional<HostCount> read(support::ByteReader& in);

private:
    // A bound: a leaf (a constant's value, a scalar parameter, or an array
    // parameter's extent along `dim`) of type `type`, converted in turn to
    // each of `casts`.
    struct Bound {
        enum class Leaf : uint8_t { Constant, Scalar, Extent } leaf = Leaf::Constant;
        DType type = DType::I64;
        int64_t value = 0;  // Constant: the value (in `type`)
        int param = -1;     // Scalar, Extent
        int dim = 0;        // Extent
        std::vector<DType> casts;
    };
    struct Dim {
        DType type = DType::I64;  // the loop variable's: the bounds convert to it
        Bound start, end, step;
        bool has_step = false;  // ndindex's dimensions step by one, unchecked
    };
    std::vector<Dim> dims_;

    static std::optional<Bound> bound(const ir::Kernel& typed, const ir::Expr& e);
    static std::optional<int64_t> value(const Bound& b, const LaunchArg* args, size_t n, DType to);
};

}  // namespace tack::backends::gpu
