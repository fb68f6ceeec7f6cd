#include "tile/lower/lane_tiles.h"

#include "tile/lower/lower.h"

namespace tack::tile::lower {

bool writes_by_element(const Operation& op) {
  switch (op_format(op.kind())) {
    case OpFormat::unary:
    case OpFormat::binary:
    case OpFormat::compare: return true;
    default: break;
  }
  switch (op.kind()) {
    case OpKind::select:
    case OpKind::cast:
    case OpKind::iota:
    case OpKind::broadcast:
    case OpKind::reshape:
    case OpKind::extract:
    case OpKind::load: return true;
    default: return false;
  }
}

namespace {

// Whether every operation of `block` (its yield aside) computes scalars
// (or views) without writing memory and without regions of its own: code
// a lane can run on its own contribution.
bool scalar_only(const Block& block) {
  for (const Operation& o : block) {
    if (o.kind() == OpKind::yield) continue;
    if (o.kind() == OpKind::store || o.num_regions() > 0) return false;
    for (unsigned r = 0; r < o.num_results(); ++r)
      if (!o.result(r)->type().is_scalar() && !o.result(r)->type().is_view()) return false;
  }
  return true;
}

// Whether `user` is `extract(t, 0, k)` directly in the body of a reduce the
// lanes merge, k its index, t of rank 1 with as many elements as the
// domain and no more than `lanes`: contribution k is computed on lane k.
bool owned_contribution(const Operation& user, const Shape& shape, int64_t lanes) {
  if (user.kind() != OpKind::extract || shape.rank() != 1 || user.attrs().axis != 0) return false;
  const Operation* reduce = user.parent_op();
  if (!reduce || reduce->kind() != OpKind::reduce || user.parent_block() != &reduce->region(0).block(0)) return false;
  if (user.operand(1) != reduce->region(0).block(0).argument(0)) return false;
  const int64_t extent = tree_over_lanes(*reduce);
  return extent > 0 && extent == shape[0] && extent <= lanes;
}

// Whether `user`'s element loop reads operand `index` (a tile of `shape`)
// at the element it writes or stores, and nowhere else.
bool reads_by_element(const Operation& user, unsigned index, const Shape& shape, int64_t lanes) {
  switch (op_format(user.kind())) {
    case OpFormat::unary:
    case OpFormat::binary:
    case OpFormat::compare: return user.result()->type().shape() == shape;
    default: break;
  }
  switch (user.kind()) {
    case OpKind::select:
    case OpKind::cast: return user.result()->type().shape() == shape;
    case OpKind::store: return index == 1 && user.operand(0)->type().shape() == shape;
    case OpKind::extract: return index == 0 && owned_contribution(user, shape, lanes);
    default: return false;
  }
}

// Whether a region between `user` and the block that defines its operand
// runs its lanes apart (exec::thread), where each lane walks every element.
bool apart_from(const Operation& user, const Operation& def) {
  for (const Operation* p = user.parent_op(); p && !p->is_ancestor_of(&def); p = p->parent_op())
    if (p->kind() == OpKind::parallel && p->attrs().name == "thread") return true;
  return false;
}

}  // namespace

int64_t tree_over_lanes(const Operation& op) {
  const ReductionPolicy policy = op.attrs().policy;
  if (policy != ReductionPolicy::ordered_tree && policy != ReductionPolicy::unordered_tree) return 0;
  const int64_t extent = constant_integer(op.operand(0)).value_or(0);
  return extent >= 2 && scalar_code(op) ? extent : 0;
}

bool scalar_states(const Operation& op) {
  for (unsigned j = 0; j < op.num_results(); ++j)
    if (!op.result(j)->type().is_scalar()) return false;
  return true;
}

bool scalar_code(const Operation& op) {
  if (!scalar_states(op)) return false;
  for (unsigned r = 0; r < op.num_regions(); ++r)
    if (!scalar_only(op.region(r).block(0))) return false;
  return true;
}

std::unordered_set<const Value*> lane_tiles(const Kernel& kernel, int64_t lanes) {
  std::unordered_set<const Value*> out;
  kernel.walk([&](Operation& op) {
    if (op.num_results() != 1 || op.result()->type().rank() == 0 || !writes_by_element(op)) return;
    const Value* v = op.result();
    for (const Use* u = v->first_use(); u; u = u->next_use())
      if (!reads_by_element(*u->owner(), u->operand_index(), v->type().shape(), lanes) || apart_from(*u->owner(), op))
        return;
    out.insert(v);
  });
  return out;
}

}  // namespace tack::tile::lower
