// Execution levels that a `parallel` region may be constrained to, and the
// targets whose containment relation decides which nestings are legal.
//
// Levels are names, not ordinals: a target states which level directly
// contains which, and legality is the reflexive-transitive closure of that
// relation. Two levels a target does not relate are incomparable, so a
// nesting between them is rejected even if some enumeration put them in order.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tack::tile {

struct ExecLevel {
  std::string_view name;  // empty: unconstrained
  friend bool operator==(const ExecLevel&, const ExecLevel&) = default;
};

namespace exec {
inline constexpr ExecLevel grid{"grid"};
inline constexpr ExecLevel block{"block"};
inline constexpr ExecLevel warp{"warp"};
inline constexpr ExecLevel thread{"thread"};
}  // namespace exec

class Target {
 public:
  // `contains` lists (outer, inner) pairs of the covering relation.
  Target(std::string name, std::vector<std::pair<std::string, std::string>> contains);
  // grid > block > warp > thread.
  static Target gpu();

  const std::string& name() const { return name_; }
  bool knows(std::string_view level) const;
  // True when `outer` contains or equals `inner` on this target.
  bool encloses(std::string_view outer, std::string_view inner) const;

 private:
  std::string name_;
  std::vector<std::pair<std::string, std::string>> contains_;
};

}  // namespace tack::tile
