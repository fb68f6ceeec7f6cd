// The calling convention between the runtime and compiled CPU kernels.
//
// Every entry point takes `void** args`, one pointer per kernel parameter:
// to an ArrayArg for an array, to the value (of the parameter's dtype) for a
// scalar. Extents count elements; strides count scalars of the dtype, so an
// element of an interleaved vec3 array is 3 apart from the next. Component k
// of an element lies k * component_stride scalars past its first: 1 when
// interleaved, the array's element count for a structure of arrays. Array
// data promise only byte alignment.
#pragma once

#include <cstdint>

namespace tack::codegen {

inline constexpr int kMaxDims = 8;

struct ArrayArg {
    char* data;
    int64_t shape[kMaxDims];
    int64_t strides[kMaxDims];
    int64_t component_stride;
};

// Why count() refused a launch: a parallel range whose step is not
// positive, or more iterations than the 64-bit flat index counts. Every
// field is 64 bits wide, so generated code addresses them as words.
struct LaunchRefusal {
    enum Reason : int64_t { None = 0, StepNotPositive = 1, TooManyIterations = 2 };
    int64_t reason = None;
    int64_t dim = 0;                // StepNotPositive: the dimension, and its step
    int64_t step = 0;
    int64_t ndims = 0;              // TooManyIterations: each dimension's trip count,
    uint64_t counts[kMaxDims][2]{};  // low and high 64 bits
};
static_assert(sizeof(LaunchRefusal) == (4 + 2 * kMaxDims) * sizeof(int64_t));

// Runs the prologue and returns the number of parallel iterations (0 when
// the interval is empty or reversed), or -1 after filling `refusal`.
using CountFn = int64_t (*)(void** args, LaunchRefusal* refusal);
// Runs parallel iterations [begin, end) of the flat iteration space.
using BodyFn = void (*)(void** args, int64_t begin, int64_t end);
// Runs the prologue and epilogue once and stores the return value to `out`.
using ResultFn = void (*)(void** args, void* out);

}  // namespace tack::codegen
