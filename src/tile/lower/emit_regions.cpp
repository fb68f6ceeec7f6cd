// parallel (inside the launch nest), serial and pipeline regions become
// sequential kernel IR loops. Running a parallel region's iterations in
// order is one of the schedules its noninterference promise allows; in
// workgroups a region bound to exec::thread spreads its iterations over
// the group's lanes instead, each lane running its own apart. A
// pipeline runs its stages in order inside one serial loop or, with
// CompileOptions::overlap_stages where its schedule is legal, overlapped
// across iterations (pipeline_schedule.h).
#include "tile/lower/emitter.h"

#include "ir/build.h"
#include "tile/lower/pipeline_schedule.h"

namespace tack::tile::lower {

void Emitter::emit_loop(const Operation& op) {
  const Block& body = op.region(0).block(0);
  ir::ExprPtr extent = ref(scalar_var(op.operand(0)));
  if (op.kind() == OpKind::parallel) {
    int index = new_var("k", ir::VarRole::LoopVar);
    storage_[body.argument(0)] = Storage{Type::tile(Scalar::i64), index, -1, -1};
    if (spread() && op.attrs().name == "thread") {
      // Iteration i on lane i % lanes, the lanes apart (emitter.h): what
      // earlier operations wrote is visible first, and what the region
      // writes after it.
      note("; 'parallel' " + names_(body.argument(0)) +
           " (exec::thread): its iterations over the group's lanes, one each, tiles private");
      sync();
      lanes_apart_ = true;
      for_lanes(index, std::move(extent), [&] { emit_block(body); });
      lanes_apart_ = false;
      return;
    }
    for_range(index, std::move(extent), [&] {
      emit_block(body);
      end_iteration(op);
    });
    return;
  }
  std::vector<Storage> carried = bind_carried(op);
  if (op.kind() == OpKind::pipeline && options_.overlap_stages)
    if (PipelinePlan plan = plan_pipeline(op); plan.schedule) return emit_overlapped(op, *plan.schedule, carried);
  int index = new_var("k", ir::VarRole::LoopVar);
  storage_[body.argument(0)] = Storage{Type::tile(Scalar::i64), index, -1, -1};
  std::vector<unsigned> all;
  for (unsigned j = 0; j < carried.size(); ++j) all.push_back(j);
  for_range(index, std::move(extent), [&] {
    emit_block(body);
    yield_into(op, carried, all);
    end_iteration(op);
  });
}

std::vector<Storage> Emitter::bind_carried(const Operation& op) {
  const Block& body = op.region(0).block(0);
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
  return carried;
}

void Emitter::yield_into(const Operation& op, const std::vector<Storage>& carried, const std::vector<unsigned>& which) {
  const Block& body = op.region(0).block(0);
  const Operation& yield = *body.back();
  // A yield of a carried argument would be overwritten by an earlier copy:
  // go through temporaries then.
  bool through_temps = false;
  for (unsigned j : which) through_temps = through_temps || yield.operand(j)->owner_block() == &body;
  std::vector<Storage> next;
  for (unsigned j : which) {
    if (!through_temps) {
      copy(carried[j], storage(yield.operand(j)));
      continue;
    }
    next.push_back(new_storage(&op, carried[j].type));
    copy(next.back(), storage(yield.operand(j)));
  }
  for (size_t i = 0; i < next.size(); ++i) copy(carried[which[i]], next[i]);
}

// Step t runs stage j for iteration k = t - j, stages in ascending order,
// for t in [0, n + s - 1). A value crossing stages lives in a buffer of its
// versions, iteration k's in slot k mod versions: a tile's buffer is read
// and written in place through a version local set at the start of each
// stage from the one that makes it to the last that reads it; a scalar is
// stored to its buffer at the end of the stage that makes it and read back
// into a local at the start of each stage that reads it.
void Emitter::emit_overlapped(const Operation& op, const PipelineSchedule& schedule,
                              const std::vector<Storage>& carried) {
  const Block& body = op.region(0).block(0);
  const int stages = int(schedule.stages.size());
  const int n = scalar_var(op.operand(0));
  struct Buffer {
    const Value* value;
    PipelineSchedule::Crossing crossing;
    Storage slots;  // prefix: the version local
  };
  std::vector<Buffer> buffers;
  for (const auto& [v, c] : schedule.crossing) {
    std::vector<int64_t> shape{c.versions};
    for (int64_t e : v->type().shape().dims()) shape.push_back(e);
    Storage slots;
    slots.type = v->type();
    slots.array = new_array(v->defining_op(), v->type().elem(), std::move(shape), "a pipeline buffer",
                            v->type().rank() == 0);
    slots.prefix = new_var("version");
    buffers.push_back(Buffer{v, c, slots});
    if (v->type().rank() > 0) storage_[v] = slots;
  }
  int step = new_var("step", ir::VarRole::LoopVar);
  ir::ExprPtr steps = ir::binary(ir::BinOp::Add, ref(n), i64(stages - 1), {});
  for_range(step, std::move(steps), [&] {
    for (int j = 0; j < stages; ++j) {
      int k = new_var("k");
      assign(k, ir::binary(ir::BinOp::Sub, ref(step), i64(j), {}));
      ir::ExprPtr live = all_of(exprs(ir::compare(ir::CmpOp::Ge, ref(k), i64(0), {}),
                                      ir::compare(ir::CmpOp::Lt, ref(k), ref(n), {})));
      if_then(std::move(live), [&] {
        storage_[body.argument(0)] = Storage{Type::tile(Scalar::i64), k, -1, -1};
        for (Buffer& b : buffers) {
          const int made = b.crossing.stage, last = made + b.crossing.versions - 1;
          if (j < made || j > last) continue;
          assign(b.slots.prefix, ir::binary(ir::BinOp::Mod, ref(k), i64(b.crossing.versions), {}));
          if (j > made && b.value->type().rank() == 0) {
            int local = new_var("t");
            assign(local, read(b.slots, {}));
            storage_[b.value] = Storage{b.value->type(), local, -1, -1};
          }
        }
        for (const Operation* stage_op : schedule.stages[size_t(j)]) emit_op(*stage_op);
        for (Buffer& b : buffers)
          if (b.crossing.stage == j && b.value->type().rank() == 0) write(b.slots, {}, read(storage(b.value), {}));
        std::vector<unsigned> yielded;
        for (unsigned c = 0; c < carried.size(); ++c)
          if (schedule.carried_stage[c] == j) yielded.push_back(c);
        yield_into(op, carried, yielded);
      });
    }
    end_iteration(op);
  });
}

}  // namespace tack::tile::lower
