// The verifier states what a well-formed TileIR kernel may contain:
//   - every region holds exactly one block; loop bodies and combiners end in
//     `yield`, and `yield` appears nowhere else; `stage` sits directly in a
//     pipeline body;
//   - every operand is defined by an operation of this kernel that dominates
//     its use (earlier in an enclosing block), or is an argument of an
//     enclosing block; every use of a value belongs to this kernel;
//   - operand and result types follow each operation's typing rule;
//   - reduce merges satisfy the laws their policy needs, combiner regions
//     read nothing from outside, and reduce bodies write no memory.
// With a target, `parallel` exec constraints must also nest along the
// target's containment relation.
#pragma once

#include <optional>
#include <string>

#include "tack/tile/exec.h"
#include "tack/tile/ir.h"

namespace tack::tile {

// The first violation, as a sentence naming the operation and the operand
// (values numbered as print() numbers them), or nullopt if `kernel` is well
// formed.
std::optional<std::string> verify(const Kernel& kernel, const Target* target = nullptr);

}  // namespace tack::tile
