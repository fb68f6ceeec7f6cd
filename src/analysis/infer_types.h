// Settles the type of every expression and local of one variant.
//
// Runs on a variant's copy of the kernel after its parameter dtypes are
// filled in. Implements the contract's rules: integer promotion to the
// narrowest type holding both ranges (signed with u64 is an error), true
// division to f32, integer power in the base's type, weak float literals
// (NEP 50) taking the floating type they meet, and one storage type per
// local from the join of its assignments. Afterwards every implicit
// conversion is an explicit ir::Cast, so emitters never re-derive a type.
#pragma once

#include "ir/ir.h"

namespace tack::analysis {

// `float_precision` is the type weak literals take when nothing decides
// (f64 when an f64 array argument is present, otherwise f32).
void infer_types(ir::Kernel& k, DType float_precision);

// The narrowest integer type holding both ranges; nullopt for a signed type
// with u64.
std::optional<DType> promote_int(DType a, DType b);

}  // namespace tack::analysis
