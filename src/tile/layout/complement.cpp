// Complement and the inverses built on it.
#include <algorithm>

#include "layout_internal.h"
#include "tack/tile/layout.h"

namespace tack::tile {

namespace {
using detail::Mode;
}  // namespace

Result<Layout> complement(const Layout& a, std::int64_t cotarget) {
  // Messages are built only on failure: the algebra runs in tight loops.
  auto where = [&] { return "complement(" + to_string(a) + ", " + std::to_string(cotarget) + ")"; };
  if (cotarget < 1) return inadmissible(where() + " is inadmissible: the cotarget must be at least 1.");
  Result<std::vector<Mode>> all = detail::static_modes(a, "complement");
  if (!all) return all.failure();

  std::vector<Mode> modes;
  for (const Mode& m : *all) {
    if (m.shape == 1) continue;
    if (m.stride == 0)
      return inadmissible(where() + " is inadmissible: the layout is not injective (its extent-" +
                          std::to_string(m.shape) + " leaf has stride 0).");
    if (m.stride < 0)
      return inadmissible(where() + " is inadmissible: the stride " + std::to_string(m.stride) +
                          " is negative; the complement is defined for positive strides.");
    modes.push_back(m);
  }
  if (modes.empty()) return detail::layout_from_modes(detail::coalesced({Mode{cotarget, 1}}));

  std::stable_sort(modes.begin(), modes.end(), [](const Mode& x, const Mode& y) { return x.stride < y.stride; });

  // Gaps below and between A's leaves, then copies of A's footprint.
  std::vector<Mode> result;
  std::int64_t covered = 1;  // span of the leaves so far: stride * extent of the last one
  for (const Mode& m : modes) {
    if (m.stride % covered != 0)
      return inadmissible(where() + " is inadmissible: sorted by stride, the leaf " + std::to_string(m.shape) + ":" +
                          std::to_string(m.stride) + " does not start at a multiple of " + std::to_string(covered) +
                          ", the span of the leaves below it, so the layout is not a gapped mixed radix.");
    result.push_back(Mode{m.stride / covered, covered});
    if (__builtin_mul_overflow(m.stride, m.shape, &covered))
      return inadmissible(where() + " is inadmissible: the span of the layout overflows 64 bits.");
  }
  result.push_back(Mode{(cotarget + covered - 1) / covered, covered});
  return detail::layout_from_modes(detail::coalesced(result));
}

Result<Layout> complement(const Layout& a) {
  Result<std::int64_t> c = cosize(a);
  if (!c) return detail::with_context(c.failure(), "complement(" + to_string(a) + "): ");
  return complement(a, *c);
}

Result<Layout> right_inverse(const Layout& a) {
  Result<std::vector<Mode>> leaves = detail::static_modes(a, "right_inverse");
  if (!leaves) return leaves.failure();
  const std::vector<Mode> flat = detail::coalesced(*leaves);
  const std::vector<Mode>* modes = &flat;

  // Index strides of the coalesced domain: where mode i's coordinate lives in A's index.
  std::vector<std::int64_t> index_stride(modes->size());
  std::int64_t running = 1;
  for (std::size_t i = 0; i < modes->size(); ++i) {
    index_stride[i] = running;
    if (__builtin_mul_overflow(running, (*modes)[i].shape, &running))
      return inadmissible("right_inverse(" + to_string(a) + ") is inadmissible: its size overflows 64 bits.");
  }

  // Follow A's values 1, s*d, ... through modes whose stride is exactly the next value.
  std::vector<Mode> result;
  std::vector<bool> used(modes->size(), false);
  std::int64_t next = 1;
  while (true) {
    std::size_t found = modes->size();
    for (std::size_t i = 0; i < modes->size(); ++i) {
      if (!used[i] && (*modes)[i].shape > 1 && (*modes)[i].stride == next) {
        found = i;
        break;
      }
    }
    if (found == modes->size()) break;
    used[found] = true;
    result.push_back(Mode{(*modes)[found].shape, index_stride[found]});
    if (__builtin_mul_overflow(next, (*modes)[found].shape, &next)) break;
  }
  return detail::layout_from_modes(result);
}

Result<Layout> left_inverse(const Layout& a) {
  Result<Layout> c = complement(a);
  if (!c) return detail::with_context(c.failure(), "left_inverse(" + to_string(a) + "): ");
  return right_inverse(make_layout({a, *c}));
}

Result<std::int64_t> max_common_vector(const Layout& a, const Layout& b) {
  if (!is_static(a) || !is_static(b))
    return unknown("max_common_vector(" + to_string(a) + ", " + to_string(b) + "): a leaf is dynamic.");
  Result<Layout> inverse = right_inverse(b);
  if (!inverse) return inverse.failure();
  Result<Layout> common = composition(a, *inverse);
  // With no admissible composition there is no provable common run beyond
  // one element, and 1 is always a correct width.
  if (!common) return std::int64_t{1};
  const Layout c = coalesce(*common);
  const IntTuple& s0 = c.shape().is_leaf() ? c.shape() : c.shape()[0];
  const IntTuple& d0 = c.stride().is_leaf() ? c.stride() : c.stride()[0];
  if (d0.value() == 1) return s0.value();
  return std::int64_t{1};
}

}  // namespace tack::tile
