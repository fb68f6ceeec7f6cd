// The SPMD body's masks kept as wide as the host's compare results, on a
// host without mask registers.
//
// The SPMD body (emit_lanes.cpp) computes its active lanes as <W x i1>
// values: compares, their and/or/xor, selects between masks, and phis that
// carry them around loops. AVX-512 holds those in mask registers. AVX2 has
// none: a vector compare yields lanes of the compared type's width, and
// LLVM's code generator keeps a <16 x i1> in the narrowest vector with 16
// lanes, bytes, so every turn of a loop narrows the compare results into
// bytes and widens them again for each select (about 20 of the 53
// instructions of Mandelbrot's escape loop). widen_masks, run after the
// optimizer (which would narrow them again), rewrites the masks' and/or/
// xor, selects and phis to work on <W x iM>, M such that W lanes fill two
// of the host's vector registers (32 bits for 16 lanes on AVX2): a compare
// enters sign-extended, and a use that needs the <W x i1> (a select's or a
// masked access's mask, a test for any lane) reads the sign. The lanes'
// values are unchanged; only their representation is.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tack::codegen {

void widen_masks(llvm::Module& m, llvm::TargetMachine& tm);

}  // namespace tack::codegen
