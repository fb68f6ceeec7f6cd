// Capture finishes by putting every block in a canonical order.
#pragma once

#include "tack/tile/ir.h"

namespace tack::tile::detail {

// C++ leaves the evaluation order of operands unspecified, so the order in
// which capture records pure operations (index arithmetic, constants,
// broadcasts, views, lifted elementwise ops) depends on the compiler. This
// pass keeps loads, stores, regions and stage cuts in their recorded order and
// places each pure operation just before its first user, operands first and
// left to right; pure operations nobody uses are erased. Stage cuts are
// barriers: what was computed before a cut stays before it. The extents of
// parameters lead the kernel, ordered by parameter and axis.
//
// Preconditions: the kernel verifies. Postcondition: it still verifies and
// computes the same thing; recapturing under another compiler gives the same
// text unless two loads or regions share one unsequenced expression.
void order_canonically(Kernel& kernel);

}  // namespace tack::tile::detail
