// Elementwise operations, cast, shape changes and extract, with the
// interpreter's element arithmetic (wrapping integers, f32 rounded after
// every operation, IEEE 754-2019 minimum/maximum, truncating integer
// division). The operations of one loop over their elements are emitted by
// fusion.cpp (emit_by_element) from the element expressions here.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/build.h"
#include "tile/lower/emitter.h"

namespace tack::tile::lower {

namespace {

ir::ExprPtr cmp(ir::CmpOp op, ir::ExprPtr a, ir::ExprPtr b) { return ir::compare(op, std::move(a), std::move(b), {}); }

ir::ExprPtr logical(ir::LogicOp op, ir::ExprPtr a, ir::ExprPtr b) {
  auto l = std::make_unique<ir::Logical>();
  l->op = op;
  l->lhs = std::move(a);
  l->rhs = std::move(b);
  return l;
}

ir::ExprPtr sel(ir::ExprPtr c, ir::ExprPtr t, ir::ExprPtr f) { return ir::select(std::move(c), std::move(t), std::move(f), {}); }

ir::ExprPtr bin(ir::BinOp op, ir::ExprPtr a, ir::ExprPtr b) { return ir::binary(op, std::move(a), std::move(b), {}); }

ir::ExprPtr negate(ir::ExprPtr a) {
  auto u = std::make_unique<ir::Unary>();
  u->op = ir::UnOp::Neg;
  u->operand = std::move(a);
  return u;
}

// The leaves of a product: v = f0 * f1 * ...
void factors(const Value* v, std::vector<const Value*>& out) {
  const Operation* def = v->defining_op();
  if (def && def->kind() == OpKind::mul && v->type().is_scalar()) {
    factors(def->operand(0), out);
    factors(def->operand(1), out);
    return;
  }
  out.push_back(v);
}

bool positive_constant(const Value* v) {
  const Operation* def = v->defining_op();
  return def && def->kind() == OpKind::constant && def->attrs().integer > 0;
}

// Whether the integer divisor of `op` is positive whenever `op` runs: a
// positive constant, or a product of positive constants and extents (`dim`,
// never negative) each of which is also a factor of the extent of a region
// enclosing `op`, so that the region running at all proves them nonzero.
// (The interpreter faults on a zero divisor; compiled code could not.)
bool divisor_proved_positive(const Operation& op) {
  const Value* divisor = op.operand(1);
  const Operation* def = divisor->defining_op();
  while (def && def->kind() == OpKind::broadcast) {
    divisor = def->operand(0);
    def = divisor->defining_op();
  }
  std::vector<const Value*> need;
  factors(divisor, need);
  std::vector<const Value*> extents;
  for (const Value* f : need) {
    if (positive_constant(f)) continue;
    const Operation* d = f->defining_op();
    if (!d || d->kind() != OpKind::dim) return false;
    extents.push_back(f);
  }
  if (extents.empty()) return true;
  for (const Operation* loop = op.parent_op(); loop; loop = loop->parent_op()) {
    if (!is_loop(loop->kind())) continue;
    std::vector<const Value*> have;
    factors(loop->operand(0), have);
    bool covered = true;
    for (const Value* f : extents) {
      auto it = std::find(have.begin(), have.end(), f);
      if (it == have.end()) {
        covered = false;
        break;
      }
      have.erase(it);
    }
    if (covered) return true;
  }
  return false;
}

}  // namespace

ir::ExprPtr Emitter::scalar_binary(const Operation& site, OpKind kind, Scalar elem, int a, int b) {
  DType t = value_dtype(elem);
  if (is_float(elem)) {
    switch (kind) {
      case OpKind::add: return bin(ir::BinOp::Add, ref(a), ref(b));
      case OpKind::sub: return bin(ir::BinOp::Sub, ref(a), ref(b));
      case OpKind::mul: return bin(ir::BinOp::Mul, ref(a), ref(b));
      case OpKind::div: return bin(ir::BinOp::Div, ref(a), ref(b));
      case OpKind::max:
      case OpKind::min: {
        // IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0. Equal
        // operands differ only as zeros of opposite sign, which exact
        // addition orders: a + b is -0 only when both are (the maximum),
        // -((-a) - b) is +0 only when both are (the minimum).
        bool mx = kind == OpKind::max;
        auto zeros = mx ? bin(ir::BinOp::Add, ref(a), ref(b))
                        : negate(bin(ir::BinOp::Sub, negate(ref(a)), ref(b)));
        auto equal = sel(cmp(ir::CmpOp::Eq, ref(a), float_const(t, 0.0)), std::move(zeros), ref(a));
        auto ordered = sel(cmp(mx ? ir::CmpOp::Gt : ir::CmpOp::Lt, ref(a), ref(b)), ref(a),
                           sel(cmp(mx ? ir::CmpOp::Gt : ir::CmpOp::Lt, ref(b), ref(a)), ref(b), std::move(equal)));
        return sel(cmp(ir::CmpOp::Ne, ref(a), ref(a)), ref(a),
                   sel(cmp(ir::CmpOp::Ne, ref(b), ref(b)), ref(b), std::move(ordered)));
      }
      case OpKind::eq: return cmp(ir::CmpOp::Eq, ref(a), ref(b));
      case OpKind::ne: return cmp(ir::CmpOp::Ne, ref(a), ref(b));
      case OpKind::lt: return cmp(ir::CmpOp::Lt, ref(a), ref(b));
      case OpKind::le: return cmp(ir::CmpOp::Le, ref(a), ref(b));
      case OpKind::gt: return cmp(ir::CmpOp::Gt, ref(a), ref(b));
      case OpKind::ge: return cmp(ir::CmpOp::Ge, ref(a), ref(b));
      case OpKind::rem:
        refuse(site, "is a floating-point remainder (C fmod), which the kernel IR does not express exactly (its % "
                     "follows Python)");
      default: refuse(site, "does not apply to floating-point tiles");
    }
  }
  auto wrap = [&](ir::ExprPtr e) { return ir::cast(t, std::move(e), {}); };
  switch (kind) {
    case OpKind::add: return wrap(bin(ir::BinOp::Add, ref(a), ref(b)));
    case OpKind::sub: return wrap(bin(ir::BinOp::Sub, ref(a), ref(b)));
    case OpKind::mul: return wrap(bin(ir::BinOp::Mul, ref(a), ref(b)));
    case OpKind::min: return wrap(bin(ir::BinOp::Min, ref(a), ref(b)));
    case OpKind::max: return wrap(bin(ir::BinOp::Max, ref(a), ref(b)));
    case OpKind::logical_and: return wrap(logical(ir::LogicOp::And, ref(a), ref(b)));
    case OpKind::logical_or: return wrap(logical(ir::LogicOp::Or, ref(a), ref(b)));
    case OpKind::eq: return cmp(ir::CmpOp::Eq, ref(a), ref(b));
    case OpKind::ne: return cmp(ir::CmpOp::Ne, ref(a), ref(b));
    case OpKind::lt: return cmp(ir::CmpOp::Lt, ref(a), ref(b));
    case OpKind::le: return cmp(ir::CmpOp::Le, ref(a), ref(b));
    case OpKind::gt: return cmp(ir::CmpOp::Gt, ref(a), ref(b));
    case OpKind::ge: return cmp(ir::CmpOp::Ge, ref(a), ref(b));
    case OpKind::div:
    case OpKind::rem: {
      // Truncating division by a divisor proved positive (the caller checks):
      // floor division corrected toward zero for a negative dividend.
      auto fix = logical(ir::LogicOp::And, cmp(ir::CmpOp::Lt, ref(a), int_const(t, 0)),
                         cmp(ir::CmpOp::Ne, bin(ir::BinOp::Mod, ref(a), ref(b)), int_const(t, 0)));
      if (kind == OpKind::div)
        return wrap(sel(std::move(fix), bin(ir::BinOp::Add, bin(ir::BinOp::FloorDiv, ref(a), ref(b)), int_const(t, 1)),
                        bin(ir::BinOp::FloorDiv, ref(a), ref(b))));
      return wrap(sel(std::move(fix), bin(ir::BinOp::Sub, bin(ir::BinOp::Mod, ref(a), ref(b)), ref(b)),
                      bin(ir::BinOp::Mod, ref(a), ref(b))));
    }
    default: refuse(site, "does not apply to integer tiles");
  }
}

ir::ExprPtr Emitter::scalar_unary(const Operation& op, int a) {
  Scalar e = op.result()->type().elem();
  DType t = value_dtype(e);
  switch (op.kind()) {
    case OpKind::neg: return ir::cast(t, negate(ref(a)), {});
    case OpKind::abs: return ir::cast(t, ir::math(ir::MathFn::Abs, exprs(ref(a)), {}), {});
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sqrt:
      if (!is_float(e)) refuse(op, "does not apply to integer tiles");
      return ir::math(op.kind() == OpKind::exp   ? ir::MathFn::Exp
                      : op.kind() == OpKind::log ? ir::MathFn::Log
                                                 : ir::MathFn::Sqrt,
                      exprs(ref(a)), {});
    default:  // not
      if (is_float(e)) refuse(op, "does not apply to floating-point tiles");
      return cmp(ir::CmpOp::Eq, ref(a), int_const(t, 0));
  }
}

ir::ExprPtr Emitter::scalar_cast(const Operation& op, int a) {
  Scalar from = op.operand(0)->type().elem(), to = op.result()->type().elem();
  DType t = value_dtype(to);
  if (is_float(to)) return ir::cast(t, ref(a), {});
  if (to == Scalar::i1)
    return cmp(ir::CmpOp::Ne, ref(a), zero_of(from));
  if (!is_float(from)) return ir::cast(t, ref(a), {});
  // Truncation toward zero, saturating; NaN becomes 0 (the interpreter's rule).
  DType f = value_dtype(from);
  int64_t lo = to == Scalar::i32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  int64_t hi = to == Scalar::i32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  double flo = to == Scalar::i32 ? double(lo) : -9.2233720368547758e18;
  double fhi = to == Scalar::i32 ? double(hi) : 9.2233720368547758e18;
  return sel(cmp(ir::CmpOp::Ne, ref(a), ref(a)), int_const(t, 0),
             sel(cmp(ir::CmpOp::Ge, ref(a), float_const(f, fhi)), int_const(t, hi),
                 sel(cmp(ir::CmpOp::Le, ref(a), float_const(f, flo)), int_const(t, lo), ir::cast(t, ref(a), {}))));
}

void Emitter::binary_tiles(const Operation& site, OpKind kind, const Storage& a, const Storage& b, const Storage& out) {
  Scalar e = a.type.elem();
  int va = new_var("a"), vb = new_var("b");
  for_each_element(a.type.shape(), [&](const std::vector<int>& i) {
    assign_constant_or(va, read(a, refs(i)));
    assign_constant_or(vb, read(b, refs(i)));
    write(out, refs(i), scalar_binary(site, kind, e, va, vb));
  });
  sync();
}

void Emitter::emit_elementwise(const Operation& op) {
  const Type& rt = op.result()->type();
  const Attrs& attrs = op.attrs();
  switch (op_format(op.kind())) {
    case OpFormat::binary:
    case OpFormat::compare: {
      if ((op.kind() == OpKind::div || op.kind() == OpKind::rem) && !is_float(op.operand(0)->type().elem()) &&
          !divisor_proved_positive(op))
        refuse(op, "divides integers by a divisor not proved positive (a positive constant, or extents that an "
                   "enclosing region's extent also multiplies); the interpreter faults on a zero divisor, which "
                   "compiled code cannot report");
      return emit_by_element(op);
    }
    case OpFormat::unary: return emit_by_element(op);
    default: break;
  }
  switch (op.kind()) {
    case OpKind::constant: {
      const Storage value = constant_storage(rt, op);
      if (rt.rank() > 0) {  // no array: every read is the value
        storage_[op.result()] = value;
        return;
      }
      Storage r = define(op.result());
      write(r, {}, read(value, {}));
      return;
    }
    case OpKind::iota:
    case OpKind::select:
    case OpKind::cast:
    case OpKind::broadcast:
    case OpKind::reshape: return emit_by_element(op);
    case OpKind::extract: {
      // The position must be proved inside the tile: the interpreter faults
      // outside it, and a local array read there has no defined result.
      const Value* k = op.operand(1);
      int64_t extent = op.operand(0)->type().shape()[attrs.axis];
      bool proved = false;
      if (std::optional<int64_t> at = constant_integer(k))
        proved = *at >= 0 && *at < extent;
      else if (const Operation* loop = region_of_index(k))
        proved = constant_integer(loop->operand(0)).value_or(extent + 1) <= extent;
      if (!proved)
        refuse(op, "extracts at a position not proved inside the tile (a constant, or the index of a loop whose "
                   "extent is a constant no larger than the axis)");
      return emit_by_element(op);
    }
    default: refuse(op, "has no lowering");
  }
}

}  // namespace tack::tile::lower
