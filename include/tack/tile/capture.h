// C++ capture: staged lambdas that record TileIR in one pass.
//
//   Kernel k = tile_kernel("row_sum", [&](TensorView<float, 2> X, TensorView<float, 1> Y) {
//     for (auto r : parallel(X.shape(0), exec::block)) {
//       Tile<float> acc = 0.0f;
//       for (auto c : reduce(X.shape(1))) acc = acc + X[{r, c}];
//       Y(r).store(acc);
//     }
//   });
//
// Each range-for binding is a scope handle: begin() opens the region and its
// iterator runs the body exactly once, recording it; the increment closes the
// region. Direct assignment is Tile SSA: a Tile variable declared outside a
// serial, pipeline or reduce body and assigned inside it becomes a region
// argument and result. In a reduce body the assignment must read
// `state = state (+) contribution` for a built-in merge (add, mul, min, max,
// sub, and, or) or call a Reducer; capture records the contribution and the
// merge, never a running value.
//
// A[{...}] loads a Tile; A(...) names a MemoryRef, whose writes go through
// .store(tile). Reads and writes outside the view's bounds are masked: loads
// give the pad value, stores skip the element.
//
// The C++ templates here only convert types; everything else is type-erased
// in detail:: and compiled once.
#pragma once

#include <functional>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tack/tile/exec.h"
#include "tack/tile/ir.h"

namespace tack::tile {

template <class T>
class Tile;
using Index = Tile<int64_t>;
class Coord;

namespace detail {

// A Tile variable: its SSA value at the current capture point and the scope
// depth it was declared at. Reading it from a deeper serial/pipeline/reduce
// body imports it as a region argument, which is dropped again at the end of
// the body unless the variable was assigned there.
class TileBase {
 public:
  Value* value() const;
  const Type& type() const;

 protected:
  explicit TileBase(Value* v);
  TileBase(const TileBase& other);
  TileBase& operator=(const TileBase& other);
  ~TileBase();
  void assign(Value* v);

 private:
  friend struct CaptureAccess;
  mutable Value* v_;
  int depth_;
};

// A C++ scalar as the (floating, integer) pair that constants and pads carry.
template <class T>
double as_number(T v) {
  return std::is_floating_point_v<T> ? double(v) : 0.0;
}
template <class T>
int64_t as_integer(T v) {
  if constexpr (std::is_floating_point_v<T>) return 0;
  else return int64_t(v);
}

Value* constant(Scalar elem, double number, int64_t integer, const Shape& shape);
Value* unary(OpKind kind, const TileBase& a);
Value* binary(OpKind kind, const TileBase& a, const TileBase& b);
Value* select(const TileBase& cond, const TileBase& a, const TileBase& b);
Value* cast(const TileBase& a, Scalar elem);
Value* broadcast_to(const TileBase& a, const Shape& shape);
Value* reshape(const TileBase& a, const Shape& shape);
Value* extract(const TileBase& a, int axis, const TileBase& index);
Value* iota(Scalar elem, const Shape& shape, int axis);
Value* mma(const TileBase& a, const TileBase& b, const TileBase& c);
Value* axis_reduce(OpKind merge, const TileBase& a, int axis, ReductionPolicy policy);
Value* view(Value* parent, std::span<const Coord> coords);
Value* load(Value* view, double fpad, int64_t ipad);
void store(Value* view, const TileBase& tile);
Value* dim(Value* view, int axis);

// One range-for region scope.
class ScopeBase {
 public:
  ScopeBase(const ScopeBase&) = delete;
  ScopeBase& operator=(const ScopeBase&) = delete;

 protected:
  ScopeBase(OpKind kind, const TileBase& extent, Attrs attrs, std::source_location loc);
  ~ScopeBase();
  Value* open();
  void close();
  bool closed() const { return state_ == State::closed; }
  Operation* op() const { return op_; }

 private:
  enum class State { ready, open, closed };
  OpKind kind_;
  Value* extent_;
  Attrs attrs_;
  std::source_location loc_;
  State state_ = State::ready;
  Operation* op_ = nullptr;
  size_t depth_ = 0;
  int exceptions_ = 0;  // in flight when the scope opened
};

// A custom merge, type-erased: (a..., b...) -> merged.
struct ReducerCore {
  std::function<std::vector<Value*>(const std::vector<Value*>&, const std::vector<Value*>&)> merge;
  Laws laws;
};
std::vector<Value*> combine(const ReducerCore& reducer, const std::vector<Value*>& acc,
                            const std::vector<Value*>& contribution, std::source_location loc);

// Owns the kernel while its lambda runs; nested captures restore the outer one.
class KernelCapture {
 public:
  explicit KernelCapture(std::string name);
  ~KernelCapture();
  KernelCapture(const KernelCapture&) = delete;
  KernelCapture& operator=(const KernelCapture&) = delete;
  Value* param(Type type);
  Kernel finish();

 private:
  void* state_;
  void* outer_;
};

template <class F>
struct Signature : Signature<decltype(&F::operator())> {};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...) const> {
  using Params = std::tuple<std::decay_t<A>...>;
};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...)> {
  using Params = std::tuple<std::decay_t<A>...>;
};

}  // namespace detail

// ---------------------------------------------------------------------------
// Tiles

// A logical tile value of element type T (bool, int32_t, int64_t, float or
// double) and a static shape; rank 0 is a scalar.
template <class T>
class Tile : public detail::TileBase {
 public:
  using element_type = T;
  Tile(T scalar) : TileBase(detail::constant(scalar_of<T>(), detail::as_number(scalar), detail::as_integer(scalar), {})) {}
  explicit Tile(Value* v) : TileBase(v) {}
  Tile(const Tile&) = default;
  Tile& operator=(const Tile& other) = default;

  const Shape& shape() const { return type().shape(); }
  int rank() const { return shape().rank(); }
};

// Tiles of `shape` filled with `value`, and index tiles counting along `axis`.
template <class T>
Tile<T> full(const Shape& shape, T value) {
  return Tile<T>(detail::constant(scalar_of<T>(), detail::as_number(value), detail::as_integer(value), shape));
}
template <class T = int64_t>
Tile<T> iota(const Shape& shape, int axis = 0) {
  return Tile<T>(detail::iota(scalar_of<T>(), shape, axis));
}

// Lifted elementwise operators. Operands broadcast as in NumPy; a C++ scalar
// operand becomes a rank-0 constant.
#define TACK_TILE_BINARY(fn, kind, R)                                                                         \
  template <class T>                                                                                          \
  Tile<R> fn(const Tile<T>& a, const Tile<T>& b) {                                                            \
    return Tile<R>(detail::binary(OpKind::kind, a, b));                                                       \
  }                                                                                                           \
  template <class T>                                                                                          \
  Tile<R> fn(const Tile<T>& a, std::type_identity_t<T> b) {                                                   \
    return fn(a, Tile<T>(b));                                                                                 \
  }                                                                                                           \
  template <class T>                                                                                          \
  Tile<R> fn(std::type_identity_t<T> a, const Tile<T>& b) {                                                   \
    return fn(Tile<T>(a), b);                                                                                 \
  }
TACK_TILE_BINARY(operator+, add, T)
TACK_TILE_BINARY(operator-, sub, T)
TACK_TILE_BINARY(operator*, mul, T)
TACK_TILE_BINARY(operator/, div, T)
TACK_TILE_BINARY(operator%, rem, T)
TACK_TILE_BINARY(operator&, logical_and, T)
TACK_TILE_BINARY(operator|, logical_or, T)
TACK_TILE_BINARY(maximum, max, T)
TACK_TILE_BINARY(minimum, min, T)
TACK_TILE_BINARY(operator==, eq, bool)
TACK_TILE_BINARY(operator!=, ne, bool)
TACK_TILE_BINARY(operator<, lt, bool)
TACK_TILE_BINARY(operator<=, le, bool)
TACK_TILE_BINARY(operator>, gt, bool)
TACK_TILE_BINARY(operator>=, ge, bool)
#undef TACK_TILE_BINARY

template <class T> Tile<T>& operator+=(Tile<T>& a, const Tile<T>& b) { return a = a + b; }
template <class T> Tile<T>& operator-=(Tile<T>& a, const Tile<T>& b) { return a = a - b; }
template <class T> Tile<T>& operator*=(Tile<T>& a, const Tile<T>& b) { return a = a * b; }
template <class T> Tile<T>& operator/=(Tile<T>& a, const Tile<T>& b) { return a = a / b; }

template <class T> Tile<T> operator-(const Tile<T>& a) { return Tile<T>(detail::unary(OpKind::neg, a)); }
inline Tile<bool> operator!(const Tile<bool>& a) { return Tile<bool>(detail::unary(OpKind::logical_not, a)); }
template <class T> Tile<T> abs(const Tile<T>& a) { return Tile<T>(detail::unary(OpKind::abs, a)); }
template <class T> Tile<T> exp(const Tile<T>& a) { return Tile<T>(detail::unary(OpKind::exp, a)); }
template <class T> Tile<T> log(const Tile<T>& a) { return Tile<T>(detail::unary(OpKind::log, a)); }
template <class T> Tile<T> sqrt(const Tile<T>& a) { return Tile<T>(detail::unary(OpKind::sqrt, a)); }

template <class T>
Tile<T> select(const Tile<bool>& cond, const Tile<T>& a, const Tile<T>& b) {
  return Tile<T>(detail::select(cond, a, b));
}
template <class T>
Tile<T> select(const Tile<bool>& cond, const Tile<T>& a, std::type_identity_t<T> b) {
  return select(cond, a, Tile<T>(b));
}
template <class T>
Tile<T> select(const Tile<bool>& cond, std::type_identity_t<T> a, const Tile<T>& b) {
  return select(cond, Tile<T>(a), b);
}

template <class U, class T>
Tile<U> cast(const Tile<T>& a) {
  return Tile<U>(detail::cast(a, scalar_of<U>()));
}
template <class T>
Tile<T> broadcast_to(const Tile<T>& a, const Shape& shape) {
  return Tile<T>(detail::broadcast_to(a, shape));
}
template <class T>
Tile<T> reshape(const Tile<T>& a, const Shape& shape) {
  return Tile<T>(detail::reshape(a, shape));
}
// The slice of `a` at position `index` along `axis`, which is dropped.
template <class T>
Tile<T> extract(const Tile<T>& a, int axis, const Index& index) {
  return Tile<T>(detail::extract(a, axis, index));
}
// c + a @ b for a: MxK, b: KxN, c: MxN; accumulation stays fused.
template <class T>
Tile<T> mma(const Tile<T>& a, const Tile<T>& b, const Tile<T>& c) {
  return Tile<T>(detail::mma(a, b, c));
}

// Reductions along one axis: shorthand for a reduce region over that axis,
// seeded with the merge's identity (-0.0 for a floating-point sum, so that
// signed zeros survive).
template <class T>
Tile<T> sum(const Tile<T>& a, int axis, ReductionPolicy policy = ReductionPolicy::unordered_tree) {
  return Tile<T>(detail::axis_reduce(OpKind::add, a, axis, policy));
}
template <class T>
Tile<T> max(const Tile<T>& a, int axis, ReductionPolicy policy = ReductionPolicy::unordered_tree) {
  return Tile<T>(detail::axis_reduce(OpKind::max, a, axis, policy));
}
template <class T>
Tile<T> min(const Tile<T>& a, int axis, ReductionPolicy policy = ReductionPolicy::unordered_tree) {
  return Tile<T>(detail::axis_reduce(OpKind::min, a, axis, policy));
}

// ---------------------------------------------------------------------------
// Views and memory

// One coordinate of a view access: an index, which drops the axis, or
// span(origin, extent), which keeps `extent` elements from `origin` (which may
// be negative; elements outside the parent view are masked).
class Coord {
 public:
  Coord(const Index& at) : at_(at) {}
  Coord(int64_t at) : at_(at) {}
  const Index& at() const { return at_; }
  int64_t extent() const { return extent_; }

 private:
  friend Coord span(const Index& origin, int64_t extent);
  Index at_;
  int64_t extent_ = kIndexed;
};
inline Coord span(const Index& origin, int64_t extent) {
  Coord c(origin);
  c.extent_ = extent;
  return c;
}

// Addressable memory with stable identity. Assignment to it is ill-formed:
// writes go through store(), and loads through load() or TensorView::[].
template <class T>
class MemoryRef {
 public:
  explicit MemoryRef(Value* view) : view_(view) {}
  MemoryRef(const MemoryRef&) = default;
  MemoryRef& operator=(const MemoryRef&) = delete;
  MemoryRef& operator=(const Tile<T>&) = delete;

  Tile<T> load(T pad = T{}) const { return Tile<T>(detail::load(view_, detail::as_number(pad), detail::as_integer(pad))); }
  void store(const Tile<T>& tile) const { detail::store(view_, tile); }
  const Shape& shape() const { return view_->type().shape(); }
  Value* value() const { return view_; }

 private:
  Value* view_;
};

// A kernel parameter: a rank-R view of elements of type T, with extents,
// strides and offset bound when the kernel runs.
template <class T, int R>
class TensorView {
 public:
  static_assert(R >= 1 && R <= kMaxRank, "TensorView rank must be 1..4");
  using element_type = T;
  static Type param_type() { return Type::view(scalar_of<T>(), Shape(std::span<const int64_t>(kDynamicExtents, R))); }
  explicit TensorView(Value* v) : view_(v) {}

  Tile<T> operator[](std::initializer_list<Coord> coords) const { return ref(coords).load(); }
  template <class... C>
  MemoryRef<T> operator()(const C&... coords) const {
    static_assert(sizeof...(C) == R, "a view access needs one coordinate per axis");
    return ref({Coord(coords)...});
  }
  Index shape(int axis) const { return Index(detail::dim(view_, axis)); }
  Value* value() const { return view_; }

 private:
  MemoryRef<T> ref(std::initializer_list<Coord> coords) const {
    return MemoryRef<T>(detail::view(view_, std::span<const Coord>(coords.begin(), coords.size())));
  }
  static constexpr int64_t kDynamicExtents[kMaxRank] = {kDynamic, kDynamic, kDynamic, kDynamic};
  Value* view_;
};

// ---------------------------------------------------------------------------
// Region scopes

template <class Handle>
class ScopeRange : detail::ScopeBase {
 public:
  ScopeRange(OpKind kind, const Index& extent, Attrs attrs, std::source_location loc)
      : ScopeBase(kind, extent, std::move(attrs), loc) {}
  struct Sentinel {};
  class Iterator {
   public:
    explicit Iterator(ScopeRange* range) : range_(range) {}
    Handle operator*() const { return Handle(range_->index_, range_->op()); }
    Iterator& operator++() {
      range_->close();
      return *this;
    }
    bool operator!=(Sentinel) const { return !range_->closed(); }

   private:
    ScopeRange* range_;
  };
  Iterator begin() {
    index_ = open();
    return Iterator(this);
  }
  Sentinel end() { return {}; }

 private:
  Value* index_ = nullptr;
};

// The binding of parallel, serial and reduce scopes: the iteration's index,
// and a handle on the region it belongs to.
class LoopIndex : public Index {
 public:
  LoopIndex(Value* index, Operation* loop) : Index(index), loop_(loop) {}
  Operation* loop() const { return loop_; }

 private:
  Operation* loop_;
};

// The binding of a pipeline scope; stage() cuts the body into stages.
class PipelineIndex : public Index {
 public:
  PipelineIndex(Value* index, Operation* pipeline) : Index(index), pipeline_(pipeline) {}
  void stage(std::string name = {}, std::source_location loc = std::source_location::current()) const;

 private:
  Operation* pipeline_;
};

// Independent iterations, optionally constrained to an execution level.
ScopeRange<LoopIndex> parallel(const Index& extent, ExecLevel level = {},
                               std::source_location loc = std::source_location::current());
// Iterations in order; assigned Tiles carry from one to the next.
ScopeRange<LoopIndex> serial(const Index& extent, std::source_location loc = std::source_location::current());
// A temporal producer/consumer loop whose body stage() cuts into stages.
ScopeRange<PipelineIndex> pipeline(const Index& extent, std::source_location loc = std::source_location::current());
// An aggregation over [0, extent) under `policy`.
ScopeRange<LoopIndex> reduce(const Index& extent, ReductionPolicy policy = ReductionPolicy::unordered_tree,
                             std::source_location loc = std::source_location::current());

// A custom merge for reduce states of types Tile<Ts>...; `laws` are the
// promise that lets tree policies regroup (associative) and reorder
// (commutative) it. Inside a reduce body, `state = r(state, contribution)`.
template <class... Ts>
class Reducer {
  template <class U, class...>
  struct First {
    using type = U;
  };

 public:
  using State = std::conditional_t<sizeof...(Ts) == 1, Tile<typename First<Ts...>::type>, std::tuple<Tile<Ts>...>>;

  template <class F>
  Reducer(F merge, Laws laws) {
    core_.laws = laws;
    core_.merge = [merge](const std::vector<Value*>& a, const std::vector<Value*>& b) {
      return values(merge(state(a), state(b)));
    };
  }

  State operator()(const State& acc, const State& contribution,
                   std::source_location loc = std::source_location::current()) const {
    return state(detail::combine(core_, values(acc), values(contribution), loc));
  }

 private:
  static State state(const std::vector<Value*>& v) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      if constexpr (sizeof...(Ts) == 1) return State(v[0]);
      else return State(Tile<Ts>(v[I])...);
    }(std::index_sequence_for<Ts...>{});
  }
  static std::vector<Value*> values(const State& s) {
    if constexpr (sizeof...(Ts) == 1) return {s.value()};
    else return std::apply([](const auto&... t) { return std::vector<Value*>{t.value()...}; }, s);
  }
  detail::ReducerCore core_;
};

// Captures `fn`, whose parameters are TensorViews, as a kernel named `name`.
// The result has passed verify().
template <class Fn>
Kernel tile_kernel(std::string name, Fn&& fn) {
  detail::KernelCapture capture(std::move(name));
  using Params = typename detail::Signature<std::decay_t<Fn>>::Params;
  [&]<size_t... I>(std::index_sequence<I...>) {
    // Braced initialization evaluates left to right, so parameters keep their order.
    Params params{std::tuple_element_t<I, Params>(capture.param(std::tuple_element_t<I, Params>::param_type()))...};
    std::apply(fn, params);
  }(std::make_index_sequence<std::tuple_size_v<Params>>{});
  return capture.finish();
}

}  // namespace tack::tile
