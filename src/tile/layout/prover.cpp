// The tri-state prover. It reads only extents and strides and never evaluates
// the layout at a domain point except to describe a witness it has derived.
#include "tack/tile/prover.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace tack::tile {

const char* to_string(Truth t) {
  switch (t) {
    case Truth::proven: return "PROVEN";
    case Truth::disproven: return "DISPROVEN";
    case Truth::unknown: return "UNKNOWN";
  }
  return "?";
}

namespace {

using i128 = __int128;

// One leaf as the prover sees it: only static values count.
struct Leaf {
  std::optional<std::int64_t> extent;
  std::optional<std::int64_t> stride;
  const IntTuple* shape;   // for reasons; points into the layout being proved
  const IntTuple* stride_leaf;
  std::string text() const { return to_string(*shape) + ":" + to_string(*stride_leaf); }
};

void collect(const IntTuple& s, const IntTuple& d, std::vector<Leaf>& out) {
  if (s.is_tuple()) {
    for (std::size_t i = 0; i < s.rank(); ++i) collect(s[i], d[i], out);
    return;
  }
  Leaf leaf{std::nullopt, std::nullopt, &s, &d};
  if (s.is_static_leaf()) leaf.extent = s.value();
  if (d.is_static_leaf()) leaf.stride = d.value();
  out.push_back(leaf);
}

std::vector<Leaf> read_leaves(const Layout& a) {
  std::vector<Leaf> out;
  collect(a.shape(), a.stride(), out);
  return out;
}

std::string str(i128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string s;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    s.push_back(static_cast<char>('0' + (negative ? -digit : digit)));
    v /= 10;
  }
  if (negative) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

Verdict verdict(Truth t, std::string reason) {
  Verdict v;
  v.truth = t;
  v.reason = std::move(reason);
  return v;
}

// A leaf as a monomial: its coefficient times symbols that each stand for an
// integer >= 1 (a static leaf has none).
struct Monomial {
  i128 coefficient = 0;
  std::vector<SymbolId> symbols;  // sorted, with repeats
};

Monomial monomial(const IntTuple& leaf) {
  Monomial m{leaf.coefficient(), {}};
  if (!leaf.is_static_leaf())
    for (const IntTuple& f : leaf.factors()) m.symbols.push_back(f.symbol());
  std::sort(m.symbols.begin(), m.symbols.end());
  return m;
}

Monomial times(const Monomial& a, const Monomial& b) {
  Monomial m{a.coefficient * b.coefficient, a.symbols};
  m.symbols.insert(m.symbols.end(), b.symbols.begin(), b.symbols.end());
  std::sort(m.symbols.begin(), m.symbols.end());
  return m;
}

i128 magnitude(i128 v) { return v < 0 ? -v : v; }

bool same(const Monomial& a, const Monomial& b) { return a.coefficient == b.coefficient && a.symbols == b.symbols; }

// |a| >= |b| for every value of the symbols: b's symbols are among a's and
// |a's coefficient| >= |b's|, so |a| / |b| is a product of factors >= 1.
bool at_least(const Monomial& a, const Monomial& b) {
  return std::includes(a.symbols.begin(), a.symbols.end(), b.symbols.begin(), b.symbols.end()) &&
         magnitude(a.coefficient) >= magnitude(b.coefficient);
}

// The order in which a mixed radix's strides grow: along a chain in which
// each |stride| is at least the previous |stride| times an extent >= 2, the
// number of symbols never falls and, where it stays, the coefficient grows,
// so sorting by (symbols, |coefficient|) finds the chain if there is one.
bool grows_before(const Monomial& a, const Monomial& b) {
  if (a.symbols.size() != b.symbols.size()) return a.symbols.size() < b.symbols.size();
  if (magnitude(a.coefficient) != magnitude(b.coefficient)) return magnitude(a.coefficient) < magnitude(b.coefficient);
  return a.symbols < b.symbols;
}

bool is_unit(const Leaf& l) { return l.extent && *l.extent == 1; }
bool is_zero_stride(const Leaf& l) { return l.stride && *l.stride == 0; }
bool is_known(const Leaf& l) { return l.extent && l.stride; }

// ---------------------------------------------------------------------------
// Bounds
// ---------------------------------------------------------------------------

Verdict bounds(const Layout& layout, std::int64_t offset, std::int64_t lo, std::int64_t hi) {
  const std::vector<Leaf> leaves = read_leaves(layout);
  const std::vector<std::int64_t> origin(leaves.size(), 0);
  if (lo >= hi) {
    Verdict v = verdict(Truth::disproven, "the interval [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                              ") is empty, and every layout takes a value.");
    v.points.push_back(origin);
    return v;
  }
  i128 top = offset, bottom = offset;
  std::vector<std::int64_t> at_top = origin, at_bottom = origin;
  std::vector<std::size_t> open;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const Leaf& l = leaves[k];
    if (is_zero_stride(l) || is_unit(l)) continue;
    if (!is_known(l)) {
      open.push_back(k);
      continue;
    }
    i128 reach = static_cast<i128>(*l.extent - 1) * *l.stride;
    if (reach > 0) {
      top += reach;
      at_top[k] = *l.extent - 1;
    } else {
      bottom += reach;
      at_bottom[k] = *l.extent - 1;
    }
  }
  // The extremes of the static leaves are attained with every open leaf at 0.
  if (top >= hi) {
    Verdict v = verdict(Truth::disproven, "the layout reaches " + str(top) + ", at or above " + std::to_string(hi) + ".");
    v.points.push_back(at_top);
    return v;
  }
  if (bottom < lo) {
    Verdict v = verdict(Truth::disproven, "the layout reaches " + str(bottom) + ", below " + std::to_string(lo) + ".");
    v.points.push_back(at_bottom);
    return v;
  }
  if (!open.empty())
    return verdict(Truth::unknown, "the leaf " + leaves[open.front()].text() +
                                       " has a dynamic extent or stride, so the values it adds are unknown.");
  return verdict(Truth::proven, "every value lies in [" + str(bottom) + ", " + str(top) + "], inside [" +
                                    std::to_string(lo) + ", " + std::to_string(hi) + ").");
}

// ---------------------------------------------------------------------------
// Injectivity: the kernel search
// ---------------------------------------------------------------------------

i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
i128 ceil_div(i128 a, i128 b) { return -floor_div(-a, b); }

// x, y with a*x + b*y == gcd(a, b), for a, b > 0.
i128 extended_gcd(i128 a, i128 b, i128& x, i128& y) {
  if (b == 0) {
    x = 1;
    y = 0;
    return a;
  }
  i128 x1, y1;
  i128 g = extended_gcd(b, a % b, x1, y1);
  x = y1;
  y = x1 - (a / b) * y1;
  return g;
}

// Smallest and largest k with |base + k*step| <= bound (step != 0).
void k_range(i128 base, i128 step, i128 bound, i128& lo, i128& hi) {
  if (step > 0) {
    lo = ceil_div(-bound - base, step);
    hi = floor_div(bound - base, step);
  } else {
    lo = ceil_div(bound - base, step);
    hi = floor_div(-bound - base, step);
  }
}

// Solves x*u + y*v == target with |x| <= xb, |y| <= yb (u, v != 0); when
// `nonzero`, (x, y) must not be (0, 0).
bool solve_pair(i128 u, i128 v, i128 target, i128 xb, i128 yb, bool nonzero, i128& x, i128& y) {
  i128 gx, gy;
  i128 g = extended_gcd(u < 0 ? -u : u, v < 0 ? -v : v, gx, gy);
  if (u < 0) gx = -gx;
  if (v < 0) gy = -gy;
  if (target % g != 0) return false;
  const i128 x0 = gx * (target / g), y0 = gy * (target / g);
  const i128 px = v / g, py = -(u / g);  // x = x0 + k*px, y = y0 + k*py
  i128 lo1, hi1, lo2, hi2;
  k_range(x0, px, xb, lo1, hi1);
  k_range(y0, py, yb, lo2, hi2);
  const i128 lo = std::max(lo1, lo2), hi = std::min(hi1, hi2);
  for (i128 k = lo; k <= hi && k <= lo + 1; ++k) {
    x = x0 + k * px;
    y = y0 + k * py;
    if (!nonzero || x != 0 || y != 0) return true;
  }
  return false;
}

struct Kernel {
  enum class Status { none, found, over_budget } status = Status::none;
  std::vector<std::int64_t> delta;  // per input mode
};

// A nonzero delta with |delta_k| < extent_k and sum delta_k * stride_k == 0.
// Modes: extent >= 2, stride != 0. Every pair is tried alone; then the two
// largest extents are solved exactly for each difference vector of the others.
Kernel find_kernel_vector(const std::vector<std::pair<std::int64_t, std::int64_t>>& modes, std::int64_t budget) {
  Kernel result;
  const std::size_t m = modes.size();
  if (m < 2) return result;
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return modes[x].first > modes[y].first; });
  // Pairs first: most collisions involve two leaves, and a pair costs one gcd.
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = i + 1; j < m; ++j) {
      i128 x, y;
      if (solve_pair(modes[i].second, modes[j].second, 0, modes[i].first - 1, modes[j].first - 1, true, x, y)) {
        result.status = Kernel::Status::found;
        result.delta.assign(m, 0);
        result.delta[i] = static_cast<std::int64_t>(x);
        result.delta[j] = static_cast<std::int64_t>(y);
        return result;
      }
    }
  }
  if (m == 2) return result;
  const std::size_t a = order[0], b = order[1];
  std::vector<std::size_t> rest(order.begin() + 2, order.end());
  i128 points = 1;
  for (std::size_t r : rest) {
    points *= 2 * modes[r].first - 1;
    if (points > budget) {
      result.status = Kernel::Status::over_budget;
      return result;
    }
  }
  std::vector<std::int64_t> delta(m, 0);
  for (std::size_t r : rest) delta[r] = -(modes[r].first - 1);
  while (true) {
    i128 target = 0;
    bool all_zero = true;
    for (std::size_t r : rest) {
      target -= static_cast<i128>(delta[r]) * modes[r].second;
      all_zero = all_zero && delta[r] == 0;
    }
    i128 x, y;
    if (solve_pair(modes[a].second, modes[b].second, target, modes[a].first - 1, modes[b].first - 1, all_zero, x, y)) {
      delta[a] = static_cast<std::int64_t>(x);
      delta[b] = static_cast<std::int64_t>(y);
      result.status = Kernel::Status::found;
      result.delta = delta;
      return result;
    }
    std::size_t i = 0;
    for (; i < rest.size(); ++i) {
      std::size_t r = rest[i];
      if (delta[r] < modes[r].first - 1) {
        ++delta[r];
        break;
      }
      delta[r] = -(modes[r].first - 1);
    }
    if (i == rest.size()) return result;
  }
}

constexpr std::int64_t kernel_budget = std::int64_t{1} << 16;

}  // namespace

Verdict prove_bounds(const AffineLayout& a, std::int64_t lo, std::int64_t hi) {
  return bounds(a.layout, a.offset, lo, hi);
}

Verdict prove_total(const Layout& a, std::int64_t n) { return bounds(a, 0, 0, n); }

Verdict prove_injective(const Layout& a) {
  const std::vector<Leaf> leaves = read_leaves(a);
  const std::size_t n = leaves.size();

  // Mixed radix: sorted by |stride|, each leaf starts beyond the reach of
  // those below. Extents and strides are monomials, so a compact layout over
  // run-time extents, whose strides are products of them, is decided too. A
  // symbol is known to be >= 1 only as an extent; a stride over any other
  // symbol (which may be 0 or negative) leaves this argument out.
  {
    std::vector<SymbolId> extent_symbols;
    for (const Leaf& l : leaves)
      for (SymbolId s : monomial(*l.shape).symbols) extent_symbols.push_back(s);
    std::sort(extent_symbols.begin(), extent_symbols.end());
    std::vector<std::size_t> moving;
    std::vector<Monomial> stride(n), extent(n);
    bool decidable = true;
    for (std::size_t k = 0; k < n; ++k) {
      if (is_unit(leaves[k])) continue;
      stride[k] = monomial(*leaves[k].stride_leaf);
      extent[k] = monomial(*leaves[k].shape);
      bool known_sign = std::all_of(stride[k].symbols.begin(), stride[k].symbols.end(), [&](SymbolId s) {
        return std::binary_search(extent_symbols.begin(), extent_symbols.end(), s);
      });
      if (is_zero_stride(leaves[k]) || !known_sign) {
        decidable = false;
        break;
      }
      moving.push_back(k);
    }
    if (decidable) {
      std::stable_sort(moving.begin(), moving.end(),
                       [&](std::size_t x, std::size_t y) { return grows_before(stride[x], stride[y]); });
      bool radix = true;
      for (std::size_t i = 0; radix && i + 1 < moving.size(); ++i)
        radix = at_least(stride[moving[i + 1]], times(stride[moving[i]], extent[moving[i]]));
      if (radix)
        return verdict(Truth::proven,
                       "sorted by |stride|, the leaves form a mixed radix: each |stride| is at least the previous "
                       "|stride| times its extent, so distinct coordinates give distinct values.");
    }
  }

  // A stride-0 leaf of extent >= 2 maps two coordinates to one value.
  for (std::size_t k = 0; k < n; ++k) {
    const Leaf& l = leaves[k];
    if (is_zero_stride(l) && l.extent && *l.extent >= 2) {
      Verdict v = verdict(Truth::disproven, "the leaf " + l.text() + " has stride 0.");
      v.points.assign(2, std::vector<std::int64_t>(n, 0));
      v.points[0][k] = 1;
      return v;
    }
  }

  // A difference vector in the kernel, among the static leaves; the other
  // leaves stay at coordinate 0, which every extent admits.
  std::vector<std::pair<std::int64_t, std::int64_t>> modes;
  std::vector<std::size_t> where;
  bool all_static = true;
  for (std::size_t k = 0; k < n; ++k) {
    const Leaf& l = leaves[k];
    if (is_unit(l)) continue;
    if (!is_known(l)) {
      all_static = false;
      continue;
    }
    if (*l.stride == 0) continue;  // only extent 1 is left, skipped above
    modes.emplace_back(*l.extent, *l.stride);
    where.push_back(k);
  }
  Kernel kernel = find_kernel_vector(modes, kernel_budget);
  if (kernel.status == Kernel::Status::found) {
    Verdict v = verdict(Truth::disproven,
                        "a nonzero difference of coordinates, within the extents, has stride sum 0, so two points "
                        "share a value.");
    v.points.assign(2, std::vector<std::int64_t>(n, 0));
    for (std::size_t i = 0; i < where.size(); ++i) {
      const std::int64_t d = kernel.delta[i];
      v.points[d > 0 ? 0 : 1][where[i]] = d > 0 ? d : -d;
    }
    return v;
  }
  if (!all_static)
    return verdict(Truth::unknown,
                   "the leaves do not form a mixed radix and a dynamic leaf hides whether two points collide.");
  if (kernel.status == Kernel::Status::none)
    return verdict(Truth::proven,
                   "no nonzero difference of coordinates within the extents has stride sum 0 (exhaustive over the "
                   "smaller leaves, exact over the two largest by the extended gcd).");

  // Over budget: pigeonhole is the last argument left.
  i128 count = 1, top = 0, bottom = 0;
  for (const auto& [e, d] : modes) {
    count *= e;
    const i128 reach = static_cast<i128>(e - 1) * d;
    (reach > 0 ? top : bottom) += reach;
    if (count > (static_cast<i128>(1) << 100)) break;
  }
  if (count > top - bottom + 1)
    return verdict(Truth::disproven, "the domain has " + str(count) + " points but the values span only " +
                                         str(top - bottom + 1) + " integers.");
  return verdict(Truth::unknown, "the leaves do not form a mixed radix and the search for colliding points exceeds "
                                 "its budget.");
}

Verdict prove_surjective(const Layout& a, std::int64_t n) {
  if (n < 1) {
    Verdict v = verdict(Truth::disproven, "[0, " + std::to_string(n) + ") is empty, and every layout takes a value.");
    v.points.push_back(std::vector<std::int64_t>(read_leaves(a).size(), 0));
    return v;
  }
  Verdict total = prove_total(a, n);
  if (total.truth == Truth::disproven) {
    total.reason = "not total: " + total.reason;
    return total;
  }
  if (total.truth == Truth::unknown) return total;

  // Total, so every moving leaf is static with a positive stride (A(0) == 0
  // and nothing goes below it).
  std::vector<std::pair<std::int64_t, std::int64_t>> moving;  // (stride, extent)
  for (const Leaf& l : read_leaves(a)) {
    if (is_unit(l) || is_zero_stride(l)) continue;
    moving.emplace_back(*l.stride, *l.extent);
  }
  std::sort(moving.begin(), moving.end());
  i128 reach = 0;  // the leaves so far take exactly the values [0, reach]
  for (const auto& [d, e] : moving) {
    if (d > reach + 1) {
      Verdict v = verdict(Truth::disproven, "sorted by stride, the leaves below stride " + std::to_string(d) +
                                                " reach only [0, " + str(reach) + "], and every larger stride jumps past " +
                                                str(reach + 1) + ".");
      v.missing_value = static_cast<std::int64_t>(reach + 1);
      return v;
    }
    reach += static_cast<i128>(e - 1) * d;
  }
  if (reach < n - 1) {
    Verdict v = verdict(Truth::disproven, "the values are exactly [0, " + str(reach) + "], short of " +
                                              std::to_string(n - 1) + ".");
    v.missing_value = static_cast<std::int64_t>(reach + 1);
    return v;
  }
  return verdict(Truth::proven, "sorted by stride, each leaf starts within one past the values below it, so the "
                                "values are exactly [0, " + std::to_string(n) + ").");
}

Verdict prove_bijective(const Layout& a, std::int64_t n) {
  Verdict onto = prove_surjective(a, n);
  if (onto.truth == Truth::disproven) return onto;
  Verdict one_to_one = prove_injective(a);
  if (one_to_one.truth == Truth::disproven) return one_to_one;
  if (onto.truth == Truth::unknown) return onto;
  if (one_to_one.truth == Truth::unknown) return one_to_one;
  return verdict(Truth::proven, "injective (" + one_to_one.reason + ") and onto [0, " + std::to_string(n) + ").");
}

Verdict prove_bijective(const Layout& a, const IntTuple& n) {
  if (n.is_tuple()) return verdict(Truth::unknown, "the size " + to_string(n) + " is a tuple, not an integer.");
  if (n.is_static_leaf()) return prove_bijective(a, n.value());
  Verdict one_to_one = prove_injective(a);
  if (one_to_one.truth == Truth::disproven) return one_to_one;
  // A mixed radix without gaps from stride 1: the leaves' strides are 1,
  // e0, e0*e1, ... in some order, and n is the product of the extents. Then
  // each value of [0, n) has exactly one digit expansion in those radices.
  std::vector<Leaf> leaves = read_leaves(a);
  std::vector<std::pair<Monomial, Monomial>> moving;  // (stride, extent)
  for (const Leaf& l : leaves)
    if (!is_unit(l)) moving.emplace_back(monomial(*l.stride_leaf), monomial(*l.shape));
  std::stable_sort(moving.begin(), moving.end(),
                   [](const auto& x, const auto& y) { return grows_before(x.first, y.first); });
  Monomial next{1, {}};  // the stride the next leaf must have
  bool tight = true;
  for (const auto& [stride, extent] : moving) {
    tight = tight && same(stride, next);
    next = times(stride, extent);
  }
  if (tight && same(next, monomial(n)))
    return verdict(Truth::proven, "sorted by stride, the strides are 1 and each the previous stride times its extent, "
                                  "and the extents multiply to " + to_string(n) + ": a mixed radix onto [0, " +
                                  to_string(n) + ").");
  return verdict(Truth::unknown, "the size " + to_string(n) +
                                     " is symbolic, and the layout is not a mixed radix without gaps from stride 1 "
                                     "whose extents multiply to it.");
}

bool is_legal_store_layout(const Layout& a, std::int64_t extent) {
  return prove_total(a, extent).proven() && prove_injective(a).proven();
}

bool is_legal_load_layout(const Layout& a, std::int64_t extent) { return prove_total(a, extent).proven(); }

bool is_legal_bijection(const Layout& a, std::int64_t n) { return prove_bijective(a, n).proven(); }

bool is_legal_bijection(const Layout& a, const IntTuple& n) { return prove_bijective(a, n).proven(); }

}  // namespace tack::tile
