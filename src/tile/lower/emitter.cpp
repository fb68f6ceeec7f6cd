#include "tile/lower/emitter.h"

#include "ir/build.h"
#include "ir/traverse.h"

namespace tack::tile::lower {

// Local arrays live on each worker's stack; the kernel language caps one at
// 64 KiB, and a tile obeys the same cap.
constexpr int64_t kLocalArrayLimit = 64 * 1024;

Emitter::Emitter(const Kernel& kernel, const CompileOptions& options, const LoweringTarget& target)
    : kernel_(kernel), options_(options), target_(target), names_(kernel) {
  if (in_groups()) lane_tiles_ = lane_tiles(kernel, target_.workgroup_lanes);
}

void Emitter::refuse(const Operation& op, const std::string& why) const {
  throw Error("compile @" + kernel_.name() + ": " + names_.describe(op) + " " + why + ".");
}

void Emitter::note(const std::string& line) {
  if (notes_.find(line + "\n") == std::string::npos) notes_ += line + "\n";
}

DType Emitter::value_dtype(Scalar s) const {
  switch (s) {
    case Scalar::i1:
    case Scalar::i32: return DType::I32;
    case Scalar::i64: return DType::I64;
    case Scalar::f32: return DType::F32;
    case Scalar::f64: return DType::F64;
  }
  return DType::I32;
}

std::optional<int64_t> constant_integer(const Value* v) {
  const Operation* def = v->defining_op();
  if (!def || def->kind() != OpKind::constant) return std::nullopt;
  return def->attrs().integer;
}

const Operation* region_of_index(const Value* v) {
  const Block* block = v->owner_block();
  const Operation* loop = block ? block->parent_op() : nullptr;
  return loop && !v->defining_op() && v->index() == 0 && is_loop(loop->kind()) ? loop : nullptr;
}

DType memory_dtype(Scalar s) {
  switch (s) {
    case Scalar::i1: return DType::U8;
    case Scalar::i32: return DType::I32;
    case Scalar::i64: return DType::I64;
    case Scalar::f32: return DType::F32;
    case Scalar::f64: return DType::F64;
  }
  return DType::U8;
}

int Emitter::new_var(const std::string& name, ir::VarRole role) { return out_->add_var(name, role); }

bool Emitter::varying(const ir::Expr& e) const {
  if (e.kind == ir::ExprKind::Load) return true;
  if (auto* r = e.as<ir::VarRef>()) return size_t(r->var) < varying_.size() && varying_[size_t(r->var)];
  bool v = false;
  ir::for_each_child(const_cast<ir::Expr&>(e), [&](ir::ExprPtr& c) { v = v || varying(*c); }, [](ir::Block&) {});
  return v;
}

void Emitter::mark_varying(int var) {
  if (varying_.size() <= size_t(var)) varying_.resize(size_t(var) + 1, false);
  varying_[size_t(var)] = true;
}

int Emitter::new_array(const Operation* op, Scalar elem, std::vector<int64_t> shape, const char* what, bool per_lane) {
  int64_t bytes = size_of(value_dtype(elem));
  for (int64_t e : shape)
    if (bytes <= kLocalArrayLimit) bytes *= e;
  const bool shared = spread() && !per_lane;
  if (shared) {
    shared_bytes_ += bytes;
    if (shared_bytes_ > target_.shared_bytes)
      throw NoWorkgroupFit{(op ? names_.describe(*op) + " needs " : std::string("the kernel needs ")) + what +
                           " that brings the group's shared memory past " + std::to_string(target_.shared_bytes) +
                           " bytes"};
  }
  if (!shared && bytes > kLocalArrayLimit && op)
    refuse(*op, std::string("needs ") + what + " of more than 64 KiB, which does not fit a compiled kernel's private "
                "scratch");
  if (const int64_t total = ir::private_scratch_bytes(*out_) + bytes; !shared && op && total > ir::kPrivateScratchLimit)
    refuse(*op, std::string("needs ") + what + " that brings the kernel's private scratch to " +
                    std::to_string(total) + " bytes, more than the " + std::to_string(ir::kPrivateScratchLimit >> 20) +
                    " MiB a worker's stack holds");
  ir::Param p;
  p.kind = ir::ParamKind::LocalArray;
  p.dtype = value_dtype(elem);
  p.ndim = int(shape.size());
  p.local_shape = std::move(shape);
  p.used = true;
  p.shared = shared;
  p.declared_with = shared ? "shared" : "local_array";
  p.name = "$tile" + std::to_string(out_->params.size());
  out_->params.push_back(std::move(p));
  return int(out_->params.size()) - 1;
}

Storage Emitter::new_storage(const Operation* op, const Type& t) {
  Storage s;
  s.type = t;
  if (t.rank() == 0) {
    s.var = new_var("t");
  } else {
    std::vector<int64_t> shape(t.shape().dims().begin(), t.shape().dims().end());
    s.array = new_array(op, t.elem(), std::move(shape));
  }
  return s;
}

Storage Emitter::constant_storage(const Type& t, const Operation& constant) {
  Storage s;
  s.type = t;
  s.constant = true;
  s.number = constant.attrs().number;
  s.integer = t.elem() == Scalar::i1 ? constant.attrs().integer != 0 : constant.attrs().integer;
  return s;
}

Storage& Emitter::define(const Value* v) {
  auto it = storage_.find(v);
  if (it != storage_.end()) return it->second;
  const Operation* def = v->defining_op();
  if (spread() && lane_tiles_.count(v)) return storage_[v] = lane_storage(v);
  if (v->type().rank() == 0 || !def || !emitted_once(*def->parent_block()))
    return storage_[v] = new_storage(def, v->type());
  const ArrayKind kind{v->type().elem(), std::vector<int64_t>(v->type().shape().dims().begin(), v->type().shape().dims().end()),
                       spread()};
  std::vector<int>& free = free_arrays_[kind];
  Storage s;
  if (free.empty()) {
    s = new_storage(def, v->type());
    array_kinds_[s.array] = kind;
  } else {
    s.type = v->type();
    s.array = free.back();
    free.pop_back();
  }
  reusable_[v] = s.array;
  return storage_[v] = s;
}

Storage Emitter::lane_storage(const Value* v) {
  Storage s;
  s.type = v->type();
  const int64_t slots = (v->type().shape().num_elements() + target_.workgroup_lanes - 1) / target_.workgroup_lanes;
  if (slots <= 1) {
    // Assigned on every lane where it is defined, before the lanes that
    // hold its element assign it: PoCL 3.1's work-group methods disagree
    // on a private variable assigned on some work-items only (`loops` gave
    // wrong values: docs/tile/compile.md, "Workgroups").
    s.var = new_var("r");
    assign(s.var, zero_of(v->type().elem()));
    return s;
  }
  s.lane_slots = true;
  const ArrayKind kind{v->type().elem(), {slots}, false};
  const Operation* def = v->defining_op();
  std::vector<int>& free = free_arrays_[kind];
  if (!emitted_once(*def->parent_block()) || free.empty()) {
    s.array = new_array(def, v->type().elem(), {slots}, "a tile's elements in a lane's registers", true);
    array_kinds_[s.array] = kind;
  } else {
    s.array = free.back();
    free.pop_back();
  }
  if (emitted_once(*def->parent_block())) reusable_[v] = s.array;
  return s;
}

bool Emitter::emitted_once(const Block& block) const {
  for (const Block* b = &block; const Operation* op = b->parent_op(); b = op->parent_block())
    if (op->kind() == OpKind::reduce && b->parent() != &op->region(0)) return false;
  return true;
}

const Storage& Emitter::storage(const Value* v) const {
  auto it = storage_.find(v);
  if (it == storage_.end())
    throw Error("compile @" + kernel_.name() + ": internal: value " + names_(v) + " has no storage.");
  return it->second;
}

int Emitter::scalar_var(const Value* v) const {
  const Storage& s = storage(v);
  if (s.var < 0) throw Error("compile @" + kernel_.name() + ": internal: value " + names_(v) + " is not a scalar local.");
  return s.var;
}

Term Emitter::term_of(const Value* v) const { return Term::local(scalar_var(v)); }

ir::ExprPtr Emitter::ref(int var) const {
  if (auto c = constant_locals_.find(var); c != constant_locals_.end()) return ir::clone(*c->second);
  auto r = std::make_unique<ir::VarRef>();
  r->var = var;
  return r;
}

ir::ExprPtr Emitter::int_const(DType t, int64_t v) const {
  auto c = std::make_unique<ir::IntConst>();
  c->bits = uint64_t(v);
  c->negative = v < 0;
  return ir::cast(t, std::move(c), {});
}

ir::ExprPtr Emitter::i64(int64_t v) const { return int_const(DType::I64, v); }

ir::ExprPtr Emitter::float_const(DType t, double v) const {
  auto c = std::make_unique<ir::FloatConst>();
  c->value = v;
  return ir::cast(t, std::move(c), {});
}

ir::ExprPtr Emitter::zero_of(Scalar s) const {
  return is_float(s) ? float_const(value_dtype(s), 0.0) : int_const(value_dtype(s), 0);
}

ir::ExprPtr Emitter::term(const Term& t) const {
  switch (t.kind) {
    case Term::Kind::var: return ref(t.var);
    case Term::Kind::constant: return i64(t.value);
    case Term::Kind::extent: {
      auto d = std::make_unique<ir::ArrayDim>();
      d->array = t.array;
      d->dim = t.axis;
      return ir::cast(DType::I64, std::move(d), {});
    }
  }
  return nullptr;
}

ir::ExprPtr Emitter::add(ir::ExprPtr a, ir::ExprPtr b) const { return ir::binary(ir::BinOp::Add, std::move(a), std::move(b), {}); }

ir::ExprPtr Emitter::all_of(std::vector<ir::ExprPtr> conds) const {
  ir::ExprPtr out;
  for (auto& c : conds) {
    if (!out) {
      out = std::move(c);
      continue;
    }
    auto l = std::make_unique<ir::Logical>();
    l->op = ir::LogicOp::And;
    l->lhs = std::move(out);
    l->rhs = std::move(c);
    out = std::move(l);
  }
  return out;
}

std::vector<ir::ExprPtr> Emitter::refs(const std::vector<int>& vars) const {
  std::vector<ir::ExprPtr> out;
  for (int v : vars) out.push_back(ref(v));
  return out;
}

ir::ExprPtr Emitter::lane_slot() const {
  if (slot_ < 0) throw Error("compile @" + kernel_.name() + ": internal: a tile in the lanes' registers accessed outside its element loop.");
  return ref(slot_);
}

ir::ExprPtr Emitter::read(const Storage& s, std::vector<ir::ExprPtr> idx) {
  if (s.var >= 0) return ref(s.var);
  if (s.deferred) return s.deferred->element(std::move(idx));
  if (s.constant)
    return is_float(s.type.elem()) ? float_const(value_dtype(s.type.elem()), s.number)
                                   : int_const(value_dtype(s.type.elem()), s.integer);
  if (out_->params[size_t(s.array)].shared) note_access(s.array, false, own_position(s, idx));
  auto l = std::make_unique<ir::Load>();
  l->array = s.array;
  if (s.lane_slots) {
    l->indices.push_back(lane_slot());
    return l;
  }
  if (s.prefix >= 0) l->indices.push_back(ref(s.prefix));
  for (auto& i : idx) l->indices.push_back(std::move(i));
  return l;
}

void Emitter::write(const Storage& s, std::vector<ir::ExprPtr> idx, ir::ExprPtr value) {
  if (s.var >= 0) return assign(s.var, std::move(value));
  if (s.constant || s.deferred) throw Error("compile @" + kernel_.name() + ": internal: a write to a constant or deferred tile.");
  if (out_->params[size_t(s.array)].shared) note_access(s.array, true, own_position(s, idx));
  auto st = std::make_unique<ir::Store>();
  st->array = s.array;
  if (s.lane_slots) {
    st->indices.push_back(lane_slot());
  } else {
    if (s.prefix >= 0) st->indices.push_back(ref(s.prefix));
    for (auto& i : idx) st->indices.push_back(std::move(i));
  }
  st->value = std::move(value);
  block_->push_back(std::move(st));
}

namespace {

bool is_constant(const ir::Expr& e) {
  if (auto* c = e.as<ir::Cast>()) return is_constant(*c->operand);
  return e.kind == ir::ExprKind::IntConst || e.kind == ir::ExprKind::FloatConst;
}

}  // namespace

void Emitter::assign_constant_or(int var, ir::ExprPtr value) {
  if (is_constant(*value)) {
    constant_locals_[var] = std::move(value);
    return;
  }
  assign(var, std::move(value));
}

void Emitter::assign(int var, ir::ExprPtr value) {
  if (constant_locals_.count(var))
    throw Error("compile @" + kernel_.name() + ": internal: a local that stands for a constant is assigned.");
  if (varying(*value)) mark_varying(var);
  auto a = std::make_unique<ir::Assign>();
  a->var = var;
  a->value = std::move(value);
  block_->push_back(std::move(a));
}

void Emitter::for_range(int var, ir::ExprPtr extent, const std::function<void()>& body) {
  if (varying(*extent)) mark_varying(var);
  auto f = std::make_unique<ir::For>();
  f->var = var;
  f->start = i64(0);
  f->end = std::move(extent);
  f->step = i64(1);
  ir::Block* saved = block_;
  block_ = &f->body;
  // Zero iterations leave pending what was before the loop.
  const std::map<int, Access> before = pending_;
  body();
  join_pending(before);
  block_ = saved;
  block_->push_back(std::move(f));
}

void Emitter::for_lanes(int var, ir::ExprPtr extent, const std::function<void()>& body) {
  mark_varying(var);
  auto f = std::make_unique<ir::For>();
  f->var = var;
  f->start = ref(lane_);
  f->end = std::move(extent);
  f->step = i64(target_.workgroup_lanes);
  ir::Block* saved = block_;
  block_ = &f->body;
  body();
  block_ = saved;
  block_->push_back(std::move(f));
}

void Emitter::for_lanes(int var, int64_t extent, const std::function<void()>& body) {
  if (extent > target_.workgroup_lanes) return for_lanes(var, i64(extent), body);
  // One trip at most: no loop. PoCL 3.1's `loops` work-group method
  // crashed inside kernels whose lane registers were assigned in one such
  // loop and read in the next (docs/tile/compile.md, "Workgroups").
  mark_varying(var);
  assign(var, ref(lane_));
  if (extent == target_.workgroup_lanes) return body();
  if_then(ir::compare(ir::CmpOp::Lt, ref(lane_), i64(extent), {}), body);
}

void Emitter::sync() {
  if (!in_groups() || lanes_apart_ || deferring_ || !significant_pending()) return;
  barrier();
}

void Emitter::if_then(ir::ExprPtr cond, const std::function<void()>& body) { if_else(std::move(cond), body, [] {}); }

void Emitter::if_else(ir::ExprPtr cond, const std::function<void()>& then_body,
                      const std::function<void()>& else_body) {
  auto s = std::make_unique<ir::If>();
  s->cond = std::move(cond);
  ir::Block* saved = block_;
  // Each branch starts from the accesses pending before the test; after
  // it, either branch's may be pending.
  const std::map<int, Access> before = pending_;
  block_ = &s->then_body;
  then_body();
  std::map<int, Access> after_then = std::move(pending_);
  pending_ = before;
  block_ = &s->else_body;
  else_body();
  join_pending(after_then);
  block_ = saved;
  block_->push_back(std::move(s));
}

void Emitter::for_each_element(const Shape& shape, const std::function<void(const std::vector<int>&)>& body) {
  if (spread() && shape.rank() > 0) {
    // This lane's elements, by row-major position; a tile in the lanes'
    // registers keeps element flat at slot flat / lanes.
    int flat = new_var("e", ir::VarRole::LoopVar);
    for_lanes(flat, shape.num_elements(), [&] {
      const int outer_slot = slot_;
      slot_ = -1;
      if (shape.num_elements() > target_.workgroup_lanes && !lane_tiles_.empty()) {
        slot_ = new_var("slot");
        assign(slot_, ir::binary(ir::BinOp::FloorDiv, ref(flat), i64(target_.workgroup_lanes), {}));
      }
      std::vector<int> idx;
      int64_t inner = shape.num_elements();
      for (int d = 0; d < shape.rank(); ++d) {
        inner /= shape[d];
        if (shape.rank() == 1) {
          idx.push_back(flat);
          break;
        }
        int v = new_var("e");
        ir::ExprPtr at = ir::binary(ir::BinOp::FloorDiv, ref(flat), i64(inner), {});
        if (d > 0) at = ir::binary(ir::BinOp::Mod, std::move(at), i64(shape[d]), {});
        assign(v, std::move(at));
        idx.push_back(v);
      }
      const std::vector<int>* outer_idx = element_idx_;
      const Shape outer_shape = element_shape_;
      element_idx_ = &idx;
      element_shape_ = shape;
      body(idx);
      element_idx_ = outer_idx;
      element_shape_ = outer_shape;
      slot_ = outer_slot;
    });
    return;
  }
  std::vector<int> idx;
  if (shape.num_elements() <= kStraightElements) {
    // Few elements: one copy of the body per element with its index
    // constant, which the compiler keeps in registers without a loop (a
    // kernel of many tiny loops costs the loop passes time quadratic in
    // their number).
    // Each element's index locals are its own, assigned once, which the
    // compiler's promotion of locals to registers handles in linear time.
    for (int64_t flat = 0; flat < shape.num_elements(); ++flat) {
      idx.assign(size_t(shape.rank()), 0);
      int64_t rest = flat;
      for (int d = shape.rank() - 1; d >= 0; --d) {
        idx[size_t(d)] = new_var("e");
        assign_constant_or(idx[size_t(d)], i64(rest % shape[d]));
        rest /= shape[d];
      }
      body(idx);
    }
    return;
  }
  std::function<void(int)> nest = [&](int d) {
    if (d == shape.rank()) return body(idx);
    if (shape[d] == 1) {  // no loop: the loop passes' time grows with the number of loops
      int v = new_var("e");
      assign_constant_or(v, i64(0));
      idx.push_back(v);
      nest(d + 1);
      idx.pop_back();
      return;
    }
    int v = new_var("e", ir::VarRole::LoopVar);
    idx.push_back(v);
    for_range(v, i64(shape[d]), [&] { nest(d + 1); });
    idx.pop_back();
    bool innermost = true;
    for (int inner = d + 1; inner < shape.rank(); ++inner) innermost = innermost && shape[inner] == 1;
    if (innermost) block_->back()->as<ir::For>()->over_elements = true;
  };
  nest(0);
}

void Emitter::copy(const Storage& dst, const Storage& src) {
  if (dst.var == src.var && dst.array == src.array && dst.prefix == src.prefix) return;  // one storage
  for_each_element(dst.type.shape(), [&](const std::vector<int>& i) { write(dst, refs(i), read(src, refs(i))); });
  sync();
}

void Emitter::emit_block(const Block& block, const Operation* skip) {
  // Per operation, the tiles of this block it reads last.
  std::unordered_map<const Operation*, std::vector<const Value*>> last_reader;
  if (emitted_once(block)) {
    std::unordered_map<const Operation*, size_t> position;
    for (const Operation& op : block) position.emplace(&op, position.size());
    for (const Operation& op : block)
      for (unsigned r = 0; r < op.num_results(); ++r) {
        const Value* v = op.result(r);
        if (v->type().rank() == 0) continue;
        const Operation* last = &op;
        bool yielded = false;
        for (const Use* u = v->first_use(); u; u = u->next_use()) {
          const Operation* user = top_level(u->owner(), block);
          yielded = yielded || user->kind() == OpKind::yield;
          if (position.at(user) > position.at(last)) last = user;
        }
        if (!yielded) last_reader[last].push_back(v);
      }
  }
  for (const Operation& op : block) {
    if (&op == skip) continue;
    emit_op(op);
    auto dead = last_reader.find(&op);
    if (dead == last_reader.end()) continue;
    for (const Value* v : dead->second) {
      auto given = reusable_.find(v);
      auto s = storage_.find(v);
      if (s != storage_.end() && s->second.deferred) release(*s->second.deferred);
      if (given == reusable_.end() || s == storage_.end() || s->second.array != given->second || s->second.prefix >= 0)
        continue;
      give_back(given->second);
      reusable_.erase(given);
    }
  }
}

void Emitter::dispatch(const Operation& op) {
  switch (op.kind()) {
    case OpKind::constant:
    case OpKind::iota:
    case OpKind::extract:
    case OpKind::neg:
    case OpKind::abs:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sqrt:
    case OpKind::logical_not:
    case OpKind::add:
    case OpKind::sub:
    case OpKind::mul:
    case OpKind::div:
    case OpKind::rem:
    case OpKind::min:
    case OpKind::max:
    case OpKind::logical_and:
    case OpKind::logical_or:
    case OpKind::eq:
    case OpKind::ne:
    case OpKind::lt:
    case OpKind::le:
    case OpKind::gt:
    case OpKind::ge:
    case OpKind::select:
    case OpKind::cast:
    case OpKind::broadcast:
    case OpKind::reshape: return emit_elementwise(op);
    case OpKind::mma: return emit_mma(op);
    case OpKind::dim:
    case OpKind::view:
    case OpKind::load:
    case OpKind::store: return emit_memory(op);
    case OpKind::parallel:
    case OpKind::serial:
    case OpKind::pipeline: return emit_loop(op);
    case OpKind::reduce: return emit_reduce(op);
    // Stage cuts are lexical: a pipeline's stages run in order, as a serial
    // loop's body, unless emit_loop overlaps them.
    case OpKind::stage:
    case OpKind::yield: return;
  }
}

void Emitter::emit_prologue_chain(const Value* v) {
  const Operation* def = v->defining_op();
  if (!def || in_prologue_.count(v)) return;
  for (unsigned i = 0; i < def->num_operands(); ++i) emit_prologue_chain(def->operand(i));
  if (!is_pure_scalar(*def)) refuse(*def, "computes a parallel extent from something the launch cannot compute first");
  ir::Block* saved = block_;
  block_ = &out_->prologue;
  emit_op(*def);
  block_ = saved;
  in_prologue_[v] = true;
}

std::unique_ptr<ir::Kernel> Emitter::run(const LaunchNest& nest, const ExecBinding& binding) {
  out_ = std::make_unique<ir::Kernel>();
  out_->name = kernel_.name();
  out_->origins.push_back(ir::Origin{kernel_.name(), true, nullptr});
  bind_parameters();

  block_ = &out_->prologue;
  for (const Operation* op : nest.prologue) {
    emit_op(*op);
    in_prologue_[op->result()] = true;
  }
  ir::ExprPtr inside = bind_launch(nest, binding);
  if (nest.levels.empty()) add_dim("once", i64(1));
  if (in_groups()) {
    // One group per iteration of the nest: its lanes are the innermost dimension.
    lane_ = add_dim("lane", i64(target_.workgroup_lanes));
    mark_varying(lane_);
  }
  block_ = &out_->body;
  if (nest.levels.empty()) {
    emit_block(kernel_.body());
    return std::move(out_);
  }
  auto levels = [&] {
    for (size_t l = 0; l < nest.levels.size(); ++l)
      emit_block(nest.levels[l]->region(0).block(0), l + 1 < nest.levels.size() ? nest.levels[l + 1] : nullptr);
  };
  if (inside) if_then(std::move(inside), levels);
  else levels();
  // The group's work ends with a barrier after its last access: PoCL 3.1
  // hangs on some workgroup kernels whose last barrier has accesses after it
  // (Top-K's final copy, emitted without one, never returned).
  if (in_groups() && !pending_.empty()) barrier();
  return std::move(out_);
}

}  // namespace tack::tile::lower
