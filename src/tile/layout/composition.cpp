// Composition A o B, with its admissibility conditions made explicit.
//
// B is composed leaf by leaf and the results keep B's tree (right
// distributivity). That is only sound when A adds up across B's leaves,
// A(x + y) == A(x) + A(y), which is what the "no carries" condition secures;
// and each leaf s:d is only a layout when A's mixed radix, read from stride d
// for s steps, is again a mixed radix, which is what the two divisibility
// conditions secure. Each failure names the condition it violates.
#include <algorithm>

#include "layout_internal.h"
#include "tack/tile/layout.h"

namespace tack::tile {

namespace {

using detail::Mode;

std::string pair_text(const Layout& a, const Layout& b) {
  return "composition(A = " + to_string(a) + ", B = " + to_string(b) + ")";
}

// A leaf of B that moves: its extent is not 1 and its stride is not 0.
bool is_trivial_leaf(const IntTuple& s, const IntTuple& d) {
  return (s.is_static_leaf() && s.value() == 1) || (d.is_static_leaf() && d.value() == 0);
}

// A leaf s:d of B (s >= 2, d >= 1) read through A's coalesced static modes.
Result<Layout> compose_leaf(const std::vector<Mode>& a_modes, std::int64_t s, std::int64_t d, const Layout& a,
                            const Layout& b) {
  const std::string leaf = std::to_string(s) + ":" + std::to_string(d);
  // Divide the stride out of A's leading extents.
  std::vector<Mode> walked;
  std::int64_t rest = d;
  for (std::size_t i = 0; i + 1 < a_modes.size(); ++i) {
    const Mode& m = a_modes[i];
    if (rest == 1) {
      walked.push_back(m);
    } else if (rest % m.shape == 0) {
      rest /= m.shape;
    } else if (m.shape % rest == 0) {
      std::int64_t stride;
      if (__builtin_mul_overflow(m.stride, rest, &stride))
        return inadmissible(pair_text(a, b) + " is inadmissible: a stride of the result overflows 64 bits.");
      walked.push_back(Mode{m.shape / rest, stride});
      rest = 1;
    } else {
      return inadmissible(pair_text(a, b) + " is inadmissible (stride divisibility): the leaf " + leaf +
                          " of B reaches A's extent " + std::to_string(m.shape) + " with remaining stride " +
                          std::to_string(rest) + ", which neither divides it nor is a multiple of it.");
    }
  }
  std::int64_t last_stride;
  if (__builtin_mul_overflow(a_modes.back().stride, rest, &last_stride))
    return inadmissible(pair_text(a, b) + " is inadmissible: a stride of the result overflows 64 bits.");

  // Take s steps from the modes that remain.
  std::vector<Mode> out;
  std::int64_t remaining = s;
  for (const Mode& m : walked) {
    if (remaining == 1) break;
    if (remaining <= m.shape) {
      // A prefix of one mode never crosses into the next, so it needs no divisibility.
      out.push_back(Mode{remaining, m.stride});
      remaining = 1;
      break;
    }
    if (remaining % m.shape != 0)
      return inadmissible(pair_text(a, b) + " is inadmissible (shape divisibility): the leaf " + leaf +
                          " of B must cross A's extent " + std::to_string(m.shape) + " with " +
                          std::to_string(remaining) + " steps left, which is not a multiple of it.");
    out.push_back(m);
    remaining /= m.shape;
  }
  if (remaining > 1) out.push_back(Mode{remaining, last_stride});
  return detail::layout_from_modes(detail::coalesced(out));
}

// Rebuilds B's tree with each leaf replaced by compose(leaf).
template <class Compose>
Result<Layout> map_leaves(const IntTuple& shape, const IntTuple& stride, const Compose& compose) {
  if (shape.is_leaf()) return compose(shape, stride);
  std::vector<IntTuple> s, d;
  s.reserve(shape.rank());
  d.reserve(shape.rank());
  for (std::size_t i = 0; i < shape.rank(); ++i) {
    Result<Layout> m = map_leaves(shape[i], stride[i], compose);
    if (!m) return m;
    s.push_back(m->shape());
    d.push_back(m->stride());
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

Layout trivial_leaf_result(const IntTuple& s, const IntTuple& d) {
  if (d.is_static_leaf() && d.value() == 0) return Layout(s, 0);
  return Layout(1, 0);
}

}  // namespace

Result<Layout> composition(const Layout& a, const Layout& b) {
  // Moving leaves of B: each needs a static extent and a static non-negative
  // stride, because the domain and no-carry conditions are stated on them.
  std::vector<Mode> moving;
  __int128 b_max = 0;
  std::optional<Failure> bad_leaf;
  detail::for_each_leaf(b.shape(), b.stride(), [&](const IntTuple& s, const IntTuple& d) {
    if (is_trivial_leaf(s, d)) return true;
    if (!d.is_static_leaf())
      bad_leaf = unknown(pair_text(a, b) + ": the stride " + to_string(d) + " of B is dynamic.");
    else if (!s.is_static_leaf())
      bad_leaf = unknown(pair_text(a, b) + ": the extent " + to_string(s) +
                         " of B is dynamic, so B's image cannot be shown to lie in A's domain.");
    else if (d.value() < 0)
      bad_leaf = inadmissible(pair_text(a, b) + " is inadmissible (domain): B has the negative stride " +
                              to_string(d) + ", so it leaves A's domain [0, size(A)).");
    if (bad_leaf) return false;
    moving.push_back(Mode{s.value(), d.value()});
    b_max += static_cast<__int128>(s.value() - 1) * d.value();
    return true;
  });
  if (bad_leaf) return *bad_leaf;

  // Domain: B's image must lie in [0, size(A)). A dynamic extent is at least 1.
  __int128 a_size_lower = 1;
  bool a_extents_static = true;
  detail::for_each_leaf(a.shape(), a.stride(), [&](const IntTuple& e, const IntTuple&) {
    if (e.is_static_leaf()) {
      a_size_lower *= e.value();
      if (a_size_lower > (static_cast<__int128>(1) << 100)) a_size_lower = static_cast<__int128>(1) << 100;
    } else {
      a_extents_static = false;
    }
    return true;
  });
  if (b_max >= a_size_lower) {
    if (a_extents_static)
      return inadmissible(pair_text(a, b) + " is inadmissible (domain): B reaches " +
                          std::to_string(static_cast<std::int64_t>(b_max)) + ", outside A's domain [0, " +
                          std::to_string(static_cast<std::int64_t>(a_size_lower)) + ").");
    return unknown(pair_text(a, b) + ": B reaches " + std::to_string(static_cast<std::int64_t>(b_max)) +
                   ", and A's dynamic extents leave its domain size unknown.");
  }

  if (moving.empty())
    return map_leaves(b.shape(), b.stride(),
                      [](const IntTuple& s, const IntTuple& d) -> Result<Layout> { return trivial_leaf_result(s, d); });

  // A's coalesced leaves; with dynamic leaves only the first one is needed,
  // for the linear case, and it is read from the coalesced tuple.
  const bool a_static = is_static(a);
  std::vector<Mode> a_modes;
  if (a_static) a_modes = detail::coalesced(*detail::static_modes(a, "composition"));
  const Layout ca = a_static ? Layout(1, 0) : coalesce(a);
  const bool a_single = a_static ? a_modes.size() <= 1 : ca.shape().is_leaf();
  const IntTuple s0 = a_static ? IntTuple(a_modes.empty() ? 1 : a_modes[0].shape)
                               : (ca.shape().is_leaf() ? ca.shape() : ca.shape()[0]);
  const IntTuple d0 = a_static ? IntTuple(a_modes.empty() ? 0 : a_modes[0].stride)
                               : (ca.stride().is_leaf() ? ca.stride() : ca.stride()[0]);

  // Linear case: B stays inside A's first mode, where A is x -> x * d0.
  if (a_single || (s0.is_static_leaf() && b_max < s0.value())) {
    return map_leaves(b.shape(), b.stride(), [&](const IntTuple& s, const IntTuple& d) -> Result<Layout> {
      if (is_trivial_leaf(s, d)) return trivial_leaf_result(s, d);
      if (d.value() == 1) return Layout(s, d0);
      if (!d0.is_static_leaf())
        return unknown(pair_text(a, b) + ": the stride " + to_string(d0) + " of A is dynamic.");
      std::int64_t stride;
      if (__builtin_mul_overflow(d.value(), d0.value(), &stride))
        return inadmissible(pair_text(a, b) + " is inadmissible: a stride of the result overflows 64 bits.");
      return Layout(s, stride);
    });
  }

  if (!a_static) {
    // Dynamic leaves may have been extent-1 leaves that coalesce dropped.
    Result<std::vector<Mode>> known = detail::static_modes(ca, "composition");
    if (!known) return detail::with_context(known.failure(), pair_text(a, b) + ": ");
    a_modes = std::move(known).value();
  }

  // No carries: sorted by stride, each moving leaf of B starts above the
  // largest value of the leaves below it.
  std::vector<Mode> sorted = moving;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Mode& x, const Mode& y) { return x.stride < y.stride; });
  __int128 below = 0;
  for (const Mode& m : sorted) {
    if (below >= m.stride)
      return inadmissible(pair_text(a, b) + " is inadmissible (no carries): B's leaves overlap; the leaf " +
                          std::to_string(m.shape) + ":" + std::to_string(m.stride) +
                          " starts at or below the largest value " + std::to_string(static_cast<std::int64_t>(below)) +
                          " of the leaves with smaller strides, so A does not add up across them.");
    below += static_cast<__int128>(m.shape - 1) * m.stride;
  }

  return map_leaves(b.shape(), b.stride(), [&](const IntTuple& s, const IntTuple& d) -> Result<Layout> {
    if (is_trivial_leaf(s, d)) return trivial_leaf_result(s, d);
    return compose_leaf(a_modes, s.value(), d.value(), a, b);
  });
}

Result<Layout> composition(const Layout& a, const Tiler& b) {
  if (b.empty() || b.size() > rank(a))
    return inadmissible("composition(A = " + to_string(a) + ", tiler of " + std::to_string(b.size()) +
                        " layouts) is inadmissible: the tiler needs between 1 and rank(A) = " +
                        std::to_string(rank(a)) + " layouts.");
  std::vector<Layout> modes;
  for (std::size_t i = 0; i < b.size(); ++i) {
    Result<Layout> m = composition(mode(a, i), b[i]);
    if (!m) return detail::with_context(m.failure(), "by-mode composition, mode " + std::to_string(i) + ": ");
    modes.push_back(std::move(m).value());
  }
  return make_layout(modes);
}

}  // namespace tack::tile
