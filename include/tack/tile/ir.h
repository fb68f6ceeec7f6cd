// TileIR: a thin, typed, mutable SSA IR with nested regions.
//
// A Kernel owns one Region whose single Block takes the kernel's views as
// arguments. Operations live in Blocks, own their result Values and their
// Regions, and refer to operands through Uses that are threaded onto each
// Value's intrusive use list, so replace-all-uses and dead-value checks cost
// the number of uses, not a walk of the kernel.
//
// Every operation kind is listed once, in TACK_TILE_OPS below; the enum, the
// printed names and the printer/parser/verifier dispatch are generated from it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tack::tile {

// X(kind, printed name, format). The format selects how an operation is
// printed, parsed and checked; semantics per kind live in the verifier and
// the interpreter.
#define TACK_TILE_OPS(X)                     \
  X(constant, "const", constant)             \
  X(iota, "iota", axis)                      \
  X(dim, "dim", axis)                        \
  X(extract, "extract", axis)                \
  X(neg, "neg", unary)                       \
  X(abs, "abs", unary)                       \
  X(exp, "exp", unary)                       \
  X(log, "log", unary)                       \
  X(sqrt, "sqrt", unary)                     \
  X(logical_not, "not", unary)               \
  X(add, "add", binary)                      \
  X(sub, "sub", binary)                      \
  X(mul, "mul", binary)                      \
  X(div, "div", binary)                      \
  X(rem, "rem", binary)                      \
  X(min, "min", binary)                      \
  X(max, "max", binary)                      \
  X(logical_and, "and", binary)              \
  X(logical_or, "or", binary)                \
  X(eq, "eq", compare)                       \
  X(ne, "ne", compare)                       \
  X(lt, "lt", compare)                       \
  X(le, "le", compare)                       \
  X(gt, "gt", compare)                       \
  X(ge, "ge", compare)                       \
  X(select, "select", generic)               \
  X(cast, "cast", generic)                   \
  X(broadcast, "broadcast", generic)         \
  X(reshape, "reshape", generic)             \
  X(mma, "mma", generic)                     \
  X(view, "view", view)                      \
  X(load, "load", load)                      \
  X(store, "store", generic)                 \
  X(parallel, "parallel", loop)              \
  X(serial, "serial", loop)                  \
  X(pipeline, "pipeline", loop)              \
  X(reduce, "reduce", loop)                  \
  X(stage, "stage", stage)                   \
  X(yield, "yield", generic)

enum class OpFormat : uint8_t { constant, axis, unary, binary, compare, generic, view, load, loop, stage };

enum class OpKind : uint8_t {
#define TACK_TILE_X(kind, text, format) kind,
  TACK_TILE_OPS(TACK_TILE_X)
#undef TACK_TILE_X
};

std::string_view op_name(OpKind kind);
OpFormat op_format(OpKind kind);
std::optional<OpKind> op_from_name(std::string_view name);
inline bool is_loop(OpKind kind) { return op_format(kind) == OpFormat::loop; }

// Errors raised by capture, parsing and interpretation. The message is a full
// sentence naming what was rejected.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------
// Types

enum class Scalar : uint8_t { i1, i32, i64, f32, f64 };

std::string_view scalar_name(Scalar s);
constexpr bool is_float(Scalar s) { return s == Scalar::f32 || s == Scalar::f64; }

template <class T>
constexpr Scalar scalar_of();
template <> constexpr Scalar scalar_of<bool>() { return Scalar::i1; }
template <> constexpr Scalar scalar_of<int32_t>() { return Scalar::i32; }
template <> constexpr Scalar scalar_of<int64_t>() { return Scalar::i64; }
template <> constexpr Scalar scalar_of<float>() { return Scalar::f32; }
template <> constexpr Scalar scalar_of<double>() { return Scalar::f64; }

inline constexpr int kMaxRank = 4;
// An extent known only when the kernel runs (kernel parameters' views).
inline constexpr int64_t kDynamic = -1;

// A static shape of rank <= kMaxRank; rank 0 is a scalar.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(std::span<const int64_t> dims);
  int rank() const { return rank_; }
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  std::span<const int64_t> dims() const { return {dims_.data(), size_t(rank_)}; }
  int64_t num_elements() const;  // 1 for rank 0; requires static extents
  Shape drop(int axis) const;
  void push_back(int64_t d);
  friend bool operator==(const Shape& a, const Shape& b);

 private:
  std::array<int64_t, kMaxRank> dims_{};
  uint8_t rank_ = 0;
};

// A tile<shape x elem> is an SSA value; a view<extents x elem> names
// addressable memory. Views are plain affine maps (extents, strides, offset)
// in the interpreter; the type only records element type and extents, so a
// CuTe layout can later replace the affine map without changing the IR.
class Type {
 public:
  enum class Kind : uint8_t { tile, view };
  Type() = default;
  static Type tile(Scalar elem, Shape shape = {});
  static Type view(Scalar elem, Shape extents);

  Kind kind() const { return kind_; }
  bool is_tile() const { return kind_ == Kind::tile; }
  bool is_view() const { return kind_ == Kind::view; }
  bool is_scalar() const { return is_tile() && shape_.rank() == 0; }
  bool is_index() const { return is_scalar() && elem_ == Scalar::i64; }
  Scalar elem() const { return elem_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  bool is_static() const;
  Type with_elem(Scalar e) const;
  Type with_shape(Shape s) const;
  friend bool operator==(const Type& a, const Type& b);

 private:
  Kind kind_ = Kind::tile;
  Scalar elem_ = Scalar::f32;
  Shape shape_;
};

std::string to_string(const Type& t);

// ---------------------------------------------------------------------------
// Reduction semantics carried by `reduce` operations.

// unordered_tree: any grouping and order of contributions (needs an
//   associative and commutative merge). The default.
// ordered_tree: a fixed balanced pairwise tree over contributions in domain
//   order (needs an associative merge); bitwise reproducible.
// left_fold / right_fold: exactly the serial order
//   ((seed + c0) + c1) + ...  and  c0 + (c1 + (... + (c[n-1] + seed))).
enum class ReductionPolicy : uint8_t { unordered_tree, ordered_tree, left_fold, right_fold };
std::string_view policy_name(ReductionPolicy p);
std::optional<ReductionPolicy> policy_from_name(std::string_view name);

// The algebraic laws a merge promises; tree policies need them, folds do not.
struct Laws {
  bool associative = false;
  bool commutative = false;
  friend bool operator==(const Laws&, const Laws&) = default;
};

// Laws of a built-in merge, or nullopt when the op cannot merge reduce states.
// Floating-point add/mul count as associative and commutative: choosing a tree
// policy is the user's permission to regroup them.
std::optional<Laws> builtin_merge_laws(OpKind op);
// What `policy` requires of a merge, as a sentence fragment, or nullopt if
// `laws` satisfy it.
std::optional<std::string> policy_violation(ReductionPolicy policy, Laws laws);

// How one reduce state merges: a built-in binary op, or the custom combiner
// region with the given index (>= 1; region 0 is the body).
struct Merge {
  OpKind op = OpKind::add;
  unsigned region = 0;
  friend bool operator==(const Merge&, const Merge&) = default;
};

// Per-kind attributes. A flat struct keeps operations type-erased; each
// format reads only its fields.
struct Attrs {
  double number = 0;              // const, load pad: floating value
  int64_t integer = 0;            // const, load pad: integer value
  int axis = 0;                   // iota, dim, extract
  std::vector<int64_t> extents;   // view: per parent axis, a span's extent or kIndexed
  std::string name;               // parallel: exec level; stage: stage name
  ReductionPolicy policy = ReductionPolicy::unordered_tree;  // reduce
  std::vector<Merge> merges;      // reduce: one per state
  std::vector<Laws> laws;         // reduce: one per combiner region (regions 1..)
};
// A view coordinate that selects one index and drops the axis.
inline constexpr int64_t kIndexed = -1;

// ---------------------------------------------------------------------------
// Values and uses

class Operation;
class Block;
class Region;
class Value;

class Use {
 public:
  Value* get() const { return value_; }
  Operation* owner() const { return owner_; }
  unsigned operand_index() const { return index_; }
  Use* next_use() const { return next_; }

 private:
  friend class Operation;
  friend class Value;
  void link(Value* v);
  void unlink();
  Value* value_ = nullptr;
  Operation* owner_ = nullptr;
  unsigned index_ = 0;
  Use* next_ = nullptr;
  Use** prev_ = nullptr;  // the pointer that points at this use
};

class Value {
 public:
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  const Type& type() const { return type_; }
  // The operation that defines this result, or null for a block argument.
  Operation* defining_op() const { return op_; }
  // The block that owns this argument, or null for an operation result.
  Block* owner_block() const { return block_; }
  unsigned index() const { return index_; }

  bool has_uses() const { return first_use_ != nullptr; }
  size_t num_uses() const;
  Use* first_use() const { return first_use_; }
  // Users in use-list order (an operation appears once per operand).
  std::vector<Operation*> users() const;
  void replace_all_uses_with(Value* replacement);

 private:
  friend class Operation;
  friend class Block;
  friend class Use;
  Value(Type t, Operation* op, Block* block, unsigned index) : type_(t), op_(op), block_(block), index_(index) {}
  Type type_;
  Operation* op_;
  Block* block_;
  unsigned index_;
  Use* first_use_ = nullptr;
};

// ---------------------------------------------------------------------------
// Operations, blocks, regions

class Operation {
 public:
  static std::unique_ptr<Operation> create(OpKind kind, const std::vector<Value*>& operands,
                                           const std::vector<Type>& result_types, Attrs attrs = {},
                                           unsigned num_regions = 0);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  OpKind kind() const { return kind_; }
  std::string_view name() const { return op_name(kind_); }
  Attrs& attrs() { return attrs_; }
  const Attrs& attrs() const { return attrs_; }

  unsigned num_operands() const { return unsigned(operands_.size()); }
  Value* operand(unsigned i) const { return operands_[i].get(); }
  std::vector<Value*> operand_values() const;
  void set_operand(unsigned i, Value* v);
  void set_operands(const std::vector<Value*>& values);
  void append_operand(Value* v);
  void erase_operand(unsigned i);

  unsigned num_results() const { return unsigned(results_.size()); }
  Value* result(unsigned i = 0) const { return results_[i].get(); }
  Value* add_result(Type t);
  void erase_result(unsigned i);  // the result must have no uses
  bool has_result_uses() const;

  unsigned num_regions() const { return unsigned(regions_.size()); }
  Region& region(unsigned i) const { return *regions_[i]; }
  Region& add_region();

  Block* parent_block() const { return block_; }
  Operation* parent_op() const;
  Operation* prev() const { return prev_; }
  Operation* next() const { return next_; }
  // True if this operation is `other` or (transitively) contains it.
  bool is_ancestor_of(const Operation* other) const;

  // Rewriting. erase() requires that no result has uses; remove() detaches the
  // operation from its block and hands over ownership without touching uses.
  void erase();
  std::unique_ptr<Operation> remove();
  void move_before(Operation* pos);
  void move_after(Operation* pos);
  void move_to_end(Block& block);
  // Unlinks every operand use in this operation and all nested operations.
  void drop_all_references();

  // Pre-order walk over this operation and everything nested in it.
  void walk(const std::function<void(Operation&)>& fn);

 private:
  friend class Block;
  Operation(OpKind kind, Attrs attrs) : kind_(kind), attrs_(std::move(attrs)) {}
  void relink_operands(const std::vector<Value*>& values);

  OpKind kind_;
  Attrs attrs_;
  std::vector<Use> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block* block_ = nullptr;
  Operation* prev_ = nullptr;
  Operation* next_ = nullptr;
};

class Block {
 public:
  explicit Block(Region* parent) : parent_(parent) {}
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  Region* parent() const { return parent_; }
  Operation* parent_op() const;

  unsigned num_arguments() const { return unsigned(args_.size()); }
  Value* argument(unsigned i) const { return args_[i].get(); }
  Value* add_argument(Type t);
  void erase_argument(unsigned i);  // the argument must have no uses

  bool empty() const { return first_ == nullptr; }
  Operation* front() const { return first_; }
  Operation* back() const { return last_; }
  size_t size() const;
  // Inserts before `pos`, or at the end when `pos` is null.
  Operation* insert(Operation* pos, std::unique_ptr<Operation> op);
  Operation* push_back(std::unique_ptr<Operation> op) { return insert(nullptr, std::move(op)); }

  class iterator {
   public:
    explicit iterator(Operation* op) : op_(op) {}
    Operation& operator*() const { return *op_; }
    Operation* operator->() const { return op_; }
    iterator& operator++() { op_ = op_->next(); return *this; }
    bool operator==(const iterator&) const = default;
   private:
    Operation* op_;
  };
  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(nullptr); }

 private:
  friend class Operation;
  void unlink(Operation* op);
  Region* parent_;
  std::vector<std::unique_ptr<Value>> args_;
  Operation* first_ = nullptr;
  Operation* last_ = nullptr;
};

class Region {
 public:
  explicit Region(Operation* parent) : parent_(parent) {}
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  Operation* parent_op() const { return parent_; }
  unsigned num_blocks() const { return unsigned(blocks_.size()); }
  Block& block(unsigned i = 0) const { return *blocks_[i]; }
  Block& add_block();
  void drop_all_references();

 private:
  Operation* parent_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

// A captured kernel: a name and a body whose block arguments are the
// kernel's views, in parameter order. The body has no terminator.
class Kernel {
 public:
  explicit Kernel(std::string name);
  ~Kernel();
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;

  const std::string& name() const { return name_; }
  Region& region() const { return *region_; }
  Block& body() const { return region_->block(0); }
  unsigned num_params() const { return body().num_arguments(); }
  Value* param(unsigned i) const { return body().argument(i); }
  void walk(const std::function<void(Operation&)>& fn) const;

 private:
  std::string name_;
  std::unique_ptr<Region> region_;
};

// Creates operations at an insertion point.
class Builder {
 public:
  Builder() = default;
  explicit Builder(Block& block) { set_insertion_end(block); }
  void set_insertion_end(Block& block) { block_ = &block; before_ = nullptr; }
  void set_insertion_before(Operation* op) { block_ = op->parent_block(); before_ = op; }
  void set_insertion_after(Operation* op) { block_ = op->parent_block(); before_ = op->next(); }
  Block* block() const { return block_; }
  Operation* insertion_point() const { return before_; }

  Operation* create(OpKind kind, const std::vector<Value*>& operands, const std::vector<Type>& result_types,
                    Attrs attrs = {}, unsigned num_regions = 0);
  // One-result convenience.
  Value* value(OpKind kind, const std::vector<Value*>& operands, Type result, Attrs attrs = {});

 private:
  Block* block_ = nullptr;
  Operation* before_ = nullptr;
};

// Replaces every result of `op` with the matching value and erases `op`.
void replace_op(Operation* op, const std::vector<Value*>& values);

}  // namespace tack::tile
