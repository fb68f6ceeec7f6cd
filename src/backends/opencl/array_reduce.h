// Array.sum/min/max of f32 arrays on the OpenCL device: 256-lane trees in
// each work group, whose partials combine into one value with an atomic
// compare-and-swap on its bits (contract, "Array and parallel
// reductions"). Other dtypes and strided views take the runtime's host
// reduction.
#pragma once

#include <optional>

#include "backends/backend.h"
#include "backends/opencl/device.h"

namespace tack::backends::opencl {

// The reduction of `a` (a view of scalars), or nothing when it is not an
// f32 array with contiguous elements. `a` must not be empty.
std::optional<double> reduce_on_device(ClDevice& device, const ClBuffer& storage, const runtime::Array& a,
                                       ReduceOp op);

}  // namespace tack::backends::opencl
