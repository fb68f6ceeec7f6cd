// Which values may differ between the lanes of a GPU workgroup, and whether
// every lane of a workgroup reaches each collective (tack.barrier and the
// block reductions) together: the participation proof of the contract's
// "Workgroups and synchronization". It is conservative; what it cannot
// prove is rejected, mathematically uniform expressions such as i // 256
// included.
//
// Values. Uniform: constants, scalar arguments (VarRole::Param), shape
// queries (ArrayDim), block reduction results, the outer parallel loop
// variables of a launch whose innermost dimension is exactly one group
// ([0, ir::kWorkgroupLanes) in steps of 1: each group then runs one value of
// each outer variable, as lowered tile kernels launch), and the pure
// operators (unary, binary, comparison, and/or, conditional expression,
// cast, math) over uniform operands. Varying: thread_id, the parallel loop
// variables (but those outer ones),
// every load (global, shared, local and texture memory alike) and every
// atomic's old value. A StmtExpr has its value's label: its statements
// reach the value only through the variables they assign, and those carry
// their own labels. A variable is varying when any assignment to it is
// varying or stands under varying control; a sequential loop variable when
// its bounds are varying, its loop stands under varying control, or some lanes
// may leave the loop early (they keep their last iteration's value). The
// labels are flow-insensitive (varying anywhere is varying everywhere) and
// iterate to a fixed point over the whole kernel, so a value assigned late
// in a loop body reaches the conditions evaluated on the next pass.
//
// Control. A statement is under varying control inside an `if` with a
// varying condition, a `while` with a varying condition, a `for` with
// varying bounds, or the body of a loop with a `break` or `continue` that
// only some of the lanes running the body may take (later iterations run
// with fewer lanes, so the whole body counts, the part before the exit
// included). A `continue` of the parallel loop itself that only some lanes
// take puts everything after it, to the end of the iteration, under varying
// control. Operands evaluated only on some paths (conditional expression
// arms, the right operand of and/or) are under varying control when their
// guard is varying. Branches and loops reconverge: after them control is
// what it was before.
//
// Participation fails, at the first offending collective in evaluation
// order (source order, except that a store's value comes before its
// indices), for a collective under varying control; for a block reduction
// in a conditional expression's arm, in the right operand of and/or, or in
// a `while` condition, however uniform the guard, since the generated code
// cannot keep its guarded or repeated evaluation; and for a collective in
// the prologue, the parallel loop's bounds, the epilogue or the returned
// value. Inlined device functions (StmtExpr) are checked where they stand.
// Shared arrays and thread_id need no participation.
//
// Runs on a typed kernel, before optimization.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tack::analysis {

struct Uniformity {
    std::vector<bool> varying_vars;  // per ir::Kernel::vars index: may differ between lanes of a workgroup
    // Per ir::Kernel::params index: arrays that every lane sees as one
    // memory and reads in lockstep with the others, so a load of them at
    // uniform indices is uniform (the CPU's SIMD lanes): parameter arrays,
    // textures, and local arrays that every lane stores the same values to
    // (shared local arrays, one copy for all lanes). Empty on GPUs, where
    // every load is varying.
    std::vector<bool> lockstep_arrays;
    bool varying(const ir::Expr& e) const;  // an expression's label under these variable labels
};

// Whether a loop body has a `break` or `continue` of that loop which only
// some of the lanes running the body may take (under a varying `if`).
bool has_partial_exit(const ir::Block& loop_body, const Uniformity& labels);

// The labels of the CPU's SIMD lanes (codegen/llvm, SPMD variant): the
// lanes of one group run consecutive iterations of the innermost parallel
// dimension, so its variable is varying and the outer dimensions' are
// uniform; loads of parameter arrays and textures follow their indices. A
// local array is shared by the lanes, and its loads follow their indices
// too, when every store to it is uniform: uniform indices and value, under
// uniform control (not after a `continue` some lanes took), and no atomic
// updates it; otherwise each lane has its own copy and its loads vary. The
// rest is the rule above, to the same fixed point.
Uniformity simd_lane_labels(const ir::Kernel& typed);

struct ParticipationFailure {
    std::string primitive;  // "barrier", "block_sum", "block_min", "block_max"
    ir::Span span;          // the primitive's position
    std::string reason;     // a sentence fragment: "under a condition that differs between lanes of a workgroup"
};

struct Participation {
    Uniformity labels;
    std::optional<ParticipationFailure> failure;  // the first, in source order; none when proven
    bool has_collectives = false;  // analysis::needs_complete_groups (workgroups.h)
};

Participation check_participation(const ir::Kernel& typed);

// check_participation, with a failure raised as the kernel's ValueError
// (syntax::ErrorKind::Value) naming the primitive at its source position.
// Every generator for a backend with workgroups calls it, and the driver
// before compiling.
void require_participation(const ir::Kernel& typed);

}  // namespace tack::analysis
