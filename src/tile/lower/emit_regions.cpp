// parallel (inside the launch nest), serial and pipeline regions become
// sequential kernel IR loops. Running a parallel region's iterations in
// order is one of the schedules its noninterference promise allows. A
// pipeline runs its stages in order inside one serial loop: this first
// lowering overlaps nothing.
#include "tile/lower/emitter.h"

namespace tack::tile::lower {

void Emitter::emit_loop(const Operation& op) {
  const Block& body = op.region(0).block(0);
  int index = new_var("k", ir::VarRole::LoopVar);
  storage_[body.argument(0)] = Storage{Type::tile(Scalar::i64), index, -1, -1};
  ir::ExprPtr extent = ref(scalar_var(op.operand(0)));
  if (op.kind() == OpKind::parallel) {
    for_range(index, std::move(extent), [&] { emit_block(body); });
    return;
  }
  // Carried values live in the body arguments' storage, which the results
  // share: after the loop they hold the final values (the inits for zero
  // iterations).
  std::vector<Storage> carried;
  for (unsigned j = 1; j < body.num_arguments(); ++j) {
    Storage s = new_storage(&op, body.argument(j)->type());
    copy(s, storage(op.operand(j)));
    storage_[body.argument(j)] = s;
    storage_[op.result(j - 1)] = s;
    carried.push_back(s);
  }
  const Operation& yield = *body.back();
  // An mma that accumulates into a carried tile nothing else reads, and is
  // yielded in its place, accumulates in the carried storage itself: no
  // copy into a fresh tile, and none back at the yield.
  for (unsigned j = 0; j < yield.num_operands(); ++j) {
    const Value* arg = body.argument(j + 1);
    const Operation* def = yield.operand(j)->defining_op();
    if (def && def->kind() == OpKind::mma && def->operand(2) == arg && arg->num_uses() == 1)
      storage_[yield.operand(j)] = carried[j];
  }
  for_range(index, std::move(extent), [&] {
    emit_block(body);
    // A yield of a carried argument would be overwritten by an earlier
    // copy: go through temporaries then.
    bool through_temps = false;
    for (unsigned j = 0; j < yield.num_operands(); ++j)
      through_temps = through_temps || yield.operand(j)->owner_block() == &body;
    std::vector<Storage> next;
    for (unsigned j = 0; j < yield.num_operands(); ++j) {
      if (!through_temps) {
        copy(carried[j], storage(yield.operand(j)));
        continue;
      }
      next.push_back(new_storage(&op, carried[j].type));
      copy(next.back(), storage(yield.operand(j)));
    }
    for (size_t j = 0; j < next.size(); ++j) copy(carried[j], next[j]);
  });
}

}  // namespace tack::tile::lower
