// Helpers shared by the algebra's translation units; not part of the API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tack/tile/layout.h"

namespace tack::tile::detail {

// One leaf of a static layout.
struct Mode {
  std::int64_t shape;
  std::int64_t stride;
};

// The leaves of `a` as static (extent, stride) pairs; unknown, naming `op`,
// when a leaf is dynamic.
Result<std::vector<Mode>> static_modes(const Layout& a, std::string_view op);

// coalesce on static leaves: extent-1 leaves dropped, adjacent leaves with
// d1 == s0*d0 merged. Same rules as coalesce(Layout), without building tuples.
std::vector<Mode> coalesced(const std::vector<Mode>& modes);

// Calls f(shape_leaf, stride_leaf) for each leaf of congruent tuples, in
// order; f returns false to stop. Returns false when stopped. Walking the tree
// in place keeps the algebra's inner loops free of allocation.
template <class F>
bool for_each_leaf(const IntTuple& shape, const IntTuple& stride, F&& f) {
  if (shape.is_leaf()) return f(shape, stride);
  for (std::size_t i = 0; i < shape.rank(); ++i)
    if (!for_each_leaf(shape[i], stride[i], f)) return false;
  return true;
}

// 1:0 for no modes, a leaf layout for one, a flat tuple otherwise.
Layout layout_from_modes(const std::vector<Mode>& modes);

// The same failure with `context` in front of its message.
Failure with_context(const Failure& failure, const std::string& context);

// Reads one tuple from the front of `text`; `consumed` is where it stopped.
Result<IntTuple> parse_int_tuple_prefix(std::string_view text, std::size_t& consumed);

}  // namespace tack::tile::detail
