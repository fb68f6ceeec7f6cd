// mma: c + a @ b, each element accumulated over k in increasing order in
// the element type, each step one fused multiply-add (rounded once), as the
// interpreter does.
//
// Register blocking. Blocks of kRows x kCols elements accumulate in locals
// over all of k, reading kRows elements of a and kCols of b per k: the
// register blocking a matrix-multiply kernel uses. Every element still
// takes its terms in the same order. The block is the target's
// (CompileOptions::mma_block): as many accumulators as its vector registers
// hold beside the operands. Each step reads b's kCols elements, then each
// of a's in turn just before the multiply-adds that use it, so that one
// register at a time holds an element of a; the k loop stays rolled
// (ir::For::rolled). Unrolled, or with a's elements all read first, LLVM's
// scheduler on x86 kept every element of a live across the step and
// spilled them to the stack (512^3 in 64x8x64 packed tiles on one Zen 3
// core ran in 9.4-9.8 ms so, 5.0-6.4 now; docs/tile/compile.md). Where
// the blocks are not proven legal (mma_atom.h), a k-outer loop nest runs.
//
// Operands read in place. An operand that a load in the same block makes
// for this mma alone, with nothing between them that writes memory, is
// not copied into a tile: where its window lies inside every bound that is
// the same for the SIMD lanes (and no bound differs between them), the
// blocks read its elements from the parameter, as the tile would have held
// them; elsewhere (a ragged edge) the load fills the tile first and the
// blocks read that. The same elements in the same order, so the same
// bits; what goes is a copy of each operand per step (matmul's B panel,
// 32 KiB a step in 64x8x64 tiles over 16 lanes).
#include "ir/build.h"
#include "tile/lower/emitter.h"
#include "tile/lower/launch_nest.h"
#include "tile/lower/mma_atom.h"

namespace tack::tile::lower {

MmaAtom Emitter::mma_atom(const Operation& mma) const {
  int64_t rows = options_.mma_block[0] > 0 ? options_.mma_block[0] : 4;
  int64_t cols = options_.mma_block[1] > 0 ? options_.mma_block[1] : 4;
  const Shape& result = mma.result()->type().shape();
  const int64_t M = result[0], N = result[1], K = mma.operand(0)->type().shape()[1];
  // In workgroups each lane runs whole blocks, spread as elements are:
  // the target's block where there are blocks for every lane, else blocks
  // of one element (the SIMT realization).
  MmaAtom atom = plan_mma_atom(M, N, K, rows, cols);
  if (spread() && (!atom.legal || atom.block_rows() * atom.block_columns() < target_.workgroup_lanes))
    atom = plan_mma_atom(M, N, K, 1, 1);
  return atom;
}

bool Emitter::read_in_place(const Operation& load) const {
  if (in_groups() || options_.overlap_stages) return false;
  const Value* v = load.result();
  if (v->type().rank() != 2 || storage_.count(v) || !v->first_use() || v->first_use()->next_use()) return false;
  const Operation* mma = v->first_use()->owner();
  if (mma->kind() != OpKind::mma || mma->parent_block() != load.parent_block() || mma->operand(2) == v) return false;
  if (!mma_atom(*mma).legal || tests_vary(views_.at(load.operand(0)))) return false;
  for (const Operation* op = load.next(); op && op != mma; op = op->next())
    if (writes_memory(*op)) return false;
  return true;
}

void Emitter::emit_mma(const Operation& op) {
  const Type& rt = op.result()->type();
  // The operands read in place, and their loads.
  const Operation* in_place[2] = {nullptr, nullptr};
  for (unsigned i = 0; i < 2; ++i)
    if (in_place_.count(op.operand(i))) in_place[i] = op.operand(i)->defining_op();
  Storage c = storage(op.operand(2));
  Storage r = define(op.result());  // c's own storage when the loop accumulates in place
  const int64_t M = rt.shape()[0], N = rt.shape()[1], K = op.operand(0)->type().shape()[1];
  const MmaAtom atom = mma_atom(op);
  const int64_t kRows = atom.rows, kCols = atom.cols;
  note("; mma " + names_(op.result()) + ": " +
       (atom.legal ? "blocks of " + std::to_string(kRows) + "x" + std::to_string(kCols) + ", " + atom.why
                   : "not blocked, k outermost: " + atom.why));
  for (unsigned i = 0; i < 2; ++i)
    if (in_place[i])
      note("; mma " + names_(op.result()) + ": " + (i == 0 ? "a" : "b") + " read in place where " +
           names_(in_place[i]->operand(0)) + "'s window is whole");
  Scalar e = rt.elem();
  int k = new_var("k", ir::VarRole::LoopVar);
  // acc = fma(x, y, acc) in the element type (integers: acc + x * y, wrapping).
  auto step = [&](int sum, int x, int y) {
    if (!is_float(e)) {
      int prod = new_var("prod");
      assign(prod, scalar_binary(op, OpKind::mul, e, x, y));
      assign(sum, scalar_binary(op, OpKind::add, e, sum, prod));
      return;
    }
    assign(sum, ir::math(ir::MathFn::Fma, exprs(ref(x), ref(y), ref(sum)), {}));
  };
  if (atom.legal) {
    int i0 = new_var("i0"), j0 = new_var("j0");
    std::vector<int> acc, x, y;
    for (int64_t t = 0; t < kRows * kCols; ++t) acc.push_back(new_var("acc"));
    for (int64_t t = 0; t < kRows; ++t) x.push_back(new_var("x"));
    for (int64_t t = 0; t < kCols; ++t) y.push_back(new_var("y"));
    auto at = [&](int base, int64_t offset) { return add(ref(base), i64(offset)); };
    auto times = [&](int v, int64_t n) { return ir::binary(ir::BinOp::Mul, ref(v), i64(n), {}); };
    // The blocks, each operand read through `operand(i, position)`.
    auto blocks = [&](const std::function<ir::ExprPtr(unsigned, std::vector<ir::ExprPtr>)>& operand) {
      // The block at rows i0.., columns j0..: accumulators from c (every
      // element of r is written once, so r needs no copy of c first).
      auto block = [&] {
        for (int64_t u = 0; u < kRows; ++u)
          for (int64_t v = 0; v < kCols; ++v) assign(acc[size_t(u * kCols + v)], read(c, exprs(at(i0, u), at(j0, v))));
        for_range(k, i64(K), [&] {
          for (int64_t v = 0; v < kCols; ++v) assign(y[size_t(v)], operand(1, exprs(ref(k), at(j0, v))));
          for (int64_t u = 0; u < kRows; ++u) {
            assign(x[size_t(u)], operand(0, exprs(at(i0, u), ref(k))));
            for (int64_t v = 0; v < kCols; ++v) step(acc[size_t(u * kCols + v)], x[size_t(u)], y[size_t(v)]);
          }
        });
        block_->back()->as<ir::For>()->rolled = true;
        for (int64_t u = 0; u < kRows; ++u)
          for (int64_t v = 0; v < kCols; ++v) write(r, exprs(at(i0, u), at(j0, v)), ref(acc[size_t(u * kCols + v)]));
      };
      if (spread()) {
        int blk = new_var("blk", ir::VarRole::LoopVar);
        // Block blk of c_blocks' block mode (jb fastest) on lane blk mod lanes.
        const int64_t columns = atom.block_columns();
        for_lanes(blk, atom.block_rows() * columns, [&] {
          assign(i0, ir::binary(ir::BinOp::Mul, ir::binary(ir::BinOp::FloorDiv, ref(blk), i64(columns), {}),
                                i64(kRows), {}));
          assign(j0, ir::binary(ir::BinOp::Mul, ir::binary(ir::BinOp::Mod, ref(blk), i64(columns), {}),
                                i64(kCols), {}));
          block();
        });
        return;
      }
      int ib = new_var("ib", ir::VarRole::LoopVar), jb = new_var("jb", ir::VarRole::LoopVar);
      for_range(ib, i64(atom.block_rows()), [&] {
        assign(i0, times(ib, kRows));
        for_range(jb, i64(atom.block_columns()), [&] {
          assign(j0, times(jb, kCols));
          block();
        });
      });
    };
    auto from_tiles = [&](unsigned i, std::vector<ir::ExprPtr> position) {
      return read(storage(op.operand(i)), std::move(position));
    };
    if (!in_place[0] && !in_place[1]) return blocks(from_tiles);
    // Where every window in place is whole, its elements are read from the
    // parameter; elsewhere the loads fill their tiles first.
    std::vector<ir::ExprPtr> whole;
    for (const Operation* load : in_place)
      if (load)
        if (ir::ExprPtr test = whole_window(views_.at(load->operand(0)), load->result()->type().shape()))
          whole.push_back(std::move(test));
    auto in_windows = [&] {
      blocks([&](unsigned i, std::vector<ir::ExprPtr> position) {
        return in_place[i] ? read_element(views_.at(in_place[i]->operand(0)), position)
                           : from_tiles(i, std::move(position));
      });
    };
    if (whole.empty()) return in_windows();
    if_else(all_of(std::move(whole)), in_windows, [&] {
      loading_now_ = true;
      for (const Operation* load : in_place)
        if (load) emit_memory(*load);
      loading_now_ = false;
      blocks(from_tiles);
    });
    return;
  }
  Storage a = storage(op.operand(0)), b = storage(op.operand(1));
  copy(r, c);
  // Other shapes: k outermost, the innermost loop along a row of b and
  // of the result, contiguous tiles the CPU compiler vectorizes.
  int acc = new_var("acc"), x = new_var("x"), y = new_var("y");
  int i = new_var("i", ir::VarRole::LoopVar), j = new_var("j", ir::VarRole::LoopVar);
  for_range(k, i64(K), [&] {
    for_range(i, i64(M), [&] {
      assign(x, read(a, exprs(ref(i), ref(k))));
      for_range(j, i64(N), [&] {
        assign(y, read(b, exprs(ref(k), ref(j))));
        assign(acc, read(r, exprs(ref(i), ref(j))));
        step(acc, x, y);
        write(r, exprs(ref(i), ref(j)), ref(acc));
      });
    });
  });
}

}  // namespace tack::tile::lower
