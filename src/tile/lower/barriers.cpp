// Where workgroup code needs barriers (emitter.h, "Workgroups").
//
// The emitter notes every access to a group's shared array and to global
// memory since the last barrier: `own` when it is at the element loop's own
// position (element e on lane e % lanes, so the lane that wrote the element
// is the lane that reads it), else `cross`. Two accesses of one array need a
// barrier between them when one of them writes and one is cross; global
// memory's are all cross, since two views may alias. An operation of one
// element loop (elementwise, cast, load, store, ...) is emitted aside and
// placed after a barrier only where its accesses conflict with those
// pending: a load into a shared tile followed by another load, or the
// element-by-element operations on a shared tile's own elements, need none.
// Operations with regions, and mma, keep the simple rule: a barrier before
// them where anything shared is pending, and after them. A region loop's
// iteration ends with a barrier where the next could meet what it left.
#include "tile/lower/emitter.h"

namespace tack::tile::lower {

namespace {

void merge_into(std::map<int, Emitter::Access>& into, const std::map<int, Emitter::Access>& from) {
  for (const auto& [array, a] : from) {
    Emitter::Access& p = into[array];
    p.own_read |= a.own_read;
    p.own_write |= a.own_write;
    p.cross_read |= a.cross_read;
    p.cross_write |= a.cross_write;
  }
}

}  // namespace

bool Emitter::one_element_loop(const Operation& op) {
  if (op.num_regions() > 0) return false;
  if (writes_by_element(op)) return true;
  switch (op.kind()) {
    case OpKind::constant:
    case OpKind::dim:
    case OpKind::view:
    case OpKind::store:
    case OpKind::stage:  // no code
    case OpKind::yield: return true;
    default: return false;
  }
}

void Emitter::note_access(int array, bool write, bool own) const {
  Access& a = pending_[array];
  (write ? (own ? a.own_write : a.cross_write) : (own ? a.own_read : a.cross_read)) = true;
}

bool Emitter::own_position(const Storage& s, const std::vector<ir::ExprPtr>& idx) const {
  if (!element_idx_ || s.prefix >= 0 || !(s.type.shape() == element_shape_) || idx.size() != element_idx_->size())
    return false;
  for (size_t d = 0; d < idx.size(); ++d) {
    const ir::VarRef* v = idx[d] ? idx[d]->as<ir::VarRef>() : nullptr;
    if (!v || v->var != (*element_idx_)[d]) return false;
  }
  return true;
}

bool Emitter::conflicts(const std::map<int, Access>& next) const {
  for (const auto& [array, n] : next) {
    auto p = pending_.find(array);
    if (p == pending_.end()) continue;
    if ((p->second.writes() || n.writes()) && (p->second.cross() || n.cross())) return true;
  }
  return false;
}

bool Emitter::significant_pending() const {
  for (const auto& [array, a] : pending_)
    if (array != kGlobal || a.writes()) return true;
  return false;
}

void Emitter::barrier() {
  block_->push_back(std::make_unique<ir::Barrier>());
  pending_.clear();
}

bool Emitter::must_wait(const Operation& op) const {
  return significant_pending() || (pending_.count(kGlobal) && writes_memory(op));
}

void Emitter::end_iteration(const Operation& loop) {
  if (spread() && must_wait(loop)) barrier();
}

void Emitter::emit_op(const Operation& op) {
  if (!spread() || !one_element_loop(op)) {
    if (spread() && must_wait(op)) barrier();
    dispatch(op);
    sync();
    return;
  }
  // Emitted aside with its own accesses, then placed after a barrier where
  // they conflict with those pending.
  std::map<int, Access> before = std::move(pending_);
  pending_.clear();
  ir::Block code;
  ir::Block* saved = block_;
  block_ = &code;
  deferring_ = true;
  dispatch(op);
  deferring_ = false;
  block_ = saved;
  std::map<int, Access> mine = std::move(pending_);
  pending_ = std::move(before);
  if (conflicts(mine)) barrier();
  for (ir::StmtPtr& s : code) block_->push_back(std::move(s));
  merge_into(pending_, mine);
}

void Emitter::join_pending(const std::map<int, Access>& other) { merge_into(pending_, other); }

}  // namespace tack::tile::lower
