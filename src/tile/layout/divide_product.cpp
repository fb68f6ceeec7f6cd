// Divide and product: composition with a complement, and their regroupings.
#include <algorithm>

#include "layout_internal.h"
#include "tack/tile/layout.h"

namespace tack::tile {

namespace {

// The top-level modes of a layout; a layout whose shape is a leaf is its own only mode.
std::vector<Layout> modes_of(const Layout& a) {
  std::vector<Layout> out;
  for (std::size_t i = 0; i < rank(a); ++i) out.push_back(mode(a, i));
  return out;
}

Layout group(const std::vector<Layout>& modes) { return modes.size() == 1 ? modes[0] : make_layout(modes); }

std::vector<Layout> concat(std::vector<Layout> x, const std::vector<Layout>& y) {
  x.insert(x.end(), y.begin(), y.end());
  return x;
}

Failure tiler_rank_failure(const char* op, const Layout& a, std::size_t n) {
  return inadmissible(std::string(op) + "(A = " + to_string(a) + ", tiler of " + std::to_string(n) +
                      " layouts) is inadmissible: the tiler needs between 1 and rank(A) = " +
                      std::to_string(rank(a)) + " layouts.");
}

// Tile modes and rest modes of a division: for a layout tiler the two modes of
// logical_divide split into their top-level modes; for a by-mode tiler one
// tile and one rest per tiler entry, then A's untouched modes as rests.
struct Division {
  std::vector<Layout> tiles;
  std::vector<Layout> rests;
};

Result<Division> divide(const Layout& a, const Layout& b) {
  Result<Layout> d = logical_divide(a, b);
  if (!d) return d.failure();
  return Division{modes_of(mode(*d, 0)), modes_of(mode(*d, 1))};
}

Result<Division> divide(const Layout& a, const Tiler& b) {
  Result<Layout> d = logical_divide(a, b);
  if (!d) return d.failure();
  Division out;
  for (std::size_t i = 0; i < rank(*d); ++i) {
    Layout m = mode(*d, i);
    if (i < b.size()) {
      out.tiles.push_back(mode(m, 0));
      out.rests.push_back(mode(m, 1));
    } else {
      out.rests.push_back(m);
    }
  }
  return out;
}

Layout zipped(const Division& d) { return make_layout({group(d.tiles), group(d.rests)}); }
Layout tiled(const Division& d) { return make_layout(concat({group(d.tiles)}, d.rests)); }
Layout flat(const Division& d) { return make_layout(concat(d.tiles, d.rests)); }

template <class Tile, class Regroup>
Result<Layout> regroup(const Layout& a, const Tile& b, Regroup f) {
  Result<Division> d = divide(a, b);
  if (!d) return d.failure();
  return f(*d);
}

}  // namespace

Result<Layout> logical_divide(const Layout& a, const Layout& b) {
  auto where = [&] { return "logical_divide(A = " + to_string(a) + ", B = " + to_string(b) + "): "; };
  Result<std::int64_t> n = size(a);
  if (!n) return detail::with_context(n.failure(), where());
  Result<Layout> c = complement(b, *n);
  if (!c) return detail::with_context(c.failure(), where());
  Result<Layout> r = composition(a, make_layout({b, *c}));
  if (!r) return detail::with_context(r.failure(), where());
  return r;
}

Result<Layout> logical_divide(const Layout& a, const Tiler& b) {
  if (b.empty() || b.size() > rank(a)) return tiler_rank_failure("logical_divide", a, b.size());
  std::vector<Layout> modes;
  for (std::size_t i = 0; i < rank(a); ++i) {
    if (i >= b.size()) {
      modes.push_back(mode(a, i));
      continue;
    }
    Result<Layout> m = logical_divide(mode(a, i), b[i]);
    if (!m) return detail::with_context(m.failure(), "by-mode logical_divide, mode " + std::to_string(i) + ": ");
    modes.push_back(std::move(m).value());
  }
  return make_layout(modes);
}

Result<Layout> zipped_divide(const Layout& a, const Layout& b) { return logical_divide(a, b); }
Result<Layout> zipped_divide(const Layout& a, const Tiler& b) { return regroup(a, b, zipped); }
Result<Layout> tiled_divide(const Layout& a, const Layout& b) { return regroup(a, b, tiled); }
Result<Layout> tiled_divide(const Layout& a, const Tiler& b) { return regroup(a, b, tiled); }
Result<Layout> flat_divide(const Layout& a, const Layout& b) { return regroup(a, b, flat); }
Result<Layout> flat_divide(const Layout& a, const Tiler& b) { return regroup(a, b, flat); }

namespace {

// complement(A, size(A)*cosize(B)) o B: where the copies of A start.
template <class Where>
Result<Layout> product_pattern(const Layout& a, const Layout& b, const Where& where) {
  Result<std::int64_t> n = size(a);
  if (!n) return detail::with_context(n.failure(), where());
  Result<std::int64_t> m = cosize(b);
  if (!m) return detail::with_context(m.failure(), where());
  std::int64_t cotarget;
  if (__builtin_mul_overflow(*n, *m, &cotarget))
    return inadmissible(where() + "size(A) * cosize(B) overflows 64 bits.");
  Result<Layout> c = complement(a, cotarget);
  if (!c) return detail::with_context(c.failure(), where());
  Result<Layout> p = composition(*c, b);
  if (!p) return detail::with_context(p.failure(), where());
  return p;
}

// Pads a layout to rank r with 1:0 modes.
Layout pad_to_rank(const Layout& a, std::size_t r) {
  if (rank(a) >= r) return a;
  std::vector<Layout> modes = modes_of(a);
  while (modes.size() < r) modes.push_back(Layout(1, 0));
  return make_layout(modes);
}

Result<Layout> rank_preserving_product(const Layout& a, const Layout& b, bool blocked) {
  auto where = [&] {
    return std::string(blocked ? "blocked_product" : "raked_product") + "(A = " + to_string(a) + ", B = " +
           to_string(b) + "): ";
  };
  const std::size_t r = std::max(rank(a), rank(b));
  const Layout pa = pad_to_rank(a, r);
  const Layout pb = pad_to_rank(b, r);
  Result<Layout> p = product_pattern(pa, pb, where);
  if (!p) return p;
  std::vector<Layout> modes;
  for (std::size_t i = 0; i < r; ++i) {
    // With rank 1, B is a leaf and the pattern may have several modes: it is one mode.
    Layout block = r == 1 ? pa : mode(pa, i);
    Layout pattern = r == 1 ? *p : mode(*p, i);
    modes.push_back(coalesce(blocked ? make_layout({block, pattern}) : make_layout({pattern, block})));
  }
  // Rank R even when R == 1 and the one mode did not coalesce to a leaf.
  if (r == 1 && modes[0].shape().is_leaf()) return modes[0];
  return make_layout(modes);
}

}  // namespace

Result<Layout> logical_product(const Layout& a, const Layout& b) {
  Result<Layout> p = product_pattern(
      a, b, [&] { return "logical_product(A = " + to_string(a) + ", B = " + to_string(b) + "): "; });
  if (!p) return p;
  return make_layout({a, *p});
}

Result<Layout> logical_product(const Layout& a, const Tiler& b) {
  if (b.empty() || b.size() > rank(a)) return tiler_rank_failure("logical_product", a, b.size());
  std::vector<Layout> modes;
  for (std::size_t i = 0; i < rank(a); ++i) {
    if (i >= b.size()) {
      modes.push_back(mode(a, i));
      continue;
    }
    Result<Layout> m = logical_product(mode(a, i), b[i]);
    if (!m) return detail::with_context(m.failure(), "by-mode logical_product, mode " + std::to_string(i) + ": ");
    modes.push_back(std::move(m).value());
  }
  return make_layout(modes);
}

Result<Layout> blocked_product(const Layout& a, const Layout& b) { return rank_preserving_product(a, b, true); }
Result<Layout> raked_product(const Layout& a, const Layout& b) { return rank_preserving_product(a, b, false); }

}  // namespace tack::tile
