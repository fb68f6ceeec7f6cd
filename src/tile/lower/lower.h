// Lowering TileIR to Tack's kernel IR, the input of every backend's code
// generator. Passes, one per file:
//   launch_nest   the outermost parallel nest becomes the launch's iteration
//                 space, the kernel-level scalars its prologue;
//   emitter       tiles, views, regions and reductions become kernel IR
//                 (emitter.h lists its parts; a pipeline's schedule comes
//                 from pipeline_schedule.h);
// then the kernel IR's own type pass settles every expression's type and its
// verifier checks the result; in workgroups, after the participation proof,
//   straight_barriers  takes every barrier out of the branches around it. Anything without a lowering fails closed with
// an Error naming the kernel and the operation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "tack/tile/compile.h"
#include "tack/tile/ir.h"

namespace tack::tile::lower {

// The typed kernel IR of `kernel` for `target`: parameter i is the
// kernel's view i (an array of any strides; i1 elements as u8), local and
// shared arrays follow. `options` choose among equivalent lowerings.
struct Lowered {
  std::unique_ptr<ir::Kernel> kernel;
  bool workgroups = false;  // each nest iteration runs in one workgroup (emitter.h, "Workgroups")
  std::string plan;         // comment lines: how it runs (and why not in workgroups where it does not), and its binding
};
Lowered lower(const Kernel& kernel, const CompileOptions& options, const LoweringTarget& target);

// The CPU's lowering (a target without workgroups).
std::unique_ptr<ir::Kernel> lower_to_kernel_ir(const Kernel& kernel, const CompileOptions& options = {});

// The integer `v` is where a `constant` operation defines it.
std::optional<int64_t> constant_integer(const Value* v);
// The region (a loop operation) whose index `v` is, or null.
const Operation* region_of_index(const Value* v);

// A reshape's axes in groups of equal extent products: result axes
// [to_begin, to_end) hold the same elements as source axes [from_begin,
// from_end), row-major. A group of one axis on each side is that axis; of
// one source axis, a merge; of one result axis, a split. Axes of extent 1
// left over go to the last group; an empty tile is one group.
struct AxisGroup {
  int to_begin, to_end, from_begin, from_end;
};
std::vector<AxisGroup> reshape_groups(const Shape& to, const Shape& from);

// The dtype a tensor of `s` elements has in memory, as the lowered
// kernel's parameters declare it (i1 as u8).
DType memory_dtype(Scalar s);

}  // namespace tack::tile::lower
