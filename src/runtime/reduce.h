// Whole-array reductions on the CPU: every logical element of a view, in
// parallel, with the contract's accumulators ("Array and parallel
// reductions"): f32 sums in f32, f64 in f64, signed integers in i64 and
// unsigned in u64, wrapping modulo 2^64. Results are the value the Python
// methods return, as a double.
//
// The row-major element order is cut into contiguous chunks, a few per
// worker of the runtime's parallel_for, each reduced into its own partial;
// partials combine in chunk order. Floating sums keep
// several independent lanes (so the loop vectorizes without reassociating
// any one accumulator) over blocks whose sums combine pairwise, which keeps
// the error near NumPy's pairwise summation and inside the contract's
// gamma_n budget for any grouping.
#pragma once

#include "runtime/array.h"

namespace tack::runtime {

// +0.0 for an empty array, without reading storage.
double array_sum(const Array& a);
// NaN if any element is NaN; zero ties prefer -0.0 (min) and +0.0 (max).
// Throw std::invalid_argument for an empty array.
double array_min(const Array& a);
double array_max(const Array& a);

}  // namespace tack::runtime
