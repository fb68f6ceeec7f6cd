// Index maps built from a shape: compact layouts, projections, permutations,
// and translations.
#include <algorithm>

#include "layout_internal.h"
#include "tack/tile/layout.h"

namespace tack::tile {

namespace {

// Column-major strides of `shape`, continuing from `running` (the product of
// the extents before it, static or symbolic: the stride after the extents 4
// and ?1 is 4*?1).
Result<IntTuple> compact_strides(const IntTuple& shape, IntTuple& running) {
  if (shape.is_tuple()) {
    std::vector<IntTuple> out;
    for (std::size_t i = 0; i < shape.rank(); ++i) {
      Result<IntTuple> c = compact_strides(shape[i], running);
      if (!c) return c;
      out.push_back(std::move(c).value());
    }
    return IntTuple::tuple(std::move(out));
  }
  IntTuple stride = running;
  Result<IntTuple> next = symbolic_product(IntTuple::tuple({running, shape}));
  if (!next) return inadmissible("compact strides: the product of the extents overflows 64 bits.");
  running = std::move(next).value();
  return stride;
}

IntTuple zeros_like(const IntTuple& t) {
  if (t.is_leaf()) return IntTuple(0);
  std::vector<IntTuple> out;
  for (const IntTuple& c : t.children()) out.push_back(zeros_like(c));
  return IntTuple::tuple(std::move(out));
}

}  // namespace

Result<Layout> projection(const IntTuple& shape, const std::vector<std::size_t>& keep) {
  auto where = [&] { return "projection(" + to_string(shape) + "): "; };
  for (const IntTuple& leaf : leaves(shape))
    if (leaf.is_static_leaf() && leaf.value() < 1) return inadmissible(where() + "every extent must be at least 1.");
  const std::size_t r = shape.rank();
  std::vector<bool> seen(r, false);
  for (std::size_t k : keep) {
    if (k >= r) return inadmissible(where() + "mode " + std::to_string(k) + " is past the rank " + std::to_string(r) + ".");
    if (seen[k]) return inadmissible(where() + "mode " + std::to_string(k) + " is kept twice.");
    seen[k] = true;
  }
  auto mode_of = [&](std::size_t i) -> const IntTuple& { return shape.is_leaf() ? shape : shape[i]; };
  std::vector<IntTuple> strides;
  for (std::size_t i = 0; i < r; ++i) strides.push_back(zeros_like(mode_of(i)));
  IntTuple running = 1;
  for (std::size_t k : keep) {
    Result<IntTuple> s = compact_strides(mode_of(k), running);
    if (!s) return detail::with_context(s.failure(), where());
    strides[k] = std::move(s).value();
  }
  if (shape.is_leaf()) return Layout(shape, strides[0]);
  return Layout(shape, IntTuple::tuple(std::move(strides)));
}

Result<Layout> permutation(const IntTuple& shape, const std::vector<std::size_t>& order) {
  std::vector<std::size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool is_permutation = sorted.size() == shape.rank();
  for (std::size_t i = 0; is_permutation && i < sorted.size(); ++i) is_permutation = sorted[i] == i;
  if (!is_permutation)
    return inadmissible("permutation(" + to_string(shape) + "): the order is not a permutation of its " +
                        std::to_string(shape.rank()) + " modes.");
  return projection(shape, order);
}

Result<Layout> compact_layout(const IntTuple& shape) {
  std::vector<std::size_t> all(shape.rank());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return projection(shape, all);
}

AffineLayout translation(const Layout& a, std::int64_t offset) { return AffineLayout{a, offset}; }

std::optional<std::int64_t> evaluate(const AffineLayout& a, std::int64_t i) {
  std::optional<std::int64_t> v = evaluate(a.layout, i);
  if (!v) return std::nullopt;
  return *v + a.offset;
}

Result<AffineLayout> composition(const AffineLayout& a, const Layout& b) {
  Result<Layout> r = composition(a.layout, b);
  if (!r) return r.failure();
  return AffineLayout{std::move(r).value(), a.offset};
}

std::string to_string(const AffineLayout& a) {
  if (a.offset == 0) return to_string(a.layout);
  return to_string(a.layout) + (a.offset > 0 ? "+" : "") + std::to_string(a.offset);
}

}  // namespace tack::tile
