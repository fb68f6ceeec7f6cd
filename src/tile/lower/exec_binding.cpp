#include "tile/lower/exec_binding.h"

#include <numeric>

#include "tack/tile/prover.h"

namespace tack::tile::lower {

ExecBinding bind_nest(const LaunchNest& nest, bool fuse) {
  ExecBinding b;
  std::vector<IntTuple> extents;
  for (size_t l = 0; l < nest.levels.size(); ++l) {
    b.extents.push_back(fresh_symbol());
    extents.push_back(IntTuple::dynamic(b.extents.back()));
  }
  if (nest.levels.size() < 2) {
    b.why = nest.levels.empty() ? "a launch of one iteration (no parallel nest)"
                                : "one launch dimension per level (the nest has one level)";
    return b;
  }
  if (!fuse) {
    b.why = "one launch dimension per level (CompileOptions::fuse_nest is false)";
    return b;
  }
  const IntTuple shape = IntTuple::tuple(extents);
  std::vector<size_t> innermost_first(nest.levels.size());
  std::iota(innermost_first.rbegin(), innermost_first.rend(), size_t{0});
  Result<Layout> layout = permutation(shape, innermost_first);
  Result<IntTuple> size = symbolic_product(shape);
  if (!layout || !size) {
    b.why = "one launch dimension per level (" + (layout ? size.diagnostic() : layout.diagnostic()) + ")";
    return b;
  }
  Verdict proof = prove_bijective(*layout, *size);
  if (!proof.proven()) {
    b.why = "one launch dimension per level: the fused layout " + to_string(*layout) + " is not proven a bijection (" +
            to_string(proof.truth) + ": " + proof.reason + ")";
    return b;
  }
  b.form = ExecBinding::Form::fused;
  b.layout = std::move(layout).value();
  b.size = std::move(size).value();
  b.why = "the nest fused into one launch dimension, innermost level fastest: the layout " + to_string(*b.layout) +
          " over the levels' extents " + to_string(shape) + " is a bijection onto [0, " + to_string(b.size) + ") (" +
          proof.reason + ")";
  return b;
}

std::string describe(const ExecBinding& binding) { return "; binding: " + binding.why + "\n"; }

}  // namespace tack::tile::lower
