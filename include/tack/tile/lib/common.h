// Small helpers shared by the reference tile library.
#pragma once

#include "tack/tile/capture.h"

namespace tack::tile::lib {

// ceil(a / b) for a >= 0, b > 0: the number of b-wide blocks covering a.
inline Index ceil_div(const Index& a, int64_t b) { return (a + (b - 1)) / b; }

// Positions [origin, origin + width) as an index tile, and which of them are
// below `extent`.
inline Index positions(const Index& origin, int64_t width) { return iota({width}) + origin; }
inline Tile<bool> in_range(const Index& origin, int64_t width, const Index& extent) {
  return positions(origin, width) < extent;
}

}  // namespace tack::tile::lib
