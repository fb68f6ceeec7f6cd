#include "tile/lower/lane_tiles.h"

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

// Whether `user`'s element loop reads operand `index` (a tile of `shape`)
// at the element it writes or stores, and nowhere else.
bool reads_by_element(const Operation& user, unsigned index, const Shape& shape) {
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

std::unordered_set<const Value*> lane_tiles(const Kernel& kernel) {
  std::unordered_set<const Value*> out;
  kernel.walk([&](Operation& op) {
    if (op.num_results() != 1 || op.result()->type().rank() == 0 || !writes_by_element(op)) return;
    const Value* v = op.result();
    for (const Use* u = v->first_use(); u; u = u->next_use())
      if (!reads_by_element(*u->owner(), u->operand_index(), v->type().shape()) || apart_from(*u->owner(), op)) return;
    out.insert(v);
  });
  return out;
}

}  // namespace tack::tile::lower
