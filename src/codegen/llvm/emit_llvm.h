// Emits LLVM IR for one typed kernel variant.
//
// Each variant becomes a module with three entry points (see abi.h): count,
// body and, for kernels that return a value, result (with lanes, the scalar
// program beside the body may be a module of its own: ScalarBodyModule).
// Locals live in allocas that mem2reg promotes. No instruction carries
// fast-math flags, the kernel's integer arithmetic carries no nsw/nuw (it
// wraps at its width; the counter of a loop over a tile's elements, below
// its constant count, does), and array accesses claim alignment 1.
#pragma once

#include <memory>
#include <string>

#include "codegen/debug_access.h"
#include "ir/ir.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tack::codegen {

struct EntryNames {
    std::string count, body, result;
};

struct EmitOptions {
    // Check every index against its extent and report the first failure
    // through the debug state pointer that follows the arguments.
    bool debug = false;
    // Debug mode's race detector: report each access inside the parallel
    // loop to an array the kernel writes (tack_rt_race_access). Needs
    // `debug` and the scalar program (lanes 1).
    bool races = false;
    // Promise that array parameters do not alias one another (the
    // disjoint-storage variant).
    bool noalias = false;
    // Iterations per SIMD group of the body (emit_lanes.cpp); 1 is the
    // scalar program.
    int lanes = 1;
    // Lane groups per turn of the group loop for a body without control
    // flow (LanePlan::straight_groups).
    int straight_groups = 2;
    // Keep the lanes even where the scalar program would run faster
    // (lane_cost.h).
    bool always_lanes = false;
};

// The lanes of a kernel's SPMD body on a host whose SIMD registers are
// `vector_bits` wide: two registers of the widest type the body computes
// values in, at most 16. A plan of 1 lane runs the scalar program, and says
// why.
struct LanePlan {
    int lanes = 1;
    std::string why_scalar;
    // A body without control flow runs this many groups per turn of its
    // loop: four registers' worth of each value, as LLVM's loop vectorizer
    // interleaves the scalar program's loop four vectors deep, so that a
    // memory-bound body keeps as many loads in flight.
    int straight_groups = 2;
};
LanePlan plan_lanes(const ir::Kernel& k, int vector_bits);

// With lanes, the scalar program that runs what does not fill a group of
// lanes is a function of the module (internal), or, where the caller gives
// a ScalarBodyModule, the one function of a module of its own in that
// context, which the module's lanes body calls by name: the two then
// optimize and compile side by side (jit_compile), the scalar program
// being about as large as the lanes body. `module` stays empty where the
// body is the scalar program.
struct ScalarBodyModule {
    llvm::LLVMContext* context = nullptr;
    std::unique_ptr<llvm::Module> module;
};

// `symbol_prefix` must be unique within the JIT; user names never reach
// symbol names, so any identifier is safe. With lanes, the body is the
// scalar program where the lanes would not pay (unless always_lanes);
// `chosen`, when given, receives the lanes the module runs, or why it runs
// the scalar program.
std::unique_ptr<llvm::Module> emit_llvm(const ir::Kernel& k, llvm::LLVMContext& ctx, const std::string& symbol_prefix,
                                        const EmitOptions& options, EntryNames* names,
                                        std::vector<DebugAccess>* debug_accesses = nullptr,
                                        LanePlan* chosen = nullptr, ScalarBodyModule* apart = nullptr);

}  // namespace tack::codegen
