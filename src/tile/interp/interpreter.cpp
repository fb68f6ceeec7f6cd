#include "tack/tile/interpreter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include "tack/tile/printer.h"
#include "tack/tile/view_layout.h"

namespace tack::tile {

namespace {

// A tile's elements in row-major order: floating types in `f` (f32 values
// already rounded to f32), integer and boolean types in `n`.
struct Buf {
  Type type;
  std::vector<double> f;
  std::vector<int64_t> n;

  size_t size() const { return is_float(type.elem()) ? f.size() : n.size(); }
  void reset(const Type& t) {
    type = t;
    size_t count = size_t(t.shape().num_elements());
    if (is_float(t.elem())) f.resize(count), n.clear();
    else n.resize(count), f.clear();
  }
};

// A view's layout (view_layout.h) evaluated for one run: extents, strides
// and the translation, with, per axis, the half-open range [lo, hi) of
// positions that lie inside every parent view; everything else is masked.
struct ViewVal {
  char* base = nullptr;
  Scalar elem = Scalar::f32;
  int rank = 0;
  int64_t offset = 0;
  bool valid = true;
  std::array<int64_t, kMaxRank> ext{}, stride{}, lo{}, hi{};
};

struct Slot {
  Buf tile;
  ViewVal view;
};

struct Body;

// An operation with its operands and results resolved to slots.
struct Node {
  const Operation* op;
  OpKind kind;
  std::vector<int> in, out;
  std::vector<Body> regions;
};

struct Body {
  std::vector<int> args;
  std::vector<Node> nodes;
  std::vector<int> yields;
};

double round_to(Scalar e, double v) { return e == Scalar::f32 ? double(float(v)) : v; }

int64_t wrap_to(Scalar e, int64_t v) {
  switch (e) {
    case Scalar::i1: return v != 0;
    case Scalar::i32: return int64_t(int32_t(uint32_t(uint64_t(v))));
    default: return v;
  }
}

// IEEE 754-2019 maximum/minimum: NaN propagates and -0 < +0, which makes
// them associative and commutative bit for bit.
double ieee_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double ieee_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

size_t elem_size(Scalar e) {
  switch (e) {
    case Scalar::i1: return 1;
    case Scalar::i32:
    case Scalar::f32: return 4;
    default: return 8;
  }
}

class Interpreter {
 public:
  Interpreter(const Kernel& k, const RunOptions& options) : kernel_(k), options_(options) {
    if (options_.threads == 0) options_.threads = 1;
    for (unsigned i = 0; i < k.num_params(); ++i) {
      params_.push_back(parameter_layout(i, k.param(i)->type().rank()));
      layouts_.emplace(slot(k.param(i)), ViewAddress{view_layout(params_.back()), {}});
    }
    entry_.args = slots_for_args(k.body());
    entry_.nodes = compile_block(k.body());
    slots_.resize(next_slot_);
  }

  void run(const std::vector<HostTensor>& args) {
    if (args.size() != kernel_.num_params())
      throw Error("interpret @" + kernel_.name() + ": the kernel takes " + std::to_string(kernel_.num_params()) +
                  " tensors, not " + std::to_string(args.size()) + ".");
    for (size_t i = 0; i < args.size(); ++i) bind(i, args[i]);
    exec_body(entry_);
  }

 private:
  // --- compilation to slots ---------------------------------------------

  int slot(const Value* v) {
    auto [it, inserted] = ids_.emplace(v, next_slot_);
    if (inserted) next_slot_++;
    return it->second;
  }

  std::vector<int> slots_for_args(const Block& b) {
    std::vector<int> out;
    for (unsigned i = 0; i < b.num_arguments(); ++i) out.push_back(slot(b.argument(i)));
    return out;
  }

  std::vector<Node> compile_block(const Block& b) {
    std::vector<Node> nodes;
    for (const Operation& op : b) {
      if (op.kind() == OpKind::yield || op.kind() == OpKind::stage) continue;
      Node n{&op, op.kind(), {}, {}, {}};
      for (unsigned i = 0; i < op.num_operands(); ++i) n.in.push_back(slot(op.operand(i)));
      for (unsigned i = 0; i < op.num_results(); ++i) n.out.push_back(slot(op.result(i)));
      if (op.kind() == OpKind::view) {
        ViewAddress a{view_layout(layouts_.at(n.in[0]).layout, op), {}};
        for (const ViewOffsetTerm& t : a.layout.offset) a.term_slots.push_back(slot(t.coordinate));
        layouts_.emplace(n.out[0], std::move(a));
      }
      for (unsigned r = 0; r < op.num_regions(); ++r) {
        const Block& block = op.region(r).block(0);
        Body body;
        body.args = slots_for_args(block);
        body.nodes = compile_block(block);
        for (unsigned i = 0; i < block.back()->num_operands(); ++i) body.yields.push_back(slot(block.back()->operand(i)));
        n.regions.push_back(std::move(body));
      }
      nodes.push_back(std::move(n));
    }
    return nodes;
  }

  void bind(size_t i, const HostTensor& t) {
    const Type& p = kernel_.param(unsigned(i))->type();
    if (t.elem != p.elem() || t.shape.rank() != p.rank())
      throw Error("interpret @" + kernel_.name() + ": argument #" + std::to_string(i) + " is a rank-" +
                  std::to_string(t.shape.rank()) + " " + std::string(scalar_name(t.elem)) + " tensor, but its parameter has type " +
                  to_string(p) + ".");
    const int s = ids_.at(kernel_.param(unsigned(i)));
    ViewVal& v = slots_[size_t(s)].view;
    v = ViewVal{};
    v.base = static_cast<char*>(t.data);
    v.elem = t.elem;
    v.rank = t.shape.rank();
    v.offset = t.offset;
    std::vector<int64_t> extents, strides;
    for (int d = 0; d < v.rank; ++d) {
      if (t.shape[d] < 0) throw Error("interpret @" + kernel_.name() + ": argument #" + std::to_string(i) + " has a negative extent.");
      extents.push_back(t.shape[d]);
      strides.push_back(t.strides[size_t(d)]);
    }
    bind_parameter(params_[i], extents, strides, symbols_);
    const ViewLayout& layout = layouts_.at(s).layout;
    for (int d = 0; d < v.rank; ++d) {
      v.ext[size_t(d)] = leaf_value(layout.modes[size_t(d)].shape());
      v.stride[size_t(d)] = leaf_value(layout.modes[size_t(d)].stride());
      v.hi[size_t(d)] = v.ext[size_t(d)];
    }
  }

  // A leaf of a view's layout under this run's values of the parameters' symbols.
  int64_t leaf_value(const IntTuple& leaf) const {
    if (leaf.is_static_leaf()) return leaf.value();
    if (leaf.is_dynamic_leaf()) return symbols_.at(leaf.symbol());
    int64_t v = leaf.coefficient();
    for (const IntTuple& f : leaf.factors()) v *= symbols_.at(f.symbol());
    return v;
  }

  [[noreturn]] void fault(const Node& n, const std::string& what) {
    throw Error("interpret @" + kernel_.name() + ": " + ValueNames(kernel_).describe(*n.op) + " " + what + ".");
  }

  // --- execution ------------------------------------------------------------

  Buf& tile(int s) { return slots_[size_t(s)].tile; }
  int64_t index(int s) { return slots_[size_t(s)].tile.n[0]; }
  void set_index(int s, int64_t v) {
    Buf& b = tile(s);
    if (b.n.size() != 1 || !(b.type == Type::tile(Scalar::i64))) b.reset(Type::tile(Scalar::i64));
    b.n[0] = v;
  }

  void exec_body(const Body& body) {
    for (const Node& n : body.nodes) exec(n);
  }

  void exec(const Node& n) {
    switch (op_format(n.kind)) {
      case OpFormat::constant: return exec_constant(n);
      case OpFormat::unary: return exec_unary(n);
      case OpFormat::binary:
      case OpFormat::compare: return exec_binary(n);
      case OpFormat::loop: return exec_loop(n);
      default: break;
    }
    switch (n.kind) {
      case OpKind::iota: {
        Buf& r = tile(n.out[0]);
        r.reset(n.op->result()->type());
        const Shape& s = r.type.shape();
        int axis = n.op->attrs().axis;
        int64_t inner = 1;
        for (int d = axis + 1; d < s.rank(); ++d) inner *= s[d];
        for (size_t i = 0; i < r.n.size(); ++i) r.n[i] = wrap_to(r.type.elem(), int64_t(i / size_t(inner)) % s[axis]);
        return;
      }
      case OpKind::dim: return set_index(n.out[0], slots_[size_t(n.in[0])].view.ext[size_t(n.op->attrs().axis)]);
      case OpKind::extract: return exec_extract(n);
      case OpKind::select: {
        const Buf &c = tile(n.in[0]), &a = tile(n.in[1]), &b = tile(n.in[2]);
        Buf& r = tile(n.out[0]);
        Buf out;
        out.reset(a.type);
        for (size_t i = 0; i < c.n.size(); ++i) {
          if (is_float(a.type.elem())) out.f[i] = c.n[i] ? a.f[i] : b.f[i];
          else out.n[i] = c.n[i] ? a.n[i] : b.n[i];
        }
        r = std::move(out);
        return;
      }
      case OpKind::cast: return exec_cast(n);
      case OpKind::broadcast: return exec_broadcast(n);
      case OpKind::reshape: {
        Buf out = tile(n.in[0]);
        out.type = n.op->result()->type();
        tile(n.out[0]) = std::move(out);
        return;
      }
      case OpKind::mma: return exec_mma(n);
      case OpKind::view: return exec_view(n);
      case OpKind::load: return exec_load(n);
      case OpKind::store: return exec_store(n);
      default: fault(n, "cannot be interpreted");
    }
  }

  void exec_constant(const Node& n) {
    Buf& r = tile(n.out[0]);
    r.reset(n.op->result()->type());
    const Attrs& a = n.op->attrs();
    if (is_float(r.type.elem())) std::fill(r.f.begin(), r.f.end(), round_to(r.type.elem(), a.number));
    else std::fill(r.n.begin(), r.n.end(), wrap_to(r.type.elem(), a.integer));
  }

  void exec_unary(const Node& n) {
    const Buf& a = tile(n.in[0]);
    Buf out;
    out.reset(a.type);
    Scalar e = a.type.elem();
    if (is_float(e)) {
      for (size_t i = 0; i < a.f.size(); ++i) {
        double x = a.f[i];
        switch (n.kind) {
          case OpKind::neg: x = -x; break;
          case OpKind::abs: x = std::fabs(x); break;
          case OpKind::exp: x = e == Scalar::f32 ? double(std::exp(float(x))) : std::exp(x); break;
          case OpKind::log: x = e == Scalar::f32 ? double(std::log(float(x))) : std::log(x); break;
          case OpKind::sqrt: x = e == Scalar::f32 ? double(std::sqrt(float(x))) : std::sqrt(x); break;
          default: fault(n, "does not apply to floating-point tiles");
        }
        out.f[i] = x;
      }
    } else {
      for (size_t i = 0; i < a.n.size(); ++i) {
        int64_t x = a.n[i];
        switch (n.kind) {
          case OpKind::neg: x = int64_t(0 - uint64_t(x)); break;
          case OpKind::abs: x = x < 0 ? int64_t(0 - uint64_t(x)) : x; break;
          case OpKind::logical_not: x = !x; break;
          default: fault(n, "does not apply to integer tiles");
        }
        out.n[i] = wrap_to(e, x);
      }
    }
    tile(n.out[0]) = std::move(out);
  }

  double float_op(const Node& n, OpKind k, Scalar e, double a, double b) {
    switch (k) {
      case OpKind::add: return round_to(e, a + b);
      case OpKind::sub: return round_to(e, a - b);
      case OpKind::mul: return round_to(e, a * b);
      case OpKind::div: return round_to(e, a / b);
      case OpKind::rem: return e == Scalar::f32 ? double(std::fmod(float(a), float(b))) : std::fmod(a, b);
      case OpKind::min: return ieee_min(a, b);
      case OpKind::max: return ieee_max(a, b);
      default: fault(n, "does not apply to floating-point tiles");
    }
  }

  int64_t int_op(const Node& n, OpKind k, Scalar e, int64_t a, int64_t b) {
    uint64_t ua = uint64_t(a), ub = uint64_t(b);
    switch (k) {
      case OpKind::add: return wrap_to(e, int64_t(ua + ub));
      case OpKind::sub: return wrap_to(e, int64_t(ua - ub));
      case OpKind::mul: return wrap_to(e, int64_t(ua * ub));
      case OpKind::div:
      case OpKind::rem:
        if (b == 0) fault(n, "divides an integer by zero");
        if (b == -1) return wrap_to(e, k == OpKind::div ? int64_t(0 - ua) : 0);
        return wrap_to(e, k == OpKind::div ? a / b : a % b);
      case OpKind::min: return std::min(a, b);
      case OpKind::max: return std::max(a, b);
      case OpKind::logical_and: return a && b;
      case OpKind::logical_or: return a || b;
      default: fault(n, "does not apply to integer tiles");
    }
  }

  template <class V>
  static bool compare(OpKind k, V a, V b) {
    switch (k) {
      case OpKind::eq: return a == b;
      case OpKind::ne: return a != b;
      case OpKind::lt: return a < b;
      case OpKind::le: return a <= b;
      case OpKind::gt: return a > b;
      default: return a >= b;
    }
  }

  // Applies a binary op (also a built-in merge) elementwise: out = a op b.
  void apply_binary(const Node& n, OpKind k, const Buf& a, const Buf& b, Buf& out) {
    Scalar e = a.type.elem();
    bool cmp = op_format(k) == OpFormat::compare;
    Buf r;
    r.reset(cmp ? a.type.with_elem(Scalar::i1) : a.type);
    size_t count = a.size();
    if (is_float(e)) {
      if (cmp) for (size_t i = 0; i < count; ++i) r.n[i] = compare(k, a.f[i], b.f[i]);
      else for (size_t i = 0; i < count; ++i) r.f[i] = float_op(n, k, e, a.f[i], b.f[i]);
    } else {
      if (cmp) for (size_t i = 0; i < count; ++i) r.n[i] = compare(k, a.n[i], b.n[i]);
      else for (size_t i = 0; i < count; ++i) r.n[i] = int_op(n, k, e, a.n[i], b.n[i]);
    }
    out = std::move(r);
  }

  void exec_binary(const Node& n) { apply_binary(n, n.kind, tile(n.in[0]), tile(n.in[1]), tile(n.out[0])); }

  void exec_cast(const Node& n) {
    const Buf& a = tile(n.in[0]);
    Buf out;
    out.reset(n.op->result()->type());
    Scalar from = a.type.elem(), to = out.type.elem();
    for (size_t i = 0; i < a.size(); ++i) {
      if (is_float(to)) {
        out.f[i] = round_to(to, is_float(from) ? a.f[i] : double(a.n[i]));
      } else if (is_float(from)) {
        // Truncation toward zero, saturating; NaN becomes 0.
        double x = a.f[i];
        int64_t v = std::isnan(x) ? 0 : x >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max()
                    : x <= -9.2233720368547758e18 ? std::numeric_limits<int64_t>::min() : int64_t(x);
        if (to == Scalar::i32) v = std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
        out.n[i] = to == Scalar::i1 ? x != 0 : v;
      } else {
        out.n[i] = wrap_to(to, a.n[i]);
      }
    }
    tile(n.out[0]) = std::move(out);
  }

  void exec_broadcast(const Node& n) {
    const Buf& a = tile(n.in[0]);
    Buf out;
    out.reset(n.op->result()->type());
    const Shape &from = a.type.shape(), &to = out.type.shape();
    int shift = to.rank() - from.rank();
    std::array<int64_t, kMaxRank> idx{};
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t src = 0;
      for (int d = 0; d < from.rank(); ++d) src = src * from[d] + (from[d] == 1 ? 0 : idx[size_t(d + shift)]);
      if (is_float(out.type.elem())) out.f[i] = a.f[size_t(src)];
      else out.n[i] = a.n[size_t(src)];
      for (int d = to.rank() - 1; d >= 0; --d) {
        if (++idx[size_t(d)] < to[d]) break;
        idx[size_t(d)] = 0;
      }
    }
    tile(n.out[0]) = std::move(out);
  }

  void exec_extract(const Node& n) {
    const Buf& a = tile(n.in[0]);
    int64_t k = index(n.in[1]);
    int axis = n.op->attrs().axis;
    const Shape& s = a.type.shape();
    if (k < 0 || k >= s[axis]) fault(n, "reads position " + std::to_string(k) + " of an axis of extent " + std::to_string(s[axis]));
    int64_t inner = 1, outer = 1;
    for (int d = axis + 1; d < s.rank(); ++d) inner *= s[d];
    for (int d = 0; d < axis; ++d) outer *= s[d];
    Buf out;
    out.reset(n.op->result()->type());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        size_t src = size_t((o * s[axis] + k) * inner + i), dst = size_t(o * inner + i);
        if (is_float(out.type.elem())) out.f[dst] = a.f[src];
        else out.n[dst] = a.n[src];
      }
    tile(n.out[0]) = std::move(out);
  }

  // c + a @ b, accumulating over k in increasing order in the element type,
  // each step a fused multiply-add: acc = fma(a[i,k], b[k,j], acc), rounded
  // once.
  void exec_mma(const Node& n) {
    const Buf &a = tile(n.in[0]), &b = tile(n.in[1]);
    Buf out = tile(n.in[2]);
    int64_t M = a.type.shape()[0], K = a.type.shape()[1], N = b.type.shape()[1];
    Scalar e = out.type.elem();
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        size_t o = size_t(i * N + j);
        if (is_float(e)) {
          double acc = out.f[o];
          for (int64_t k = 0; k < K; ++k) {
            double x = a.f[size_t(i * K + k)], y = b.f[size_t(k * N + j)];
            acc = e == Scalar::f32 ? double(std::fma(float(x), float(y), float(acc))) : std::fma(x, y, acc);
          }
          out.f[o] = acc;
        } else {
          int64_t acc = out.n[o];
          for (int64_t k = 0; k < K; ++k)
            acc = wrap_to(e, int64_t(uint64_t(acc) + uint64_t(a.n[size_t(i * K + k)]) * uint64_t(b.n[size_t(k * N + j)])));
          out.n[o] = acc;
        }
      }
    tile(n.out[0]) = std::move(out);
  }

  // The view's addresses from its layout: strides from its modes, the
  // offset the parent's plus this view's own terms of the translation (the
  // last parent.rank); its bounds from the parent's.
  void exec_view(const Node& n) {
    const ViewVal parent = slots_[size_t(n.in[0])].view;
    const ViewAddress& a = layouts_.at(n.out[0]);
    const std::vector<int64_t>& extents = n.op->attrs().extents;
    ViewVal v;
    v.base = parent.base;
    v.elem = parent.elem;
    v.offset = parent.offset;
    for (size_t t = a.term_slots.size() - size_t(parent.rank); t < a.term_slots.size(); ++t)
      v.offset += index(a.term_slots[t]) * leaf_value(a.layout.offset[t].stride);
    v.valid = parent.valid;
    for (int d = 0; d < parent.rank; ++d) {
      int64_t c = index(n.in[size_t(d) + 1]);
      size_t pd = size_t(d);
      if (extents[pd] == kIndexed) {
        v.valid = v.valid && parent.lo[pd] <= c && c < parent.hi[pd];
        continue;
      }
      size_t r = size_t(v.rank++);
      int64_t e = extents[pd];
      v.ext[r] = e;
      v.stride[r] = leaf_value(a.layout.modes[r].stride());
      v.lo[r] = std::clamp<int64_t>(parent.lo[pd] - c, 0, e);
      v.hi[r] = std::clamp<int64_t>(parent.hi[pd] - c, 0, e);
    }
    slots_[size_t(n.out[0])].view = v;
  }

  // Visits every position of `v`, passing its flat index in the tile and, for
  // positions inside the view's bounds, the element's address.
  template <class F>
  static void for_each(const ViewVal& v, F&& f) {
    int64_t count = 1;
    for (int d = 0; d < v.rank; ++d) count *= v.ext[size_t(d)];
    std::array<int64_t, kMaxRank> idx{};
    size_t esize = elem_size(v.elem);
    for (int64_t i = 0; i < count; ++i) {
      bool in = v.valid;
      int64_t off = v.offset;
      for (int d = 0; d < v.rank; ++d) {
        size_t u = size_t(d);
        in = in && v.lo[u] <= idx[u] && idx[u] < v.hi[u];
        off += idx[u] * v.stride[u];
      }
      f(size_t(i), in ? v.base + off * int64_t(esize) : nullptr);
      for (int d = v.rank - 1; d >= 0; --d) {
        if (++idx[size_t(d)] < v.ext[size_t(d)]) break;
        idx[size_t(d)] = 0;
      }
    }
  }

  void exec_load(const Node& n) {
    const ViewVal& v = slots_[size_t(n.in[0])].view;
    Buf& r = tile(n.out[0]);
    r.reset(n.op->result()->type());
    const Attrs& a = n.op->attrs();
    Scalar e = v.elem;
    double fpad = round_to(e, a.number);
    int64_t ipad = wrap_to(e, a.integer);
    for_each(v, [&](size_t i, const char* p) {
      switch (e) {
        case Scalar::f32: { float x; if (p) std::memcpy(&x, p, 4); r.f[i] = p ? double(x) : fpad; break; }
        case Scalar::f64: { double x; if (p) std::memcpy(&x, p, 8); r.f[i] = p ? x : fpad; break; }
        case Scalar::i32: { int32_t x; if (p) std::memcpy(&x, p, 4); r.n[i] = p ? x : ipad; break; }
        case Scalar::i64: { int64_t x; if (p) std::memcpy(&x, p, 8); r.n[i] = p ? x : ipad; break; }
        case Scalar::i1: r.n[i] = p ? int64_t(*p != 0) : ipad; break;
      }
    });
  }

  void exec_store(const Node& n) {
    const ViewVal& v = slots_[size_t(n.in[0])].view;
    const Buf& t = tile(n.in[1]);
    for_each(v, [&](size_t i, char* p) {
      if (!p) return;
      switch (v.elem) {
        case Scalar::f32: { float x = float(t.f[i]); std::memcpy(p, &x, 4); break; }
        case Scalar::f64: std::memcpy(p, &t.f[i], 8); break;
        case Scalar::i32: { int32_t x = int32_t(t.n[i]); std::memcpy(p, &x, 4); break; }
        case Scalar::i64: std::memcpy(p, &t.n[i], 8); break;
        case Scalar::i1: *p = t.n[i] != 0; break;
      }
    });
  }

  // --- regions --------------------------------------------------------------

  void exec_loop(const Node& n) {
    int64_t extent = index(n.in[0]);
    const Body& body = n.regions[0];
    if (n.kind == OpKind::parallel) {
      for (int64_t i = 0; i < extent; ++i) {
        set_index(body.args[0], i);
        exec_body(body);
      }
      return;
    }
    if (n.kind == OpKind::reduce) return exec_reduce(n, extent);
    for (size_t j = 1; j < n.in.size(); ++j) tile(body.args[j]) = tile(n.in[j]);
    std::vector<Buf> next(body.yields.size());
    for (int64_t i = 0; i < extent; ++i) {
      set_index(body.args[0], i);
      exec_body(body);
      for (size_t j = 0; j < body.yields.size(); ++j) next[j] = tile(body.yields[j]);
      for (size_t j = 0; j < body.yields.size(); ++j) std::swap(tile(body.args[j + 1]), next[j]);
    }
    for (size_t j = 0; j < n.out.size(); ++j) tile(n.out[j]) = tile(body.args[j + 1]);
  }

  using State = std::vector<Buf>;

  // a (+) b for every state, each by its own merge.
  State merge(const Node& n, const State& a, const State& b) {
    const std::vector<Merge>& merges = n.op->attrs().merges;
    State out(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      if (!merges[i].region) apply_binary(n, merges[i].op, a[i], b[i], out[i]);
    for (size_t r = 1; r < n.regions.size(); ++r) {
      const Body& combiner = n.regions[r];
      std::vector<size_t> group;
      for (size_t i = 0; i < a.size(); ++i)
        if (merges[i].region == r) group.push_back(i);
      for (size_t j = 0; j < group.size(); ++j) {
        tile(combiner.args[j]) = a[group[j]];
        tile(combiner.args[j + group.size()]) = b[group[j]];
      }
      exec_body(combiner);
      for (size_t j = 0; j < group.size(); ++j) out[group[j]] = tile(combiner.yields[j]);
    }
    return out;
  }

  State contribution(const Node& n, int64_t k) {
    const Body& body = n.regions[0];
    set_index(body.args[0], k);
    exec_body(body);
    State c;
    for (int y : body.yields) c.push_back(tile(y));
    return c;
  }

  // A balanced pairwise tree over `items` in order: adjacent pairs merge
  // level by level, an odd last item moving up unchanged.
  State tree(const Node& n, std::vector<State> items) {
    while (items.size() > 1) {
      std::vector<State> next;
      for (size_t i = 0; i + 1 < items.size(); i += 2) next.push_back(merge(n, items[i], items[i + 1]));
      if (items.size() % 2) next.push_back(std::move(items.back()));
      items = std::move(next);
    }
    return std::move(items[0]);
  }

  void exec_reduce(const Node& n, int64_t extent) {
    State acc;
    for (size_t j = 1; j < n.in.size(); ++j) acc.push_back(tile(n.in[j]));
    ReductionPolicy policy = n.op->attrs().policy;
    if (policy == ReductionPolicy::left_fold) {
      for (int64_t k = 0; k < extent; ++k) acc = merge(n, acc, contribution(n, k));
    } else if (extent > 0) {
      std::vector<State> items;
      for (int64_t k = 0; k < extent; ++k) items.push_back(contribution(n, k));
      if (policy == ReductionPolicy::right_fold) {
        for (auto it = items.rbegin(); it != items.rend(); ++it) acc = merge(n, *it, acc);
      } else if (policy == ReductionPolicy::ordered_tree) {
        acc = merge(n, acc, tree(n, std::move(items)));
      } else {
        acc = merge(n, acc, unordered(n, std::move(items)));
      }
    }
    for (size_t j = 0; j < n.out.size(); ++j) tile(n.out[j]) = std::move(acc[j]);
  }

  // One of the groupings unordered_tree permits, chosen by the run options.
  State unordered(const Node& n, std::vector<State> items) {
    if (options_.scalar_trees) {
      bool scalars = true;
      for (unsigned j = 0; j < n.op->num_results(); ++j) scalars = scalars && n.op->result(j)->type().is_scalar();
      if (scalars) return tree(n, std::move(items));
    }
    if (options_.seed) {
      uint64_t s = options_.seed;
      auto next = [&] {  // splitmix64
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
      };
      for (size_t i = items.size() - 1; i > 0; --i) std::swap(items[i], items[size_t(next() % (i + 1))]);
    }
    size_t runs = std::min<size_t>(options_.threads, items.size());
    std::vector<State> partials;
    for (size_t r = 0; r < runs; ++r) {
      size_t begin = items.size() * r / runs, end = items.size() * (r + 1) / runs;
      State part = std::move(items[begin]);
      for (size_t i = begin + 1; i < end; ++i) part = merge(n, part, items[i]);
      partials.push_back(std::move(part));
    }
    return tree(n, std::move(partials));
  }

  const Kernel& kernel_;
  RunOptions options_;
  std::unordered_map<const Value*, int> ids_;
  int next_slot_ = 0;
  Body entry_;
  std::vector<Slot> slots_;
  // Every view's layout, by its slot, with its translation's coordinates'
  // slots; the parameters' symbols and their values in this run.
  struct ViewAddress {
    ViewLayout layout;
    std::vector<int> term_slots;
  };
  std::vector<ParameterLayout> params_;
  std::unordered_map<int, ViewAddress> layouts_;
  std::map<SymbolId, int64_t> symbols_;
};

}  // namespace

void interpret(const Kernel& kernel, const std::vector<HostTensor>& args, const RunOptions& options) {
  Interpreter(kernel, options).run(args);
}

}  // namespace tack::tile
