#include "tack/tile/exec.h"

namespace tack::tile {

Target::Target(std::string name, std::vector<std::pair<std::string, std::string>> contains)
    : name_(std::move(name)), contains_(std::move(contains)) {}

Target Target::gpu() { return Target("gpu", {{"grid", "block"}, {"block", "warp"}, {"warp", "thread"}}); }

bool Target::knows(std::string_view level) const {
  for (const auto& [outer, inner] : contains_)
    if (outer == level || inner == level) return true;
  return false;
}

// Reachability along the covering pairs; the relations are a handful of
// levels, so a depth-first search per query is cheaper than keeping a closure.
bool Target::encloses(std::string_view outer, std::string_view inner) const {
  if (outer == inner) return knows(outer);
  std::vector<std::string_view> stack{outer}, seen;
  while (!stack.empty()) {
    std::string_view at = stack.back();
    stack.pop_back();
    for (const auto& [o, i] : contains_) {
      if (o != at) continue;
      if (i == inner) return true;
      bool visited = false;
      for (auto s : seen) visited |= s == i;
      if (!visited) {
        seen.push_back(i);
        stack.push_back(i);
      }
    }
  }
  return false;
}

}  // namespace tack::tile
