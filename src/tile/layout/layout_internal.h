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

// 1:0 for no modes, a leaf layout for one, a flat tuple otherwise.
Layout layout_from_modes(const std::vector<Mode>& modes);

// The same failure with `context` in front of its message.
Failure with_context(const Failure& failure, const std::string& context);

// Reads one tuple from the front of `text`; `consumed` is where it stopped.
Result<IntTuple> parse_int_tuple_prefix(std::string_view text, std::size_t& consumed);

}  // namespace tack::tile::detail
