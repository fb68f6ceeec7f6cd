#include "tile/lower/launch_nest.h"

#include "tack/tile/printer.h"


namespace tack::tile::lower {

bool writes_memory(const Operation& op) {
  bool writes = false;
  const_cast<Operation&>(op).walk([&](Operation& inner) { writes = writes || inner.kind() == OpKind::store; });
  return writes;
}

namespace {

// Defined by the prologue: a kernel-level value, or a pure scalar chain over
// such values inside the nest.
bool prologue_computable(const Value* v, const Operation* root) {
  const Operation* def = v->defining_op();
  if (!def) return v->owner_block()->parent_op() == nullptr;  // a kernel parameter
  if (!root->is_ancestor_of(def)) return true;
  if (!is_pure_scalar(*def)) return false;
  for (unsigned i = 0; i < def->num_operands(); ++i)
    if (!prologue_computable(def->operand(i), root)) return false;
  return true;
}

// Whether the parallel op `inner`, directly in the body of `outer`, joins the
// launch's iteration space.
bool joins_nest(const Operation& outer, const Operation& inner, const Operation* root) {
  if (!prologue_computable(inner.operand(0), root)) return false;
  bool after = false;
  for (const Operation& op : outer.region(0).block(0)) {
    if (&op == &inner) {
      after = true;
      continue;
    }
    if (op.kind() == OpKind::yield) continue;
    // The prefix runs once per inner iteration: only plain operations, so
    // no region's work (a reduction, say) is repeated.
    if (!after && (writes_memory(op) || op.num_regions() > 0)) return false;
    if (after && (writes_memory(op) || op.has_result_uses() || op.num_regions() > 0)) return false;
  }
  return true;
}

}  // namespace

bool is_pure_scalar(const Operation& op) {
  if (op.num_results() != 1 || !op.result()->type().is_scalar() || op.num_regions() > 0) return false;
  switch (op_format(op.kind())) {
    case OpFormat::constant:
    case OpFormat::unary:
    case OpFormat::binary:
    case OpFormat::compare: return true;
    default: break;
  }
  return op.kind() == OpKind::dim || op.kind() == OpKind::cast || op.kind() == OpKind::select;
}

LaunchNest find_launch_nest(const Kernel& kernel) {
  LaunchNest nest;
  for (const Operation& op : kernel.body()) {
    if (op.kind() == OpKind::parallel && nest.levels.empty()) {
      nest.levels.push_back(&op);
      continue;
    }
    // Anything else at the top level (a second parallel region, memory
    // effects, serial or reduce regions): the whole body runs as one
    // iteration.
    if (op.kind() == OpKind::parallel || !is_pure_scalar(op)) return LaunchNest{};
    nest.prologue.push_back(&op);
  }
  if (nest.levels.empty()) return LaunchNest{};
  const Operation* root = nest.levels[0];
  for (;;) {
    const Operation& outer = *nest.levels.back();
    const Operation* inner = nullptr;
    for (const Operation& op : outer.region(0).block(0))
      if (op.kind() == OpKind::parallel) {
        if (inner) {
          inner = nullptr;  // two inner regions: the nest ends here
          break;
        }
        inner = &op;
      }
    if (!inner || !joins_nest(outer, *inner, root)) break;
    nest.levels.push_back(inner);
  }
  return nest;
}

std::string describe(const Kernel& kernel, const LaunchNest& nest) {
  ValueNames names(kernel);
  if (nest.levels.empty())
    return "; launch: one iteration running the whole body (its top level is not pure scalars around one parallel "
           "region)\n";
  std::string out = "; launch: " + std::to_string(nest.levels.size()) + "-dimensional iteration space over";
  for (const Operation* level : nest.levels)
    out += " parallel " + names(level->region(0).block(0).argument(0)) + " < " + names(level->operand(0));
  out += "\n; prologue:";
  if (nest.prologue.empty()) out += " (empty)";
  for (const Operation* op : nest.prologue) out += " " + names(op->result());
  out += "\n; inner parallel, serial and pipeline regions run as sequential loops\n";
  return out;
}

}  // namespace tack::tile::lower
