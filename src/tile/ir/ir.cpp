#include "tack/tile/ir.h"

#include <algorithm>
#include <cassert>

namespace tack::tile {

namespace {

struct OpInfo {
  std::string_view name;
  OpFormat format;
};

constexpr OpInfo kOpInfo[] = {
#define TACK_TILE_X(kind, text, format) {text, OpFormat::format},
    TACK_TILE_OPS(TACK_TILE_X)
#undef TACK_TILE_X
};

}  // namespace

std::string_view op_name(OpKind kind) { return kOpInfo[size_t(kind)].name; }
OpFormat op_format(OpKind kind) { return kOpInfo[size_t(kind)].format; }

std::optional<OpKind> op_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kOpInfo); ++i)
    if (kOpInfo[i].name == name) return OpKind(i);
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Types

std::string_view scalar_name(Scalar s) {
  switch (s) {
    case Scalar::i1: return "i1";
    case Scalar::i32: return "i32";
    case Scalar::i64: return "i64";
    case Scalar::f32: return "f32";
    case Scalar::f64: return "f64";
  }
  return "?";
}

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(std::span<const int64_t>(dims.begin(), dims.size())) {}

Shape::Shape(std::span<const int64_t> dims) {
  if (dims.size() > size_t(kMaxRank)) throw Error("tile shapes have rank at most 4, got rank " + std::to_string(dims.size()) + ".");
  rank_ = uint8_t(dims.size());
  std::copy(dims.begin(), dims.end(), dims_.begin());
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int i = 0; i < rank_; ++i) n *= dims_[i];
  return n;
}

Shape Shape::drop(int axis) const {
  Shape s;
  for (int i = 0; i < rank_; ++i)
    if (i != axis) s.push_back(dims_[i]);
  return s;
}

void Shape::push_back(int64_t d) {
  if (rank_ == kMaxRank) throw Error("tile shapes have rank at most 4.");
  dims_[rank_++] = d;
}

bool operator==(const Shape& a, const Shape& b) {
  return a.rank_ == b.rank_ && std::equal(a.dims_.begin(), a.dims_.begin() + a.rank_, b.dims_.begin());
}

Type Type::tile(Scalar elem, Shape shape) {
  Type t;
  t.kind_ = Kind::tile;
  t.elem_ = elem;
  t.shape_ = shape;
  return t;
}

Type Type::view(Scalar elem, Shape extents) {
  Type t = tile(elem, extents);
  t.kind_ = Kind::view;
  return t;
}

bool Type::is_static() const {
  for (int64_t d : shape_.dims())
    if (d < 0) return false;
  return true;
}

Type Type::with_elem(Scalar e) const {
  Type t = *this;
  t.elem_ = e;
  return t;
}

Type Type::with_shape(Shape s) const {
  Type t = *this;
  t.shape_ = s;
  return t;
}

bool operator==(const Type& a, const Type& b) {
  return a.kind_ == b.kind_ && a.elem_ == b.elem_ && a.shape_ == b.shape_;
}

std::string to_string(const Type& t) {
  if (t.is_scalar()) return std::string(scalar_name(t.elem()));
  std::string s = t.is_view() ? "view<" : "tile<";
  for (int64_t d : t.shape().dims()) s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  s += scalar_name(t.elem());
  return s + ">";
}

std::string_view policy_name(ReductionPolicy p) {
  switch (p) {
    case ReductionPolicy::unordered_tree: return "unordered_tree";
    case ReductionPolicy::ordered_tree: return "ordered_tree";
    case ReductionPolicy::left_fold: return "left_fold";
    case ReductionPolicy::right_fold: return "right_fold";
  }
  return "?";
}

std::optional<ReductionPolicy> policy_from_name(std::string_view name) {
  for (auto p : {ReductionPolicy::unordered_tree, ReductionPolicy::ordered_tree, ReductionPolicy::left_fold,
                 ReductionPolicy::right_fold})
    if (policy_name(p) == name) return p;
  return std::nullopt;
}

std::optional<Laws> builtin_merge_laws(OpKind op) {
  switch (op) {
    case OpKind::add:
    case OpKind::mul:
    case OpKind::min:
    case OpKind::max:
    case OpKind::logical_and:
    case OpKind::logical_or: return Laws{true, true};
    case OpKind::sub: return Laws{false, false};
    default: return std::nullopt;
  }
}

std::optional<std::string> policy_violation(ReductionPolicy policy, Laws laws) {
  switch (policy) {
    case ReductionPolicy::unordered_tree:
      if (!laws.associative || !laws.commutative) return std::string("unordered_tree needs an associative and commutative merge");
      return std::nullopt;
    case ReductionPolicy::ordered_tree:
      if (!laws.associative) return std::string("ordered_tree needs an associative merge");
      return std::nullopt;
    default: return std::nullopt;
  }
}

// ---------------------------------------------------------------------------
// Uses and values

void Use::link(Value* v) {
  value_ = v;
  if (!v) return;
  next_ = v->first_use_;
  if (next_) next_->prev_ = &next_;
  prev_ = &v->first_use_;
  v->first_use_ = this;
}

void Use::unlink() {
  if (!value_) return;
  *prev_ = next_;
  if (next_) next_->prev_ = prev_;
  value_ = nullptr;
  next_ = nullptr;
  prev_ = nullptr;
}

size_t Value::num_uses() const {
  size_t n = 0;
  for (Use* u = first_use_; u; u = u->next_) ++n;
  return n;
}

std::vector<Operation*> Value::users() const {
  std::vector<Operation*> out;
  for (Use* u = first_use_; u; u = u->next_) out.push_back(u->owner_);
  return out;
}

void Value::replace_all_uses_with(Value* replacement) {
  assert(replacement != this);
  while (first_use_) {
    Use* u = first_use_;
    u->unlink();
    u->link(replacement);
  }
}

// ---------------------------------------------------------------------------
// Operations

std::unique_ptr<Operation> Operation::create(OpKind kind, const std::vector<Value*>& operands,
                                             const std::vector<Type>& result_types, Attrs attrs,
                                             unsigned num_regions) {
  std::unique_ptr<Operation> op(new Operation(kind, std::move(attrs)));
  op->relink_operands(operands);
  for (const Type& t : result_types) op->add_result(t);
  for (unsigned i = 0; i < num_regions; ++i) op->add_region();
  return op;
}

Operation::~Operation() {
  for (Use& u : operands_) u.unlink();
}

std::vector<Value*> Operation::operand_values() const {
  std::vector<Value*> out;
  out.reserve(operands_.size());
  for (const Use& u : operands_) out.push_back(u.get());
  return out;
}

// Uses are linked by address, so resizing the operand vector unlinks them all
// first and relinks them afterwards.
void Operation::relink_operands(const std::vector<Value*>& values) {
  for (Use& u : operands_) u.unlink();
  operands_.clear();
  operands_.resize(values.size());
  for (unsigned i = 0; i < values.size(); ++i) {
    operands_[i].owner_ = this;
    operands_[i].index_ = i;
    operands_[i].link(values[i]);
  }
}

void Operation::set_operand(unsigned i, Value* v) {
  operands_[i].unlink();
  operands_[i].link(v);
}

void Operation::set_operands(const std::vector<Value*>& values) { relink_operands(values); }

void Operation::append_operand(Value* v) {
  std::vector<Value*> values = operand_values();
  values.push_back(v);
  relink_operands(values);
}

void Operation::erase_operand(unsigned i) {
  std::vector<Value*> values = operand_values();
  values.erase(values.begin() + i);
  relink_operands(values);
}

Value* Operation::add_result(Type t) {
  results_.push_back(std::unique_ptr<Value>(new Value(t, this, nullptr, unsigned(results_.size()))));
  return results_.back().get();
}

void Operation::erase_result(unsigned i) {
  assert(!results_[i]->has_uses());
  results_.erase(results_.begin() + i);
  for (unsigned j = i; j < results_.size(); ++j) results_[j]->index_ = j;
}

bool Operation::has_result_uses() const {
  for (const auto& r : results_)
    if (r->has_uses()) return true;
  return false;
}

Region& Operation::add_region() {
  regions_.push_back(std::make_unique<Region>(this));
  return *regions_.back();
}

Operation* Operation::parent_op() const { return block_ ? block_->parent_op() : nullptr; }

bool Operation::is_ancestor_of(const Operation* other) const {
  for (const Operation* o = other; o; o = o->parent_op())
    if (o == this) return true;
  return false;
}

void Operation::erase() {
  assert(!has_result_uses() && "erasing an operation whose results are still used");
  drop_all_references();
  remove();  // the returned owner deletes the operation
}

std::unique_ptr<Operation> Operation::remove() {
  if (block_) block_->unlink(this);
  return std::unique_ptr<Operation>(this);
}

void Operation::move_before(Operation* pos) {
  std::unique_ptr<Operation> self = remove();
  pos->block_->insert(pos, std::move(self));
}

void Operation::move_after(Operation* pos) {
  std::unique_ptr<Operation> self = remove();
  pos->block_->insert(pos->next_, std::move(self));
}

void Operation::move_to_end(Block& block) {
  std::unique_ptr<Operation> self = remove();
  block.push_back(std::move(self));
}

void Operation::drop_all_references() {
  for (Use& u : operands_) u.unlink();
  for (auto& r : regions_) r->drop_all_references();
}

void Operation::walk(const std::function<void(Operation&)>& fn) {
  fn(*this);
  for (auto& r : regions_)
    for (unsigned b = 0; b < r->num_blocks(); ++b)
      for (Operation* op = r->block(b).front(); op;) {
        Operation* next = op->next();
        op->walk(fn);
        op = next;
      }
}

// ---------------------------------------------------------------------------
// Blocks and regions

Block::~Block() {
  for (Operation* op = first_; op; op = op->next_) op->drop_all_references();
  for (Operation* op = first_; op;) {
    Operation* next = op->next_;
    op->block_ = nullptr;
    delete op;
    op = next;
  }
}

Operation* Block::parent_op() const { return parent_ ? parent_->parent_op() : nullptr; }

Value* Block::add_argument(Type t) {
  args_.push_back(std::unique_ptr<Value>(new Value(t, nullptr, this, unsigned(args_.size()))));
  return args_.back().get();
}

void Block::erase_argument(unsigned i) {
  assert(!args_[i]->has_uses());
  args_.erase(args_.begin() + i);
  for (unsigned j = i; j < args_.size(); ++j) args_[j]->index_ = j;
}

size_t Block::size() const {
  size_t n = 0;
  for (Operation* op = first_; op; op = op->next_) ++n;
  return n;
}

Operation* Block::insert(Operation* pos, std::unique_ptr<Operation> owned) {
  Operation* op = owned.release();
  assert(!op->block_);
  assert(!pos || pos->block_ == this);
  op->block_ = this;
  op->next_ = pos;
  op->prev_ = pos ? pos->prev_ : last_;
  if (op->prev_) op->prev_->next_ = op; else first_ = op;
  if (pos) pos->prev_ = op; else last_ = op;
  return op;
}

void Block::unlink(Operation* op) {
  if (op->prev_) op->prev_->next_ = op->next_; else first_ = op->next_;
  if (op->next_) op->next_->prev_ = op->prev_; else last_ = op->prev_;
  op->prev_ = op->next_ = nullptr;
  op->block_ = nullptr;
}

Block& Region::add_block() {
  blocks_.push_back(std::make_unique<Block>(this));
  return *blocks_.back();
}

void Region::drop_all_references() {
  for (auto& b : blocks_)
    for (Operation* op = b->front(); op; op = op->next()) op->drop_all_references();
}

// ---------------------------------------------------------------------------
// Kernel and builder

Kernel::Kernel(std::string name) : name_(std::move(name)), region_(std::make_unique<Region>(nullptr)) {
  region_->add_block();
}

Kernel::~Kernel() {
  if (region_) region_->drop_all_references();
}

Kernel::Kernel(Kernel&&) noexcept = default;

Kernel& Kernel::operator=(Kernel&& other) noexcept {
  if (this != &other) {
    if (region_) region_->drop_all_references();
    name_ = std::move(other.name_);
    region_ = std::move(other.region_);
  }
  return *this;
}

void Kernel::walk(const std::function<void(Operation&)>& fn) const {
  for (unsigned b = 0; b < region_->num_blocks(); ++b)
    for (Operation* op = region_->block(b).front(); op;) {
      Operation* next = op->next();
      op->walk(fn);
      op = next;
    }
}

Operation* Builder::create(OpKind kind, const std::vector<Value*>& operands, const std::vector<Type>& result_types,
                           Attrs attrs, unsigned num_regions) {
  assert(block_ && "builder has no insertion point");
  return block_->insert(before_, Operation::create(kind, operands, result_types, std::move(attrs), num_regions));
}

Value* Builder::value(OpKind kind, const std::vector<Value*>& operands, Type result, Attrs attrs) {
  return create(kind, operands, {result}, std::move(attrs))->result(0);
}

void replace_op(Operation* op, const std::vector<Value*>& values) {
  assert(values.size() == op->num_results());
  for (unsigned i = 0; i < values.size(); ++i) op->result(i)->replace_all_uses_with(values[i]);
  op->erase();
}

}  // namespace tack::tile
