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

#include "codegen/launch_abi.h"

namespace tack::codegen {

struct ArrayArg {
    char* data;
    int64_t shape[kMaxDims];
    int64_t strides[kMaxDims];
    int64_t component_stride;
};

// Runs the prologue and returns the number of parallel iterations (0 when
// the interval is empty or reversed), or -1 after filling `refusal`.
using CountFn = int64_t (*)(void** args, LaunchRefusal* refusal);
// Runs parallel iterations [begin, end) of the flat iteration space.
using BodyFn = void (*)(void** args, int64_t begin, int64_t end);
// Runs the prologue and epilogue once and stores the return value to `out`.
using ResultFn = void (*)(void** args, void* out);

}  // namespace tack::codegen
