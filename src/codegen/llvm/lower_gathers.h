// Masked gathers and scatters that the target has no instruction for,
// rewritten as one scalar access per lane without a branch.
//
// The SPMD body (emit_lanes.cpp) loads and stores at lanes' addresses that
// are not consecutive with llvm.masked.gather and llvm.masked.scatter,
// which the optimizer sees as one operation each. Where the host cannot
// gather in hardware (AVX2 on most AMD CPUs, by LLVM's cost model), LLVM's
// code generator would expand each into a test and a branch per lane,
// multiplying the blocks of a branchy body by the lanes and its compile
// time with them. Run after the optimizer, lower_gathers expands them
// itself instead: lane by lane in lane order, an inactive lane's access
// going to a slot of the function's own, so the lanes load and store what
// the intrinsics would and no lane outside the mask touches memory it does
// not own. Gathers and scatters the host does in hardware (AVX-512) stay.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tack::codegen {

void lower_gathers(llvm::Module& m, llvm::TargetMachine& tm);

}  // namespace tack::codegen
