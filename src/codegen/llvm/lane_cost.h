// Whether an SPMD body is worth its lanes.
//
// Lanes pay for what one vector instruction does for every lane: W lanes
// of arithmetic, comparisons and consecutive loads and stores cost about
// one iteration's worth. What runs lane by lane costs the scalar program's
// work and then some: the lanes' operands are taken out of their vectors
// and their results put back, and the scalar program's loop, which LLVM may
// vectorize itself, has none of that. A body whose work is mostly lane by
// lane (C library calls, gathers, atomics) runs faster as the scalar
// program; the CPU backend then compiles that instead (tack.set_cpu_spmd
// ("always") keeps the lanes).
#pragma once

#include <optional>
#include <string>

namespace tack::codegen {

// An SPMD body's work, counted by the emitter as it emits the body (each
// operation once per enclosing sequential loop multiplied by kLoopWeight).
struct LaneWork {
    static constexpr double kLoopWeight = 8;
    // Operations on varying values that one instruction does for every
    // lane: arithmetic, comparisons, conversions, consecutive accesses.
    double in_vectors = 0;
    // Lane by lane: C library calls, powers, per-lane trip counts.
    double calls = 0;
    // Integer divisions lane by lane: by a divisor known only at run
    // time, or by a 64-bit constant.
    double divisions = 0;
    // Accesses whose lanes' elements are not known to be consecutive:
    // gathers and scatters, and those checked for consecutiveness at run
    // time.
    double scattered = 0;
    // Atomics and print, one active lane after another.
    double serial = 0;
};

// Why the scalar program would run `work` faster than `lanes` lanes do, or
// nothing when the lanes pay. The weights were measured with
// bench/lanes_choice.py (docs/performance.md).
std::optional<std::string> why_lanes_do_not_pay(const LaneWork& work, int lanes);

}  // namespace tack::codegen
