#include "tile/lower/exec_binding.h"

#include <algorithm>
#include <numeric>

#include "tack/tile/prover.h"

namespace tack::tile::lower {

namespace {

std::string levels(const std::vector<size_t>& order) {
  std::string s;
  for (size_t l : order) s += (s.empty() ? "" : ", ") + std::to_string(l);
  return "(" + s + ")";
}

}  // namespace

ExecBinding bind_nest(const Kernel& kernel, const LaunchNest& nest, const std::vector<int>& order, bool fuse) {
  ExecBinding b;
  const size_t depth = nest.levels.size();
  b.order.resize(depth);
  std::iota(b.order.begin(), b.order.end(), size_t{0});
  if (!order.empty()) {
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> expected(depth);
    std::iota(expected.begin(), expected.end(), 0);
    if (sorted != expected) {
      std::string given;
      for (int l : order) given += (given.empty() ? "" : ", ") + std::to_string(l);
      throw Error("compile @" + kernel.name() + ": CompileOptions::nest_order (" + given +
                  ") is not an order of its launch nest's " + std::to_string(depth) + " levels.");
    }
  }
  std::vector<IntTuple> extents;
  for (size_t l = 0; l < depth; ++l) {
    b.extents.push_back(fresh_symbol());
    extents.push_back(IntTuple::dynamic(b.extents.back()));
  }
  if (depth < 2) {
    b.why = depth == 0 ? "a launch of one iteration (no parallel nest)"
                       : "one launch dimension per level (the nest has one level)";
    return b;
  }
  const std::vector<size_t> identity = b.order;
  std::vector<size_t> wanted(order.begin(), order.end());
  if (wanted.empty()) wanted = identity;
  if (!fuse && wanted == identity) {
    b.why = "one launch dimension per level, in the nest's order";
    return b;
  }
  const IntTuple shape = IntTuple::tuple(extents);
  std::vector<size_t> innermost_first(wanted.rbegin(), wanted.rend());
  Result<Layout> layout = permutation(shape, innermost_first);
  Result<IntTuple> size = symbolic_product(shape);
  if (!layout || !size) {
    b.why = "one launch dimension per level (" + (layout ? size.diagnostic() : layout.diagnostic()) + ")";
    return b;
  }
  const std::string what = fuse ? "the nest fused into one launch dimension, levels " + levels(wanted) +
                                      " outermost first, the last fastest"
                                : "one launch dimension per level, levels " + levels(wanted) + " outermost first";
  Verdict proof = prove_bijective(*layout, *size);
  if (!proof.proven()) {
    b.why = "one launch dimension per level, in the nest's order: " + what + " would take the layout " +
            to_string(*layout) + ", not proven a bijection (" + to_string(proof.truth) + ": " + proof.reason + ")";
    return b;
  }
  b.order = std::move(wanted);
  b.fused = fuse;
  b.layout = std::move(layout).value();
  b.size = std::move(size).value();
  b.why = what + ": the layout " + to_string(*b.layout) + " over the levels' extents " + to_string(shape) +
          " is a bijection onto [0, " + to_string(b.size) + ") (" + proof.reason + ")";
  return b;
}

std::string describe(const ExecBinding& binding) { return "; binding: " + binding.why + "\n"; }

}  // namespace tack::tile::lower
