// reduce regions, each policy by a realization that keeps its guarantee:
//   left_fold       acc = seed; acc = acc (+) c(k) for k = 0, 1, ...
//   right_fold      acc = seed; acc = c(k) (+) acc for k = n-1, ..., 0
//   ordered_tree    seed (+) T, T the balanced pairwise tree over c(0..n-1)
//                   in domain order (adjacent pairs level by level, an odd
//                   last item moving up): built left to right with a stack
//                   of perfect subtrees (a binary counter), which gives the
//                   same tree for every n, so the bits never depend on the
//                   thread count.
//   unordered_tree  seed (+) (((c0 (+) c1) (+) c2) ...): one serial run, a
//                   grouping the policy permits (and the interpreter's
//                   grouping with one thread and no shuffle).
// Every realization runs within one parallel iteration; none regroups a
// strict policy.
#include "tile/lower/emitter.h"

#include "ir/build.h"

namespace tack::tile::lower {

namespace {

// Stack slots of the ordered tree: perfect subtrees have distinct sizes, so
// 64 cover any domain of fewer than 2^63 contributions.
constexpr int64_t kTreeDepth = 64;

}  // namespace

void Emitter::merge(const Operation& reduce, const std::vector<Storage>& a, const std::vector<Storage>& b,
                    const std::vector<Storage>& out) {
  const std::vector<Merge>& merges = reduce.attrs().merges;
  for (size_t i = 0; i < a.size(); ++i)
    if (!merges[i].region) binary_tiles(reduce, merges[i].op, a[i], b[i], out[i]);
  for (unsigned r = 1; r < reduce.num_regions(); ++r) {
    const Block& combiner = reduce.region(r).block(0);
    std::vector<size_t> group;
    for (size_t i = 0; i < a.size(); ++i)
      if (merges[i].region == r) group.push_back(i);
    for (size_t j = 0; j < group.size(); ++j) {
      storage_[combiner.argument(unsigned(j))] = a[group[j]];
      storage_[combiner.argument(unsigned(j + group.size()))] = b[group[j]];
    }
    emit_block(combiner);
    // Through temporaries: `out` may be an argument the yields still read.
    const Operation& yield = *combiner.back();
    std::vector<Storage> next;
    for (size_t j = 0; j < group.size(); ++j) {
      next.push_back(new_storage(&reduce, out[group[j]].type));
      copy(next.back(), storage(yield.operand(unsigned(j))));
    }
    for (size_t j = 0; j < group.size(); ++j) copy(out[group[j]], next[j]);
  }
}

void Emitter::emit_reduce(const Operation& op) {
  const Block& body = op.region(0).block(0);
  const Operation& yield = *body.back();
  int index = new_var("k", ir::VarRole::LoopVar);
  storage_[body.argument(0)] = Storage{Type::tile(Scalar::i64), index, -1, -1};
  int n = scalar_var(op.operand(0));

  std::vector<Storage> acc;
  for (unsigned j = 0; j < op.num_results(); ++j) {
    acc.push_back(define(op.result(j)));
    copy(acc.back(), storage(op.operand(j + 1)));
  }
  auto contribution = [&] {
    emit_block(body);
    std::vector<Storage> c;
    for (unsigned j = 0; j < yield.num_operands(); ++j) c.push_back(storage(yield.operand(j)));
    return c;
  };
  auto positive = [&](int var) { return ir::compare(ir::CmpOp::Gt, ref(var), i64(0), {}); };

  switch (op.attrs().policy) {
    case ReductionPolicy::left_fold:
      for_range(index, ref(n), [&] { merge(op, acc, contribution(), acc); });
      return;
    case ReductionPolicy::right_fold: {
      int step = new_var("step", ir::VarRole::LoopVar);
      for_range(step, ref(n), [&] {
        assign(index, ir::binary(ir::BinOp::Sub, ir::binary(ir::BinOp::Sub, ref(n), ref(step), {}), i64(1), {}));
        merge(op, contribution(), acc, acc);
      });
      return;
    }
    case ReductionPolicy::unordered_tree: {
      std::vector<Storage> run;
      for (const Storage& s : acc) run.push_back(new_storage(&op, s.type));
      for_range(index, ref(n), [&] {
        std::vector<Storage> c = contribution();
        auto first = ir::compare(ir::CmpOp::Eq, ref(index), i64(0), {});
        auto s = std::make_unique<ir::If>();
        s->cond = std::move(first);
        ir::Block* saved = block_;
        block_ = &s->then_body;
        for (size_t j = 0; j < run.size(); ++j) copy(run[j], c[j]);
        block_ = &s->else_body;
        merge(op, run, c, run);
        block_ = saved;
        block_->push_back(std::move(s));
      });
      if_then(positive(n), [&] { merge(op, acc, run, acc); });
      return;
    }
    case ReductionPolicy::ordered_tree: {
      // stack[0 .. top) holds perfect subtrees, largest first; pushing the
      // k-th contribution merges one pair per trailing one bit of k.
      std::vector<Storage> stack, cur;
      for (const Storage& s : acc) {
        std::vector<int64_t> shape{kTreeDepth};
        for (int64_t e : s.type.shape().dims()) shape.push_back(e);
        Storage slot;
        slot.type = s.type;
        slot.array = new_array(&op, s.type.elem(), std::move(shape), "an ordered-tree stack (64 states)",
                               s.type.rank() == 0);
        stack.push_back(slot);
        cur.push_back(new_storage(&op, s.type));
      }
      int top = new_var("top"), bits = new_var("bits"), below = new_var("below");
      assign(top, i64(0));
      auto at = [&](int var) {
        std::vector<Storage> v = stack;
        for (Storage& s : v) s.prefix = var;
        return v;
      };
      for_range(index, ref(n), [&] {
        std::vector<Storage> c = contribution();
        for (size_t j = 0; j < cur.size(); ++j) copy(cur[j], c[j]);
        assign(bits, ref(index));
        auto loop = std::make_unique<ir::While>();
        loop->cond = ir::compare(ir::CmpOp::Ne, ir::binary(ir::BinOp::BitAnd, ref(bits), i64(1), {}), i64(0), {});
        ir::Block* saved = block_;
        block_ = &loop->body;
        assign(top, ir::binary(ir::BinOp::Sub, ref(top), i64(1), {}));
        merge(op, at(top), cur, cur);
        assign(bits, ir::binary(ir::BinOp::Shr, ref(bits), i64(1), {}));
        block_ = saved;
        block_->push_back(std::move(loop));
        std::vector<Storage> slot = at(top);
        for (size_t j = 0; j < cur.size(); ++j) copy(slot[j], cur[j]);
        assign(top, ir::binary(ir::BinOp::Add, ref(top), i64(1), {}));
      });
      // T = P0 (+) (P1 (+) (... (+) P_last)), then seed (+) T.
      if_then(positive(n), [&] {
        assign(below, ir::binary(ir::BinOp::Sub, ref(top), i64(1), {}));
        std::vector<Storage> last = at(below);
        for (size_t j = 0; j < cur.size(); ++j) copy(cur[j], last[j]);
        auto loop = std::make_unique<ir::While>();
        loop->cond = ir::compare(ir::CmpOp::Gt, ref(below), i64(0), {});
        ir::Block* saved = block_;
        block_ = &loop->body;
        assign(below, ir::binary(ir::BinOp::Sub, ref(below), i64(1), {}));
        merge(op, at(below), cur, cur);
        block_ = saved;
        block_->push_back(std::move(loop));
        merge(op, acc, cur, acc);
      });
      return;
    }
  }
}

}  // namespace tack::tile::lower
