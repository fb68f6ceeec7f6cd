// Views, loads and stores. A view's addresses are its layout's
// (tack/tile/view_layout.h): its modes' strides name the parameter axis each
// view axis walks, and its translation, coordinate times stride, gives one
// origin per parameter axis (a local summing the coordinates along it). The
// kernel IR's multi-dimensional array access multiplies those indices by the
// parameter's run-time strides, which is the parameter's layout evaluated.
// Beside the layout, per view axis, the bounds a position must satisfy (the
// parameter's extent and every enclosing window's), and the conditions that
// dropped axes' coordinates lie inside. A load reads an element only where
// every bound holds and gives the pad elsewhere; a store writes only there:
// the interpreter's masking, element for element.
#include "ir/build.h"
#include "tile/lower/emitter.h"

namespace tack::tile::lower {

namespace {

ir::ExprPtr cmp(ir::CmpOp op, ir::ExprPtr a, ir::ExprPtr b) { return ir::compare(op, std::move(a), std::move(b), {}); }

}  // namespace

void Emitter::bind_parameters() {
  for (unsigned i = 0; i < kernel_.num_params(); ++i) {
    const Type& t = kernel_.param(i)->type();
    ir::Param p;
    p.name = "view" + std::to_string(i);
    p.kind = ir::ParamKind::Array;
    p.dtype = memory_dtype(t.elem());
    p.ndim = t.rank();
    p.contiguous = false;  // any strides: the launch passes them
    p.used = true;
    out_->params.push_back(std::move(p));
    parameter_layouts_.push_back(parameter_layout(i, t.rank()));
    ViewInfo v;
    v.array = int(i);
    v.elem = t.elem();
    v.layout = view_layout(parameter_layouts_.back());
    for (int d = 0; d < t.rank(); ++d) {
      v.extents.push_back(kDynamic);
      v.origin.push_back(Term::constant(0));
      v.bounds.push_back({Bound{Term::constant(0), Term::extent(int(i), d)}});
    }
    views_[kernel_.param(i)] = std::move(v);
  }
}

void Emitter::emit_memory(const Operation& op) {
  switch (op.kind()) {
    case OpKind::dim: {
      const ViewInfo& v = views_.at(op.operand(0));
      int axis = op.attrs().axis;
      Storage r = define(op.result());
      int64_t e = v.extents[size_t(axis)];
      const IntTuple& extent = v.layout.modes[size_t(axis)].shape();
      write(r, {}, e == kDynamic ? term(Term::extent(v.array, extent_axis_of(v, extent))) : i64(e));
      return;
    }
    case OpKind::view: {
      const ViewInfo& parent = views_.at(op.operand(0));
      const std::vector<int64_t>& extents = op.attrs().extents;
      ViewInfo v;
      v.array = parent.array;
      v.elem = parent.elem;
      v.layout = view_layout(parent.layout, op);
      v.origin = parent.origin;
      v.conditions = parent.conditions;
      v.condition_for_all = parent.condition_for_all;
      const size_t own_terms = parent.layout.offset.size();
      for (size_t d = 0; d < extents.size(); ++d) {
        int c = scalar_var(op.operand(unsigned(d) + 1));
        // The translation's term for this coordinate: c times the stride of
        // the parameter axis it moves along, whose origin it adds to.
        const size_t pa = size_t(stride_axis_of(v, v.layout.offset[own_terms + d].stride));
        int at = new_var("at");
        assign(at, add(term(parent.origin[pa]), ref(c)));
        v.origin[pa] = Term::local(at);
        if (extents[d] == kIndexed) {
          std::vector<ir::ExprPtr> inside;
          for (const Bound& b : parent.bounds[d]) {
            inside.push_back(cmp(ir::CmpOp::Ge, add(ref(c), term(b.shift)), i64(0)));
            inside.push_back(cmp(ir::CmpOp::Lt, add(ref(c), term(b.shift)), term(b.bound)));
          }
          if (parent.extents[d] != kDynamic) {  // inside the parent window
            inside.push_back(cmp(ir::CmpOp::Ge, ref(c), i64(0)));
            inside.push_back(cmp(ir::CmpOp::Lt, ref(c), i64(parent.extents[d])));
          }
          int ok = new_var("inside");
          assign(ok, ir::cast(DType::I32, all_of(std::move(inside)), {}));
          v.conditions.push_back(ok);
          // A coordinate that is the index of a region of constant extent
          // E lies in [0, E): the condition holds for all of them where
          // every bound holds at 0 and at E - 1.
          int for_all = -1;
          int64_t range = index_range(op.operand(unsigned(d) + 1));
          if (range > 0 && (parent.extents[d] == kDynamic || range <= parent.extents[d])) {
            std::vector<ir::ExprPtr> all;
            for (const Bound& b : parent.bounds[d]) {
              all.push_back(cmp(ir::CmpOp::Ge, term(b.shift), i64(0)));
              all.push_back(cmp(ir::CmpOp::Le, add(term(b.shift), i64(range)), term(b.bound)));
            }
            ir::ExprPtr test = all.empty() ? int_const(DType::I32, 1) : ir::cast(DType::I32, all_of(std::move(all)), {});
            if (!varying(*test)) {
              for_all = new_var("inside_all");
              assign(for_all, std::move(test));
            }
          }
          v.condition_for_all.push_back(for_all);
          continue;
        }
        v.extents.push_back(extents[d]);
        std::vector<Bound> bounds;
        for (const Bound& b : parent.bounds[d]) {
          int s = new_var("shift");
          assign(s, add(term(b.shift), ref(c)));
          bounds.push_back(Bound{Term::local(s), b.bound});
        }
        if (parent.extents[d] != kDynamic) bounds.push_back(Bound{Term::local(c), Term::constant(parent.extents[d])});
        v.bounds.push_back(std::move(bounds));
      }
      // The plan shows each view's layout over its parameter's.
      note("; view " + names_(op.result()) + " = " + to_string(v.layout, names_) + ", over " +
           names_(kernel_.param(unsigned(v.array))) + " = " + to_string(view_layout(parameter_layouts_[size_t(v.array)]).layout()));
      views_[op.result()] = std::move(v);
      return;
    }
    case OpKind::load:
    case OpKind::store: {
      const ViewInfo& v = views_.at(op.operand(0));
      Shape shape(v.extents);
      if (op.kind() == OpKind::load) shape = op.result()->type().shape();
      for (int64_t e : shape.dims())
        if (e == kDynamic) refuse(op, "accesses a whole kernel parameter, whose extent is known only at run time");
      // A tile that mma reads in place is loaded by the mma, where its
      // window is not whole (emit_mma).
      if (op.kind() == OpKind::load && !loading_now_) {
        if (read_in_place(op)) {
          in_place_.insert(op.result());
          return;
        }
        in_place_.erase(op.result());
      }
      Storage r = op.kind() == OpKind::load ? define(op.result()) : storage(op.operand(1));
      // Whether every element lies inside every bound that is the same for
      // the SIMD lanes: the first and the last position of each axis do.
      // A window inside those runs with a test per element only of the
      // bounds and conditions that move with the innermost parallel
      // iteration (none, most often), which lets the CPU compiler copy rows
      // as vectors. Tests that differ between lanes stay per element: as
      // the condition of an `if`, they would leave both paths running under
      // masks, which costs more than the tests it saves.
      ir::ExprPtr inside = whole_window(v, shape);
      auto elements = [&](bool only_varying) {
        for_each_element(shape, [&](const std::vector<int>& i) {
          ir::ExprPtr ok = all_of(view_guards(v, refs(i), only_varying));
          if (op.kind() == OpKind::load) {
            ir::ExprPtr value = read_element(v, refs(i));
            if (ok) {
              DType t = value_dtype(v.elem);
              const Attrs& a = op.attrs();
              ir::ExprPtr pad = is_float(v.elem) ? float_const(t, a.number)
                                                 : int_const(t, v.elem == Scalar::i1 ? a.integer != 0 : a.integer);
              value = ir::select(std::move(ok), std::move(value), std::move(pad), {});
            }
            return write(r, refs(i), std::move(value));
          }
          auto st = std::make_unique<ir::Store>();
          st->array = v.array;
          st->indices = view_access(v, refs(i));
          ir::ExprPtr value = read(r, refs(i));
          st->value = v.elem == Scalar::i1
                          ? ir::cast(DType::U8, cmp(ir::CmpOp::Ne, std::move(value), int_const(DType::I32, 0)), {})
                          : std::move(value);
          note_access(kGlobal, true, false);
          // In workgroups a rank-0 store is lane 0's (a tile's elements are each one lane's already).
          if (spread() && shape.rank() == 0) {
            ir::ExprPtr first = ir::compare(ir::CmpOp::Eq, ref(lane_), i64(0), {});
            ok = ok ? all_of(exprs(std::move(ok), std::move(first))) : std::move(first);
          }
          if (!ok) return block_->push_back(std::move(st));
          if_then(std::move(ok), [&] { block_->push_back(std::move(st)); });
        });
      };
      if (inside)
        if_else(std::move(inside), [&] { elements(true); }, [&] { elements(false); });
      else
        elements(false);
      return;
    }
    default: refuse(op, "has no lowering");
  }
}

ir::ExprPtr Emitter::whole_window(const ViewInfo& v, const Shape& shape) const {
  std::vector<ir::ExprPtr> whole;
  for (size_t c = 0; c < v.conditions.size(); ++c) {
    int test = condition_test(v, c);
    if (!varying(*ref(test))) whole.push_back(cmp(ir::CmpOp::Ne, ref(test), int_const(DType::I32, 0)));
  }
  for (size_t d = 0; d < v.bounds.size(); ++d)
    for (const Bound& b : v.bounds[d]) {
      if (moves_with_lanes(b)) continue;
      whole.push_back(cmp(ir::CmpOp::Ge, term(b.shift), i64(0)));
      whole.push_back(cmp(ir::CmpOp::Le, add(term(b.shift), i64(shape.dims()[d])), term(b.bound)));
    }
  return all_of(std::move(whole));
}

bool Emitter::tests_vary(const ViewInfo& v) const {
  for (size_t c = 0; c < v.conditions.size(); ++c)
    if (varying(*ref(condition_test(v, c)))) return true;
  for (const std::vector<Bound>& axis : v.bounds)
    for (const Bound& b : axis)
      if (moves_with_lanes(b)) return true;
  return false;
}

ir::ExprPtr Emitter::read_element(const ViewInfo& v, const std::vector<ir::ExprPtr>& at) {
  note_access(kGlobal, false, false);
  auto l = std::make_unique<ir::Load>();
  l->array = v.array;
  l->indices = view_access(v, at);
  return v.elem == Scalar::i1 ? cmp(ir::CmpOp::Ne, std::move(l), int_const(DType::U8, 0)) : ir::ExprPtr(std::move(l));
}

int Emitter::condition_test(const ViewInfo& v, size_t c) const {
  return v.condition_for_all[c] >= 0 ? v.condition_for_all[c] : v.conditions[c];
}

int64_t Emitter::index_range(const Value* index) const {
  const Operation* loop = region_of_index(index);
  return loop ? constant_integer(loop->operand(0)).value_or(0) : 0;
}

bool Emitter::moves_with_lanes(const Bound& b) const { return varying(*term(b.shift)) || varying(*term(b.bound)); }

std::vector<ir::ExprPtr> Emitter::view_guards(const ViewInfo& v, const std::vector<ir::ExprPtr>& at,
                                              bool only_varying) const {
  std::vector<ir::ExprPtr> inside;
  for (size_t c = 0; c < v.conditions.size(); ++c)
    if (!only_varying || varying(*ref(condition_test(v, c))))
      inside.push_back(cmp(ir::CmpOp::Ne, ref(v.conditions[c]), int_const(DType::I32, 0)));
  for (size_t d = 0; d < v.bounds.size(); ++d)
    for (const Bound& b : v.bounds[d]) {
      if (only_varying && !moves_with_lanes(b)) continue;
      inside.push_back(cmp(ir::CmpOp::Ge, add(ir::clone(*at[d]), term(b.shift)), i64(0)));
      inside.push_back(cmp(ir::CmpOp::Lt, add(ir::clone(*at[d]), term(b.shift)), term(b.bound)));
    }
  return inside;
}

// The layout at `at`, as the parameter's indices: each axis's origin plus
// the positions of the view axes whose stride is that axis's.
std::vector<ir::ExprPtr> Emitter::view_access(const ViewInfo& v, const std::vector<ir::ExprPtr>& at) const {
  std::vector<ir::ExprPtr> idx;
  for (const Term& o : v.origin) idx.push_back(term(o));
  for (size_t d = 0; d < v.layout.modes.size(); ++d) {
    const size_t pa = size_t(stride_axis_of(v, v.layout.modes[d].stride()));
    idx[pa] = add(std::move(idx[pa]), ir::clone(*at[d]));
  }
  return idx;
}

int Emitter::stride_axis_of(const ViewInfo& v, const IntTuple& stride) const {
  std::optional<int> axis = stride_axis(parameter_layouts_[size_t(v.array)], stride);
  if (!axis) throw std::logic_error("tile lowering: a view's stride " + to_string(stride) + " is not its parameter's.");
  return *axis;
}

int Emitter::extent_axis_of(const ViewInfo& v, const IntTuple& extent) const {
  std::optional<int> axis = extent_axis(parameter_layouts_[size_t(v.array)], extent);
  if (!axis) throw std::logic_error("tile lowering: a view's extent " + to_string(extent) + " is not its parameter's.");
  return *axis;
}

}  // namespace tack::tile::lower
