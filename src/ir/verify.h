// States what the IR may contain at each stage and rejects anything else,
// naming the node. Runs at every pass boundary of the pipeline.
#pragma once

#include "ir/ir.h"

namespace tack::ir {

enum class Stage {
    Lowered,  // untyped: references valid, loop control inside loops
    Typed,    // additionally: every expression typed, operands agree with their operation
};

// Throws an internal error naming `after_pass` and the offending node.
void verify(const Kernel& k, Stage stage, const char* after_pass);

}  // namespace tack::ir
