// The launch's dimensions for the launch nest under its binding
// (exec_binding.h): one per group of consecutive parts in the binding's
// order, each part's coordinate recovered from its dimension's index by its
// stride within the group, each level's index from its parts, and the guard
// that skips a split level's points past its extent.
#include <cstdint>

#include "ir/build.h"
#include "tile/lower/emitter.h"

namespace tack::tile::lower {

namespace {

ir::ExprPtr cmp(ir::CmpOp op, ir::ExprPtr a, ir::ExprPtr b) { return ir::compare(op, std::move(a), std::move(b), {}); }
ir::ExprPtr max(ir::ExprPtr a, ir::ExprPtr b) { return ir::binary(ir::BinOp::Max, std::move(a), std::move(b), {}); }
ir::ExprPtr mul(ir::ExprPtr a, ir::ExprPtr b) { return ir::binary(ir::BinOp::Mul, std::move(a), std::move(b), {}); }
ir::ExprPtr mod(ir::ExprPtr a, ir::ExprPtr b) { return ir::binary(ir::BinOp::Mod, std::move(a), std::move(b), {}); }
ir::ExprPtr floor_div(ir::ExprPtr a, ir::ExprPtr b) {
  return ir::binary(ir::BinOp::FloorDiv, std::move(a), std::move(b), {});
}

}  // namespace

int Emitter::add_dim(const char* name, ir::ExprPtr end) {
  ir::ParallelDim d;
  d.var = new_var(name, ir::VarRole::LoopVar);
  d.start = i64(0);
  d.end = std::move(end);
  d.step = i64(1);
  out_->dims.push_back(std::move(d));
  return out_->dims.back().var;
}

ir::ExprPtr Emitter::bind_launch(const LaunchNest& nest, const ExecBinding& binding) {
  std::vector<int> extents;
  for (const Operation* level : nest.levels) {
    emit_prologue_chain(level->operand(0));
    extents.push_back(scalar_var(level->operand(0)));
  }
  auto index_of = [&](size_t level, int var) {
    storage_[nest.levels[level]->region(0).block(0).argument(0)] = Storage{Type::tile(Scalar::i64), var, -1, -1};
  };
  // The CPU's SIMD lanes run consecutive iterations of the innermost
  // dimension (unless the kernel runs one iteration at a time); in
  // workgroups the lanes are a dimension of their own after the nest, whose
  // indices are the same on all of a group's lanes.
  auto lanes_walk_the_last = [&] {
    if (!in_groups() && options_.simd_lanes && !out_->dims.empty()) mark_varying(out_->dims.back().var);
  };
  if (!binding.is_split() && binding.groups.size() == binding.parts.size()) {
    for (const ExecPart& p : binding.parts) index_of(p.level, add_dim("i", ref(extents[p.level])));
    lanes_walk_the_last();
    return nullptr;
  }
  // Each part's extent, in the prologue. An extent below 0 counts as 0 (an
  // empty range, as per level), so a product of two negative extents is no
  // launch of positive size; a split level's outer part has ceil(E / f).
  std::vector<int> part_extent;
  for (const ExecPart& p : binding.parts) {
    part_extent.push_back(new_var("extent"));
    const int64_t f = binding.split[p.level];
    ir::ExprPtr clamped = max(ref(extents[p.level]), i64(0));
    switch (p.role) {
      case ExecPart::Role::whole: assign(part_extent.back(), std::move(clamped)); break;
      case ExecPart::Role::inner: assign(part_extent.back(), i64(f)); break;
      case ExecPart::Role::outer: {
        int e = new_var("extent");
        assign(e, std::move(clamped));
        ir::ExprPtr rest = ir::cast(DType::I64, cmp(ir::CmpOp::Ne, mod(ref(e), i64(f)), i64(0)), {});
        assign(part_extent.back(), ir::binary(ir::BinOp::Add, floor_div(ref(e), i64(f)), std::move(rest), {}));
        break;
      }
    }
  }
  // Each fused dimension's size, the product of its parts' extents, checked
  // step by step: where one would pass 2^63 - 1 the launch gets a leading
  // dimension of 2 before that one of 2^63 - 1 iterations, which the launch
  // refuses as too many iterations (as it refuses the same nest per level),
  // instead of a product that wrapped around; otherwise that dimension has
  // one. Within a dimension, each part's stride is the product of the
  // extents after it.
  struct Dim {
    size_t first = 0, count = 0;  // its parts
    int end = -1;                 // its size
    std::vector<int> strides;     // per part, -1 for 1
  };
  std::vector<Dim> dims;
  int any_overflow = -1;
  for (size_t g = 0, first = 0; g < binding.groups.size(); first += binding.groups[g++]) {
    Dim d{first, binding.groups[g], part_extent[first], {}};
    if (d.count > 1) {
      int size = new_var("dim_size"), fits = new_var("dim_fits");
      auto overflowed = [&] { return cmp(ir::CmpOp::Le, ref(fits), int_const(DType::I32, 0)); };
      assign(size, ref(part_extent[first]));
      assign(fits, int_const(DType::I32, 1));
      for (size_t p = first + 1; p < first + d.count; ++p) {
        ir::ExprPtr limit = floor_div(i64(INT64_MAX), max(ref(size), i64(1)));
        assign(fits,
               ir::cast(DType::I32, all_of(exprs(ref(fits), cmp(ir::CmpOp::Le, ref(part_extent[p]), std::move(limit)))), {}));
        assign(size, ir::select(overflowed(), i64(0), mul(ref(size), ref(part_extent[p])), {}));
      }
      d.end = new_var("dim_launched");
      assign(d.end, ir::select(overflowed(), i64(INT64_MAX), ref(size), {}));
      if (any_overflow < 0) {
        any_overflow = new_var("overflow");
        assign(any_overflow, int_const(DType::I32, 0));
      }
      assign(any_overflow, ir::select(overflowed(), int_const(DType::I32, 1), ref(any_overflow), {}));
    }
    d.strides.assign(d.count, -1);
    for (size_t j = d.count - 1; j-- > 0;) {
      d.strides[j] = new_var("stride");
      const size_t next = first + j + 1;
      assign(d.strides[j], d.strides[j + 1] < 0 ? ref(part_extent[next])
                                               : mul(ref(d.strides[j + 1]), ref(part_extent[next])));
    }
    dims.push_back(std::move(d));
  }
  if (any_overflow >= 0)
    add_dim("overflow_guard", ir::select(cmp(ir::CmpOp::Gt, ref(any_overflow), int_const(DType::I32, 0)), i64(2),
                                         i64(1), {}));
  std::vector<int> dim_vars;
  for (const Dim& d : dims) dim_vars.push_back(add_dim("i", ref(d.end)));
  lanes_walk_the_last();

  // In the body: each part's coordinate, each level's index, the guard.
  ir::Block* saved = block_;
  block_ = &out_->body;
  std::vector<int> coordinate(binding.parts.size(), -1);
  for (size_t g = 0; g < dims.size(); ++g) {
    const Dim& d = dims[g];
    for (size_t j = 0; j < d.count; ++j) {
      if (d.count == 1) {
        coordinate[d.first] = dim_vars[g];
        continue;
      }
      ir::ExprPtr at = ref(dim_vars[g]);
      if (d.strides[j] >= 0) at = floor_div(std::move(at), ref(d.strides[j]));
      // The outermost part needs no remainder: the index is below the
      // dimension's size, so the quotient is already below its extent.
      if (j > 0) at = mod(std::move(at), ref(part_extent[d.first + j]));
      coordinate[d.first + j] = new_var("i");
      assign(coordinate[d.first + j], std::move(at));
    }
  }
  std::vector<ir::ExprPtr> inside;
  for (size_t l = 0; l < nest.levels.size(); ++l) {
    int outer = -1, inner = -1, whole = -1;
    for (size_t p = 0; p < binding.parts.size(); ++p) {
      if (binding.parts[p].level != l) continue;
      switch (binding.parts[p].role) {
        case ExecPart::Role::whole: whole = coordinate[p]; break;
        case ExecPart::Role::outer: outer = coordinate[p]; break;
        case ExecPart::Role::inner: inner = coordinate[p]; break;
      }
    }
    if (whole >= 0) {
      index_of(l, whole);
      continue;
    }
    int index = new_var("i");
    assign(index, ir::binary(ir::BinOp::Add, mul(ref(outer), i64(binding.split[l])), ref(inner), {}));
    index_of(l, index);
    inside.push_back(cmp(ir::CmpOp::Lt, ref(index), ref(extents[l])));
  }
  block_ = saved;
  return inside.empty() ? nullptr : all_of(std::move(inside));
}

}  // namespace tack::tile::lower
