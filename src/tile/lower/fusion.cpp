// Tiles computed where they are read. Off workgroups, a tile that an
// elementwise operation, select or cast computes is not written to an
// array of its own when the one operation that reads it is in the same
// block and reads each of its elements once (another such operation, a
// reshape or an extract): that reader computes the element in place, from
// the operands' elements. Index remaps (iota, broadcast, reshape, extract)
// of tiles in arrays are read through, the remap folded into the reader's
// index, wherever their readers sit in the same block and take elements
// (those operations, a broadcast, a store); a broadcast constant reads as
// its value, and a scalar's broadcast keeps its array except where the CPU
// runs the iterations in its SIMD lanes (measured both ways: defer). A
// remap of a computed tile is read through only where the computation
// would not repeat (not a broadcast, one reader).
//
// Each element takes the same operations in the same order as when every
// tile has its own array, so the results are the same bits; what changes is
// the code the CPU compiler gets: a bitonic exchange of Top-K, some thirty
// tile operations, becomes a few element loops instead of thirty.
//
// A deferred tile reads its operands' arrays when its reader runs, after
// the operands may have been read for the last time: those arrays are held
// back from reuse (emit_block) until the deferred tile is dead too, at most
// kMostArraysHeld of them.
#include <algorithm>

#include "ir/build.h"
#include "tile/lower/emitter.h"
#include "tile/lower/lane_tiles.h"

namespace tack::tile::lower {

namespace {

bool is_remap(OpKind kind) {
  return kind == OpKind::iota || kind == OpKind::broadcast || kind == OpKind::reshape || kind == OpKind::extract;
}

// Whether `user` reads each element of its operands at most once and
// computes elementwise (so a computed operand is computed once per element):
// an operation of one loop over its elements other than a broadcast, which
// reads an element for several.
bool reads_each_element_once(const Operation& user) {
  return writes_by_element(user) && user.kind() != OpKind::broadcast;
}

// Whether `user` only loads the elements of its operands (so an index remap
// of an array costs it loads at other indices, nothing more).
bool only_loads_elements(const Operation& user) {
  return reads_each_element_once(user) || user.kind() == OpKind::broadcast || user.kind() == OpKind::store;
}

}  // namespace

std::vector<AxisGroup> reshape_groups(const Shape& to, const Shape& from) {
  // No element is read from an empty tile: one group, whatever its axes.
  if (to.num_elements() == 0) return {AxisGroup{0, to.rank(), 0, from.rank()}};
  std::vector<AxisGroup> groups;
  int i = 0, j = 0;
  while (i < to.rank() && j < from.rank()) {
    AxisGroup g{i, i + 1, j, j + 1};
    int64_t pt = to[i], pf = from[j];
    while (pt != pf) {
      if (pt < pf) pt *= to[g.to_end++];
      else pf *= from[g.from_end++];
    }
    groups.push_back(g);
    i = g.to_end;
    j = g.from_end;
  }
  // What is left on either side is axes of extent 1, the last group's.
  if (groups.empty()) groups.push_back(AxisGroup{0, 0, 0, 0});
  groups.back().to_end = to.rank();
  groups.back().from_end = from.rank();
  return groups;
}

namespace {

// The most arrays one deferred tile may hold from reuse.
constexpr size_t kMostArraysHeld = 8;

std::vector<ir::ExprPtr> clones(const std::vector<ir::ExprPtr>& idx) {
  std::vector<ir::ExprPtr> out;
  for (const ir::ExprPtr& e : idx) out.push_back(ir::clone(*e));
  return out;
}

}  // namespace

bool Emitter::defer(const Operation& op) {
  if (in_groups() || op.num_results() != 1) return false;
  const Value* v = op.result();
  if (v->type().rank() == 0) return false;
  // A result whose storage is set already (a pipeline buffer, an
  // accumulator in place) keeps it; one deferred where a block emitted at
  // several places (a combiner) was emitted before is decided again, since
  // its operands' storage may differ here.
  if (auto set = storage_.find(v); set != storage_.end()) {
    if (!set->second.deferred && !set->second.constant) return false;
    storage_.erase(set);
  }
  // A broadcast constant reads as its value, as a constant tile does.
  if (const Operation* c = op.kind() == OpKind::broadcast ? op.operand(0)->defining_op() : nullptr;
      c && c->kind() == OpKind::constant) {
    storage_[v] = constant_storage(v->type(), *c);
    return true;
  }
  std::vector<Storage> in;
  bool computing = !is_remap(op.kind());
  for (unsigned j = 0; j < op.num_operands(); ++j) {
    const Storage& s = storage(op.operand(j));
    // Slots of a stack or a pipeline buffer move with their index local.
    if (s.prefix >= 0 || s.lane_slots) return false;
    computing = computing || (s.deferred && s.deferred->computes);
    in.push_back(s);
  }
  if (computing && op.kind() == OpKind::broadcast) return false;
  // A broadcast of a scalar is read through where the CPU runs parallel
  // iterations in its SIMD lanes (its array there is a copy per lane):
  // sort_runs' pass took 33 ms at 1024x4096 against 45-50 with arrays.
  // Elsewhere it keeps its array: read in place, the scalars made
  // layer_norm's blocks 1.6-1.8x slower on the CPU (4096x4096, 20 ms
  // against 11-13), though the loops LLVM made of either looked alike.
  // Measured, not understood.
  if (op.kind() == OpKind::broadcast && op.operand(0)->type().rank() == 0 && !options_.simd_lanes) return false;
  if (computing && v->num_uses() != 1) return false;
  for (const Use* u = v->first_use(); u; u = u->next_use()) {
    const Operation& user = *u->owner();
    if (user.parent_block() != op.parent_block()) return false;
    if (!(computing ? reads_each_element_once(user) : only_loads_elements(user))) return false;
  }

  auto d = std::make_shared<Deferred>();
  d->computes = computing;
  for (const Storage& s : in) {
    if (s.array >= 0) d->arrays.push_back(s.array);
    if (s.deferred) d->arrays.insert(d->arrays.end(), s.deferred->arrays.begin(), s.deferred->arrays.end());
  }
  std::sort(d->arrays.begin(), d->arrays.end());
  d->arrays.erase(std::unique(d->arrays.begin(), d->arrays.end()), d->arrays.end());
  // The arrays a computed tile reads stay live until it is read: a long
  // chain over many tiles would hold them all.
  if (d->arrays.size() > kMostArraysHeld) return false;
  d->element = element_of(op, in);
  // Only a block emitted once gives arrays back (emit_block).
  d->pins = emitted_once(*op.parent_block());
  if (d->pins)
    for (int array : d->arrays) ++pins_[array];
  Storage s;
  s.type = v->type();
  s.deferred = std::move(d);
  storage_[v] = std::move(s);
  return true;
}

std::function<ir::ExprPtr(std::vector<ir::ExprPtr>)> Emitter::element_of(const Operation& op,
                                                                        std::vector<Storage> in) {
  // A rank-0 constant operand is read as the constant, not its local (an
  // SSA value: the local holds it wherever the value is read).
  for (unsigned j = 0; j < op.num_operands() && j < in.size(); ++j) {
    const Operation* def = op.operand(j)->defining_op();
    if (def && def->kind() == OpKind::constant && op.operand(j)->type().rank() == 0)
      in[j] = constant_storage(op.operand(j)->type(), *def);
  }
  const Type& rt = op.result()->type();
  Emitter* self = this;
  std::function<ir::ExprPtr(std::vector<ir::ExprPtr>)> element;
  const OpFormat format = op_format(op.kind());
  if (format == OpFormat::unary || op.kind() == OpKind::cast) {
    // The operand's element into a local.
    const int a = new_var("a");
    auto scalar = op.kind() == OpKind::cast ? &Emitter::scalar_cast : &Emitter::scalar_unary;
    element = [self, &op, in, a, scalar](std::vector<ir::ExprPtr> idx) {
      self->assign_constant_or(a, self->read(in[0], std::move(idx)));
      return (self->*scalar)(op, a);
    };
  } else if (format == OpFormat::binary || format == OpFormat::compare) {
    const int a = new_var("a"), b = new_var("b");
    const Scalar elem = op.operand(0)->type().elem();
    element = [self, &op, in, a, b, elem](std::vector<ir::ExprPtr> idx) {
      self->assign_constant_or(a, self->read(in[0], clones(idx)));
      self->assign_constant_or(b, self->read(in[1], std::move(idx)));
      return self->scalar_binary(op, op.kind(), elem, a, b);
    };
  } else {
    switch (op.kind()) {
      case OpKind::select: {
        // Each operand into a local before the next is read, as for the
        // binary operations: reading one may move the locals another's
        // element expression refers to (a reshape's flat position).
        const int c = new_var("c"), a = new_var("a"), b = new_var("b");
        element = [self, in, c, a, b](std::vector<ir::ExprPtr> idx) {
          self->assign_constant_or(c, self->read(in[0], clones(idx)));
          self->assign_constant_or(a, self->read(in[1], clones(idx)));
          self->assign_constant_or(b, self->read(in[2], std::move(idx)));
          return ir::select(ir::compare(ir::CmpOp::Ne, self->ref(c), self->int_const(DType::I32, 0), {}), self->ref(a),
                            self->ref(b), {});
        };
        break;
      }
      case OpKind::iota: {
        const DType t = value_dtype(rt.elem());
        const size_t axis = size_t(op.attrs().axis);
        element = [t, axis](std::vector<ir::ExprPtr> idx) { return ir::cast(t, std::move(idx[axis]), {}); };
        break;
      }
      case OpKind::broadcast: {
        const Shape from = op.operand(0)->type().shape();
        const int shift = rt.rank() - from.rank();
        element = [self, in, from, shift](std::vector<ir::ExprPtr> idx) {
          std::vector<ir::ExprPtr> src;
          for (int k = 0; k < from.rank(); ++k)
            src.push_back(from[k] == 1 ? self->i64(0) : std::move(idx[size_t(k + shift)]));
          return self->read(in[0], std::move(src));
        };
        break;
      }
      case OpKind::reshape: {
        // Row-major order is kept, group by group of axes (reshape_groups).
        // A group of several source axes takes them from its flat position,
        // held in a local: remaps read through remaps (Top-K's exchanges)
        // would otherwise repeat each other's index arithmetic in every
        // source index, and their text grows with each one.
        const Shape to = rt.shape(), from = op.operand(0)->type().shape();
        std::vector<AxisGroup> groups = reshape_groups(to, from);
        std::vector<int> flats;
        for (const AxisGroup& g : groups) flats.push_back(g.from_end - g.from_begin > 1 ? new_var("flat") : -1);
        element = [self, in, to, from, groups, flats](std::vector<ir::ExprPtr> idx) {
          std::vector<ir::ExprPtr> src(size_t(from.rank()));
          for (size_t n = 0; n < groups.size(); ++n) {
            const AxisGroup& g = groups[n];
            ir::ExprPtr flat;
            for (int k = g.to_begin; k < g.to_end; ++k) {
              if (!flat) flat = std::move(idx[size_t(k)]);
              else if (to[k] > 1)  // an axis of extent 1 has index 0
                flat = self->add(ir::binary(ir::BinOp::Mul, std::move(flat), self->i64(to[k]), {}), std::move(idx[size_t(k)]));
            }
            if (!flat) flat = self->i64(0);  // a group of no result axes (a rank-0 result)
            if (flats[n] < 0) {
              if (g.from_end > g.from_begin) src[size_t(g.from_begin)] = std::move(flat);
              continue;
            }
            self->assign(flats[n], std::move(flat));
            int64_t inner = 1;
            for (int k = g.from_end - 1; k >= g.from_begin; --k) {
              ir::ExprPtr at = self->ref(flats[n]);
              if (inner > 1) at = ir::binary(ir::BinOp::FloorDiv, std::move(at), self->i64(inner), {});
              if (k > g.from_begin) at = ir::binary(ir::BinOp::Mod, std::move(at), self->i64(from[k]), {});
              src[size_t(k)] = std::move(at);
              inner *= from[k];
            }
          }
          return self->read(in[0], std::move(src));
        };
        break;
      }
      case OpKind::extract: {
        const int at = scalar_var(op.operand(1));
        const int axis = op.attrs().axis, rank = op.operand(0)->type().rank();
        element = [self, in, at, axis, rank](std::vector<ir::ExprPtr> idx) {
          std::vector<ir::ExprPtr> src;
          for (int k = 0, j = 0; k < rank; ++k) src.push_back(k == axis ? self->ref(at) : std::move(idx[size_t(j++)]));
          return self->read(in[0], std::move(src));
        };
        break;
      }
      default: break;
    }
  }
  return element;
}

void Emitter::emit_by_element(const Operation& op) {
  if (defer(op)) return;
  std::vector<Storage> in;
  for (unsigned j = 0; j < op.num_operands(); ++j) in.push_back(storage(op.operand(j)));
  auto element = element_of(op, in);
  Storage r = define(op.result());
  // In workgroups a lane register whose value is the same for every
  // element (a scalar's broadcast, an operation of such registers and
  // constants) is assigned on every lane, outside the element loop: PoCL
  // 3.1 loses a private variable assigned a value the same on all
  // work-items on only some of them (docs/tile/compile.md, "Workgroups":
  // Top-K's last step gave values of 0).
  if (spread() && r.var >= 0 && same_for_every_element(op)) {
    same_on_lanes_.insert(op.result());
    std::vector<ir::ExprPtr> origin;
    for (int d = 0; d < op.result()->type().rank(); ++d) origin.push_back(i64(0));
    return write(r, {}, element(std::move(origin)));
  }
  for_each_element(op.result()->type().shape(), [&](const std::vector<int>& i) { write(r, refs(i), element(refs(i))); });
}

bool Emitter::same_for_every_element(const Operation& op) const {
  if (op.kind() == OpKind::broadcast) return op.operand(0)->type().rank() == 0;
  if (is_remap(op.kind())) return false;
  for (unsigned j = 0; j < op.num_operands(); ++j)
    if (!same_on_lanes_.count(op.operand(j)) && !storage(op.operand(j)).constant) return false;
  return true;
}

void Emitter::give_back(int array) {
  if (pins_[array] > 0) return held_back_.push_back(array);
  free_arrays_[array_kinds_.at(array)].push_back(array);
}

void Emitter::release(const Deferred& d) {
  if (!d.pins) return;
  for (int array : d.arrays) {
    if (--pins_[array] > 0) continue;
    auto held = std::find(held_back_.begin(), held_back_.end(), array);
    if (held == held_back_.end()) continue;
    held_back_.erase(held);
    free_arrays_[array_kinds_.at(array)].push_back(array);
  }
}

}  // namespace tack::tile::lower
