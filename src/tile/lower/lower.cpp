#include "tile/lower/lower.h"

#include <algorithm>
#include <optional>

#include "analysis/infer_types.h"
#include "analysis/uniformity.h"
#include "ir/verify.h"
#include "tack/tile/exec.h"
#include "tack/tile/printer.h"
#include "tack/tile/verifier.h"
#include "tile/lower/emitter.h"
#include "tile/lower/exec_binding.h"
#include "tile/lower/launch_nest.h"
#include "tile/lower/straight_barriers.h"

namespace tack::tile::lower {

namespace {

std::unique_ptr<ir::Kernel> emit(const Kernel& kernel, const LaunchNest& nest, const ExecBinding& binding,
                                 const CompileOptions& options, const LoweringTarget& target, std::string& notes) {
  Emitter emitter(kernel, options, target);
  std::unique_ptr<ir::Kernel> k = emitter.run(nest, binding);
  notes = emitter.notes();
  ir::verify(*k, ir::Stage::Lowered, "lower_tile");
  // Every constant is cast to its type, so no literal is weak and the
  // fallback precision decides nothing.
  analysis::infer_types(*k, DType::F32);
  ir::verify(*k, ir::Stage::Typed, "lower_tile");
  return k;
}

// A parallel region bound to a warp. In workgroups a region runs on all of
// a group's lanes together, or bound to exec::thread an iteration per lane;
// one bound to a warp would need a warp's lanes to itself, with barriers
// of their own, which the lowering does not give yet, so such a kernel
// runs one iteration per lane.
const Operation* bound_to_warps(const Kernel& kernel) {
  const Operation* found = nullptr;
  kernel.walk([&](Operation& op) {
    if (!found && op.kind() == OpKind::parallel && op.attrs().name == "warp") found = &op;
  });
  return found;
}

bool bound_to_threads(const Operation& op) { return op.attrs().name == "thread"; }

// The launch nest in workgroups: the levels above the first one bound to
// exec::thread, whose iterations the group's lanes take instead, one each
// (emit_regions.cpp).
LaunchNest above_threads(LaunchNest nest) {
  for (size_t l = 0; l < nest.levels.size(); ++l)
    if (bound_to_threads(*nest.levels[l])) {
      nest.levels.resize(l);
      break;
    }
  return nest;
}

const tile::Target& gpu_levels() {
  static const tile::Target levels = tile::Target::gpu();
  return levels;
}

// The elements of the kernel's largest tile.
int64_t largest_tile(const Kernel& kernel) {
  int64_t largest = 0;
  kernel.walk([&](Operation& op) {
    for (unsigned r = 0; r < op.num_results(); ++r)
      if (const Type& t = op.result(r)->type(); t.rank() > 0) largest = std::max(largest, t.shape().num_elements());
  });
  return largest;
}

}  // namespace

Lowered lower(const Kernel& kernel, const CompileOptions& options, const LoweringTarget& target) {
  if (auto problem = verify(kernel)) throw Error("compile @" + kernel.name() + ": the kernel is malformed: " + *problem);
  // On a target with workgroups, parallel regions bound to execution
  // levels must nest as the GPU's levels contain each other (exec.h).
  if (target.workgroup_lanes > 0)
    if (auto problem = verify(kernel, &gpu_levels()))
      throw Error("compile @" + kernel.name() + ": its execution bindings do not fit a GPU's levels: " + *problem);
  LaunchNest nest = find_launch_nest(kernel);
  const ExecBinding binding = bind_nest(kernel, nest, options);
  Lowered out;
  std::string why_not, notes;
  std::optional<ExecBinding> group_binding;
  if (target.workgroup_lanes <= 0) {
    why_not = "the target has no workgroups";
  } else if (options.workgroups == CompileOptions::Workgroups::never) {
    why_not = "CompileOptions::workgroups is never";
  } else if (int64_t largest = largest_tile(kernel);
             options.workgroups == CompileOptions::Workgroups::fill && largest < target.workgroup_lanes) {
    why_not = largest == 0 ? std::string("it has no tiles for a group's lanes to share")
                           : "its largest tile has " + std::to_string(largest) + " elements, fewer than a group's " +
                                 std::to_string(target.workgroup_lanes) + " lanes";
  } else if (const Operation* op = bound_to_warps(kernel)) {
    why_not = ValueNames(kernel).describe(*op) + " is bound to exec::" + op->attrs().name;
  } else if (!nest.levels.empty() && bound_to_threads(*nest.levels[0])) {
    why_not = "the launch nest's outermost level, 'parallel' " +
              ValueNames(kernel)(nest.levels[0]->region(0).block(0).argument(0)) + ", is bound to exec::thread";
  } else {
    try {
      const LaunchNest groups = above_threads(nest);
      group_binding.emplace(bind_nest(kernel, groups, options));
      out.kernel = emit(kernel, groups, *group_binding, options, target, notes);
      if (auto failure = analysis::check_participation(*out.kernel).failure) {
        why_not = "a barrier would be " + failure->reason;
        out.kernel.reset();
      } else {
        straighten_barriers(*out.kernel);
        ir::verify(*out.kernel, ir::Stage::Typed, "lower_tile");
      }
    } catch (const NoWorkgroupFit& e) {
      why_not = e.why;
    }
  }
  if (out.kernel) {
    out.workgroups = true;
    out.plan = "; in workgroups: one group of " + std::to_string(target.workgroup_lanes) +
               " lanes per iteration of the launch nest, tiles in " +
               std::to_string(ir::shared_scratch_bytes(*out.kernel)) + " of its " +
               std::to_string(target.shared_bytes) + " bytes of shared memory\n" + describe(*group_binding) + notes;
    return out;
  }
  out.kernel = emit(kernel, nest, binding, options, LoweringTarget{}, notes);
  out.plan = "; one iteration per lane, tiles private: " + why_not + "\n" + describe(binding) + notes;
  return out;
}

std::unique_ptr<ir::Kernel> lower_to_kernel_ir(const Kernel& kernel, const CompileOptions& options) {
  return lower(kernel, options, LoweringTarget{}).kernel;
}

}  // namespace tack::tile::lower
