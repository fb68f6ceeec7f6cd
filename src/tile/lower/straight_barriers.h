// The last pass of the lowering in workgroups: no barrier stays inside a
// branch.
//
// The emitter puts a region's barriers where its code stands, so a
// reduction's first step, a fold's remainder or a pipeline's last stage
// leaves barriers inside `if`s. Every such condition is uniform (the
// participation proof, analysis/uniformity.h, has passed before this pass
// runs), so the whole group takes the same branch, and the barriers can
// stand outside it: the condition is evaluated once into a variable, each
// branch is cut at its barriers, and the pieces between two cuts run under
// the variable with one barrier after them; a loop whose body has barriers
// moves out of the branch with the variable folded into its bounds (a
// `for`'s bounds become empty, a `while`'s condition is `taken and cond`).
// Nothing runs that did not run before and every piece runs in its order;
// only a branch not taken passes barriers it did not before, which the
// group passes together.
//
// Why: a work-group compiler that runs a group's lanes as loops on a CPU
// (PoCL) copies the code after each barrier in a branch for each way it
// can be reached, which grows exponentially with the branches a kernel
// has. Barriers in loops only (each loop once) keep it linear. GPUs run
// both forms alike. A kernel the pass changed is marked
// (ir::Kernel::barriers_out_of_branches): PoCL still builds it
// unoptimized, as it built it with its barriers in the branches, since its
// optimizer takes far longer on such code.
#pragma once

#include "ir/ir.h"

namespace tack::tile::lower {

// Rewrites the typed kernel's parallel body in place; the result is typed.
void straighten_barriers(ir::Kernel& kernel);

}  // namespace tack::tile::lower
