// The launch's dimensions for the launch nest under its binding
// (exec_binding.h): one per level in the binding's order, or, fused, a
// guard dimension and one over the nest's checked size, each level's index
// recovered from it by the layout's strides.
#include <cstdint>

#include "ir/build.h"
#include "tile/lower/emitter.h"

namespace tack::tile::lower {

namespace {

ir::ExprPtr cmp_le(ir::ExprPtr a, ir::ExprPtr b) { return ir::compare(ir::CmpOp::Le, std::move(a), std::move(b), {}); }
ir::ExprPtr max(ir::ExprPtr a, ir::ExprPtr b) { return ir::binary(ir::BinOp::Max, std::move(a), std::move(b), {}); }
ir::ExprPtr mul(ir::ExprPtr a, ir::ExprPtr b) { return ir::binary(ir::BinOp::Mul, std::move(a), std::move(b), {}); }
ir::ExprPtr floor_div(ir::ExprPtr a, ir::ExprPtr b) {
  return ir::binary(ir::BinOp::FloorDiv, std::move(a), std::move(b), {});
}

}  // namespace

void Emitter::bind_launch(const LaunchNest& nest, const ExecBinding& binding) {
  auto add_dim = [&](int extent_var) {
    ir::ParallelDim d;
    d.var = new_var("i", ir::VarRole::LoopVar);
    d.start = i64(0);
    d.end = ref(extent_var);
    d.step = i64(1);
    out_->dims.push_back(std::move(d));
    return out_->dims.back().var;
  };
  std::vector<int> extents;
  for (const Operation* level : nest.levels) {
    emit_prologue_chain(level->operand(0));
    extents.push_back(scalar_var(level->operand(0)));
  }
  auto index_of = [&](size_t level, int var) {
    storage_[nest.levels[level]->region(0).block(0).argument(0)] = Storage{Type::tile(Scalar::i64), var, -1, -1};
  };
  if (!binding.fused) {
    for (size_t l : binding.order) index_of(l, add_dim(extents[l]));
    return;
  }
  // Fused. Each extent below 0 counts as 0 (an empty range, as per level),
  // so a product of two negative extents is no launch of positive size.
  std::vector<int> clamped;
  for (int e : extents) {
    clamped.push_back(new_var("extent"));
    assign(clamped.back(), max(ref(e), i64(0)));
  }
  // A symbolic leaf of the binding's layout as the product of the extents
  // its symbols stand for.
  auto value_of = [&](const IntTuple& leaf) {
    ir::ExprPtr v = leaf.coefficient() == 1 && !leaf.is_static_leaf() ? nullptr : i64(leaf.coefficient());
    if (!leaf.is_static_leaf())
      for (const IntTuple& f : leaf.factors()) {
        size_t l = 0;
        while (binding.extents[l] != f.symbol()) ++l;
        v = v ? mul(std::move(v), ref(clamped[l])) : ref(clamped[l]);
      }
    return v;
  };
  // The launch's size, the product of the extents, checked step by step:
  // where it would pass 2^63 - 1 the launch gets a leading dimension of 2
  // before one of 2^63 - 1 iterations, which the launch refuses as too
  // many iterations (as it refuses the same nest per level), instead of a
  // product that wrapped around; otherwise that dimension has one.
  int size = new_var("nest_size"), fits = new_var("nest_fits");
  auto overflowed = [&] { return cmp_le(ref(fits), int_const(DType::I32, 0)); };
  assign(size, ref(clamped[0]));
  assign(fits, int_const(DType::I32, 1));
  for (size_t l = 1; l < clamped.size(); ++l) {
    ir::ExprPtr limit = floor_div(i64(INT64_MAX), max(ref(size), i64(1)));
    assign(fits, ir::cast(DType::I32, all_of(exprs(ref(fits), cmp_le(ref(clamped[l]), std::move(limit)))), {}));
    assign(size, ir::select(overflowed(), i64(0), mul(ref(size), ref(clamped[l])), {}));
  }
  int guard = new_var("nest_guard"), launched = new_var("nest_launched");
  assign(guard, ir::select(overflowed(), i64(2), i64(1), {}));
  assign(launched, ir::select(overflowed(), i64(INT64_MAX), ref(size), {}));
  add_dim(guard);
  int fused = add_dim(launched);
  // In workgroups the lanes are the innermost dimension and the nest's
  // index is the same on all of them.
  if (!in_groups()) mark_varying(fused);
  // Each level's stride in the launch index, once.
  std::vector<int> strides;
  for (size_t l = 0; l < nest.levels.size(); ++l) {
    const IntTuple& stride = binding.stride(l);
    strides.push_back(-1);
    if (stride.is_static_leaf() && stride.value() == 1) continue;
    strides.back() = new_var("stride");
    assign(strides.back(), value_of(stride));
  }
  ir::Block* saved = block_;
  block_ = &out_->body;
  for (size_t l = 0; l < nest.levels.size(); ++l) {
    ir::ExprPtr at = ref(fused);
    if (strides[l] >= 0) at = floor_div(std::move(at), ref(strides[l]));
    // The level of the largest stride needs no remainder: the index is
    // below the size, so the quotient is already below its extent.
    Result<IntTuple> reach =
        symbolic_product(IntTuple::tuple({binding.stride(l), IntTuple::dynamic(binding.extents[l])}));
    if (!(reach && *reach == binding.size)) at = ir::binary(ir::BinOp::Mod, std::move(at), ref(clamped[l]), {});
    int index = new_var("i");
    assign(index, std::move(at));
    index_of(l, index);
  }
  block_ = saved;
}

}  // namespace tack::tile::lower
