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
//                   grouping with one thread and no shuffle); in
//                   workgroups, with scalar states, the ordered tree
//                   instead, the grouping the group's lanes realize.
// In workgroups a tree policy's reduce over a constant domain of scalar
// states spreads its contributions over the group's lanes and merges them
// level by level in shared memory: the ordered tree's own pairs, so the
// bits are the ordered tree's. Elsewhere an ordered tree over at most 8
// contributions of scalar code is written out, a copy of the body per
// contribution, without the stack.
// Every realization runs within one parallel iteration; none regroups a
// strict policy.
#include "tile/lower/emitter.h"

#include <bit>
#include <optional>
#include <string>

#include "ir/build.h"

namespace tack::tile::lower {

namespace {

// Stack slots of the ordered tree: perfect subtrees have distinct sizes, so
// after k contributions the stack holds popcount(k) of them: 64 slots cover
// any domain of fewer than 2^63 contributions, and the bit length of E a
// constant domain of E.
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

bool Emitter::owner_contributions(const Operation& op) const {
  bool owned = false;
  for (const Operation& o : op.region(0).block(0))
    if (o.kind() == OpKind::extract && lane_tiles_.count(o.operand(0))) owned = true;
  return owned;
}

int64_t Emitter::lanes_share(const Operation& op) const {
  if (!spread()) return 0;
  const int64_t n = tree_over_lanes(op);
  if (n == 0) return 0;
  // Owned contributions read tiles in registers, which only the lanes' tree
  // can: past the budget the kernel leaves workgroups (new_array throws).
  if (owner_contributions(op)) return n;
  int64_t bytes = 0;
  for (unsigned j = 0; j < op.num_results(); ++j)
    bytes += ((n + 1) / 2 + (n + 3) / 4) * size_of(value_dtype(op.result(j)->type().elem()));
  return shared_bytes_ + bytes > target_.shared_bytes ? 0 : n;
}

void Emitter::emit_reduce_over_lanes(const Operation& op, int64_t extent) {
  const Block& body = op.region(0).block(0);
  const Operation& yield = *body.back();
  int index = new_var("k", ir::VarRole::LoopVar);
  storage_[body.argument(0)] = Storage{Type::tile(Scalar::i64), index, -1, -1};
  // Contributions that read a tile in registers are each computed on the
  // lane that holds their element (lane_tiles.h); others in pairs.
  const bool owned = owner_contributions(op);
  note("; reduce " + names_(op.result(0)) + ": " + std::to_string(extent) +
       " contributions over the group's lanes" + (owned ? ", each on its element's lane," : "") +
       " merged as the ordered tree in shared memory");

  // Two buffers per state, levels alternating between them: a level reads
  // one and writes the other, so no lane overwrites a pair another reads.
  std::vector<Storage> acc;
  std::vector<int> front, back;
  for (unsigned j = 0; j < op.num_results(); ++j) {
    acc.push_back(define(op.result(j)));
    copy(acc.back(), storage(op.operand(j + 1)));
    const Scalar elem = acc.back().type.elem();
    front.push_back(new_array(&op, elem, {owned ? extent : (extent + 1) / 2}, "a tree's pairs"));
    back.push_back(new_array(&op, elem, {owned ? (extent + 1) / 2 : (extent + 3) / 4}, "a tree's pairs"));
  }
  auto slots = [&](const std::vector<int>& arrays, int at) {
    std::vector<Storage> v;
    for (size_t j = 0; j < arrays.size(); ++j) {
      Storage s;
      s.type = acc[j].type;
      s.array = arrays[j];
      s.prefix = at;
      v.push_back(s);
    }
    return v;
  };
  // Code each lane runs on its own items, then one barrier.
  auto apart = [&](const std::function<void()>& code) {
    const bool was = lanes_apart_;
    lanes_apart_ = true;
    code();
    lanes_apart_ = was;
    sync();
  };
  // Contribution `k` (emitted at each use: scalar operations only).
  auto contribution = [&](ir::ExprPtr k) {
    assign(index, std::move(k));
    emit_block(body);
    std::vector<Storage> c;
    for (unsigned j = 0; j < yield.num_operands(); ++j) {
      c.push_back(new_storage(&op, acc[j].type));
      copy(c.back(), storage(yield.operand(j)));
    }
    return c;
  };
  auto times2 = [&](int v, int64_t plus) { return add(ir::binary(ir::BinOp::Mul, ref(v), i64(2), {}), i64(plus)); };
  auto last_moves_up = [&](int64_t items, const std::function<void(int at, int to)>& move) {
    if (items % 2 == 0) return;
    if_then(ir::compare(ir::CmpOp::Eq, ref(lane_), i64(0), {}), [&] {
      int at = new_var("last"), to = new_var("up");
      assign(at, i64(items - 1));
      assign(to, i64(items / 2));
      move(at, to);
    });
  };

  // The first level straight from the contributions: pair i merges
  // contributions 2i and 2i + 1 on one lane; an odd last one moves up.
  // Owned contributions are first each written by its own lane.
  int pair = new_var("pair", ir::VarRole::LoopVar);
  apart([&] {
    if (owned) {
      for_lanes(index, extent, [&] {
        emit_block(body);
        std::vector<Storage> slot = slots(front, index);
        for (unsigned j = 0; j < yield.num_operands(); ++j) copy(slot[j], storage(yield.operand(j)));
      });
      return;
    }
    for_lanes(pair, extent / 2, [&] {
      std::vector<Storage> a = contribution(times2(pair, 0));
      merge(op, a, contribution(times2(pair, 1)), slots(front, pair));
    });
    last_moves_up(extent, [&](int at, int to) {
      std::vector<Storage> c = contribution(ref(at)), up = slots(front, to);
      for (size_t j = 0; j < c.size(); ++j) copy(up[j], c[j]);
    });
  });
  // The next levels alike, from one buffer into the other.
  int left = new_var("left"), right = new_var("right");
  int64_t items = owned ? extent : (extent + 1) / 2;
  bool in_front = true;
  while (items > 1) {
    const std::vector<int>& from = in_front ? front : back;
    const std::vector<int>& to = in_front ? back : front;
    apart([&] {
      for_lanes(pair, items / 2, [&] {
        assign(left, times2(pair, 0));
        assign(right, times2(pair, 1));
        merge(op, slots(from, left), slots(from, right), slots(to, pair));
      });
      last_moves_up(items, [&](int at, int up) {
        std::vector<Storage> last = slots(from, at), moved = slots(to, up);
        for (size_t j = 0; j < last.size(); ++j) copy(moved[j], last[j]);
      });
    });
    items = (items + 1) / 2;
    in_front = !in_front;
  }
  // Every lane merges the root into its copy of the seed (emit_op's barrier
  // follows, before the buffers are written again).
  assign(left, i64(0));
  merge(op, acc, slots(in_front ? front : back, left), acc);
}

void Emitter::emit_reduce(const Operation& op) {
  if (const int64_t extent = lanes_share(op)) return emit_reduce_over_lanes(op, extent);
  const Block& body = op.region(0).block(0);
  const Operation& yield = *body.back();
  int index = new_var("k", ir::VarRole::LoopVar);
  storage_[body.argument(0)] = Storage{Type::tile(Scalar::i64), index, -1, -1};
  int n = scalar_var(op.operand(0));
  // In workgroups an unordered tree of scalar states is the ordered one,
  // the grouping the lanes' trees give, one rule for every such reduce.
  ReductionPolicy policy = op.attrs().policy;
  if (in_groups() && policy == ReductionPolicy::unordered_tree && scalar_states(op))
    policy = ReductionPolicy::ordered_tree;

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

  // The domain's extent where it is a constant.
  const std::optional<int64_t> constant_extent = constant_integer(op.operand(0));

  // A small constant domain of scalars: the ordered tree written out, one
  // copy of the body per contribution, no stack.
  if (policy == ReductionPolicy::ordered_tree) {
    const int64_t extent = constant_extent.value_or(-1);
    if (scalar_code(op) && extent >= 1 && extent <= kStraightElements) {
      std::vector<std::vector<Storage>> items;
      for (int64_t k = 0; k < extent; ++k) {
        assign(index, i64(k));
        emit_block(body);
        items.emplace_back();
        for (unsigned j = 0; j < yield.num_operands(); ++j) {
          items.back().push_back(new_storage(&op, acc[j].type));
          copy(items.back().back(), storage(yield.operand(j)));
        }
      }
      while (items.size() > 1) {
        std::vector<std::vector<Storage>> next;
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
          merge(op, items[i], items[i + 1], items[i]);
          next.push_back(items[i]);
        }
        if (items.size() % 2) next.push_back(items.back());
        items = std::move(next);
      }
      merge(op, acc, items[0], acc);
      return;
    }
  }
  switch (policy) {
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
      const int64_t depth = !constant_extent ? kTreeDepth
                            : *constant_extent <= 1 ? 1
                                                    : int64_t(std::bit_width(uint64_t(*constant_extent)));
      const std::string what = "an ordered-tree stack (" + std::to_string(depth) + " states)";
      std::vector<Storage> stack, cur;
      for (const Storage& s : acc) {
        std::vector<int64_t> shape{depth};
        for (int64_t e : s.type.shape().dims()) shape.push_back(e);
        Storage slot;
        slot.type = s.type;
        slot.array = new_array(&op, s.type.elem(), std::move(shape), what.c_str(), s.type.rank() == 0);
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
