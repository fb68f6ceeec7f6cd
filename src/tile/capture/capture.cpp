#include "tack/tile/capture.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>

#include "tack/tile/verifier.h"
#include "canonical_order.h"

namespace tack::tile {
namespace detail {

struct CaptureAccess {
  static Value*& value(TileBase& t) { return t.v_; }
  static int depth(const TileBase& t) { return t.depth_; }
};

namespace {

// A Tile variable imported into a carrying region: its value on entry and
// the block argument that stands for it inside. `last` keeps the final value
// of a variable destroyed while the region is open.
struct Import {
  TileBase* cell;
  Value* outer;
  Value* arg;
  Value* last = nullptr;
};

// One Reducer call in a reduce body: the operations it inlined, so that
// closing the reduce can replace them by a combiner region.
struct CombineRecord {
  ReducerCore reducer;
  std::vector<Value*> acc, contribution, result;
  Operation* first;  // null when the merge created no operation
  Operation* last;
  std::source_location loc;
};

enum class ScopeKind { kernel, loop, combiner };

struct Scope {
  ScopeKind kind;
  Operation* op;  // the loop or reduce; null for the kernel
  Block* body;
  std::source_location loc;
  std::vector<Import> imports;
  std::vector<CombineRecord> combines;

  bool is(OpKind k) const { return kind == ScopeKind::loop && op->kind() == k; }
  bool carries() const { return kind == ScopeKind::loop && op->kind() != OpKind::parallel; }
};

struct CaptureState {
  explicit CaptureState(std::string name) : kernel(std::move(name)) {}
  Kernel kernel;
  std::vector<std::unique_ptr<Scope>> scopes;
  Builder builder;
  std::map<std::pair<Value*, int>, Value*> dims;
  Operation* last_dim = nullptr;
  std::string failure;  // set when a region body was left early
};

thread_local CaptureState* g_state = nullptr;

CaptureState& state() {
  if (!g_state) throw Error("Tiles, views and region scopes exist only while tile_kernel is capturing a kernel.");
  return *g_state;
}

int depth() { return int(state().scopes.size()) - 1; }
Builder& builder() { return state().builder; }

std::string where(const std::source_location& loc) {
  return std::string(loc.file_name()) + ":" + std::to_string(loc.line()) + ": ";
}

Value* final_value(const Import& imp) { return imp.cell ? CaptureAccess::value(*imp.cell) : imp.last; }

Import* find_import(Scope& s, const TileBase* cell) {
  for (Import& imp : s.imports)
    if (imp.cell == cell) return &imp;
  return nullptr;
}

// Makes the variable's value at the capture point an argument of every
// carrying region between its declaration and here.
void import_cell(TileBase& cell) {
  CaptureState& st = state();
  Value*& v = CaptureAccess::value(cell);
  for (int d = CaptureAccess::depth(cell) + 1; d <= depth(); ++d) {
    Scope& s = *st.scopes[size_t(d)];
    if (s.kind == ScopeKind::combiner)
      throw Error(where(s.loc) + "a Reducer's merge reads a Tile of the enclosing kernel; a merge reads only its arguments.");
    if (!s.carries() || find_import(s, &cell)) continue;
    Value* arg = s.body->add_argument(v->type());
    s.imports.push_back(Import{&cell, v, arg});
    v = arg;
  }
}

Value* make_constant(Scalar elem, double number, int64_t integer, const Shape& shape) {
  Attrs a;
  a.number = number;
  a.integer = integer;
  return builder().value(OpKind::constant, {}, Type::tile(elem, shape), a);
}

Value* index_constant(int64_t v) { return make_constant(Scalar::i64, 0, v, {}); }

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// NumPy broadcasting: align trailing axes; an extent of 1 stretches.
Shape broadcast_shape(const Shape& a, const Shape& b, std::string_view what) {
  Shape out;
  int rank = std::max(a.rank(), b.rank());
  for (int i = 0; i < rank; ++i) {
    int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1)
      throw Error("'" + std::string(what) + "' cannot broadcast shapes " + shape_text(a) + " and " + shape_text(b) + ".");
    out.push_back(da == 1 ? db : da);
  }
  return out;
}

Value* broadcast_value(Value* v, const Shape& shape) {
  if (v->type().shape() == shape) return v;
  broadcast_shape(v->type().shape(), shape, "broadcast");
  return builder().value(OpKind::broadcast, {v}, v->type().with_shape(shape));
}

bool inside_reduce() {
  for (const auto& s : state().scopes)
    if (s->is(OpKind::reduce) || s->kind == ScopeKind::combiner) return true;
  return false;
}

Value* identity(OpKind merge, const Type& t) {
  Scalar e = t.elem();
  double inf = std::numeric_limits<double>::infinity();
  int64_t lo = e == Scalar::i32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  int64_t hi = e == Scalar::i32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  switch (merge) {
    case OpKind::add: return make_constant(e, -0.0, 0, t.shape());
    case OpKind::mul: return make_constant(e, 1.0, 1, t.shape());
    case OpKind::max: return make_constant(e, -inf, lo, t.shape());
    case OpKind::min: return make_constant(e, inf, hi, t.shape());
    default: throw Error("'" + std::string(op_name(merge)) + "' has no identity.");
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Tile variables

TileBase::TileBase(Value* v) : v_(v), depth_(depth()) {}

TileBase::TileBase(const TileBase& other) : v_(other.value()), depth_(depth()) {}

TileBase& TileBase::operator=(const TileBase& other) {
  assign(other.value());
  return *this;
}

TileBase::~TileBase() {
  if (!g_state || depth_ >= int(g_state->scopes.size()) - 1) return;
  for (auto& s : g_state->scopes)
    for (Import& imp : s->imports)
      if (imp.cell == this) {
        imp.last = v_;
        imp.cell = nullptr;
      }
}

Value* TileBase::value() const {
  if (depth_ < depth()) import_cell(const_cast<TileBase&>(*this));
  return v_;
}

const Type& TileBase::type() const { return v_->type(); }

void TileBase::assign(Value* v) {
  CaptureState& st = state();
  for (int d = depth_ + 1; d <= depth(); ++d) {
    const Scope& s = *st.scopes[size_t(d)];
    if (s.is(OpKind::parallel))
      throw Error(where(s.loc) +
                  "a Tile declared outside this parallel region is assigned inside it; parallel iterations cannot "
                  "update an enclosing Tile (store through a MemoryRef instead).");
    if (s.kind == ScopeKind::combiner)
      throw Error(where(s.loc) + "a Reducer's merge assigns a Tile of the enclosing kernel; a merge only returns values.");
  }
  if (depth_ < depth()) import_cell(*this);
  v_ = v;
}

// ---------------------------------------------------------------------------
// Operations

Value* constant(Scalar elem, double number, int64_t integer, const Shape& shape) {
  return make_constant(elem, number, integer, shape);
}

Value* unary(OpKind kind, const TileBase& a) {
  Value* v = a.value();
  bool needs_float = kind == OpKind::exp || kind == OpKind::log || kind == OpKind::sqrt;
  if (needs_float && !is_float(v->type().elem()))
    throw Error("'" + std::string(op_name(kind)) + "' needs a floating-point tile, not " + to_string(v->type()) + ".");
  return builder().value(kind, {v}, v->type());
}

Value* binary(OpKind kind, const TileBase& a, const TileBase& b) {
  Value* va = a.value();
  Value* vb = b.value();
  bool logical = kind == OpKind::logical_and || kind == OpKind::logical_or;
  bool equality = kind == OpKind::eq || kind == OpKind::ne;
  if (!equality && (va->type().elem() == Scalar::i1) != logical)
    throw Error("'" + std::string(op_name(kind)) + "' does not accept " + to_string(va->type()) + " operands.");
  Shape shape = broadcast_shape(va->type().shape(), vb->type().shape(), op_name(kind));
  va = broadcast_value(va, shape);
  vb = broadcast_value(vb, shape);
  Type t = va->type();
  if (op_format(kind) == OpFormat::compare) t = t.with_elem(Scalar::i1);
  return builder().value(kind, {va, vb}, t);
}

Value* select(const TileBase& cond, const TileBase& a, const TileBase& b) {
  Value* vc = cond.value();
  Value* va = a.value();
  Value* vb = b.value();
  Shape shape = broadcast_shape(broadcast_shape(vc->type().shape(), va->type().shape(), "select"), vb->type().shape(), "select");
  vc = broadcast_value(vc, shape);
  va = broadcast_value(va, shape);
  vb = broadcast_value(vb, shape);
  return builder().value(OpKind::select, {vc, va, vb}, va->type());
}

Value* cast(const TileBase& a, Scalar elem) {
  Value* v = a.value();
  if (v->type().elem() == elem) return v;
  return builder().value(OpKind::cast, {v}, v->type().with_elem(elem));
}

Value* broadcast_to(const TileBase& a, const Shape& shape) { return broadcast_value(a.value(), shape); }

Value* reshape(const TileBase& a, const Shape& shape) {
  Value* v = a.value();
  if (shape.num_elements() != v->type().shape().num_elements())
    throw Error("cannot reshape " + to_string(v->type()) + " to " + to_string(v->type().with_shape(shape)) + ".");
  if (v->type().shape() == shape) return v;
  return builder().value(OpKind::reshape, {v}, v->type().with_shape(shape));
}

Value* extract(const TileBase& a, int axis, const TileBase& index) {
  Value* v = a.value();
  if (axis < 0 || axis >= v->type().rank())
    throw Error("extract: axis " + std::to_string(axis) + " is out of range for " + to_string(v->type()) + ".");
  Attrs attrs;
  attrs.axis = axis;
  return builder().value(OpKind::extract, {v, index.value()}, v->type().with_shape(v->type().shape().drop(axis)), attrs);
}

Value* iota(Scalar elem, const Shape& shape, int axis) {
  if (axis < 0 || axis >= shape.rank()) throw Error("iota: axis " + std::to_string(axis) + " is out of range.");
  Attrs attrs;
  attrs.axis = axis;
  return builder().value(OpKind::iota, {}, Type::tile(elem, shape), attrs);
}

Value* mma(const TileBase& a, const TileBase& b, const TileBase& c) {
  Value *va = a.value(), *vb = b.value(), *vc = c.value();
  const Shape &sa = va->type().shape(), &sb = vb->type().shape(), &sc = vc->type().shape();
  if (sa.rank() != 2 || sb.rank() != 2 || sc.rank() != 2 || sa[1] != sb[0] || sc[0] != sa[0] || sc[1] != sb[1])
    throw Error("mma(a, b, c) needs a: MxK, b: KxN and c: MxN, not " + to_string(va->type()) + ", " +
                to_string(vb->type()) + " and " + to_string(vc->type()) + ".");
  return builder().value(OpKind::mma, {va, vb, vc}, vc->type());
}

// The shorthand builds the same region a reduce scope would record for
// `acc = acc (+) extract(a, axis, k)`.
Value* axis_reduce(OpKind merge, const TileBase& a, int axis, ReductionPolicy policy) {
  Value* v = a.value();
  if (axis < 0 || axis >= v->type().rank())
    throw Error("reduction axis " + std::to_string(axis) + " is out of range for " + to_string(v->type()) + ".");
  Type state_type = v->type().with_shape(v->type().shape().drop(axis));
  Value* extent = index_constant(v->type().shape()[axis]);
  Value* seed = identity(merge, state_type);
  Attrs attrs;
  attrs.policy = policy;
  attrs.merges = {Merge{merge, 0}};
  Operation* op = builder().create(OpKind::reduce, {extent, seed}, {state_type}, attrs, 1);
  Block& body = op->region(0).add_block();
  Value* k = body.add_argument(Type::tile(Scalar::i64));
  Builder b(body);
  Attrs at;
  at.axis = axis;
  b.create(OpKind::yield, {b.value(OpKind::extract, {v, k}, state_type, at)}, {});
  return op->result(0);
}

Value* view(Value* parent, std::span<const Coord> coords) {
  const Type& pt = parent->type();
  if (coords.size() != size_t(pt.rank()))
    throw Error("a view of rank " + std::to_string(pt.rank()) + " is accessed with " + std::to_string(coords.size()) +
                " coordinates; give one per axis.");
  std::vector<Value*> operands{parent};
  Attrs attrs;
  Shape spans;
  for (const Coord& c : coords) {
    operands.push_back(c.at().value());
    attrs.extents.push_back(c.extent());
    if (c.extent() != kIndexed) {
      if (c.extent() < 0) throw Error("a span's extent must be non-negative, not " + std::to_string(c.extent()) + ".");
      spans.push_back(c.extent());
    }
  }
  return builder().value(OpKind::view, operands, Type::view(pt.elem(), spans), attrs);
}

Value* load(Value* view, double fpad, int64_t ipad) {
  Attrs attrs;
  attrs.number = fpad;
  attrs.integer = ipad;
  return builder().value(OpKind::load, {view}, Type::tile(view->type().elem(), view->type().shape()), attrs);
}

void store(Value* view, const TileBase& tile) {
  if (inside_reduce())
    throw Error("a MemoryRef is stored inside a reduce body; reduce contributions must not write memory (use serial).");
  Value* v = broadcast_value(tile.value(), view->type().shape());
  builder().create(OpKind::store, {view, v}, {});
}

// Parameter extents are hoisted to the top of the kernel, where every region
// can see them, and asked for once per axis.
Value* dim(Value* view, int axis) {
  CaptureState& st = state();
  const Type& t = view->type();
  if (axis < 0 || axis >= t.rank())
    throw Error("shape(" + std::to_string(axis) + ") is out of range for a view of rank " + std::to_string(t.rank()) + ".");
  if (t.shape()[axis] != kDynamic) return index_constant(t.shape()[axis]);
  auto key = std::make_pair(view, axis);
  if (auto it = st.dims.find(key); it != st.dims.end()) return it->second;
  Builder b(st.kernel.body());
  if (st.last_dim) b.set_insertion_after(st.last_dim);
  else if (!st.kernel.body().empty()) b.set_insertion_before(st.kernel.body().front());
  Attrs attrs;
  attrs.axis = axis;
  Value* d = b.value(OpKind::dim, {view}, Type::tile(Scalar::i64), attrs);
  st.last_dim = d->defining_op();
  st.dims[key] = d;
  return d;
}

// ---------------------------------------------------------------------------
// Region scopes

namespace {

void close_parallel(Scope& s) { Builder(*s.body).create(OpKind::yield, {}, {}); }

// Unassigned imports fall back to the value they had on entry; the order of
// the remaining ones fixes the order of operands, arguments and results.
std::vector<Import*> drop_unassigned(Scope& s) {
  std::vector<Import*> assigned;
  std::vector<unsigned> dead;
  for (Import& imp : s.imports) {
    if (final_value(imp) == imp.arg) {
      imp.arg->replace_all_uses_with(imp.outer);
      if (imp.cell) CaptureAccess::value(*imp.cell) = imp.outer;
      dead.push_back(imp.arg->index());
    } else {
      if (!(final_value(imp)->type() == imp.arg->type()))
        throw Error(where(s.loc) + "a Tile carried through this " + std::string(s.op->name()) + " region changes type from " +
                    to_string(imp.arg->type()) + " to " + to_string(final_value(imp)->type()) +
                    "; an assigned Tile keeps its type.");
      assigned.push_back(&imp);
    }
  }
  std::sort(dead.rbegin(), dead.rend());
  for (unsigned i : dead) s.body->erase_argument(i);
  return assigned;
}

void close_carrying(Scope& s) {
  std::vector<Import*> carried = drop_unassigned(s);
  std::vector<Value*> yields;
  for (Import* imp : carried) yields.push_back(final_value(*imp));
  Builder(*s.body).create(OpKind::yield, yields, {});
  for (Import* imp : carried) {
    s.op->append_operand(imp->outer);
    Value* r = s.op->add_result(imp->arg->type());
    if (imp->cell) CaptureAccess::value(*imp->cell) = r;
  }
}

void close_reduce(Scope& s) {
  std::vector<Import*> states = drop_unassigned(s);
  ReductionPolicy policy = s.op->attrs().policy;
  std::string here = where(s.loc) + "reduce: ";
  if (states.empty())
    throw Error(here + "no Tile declared outside the reduce body is updated in it, so there is nothing to reduce.");

  // A Reducer call's states sit together in the call's argument order, so
  // that its combiner's arguments follow the order of the reduce's states.
  auto record_of = [&](const Value* arg) -> const CombineRecord* {
    for (const CombineRecord& r : s.combines)
      if (std::find(r.acc.begin(), r.acc.end(), arg) != r.acc.end()) return &r;
    return nullptr;
  };
  std::vector<Import*> ordered;
  for (Import* imp : states) {
    if (std::find(ordered.begin(), ordered.end(), imp) != ordered.end()) continue;
    const CombineRecord* rec = record_of(imp->arg);
    if (!rec) {
      ordered.push_back(imp);
      continue;
    }
    for (Value* a : rec->acc)
      for (Import* other : states)
        if (other->arg == a && std::find(ordered.begin(), ordered.end(), other) == ordered.end()) ordered.push_back(other);
  }
  states = std::move(ordered);

  std::vector<Value*> contributions(states.size());
  std::vector<Merge> merges(states.size());
  std::vector<Operation*> builtin_updates;
  std::vector<const CombineRecord*> records;

  for (size_t i = 0; i < states.size(); ++i) {
    Import& imp = *states[i];
    Value* fin = final_value(imp);
    std::string which = "state #" + std::to_string(i) + " (" + to_string(imp.arg->type()) + ")";
    const CombineRecord* rec = nullptr;
    size_t slot = 0;
    for (const CombineRecord& r : s.combines)
      for (size_t j = 0; j < r.acc.size(); ++j)
        if (r.acc[j] == imp.arg) rec = &r, slot = j;
    if (rec) {
      if (rec->result[slot] != fin)
        throw Error(here + which + " is reassigned after its Reducer call; update each state once per iteration.");
      contributions[i] = rec->contribution[slot];
      if (std::find(records.begin(), records.end(), rec) == records.end()) records.push_back(rec);
      continue;
    }
    Operation* update = fin->defining_op();
    std::optional<Laws> laws = update ? builtin_merge_laws(update->kind()) : std::nullopt;
    bool direct = laws && update->parent_block() == s.body;
    Value* c = nullptr;
    if (direct && update->operand(0) == imp.arg) c = update->operand(1);
    else if (direct && laws->commutative && update->operand(1) == imp.arg) c = update->operand(0);
    if (!c || c == imp.arg)
      throw Error(here + which + " must be updated as `state = state (+) contribution` with a built-in merge (add, mul, "
                         "min, max, sub, and, or) or through a Reducer, once per iteration.");
    if (imp.arg->num_uses() != 1)
      throw Error(here + which + " is read outside its update; a reduction has no running value (use serial for that).");
    if (fin->has_uses())
      throw Error(here + which + " is read after its update; a reduction has no running value (use serial for that).");
    if (auto why = policy_violation(policy, *laws))
      throw Error(here + "merge '" + std::string(update->name()) + "' of " + which + " is not " +
                  (laws->associative ? "commutative" : "associative") + ", and " + *why + "; use left_fold or right_fold.");
    contributions[i] = c;
    merges[i] = Merge{update->kind(), 0};
    builtin_updates.push_back(update);
  }

  for (Operation* update : builtin_updates) update->erase();
  if (records.size() != s.combines.size())
    throw Error(here + "a Reducer call's result must be assigned back to the states it merges.");

  for (const CombineRecord* rec : records) {
    if (auto why = policy_violation(policy, rec->reducer.laws))
      throw Error(where(rec->loc) + "reduce with policy " + std::string(policy_name(policy)) +
                  ": this Reducer is declared " +
                  (rec->reducer.laws.associative ? "associative but not commutative" : "not associative") + ", and " +
                  *why + ".");
    // Every state the call merges must be one of this reduce's states.
    for (Value* a : rec->acc)
      if (std::none_of(states.begin(), states.end(), [&](Import* imp) { return imp->arg == a && final_value(*imp) != a; }))
        throw Error(where(rec->loc) + "a Reducer call's result must be assigned back to the states it merges.");
    // Erase the inlined merge; what remains must not have read its results.
    std::vector<Operation*> inlined;
    for (Operation* op = rec->first; op; op = op == rec->last ? nullptr : op->next()) inlined.push_back(op);
    for (auto it = inlined.rbegin(); it != inlined.rend(); ++it) {
      if ((*it)->has_result_uses())
        throw Error(where(rec->loc) + "the result of this Reducer call is read after the call; a reduction has no "
                                      "running value (use serial for that).");
      (*it)->erase();
    }
    for (Value* a : rec->acc)
      if (a->has_uses())
        throw Error(where(rec->loc) + "a reduce state is read outside its Reducer call; a reduction has no running value.");
  }

  for (Import* imp : states)
    if (imp->arg->has_uses())
      throw Error(here + "a contribution reads the reduce state; contributions must not depend on the running value.");

  // Combiner regions, recaptured from each Reducer on fresh arguments.
  CaptureState& st = state();
  for (const CombineRecord* rec : records) {
    unsigned region = s.op->num_regions();
    Block& block = s.op->add_region().add_block();
    std::vector<Value*> a, b;
    for (Value* v : rec->acc) a.push_back(block.add_argument(v->type()));
    for (Value* v : rec->acc) b.push_back(block.add_argument(v->type()));
    st.scopes.push_back(std::make_unique<Scope>(Scope{ScopeKind::combiner, s.op, &block, rec->loc, {}, {}}));
    st.builder.set_insertion_end(block);
    std::vector<Value*> merged = rec->reducer.merge(a, b);
    for (size_t j = 0; j < merged.size(); ++j)
      if (!(merged[j]->type() == rec->acc[j]->type()))
        throw Error(where(rec->loc) + "a Reducer's merge returns " + to_string(merged[j]->type()) + " for a state of type " +
                    to_string(rec->acc[j]->type()) + ".");
    Builder(block).create(OpKind::yield, merged, {});
    st.scopes.pop_back();
    s.op->attrs().laws.push_back(rec->reducer.laws);
    for (size_t i = 0; i < states.size(); ++i)
      if (std::find(rec->acc.begin(), rec->acc.end(), states[i]->arg) != rec->acc.end()) merges[i] = Merge{OpKind::add, region};
  }

  // The body now yields contributions; its only argument is the index.
  for (Import* imp : states) {
    s.op->append_operand(imp->outer);
    Value* r = s.op->add_result(imp->arg->type());
    if (imp->cell) CaptureAccess::value(*imp->cell) = r;
  }
  while (s.body->num_arguments() > 1) s.body->erase_argument(s.body->num_arguments() - 1);
  Builder(*s.body).create(OpKind::yield, contributions, {});
  s.op->attrs().merges = merges;
}

}  // namespace

ScopeBase::ScopeBase(OpKind kind, const TileBase& extent, Attrs attrs, std::source_location loc)
    : kind_(kind), extent_(extent.value()), attrs_(std::move(attrs)), loc_(loc) {
  if (!extent_->type().is_index())
    throw Error(where(loc) + "the extent of a " + std::string(op_name(kind)) + " region must be an index, not " +
                to_string(extent_->type()) + ".");
}

ScopeBase::~ScopeBase() {
  // A body that threw leaves its scope open and the capture is abandoned. One
  // left by break or return would silently lose the rest of the region, so
  // the capture fails when it finishes.
  if (state_ != State::open || !g_state) return;
  if (std::uncaught_exceptions() == exceptions_ && g_state->failure.empty())
    g_state->failure = where(loc_) + "the body of this " + std::string(op_name(kind_)) +
                       " region was left early (break or return); a captured body runs exactly once, so express the "
                       "condition with select() or a mask.";
  while (g_state->scopes.size() > depth_) g_state->scopes.pop_back();
  if (!g_state->scopes.empty()) g_state->builder.set_insertion_end(*g_state->scopes.back()->body);
}

Value* ScopeBase::open() {
  CaptureState& st = state();
  op_ = st.builder.create(kind_, {extent_}, {}, attrs_, 1);
  Block& body = op_->region(0).add_block();
  Value* index = body.add_argument(Type::tile(Scalar::i64));
  st.scopes.push_back(std::make_unique<Scope>(Scope{ScopeKind::loop, op_, &body, loc_, {}, {}}));
  depth_ = st.scopes.size() - 1;
  st.builder.set_insertion_end(body);
  state_ = State::open;
  exceptions_ = std::uncaught_exceptions();
  return index;
}

void ScopeBase::close() {
  CaptureState& st = state();
  if (st.scopes.size() - 1 != depth_) throw Error(where(loc_) + "region scopes must close in the order they opened.");
  Scope& s = *st.scopes.back();
  switch (kind_) {
    case OpKind::parallel: close_parallel(s); break;
    case OpKind::reduce: close_reduce(s); break;
    default: close_carrying(s); break;
  }
  st.scopes.pop_back();
  st.builder.set_insertion_end(*st.scopes.back()->body);
  state_ = State::closed;
}

std::vector<Value*> combine(const ReducerCore& reducer, const std::vector<Value*>& acc,
                            const std::vector<Value*>& contribution, std::source_location loc) {
  CaptureState& st = state();
  Scope& s = *st.scopes.back();
  if (!s.is(OpKind::reduce))
    throw Error(where(loc) + "a Reducer merges reduce states; call it directly in the body of a reduce region.");
  for (size_t j = 0; j < acc.size(); ++j) {
    if (std::none_of(s.imports.begin(), s.imports.end(), [&](const Import& imp) { return imp.arg == acc[j]; }))
      throw Error(where(loc) + "the first argument of a Reducer call must be the reduce state: Tiles declared outside the "
                               "reduce body.");
    if (!(acc[j]->type() == contribution[j]->type()))
      throw Error(where(loc) + "a Reducer call merges a state of type " + to_string(acc[j]->type()) +
                  " with a contribution of type " + to_string(contribution[j]->type()) + ".");
  }
  Operation* before = s.body->back();
  std::vector<Value*> result = reducer.merge(acc, contribution);
  Operation* first = before ? before->next() : s.body->front();
  s.combines.push_back(CombineRecord{reducer, acc, contribution, result, first, first ? s.body->back() : nullptr, loc});
  return result;
}

// ---------------------------------------------------------------------------
// Kernels

KernelCapture::KernelCapture(std::string name) : outer_(g_state) {
  auto* st = new CaptureState(std::move(name));
  st->scopes.push_back(std::make_unique<Scope>(Scope{ScopeKind::kernel, nullptr, &st->kernel.body(), {}, {}, {}}));
  st->builder.set_insertion_end(st->kernel.body());
  state_ = st;
  g_state = st;
}

KernelCapture::~KernelCapture() {
  g_state = static_cast<CaptureState*>(outer_);
  delete static_cast<CaptureState*>(state_);
}

Value* KernelCapture::param(Type type) { return static_cast<CaptureState*>(state_)->kernel.body().add_argument(type); }

Kernel KernelCapture::finish() {
  auto* st = static_cast<CaptureState*>(state_);
  if (!st->failure.empty()) throw Error(st->failure);
  if (auto error = verify(st->kernel))
    throw Error("tile_kernel @" + st->kernel.name() +
                ": the captured IR is invalid (is a Tile used outside the region that defines it?): " + *error);
  order_canonically(st->kernel);
  return std::move(st->kernel);
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Public scope entry points

void PipelineIndex::stage(std::string name, std::source_location loc) const {
  detail::CaptureState& st = detail::state();
  if (st.scopes.back()->op != pipeline_)
    throw Error(detail::where(loc) + "stage() must be called directly in the body of its pipeline.");
  Attrs attrs;
  attrs.name = std::move(name);
  st.builder.create(OpKind::stage, {}, {}, attrs);
}

ScopeRange<LoopIndex> parallel(const Index& extent, ExecLevel level, std::source_location loc) {
  Attrs attrs;
  attrs.name = std::string(level.name);
  return ScopeRange<LoopIndex>(OpKind::parallel, extent, std::move(attrs), loc);
}

ScopeRange<LoopIndex> serial(const Index& extent, std::source_location loc) {
  return ScopeRange<LoopIndex>(OpKind::serial, extent, {}, loc);
}

ScopeRange<PipelineIndex> pipeline(const Index& extent, std::source_location loc) {
  return ScopeRange<PipelineIndex>(OpKind::pipeline, extent, {}, loc);
}

ScopeRange<LoopIndex> reduce(const Index& extent, ReductionPolicy policy, std::source_location loc) {
  Attrs attrs;
  attrs.policy = policy;
  return ScopeRange<LoopIndex>(OpKind::reduce, extent, std::move(attrs), loc);
}

}  // namespace tack::tile
