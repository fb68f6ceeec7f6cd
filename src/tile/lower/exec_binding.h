// Pass 2 of lowering TileIR to Tack's kernel IR: bind the launch nest to the
// launch's dimensions.
//
// Execution binding is a layout map. The nest's iteration space is the
// coordinate space of its levels' run-time extents (E_0, ..., E_{L-1}),
// outermost first, each extent a symbol of the layout algebra; a binding is
// a layout from that space to the launch's iteration space:
//   per_level  one launch dimension per level, in order (the identity, no
//              layout);
//   fused      one launch dimension for the whole nest, through the
//              permutation that puts the innermost level first, so
//              consecutive launch indices walk the innermost level as the
//              per-level form does and carry on into the next row: a
//              backend that fills SIMD groups within one launch row fills
//              them across the nest's rows instead.
// A fused binding is used only when the prover proves its layout a
// bijection onto [0, E_0 * ... * E_{L-1}) for every value of the extents,
// so every iteration runs exactly once; otherwise the nest stays per level
// and the reason says why. Each level's coordinate comes back from the
// launch index i by the layout's stride d_k for that level: (i / d_k) mod
// E_k.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tack/tile/layout.h"
#include "tile/lower/launch_nest.h"

namespace tack::tile::lower {

struct ExecBinding {
  enum class Form { per_level, fused };
  Form form = Form::per_level;
  std::vector<SymbolId> extents;  // per level, outermost first: its extent's symbol
  std::optional<Layout> layout;   // fused: nest coordinates -> launch index
  IntTuple size = 1;              // fused: the launch's iteration count
  std::string why;                // how it was chosen, or the prover's reason

  // Fused: the stride of level k's coordinate in the launch index.
  const IntTuple& stride(size_t level) const { return layout->stride()[level]; }
};

// The binding of `nest`: fused where `fuse` asks for it, the nest has two
// levels or more and the prover proves the fused layout; else per level.
ExecBinding bind_nest(const LaunchNest& nest, bool fuse);

// The binding as a comment line for tools.
std::string describe(const ExecBinding& binding);

}  // namespace tack::tile::lower
