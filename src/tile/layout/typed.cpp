#include "tack/tile/layout_typed.h"

#include <atomic>

#include "layout_internal.h"

namespace tack::tile {

Dim Dim::fresh(std::string label) {
  static std::atomic<std::uint64_t> next{1};
  return Dim(next.fetch_add(1, std::memory_order_relaxed), std::make_shared<const std::string>(std::move(label)));
}

namespace {

std::string labels(const std::vector<Dim>& dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i].label();
  }
  return s + ")";
}

bool has_repeat(const std::vector<Dim>& dims) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    for (std::size_t j = i + 1; j < dims.size(); ++j)
      if (dims[i] == dims[j]) return true;
  return false;
}

}  // namespace

Result<TypedLayout> make_typed_layout(Layout layout, std::vector<Dim> domain, std::vector<Dim> codomain) {
  auto where = [&] { return "make_typed_layout(" + to_string(layout) + ", " + labels(domain) + " -> " +
                            labels(codomain) + ") is inadmissible: "; };
  if (domain.size() != rank(layout))
    return inadmissible(where() + "the layout has " + std::to_string(rank(layout)) + " modes but " +
                        std::to_string(domain.size()) + " domain Dims.");
  if (codomain.empty()) return inadmissible(where() + "the codomain names no Dim.");
  if (has_repeat(domain)) return inadmissible(where() + "a Dim appears twice in the domain.");
  if (has_repeat(codomain)) return inadmissible(where() + "a Dim appears twice in the codomain.");
  return TypedLayout{std::move(layout), std::move(domain), std::move(codomain)};
}

Result<TypedLayout> compose(const TypedLayout& a, const TypedLayout& b) {
  if (b.codomain != a.domain) {
    std::string detail;
    for (std::size_t i = 0; i < std::max(a.domain.size(), b.codomain.size()); ++i) {
      if (i >= a.domain.size() || i >= b.codomain.size()) {
        detail = "they have " + std::to_string(b.codomain.size()) + " and " + std::to_string(a.domain.size()) +
                 " Dims";
        break;
      }
      if (b.codomain[i] != a.domain[i]) {
        detail = "B's '" + b.codomain[i].label() + "' is not A's '" + a.domain[i].label() + "'";
        if (b.codomain[i].label() == a.domain[i].label()) detail += " (a different Dim with the same label)";
        break;
      }
    }
    return inadmissible("compose(A : " + labels(a.domain) + " -> " + labels(a.codomain) + ", B : " +
                        labels(b.domain) + " -> " + labels(b.codomain) + ") is inadmissible: B's codomain " +
                        labels(b.codomain) + " is not A's domain " + labels(a.domain) + "; " + detail + ".");
  }
  Result<Layout> r = composition(a.layout, b.layout);
  if (!r) return detail::with_context(r.failure(), "compose(" + to_string(a) + ", " + to_string(b) + "): ");
  Layout layout = std::move(r).value();
  // One result mode per domain Dim of B.
  if (b.layout.shape().is_leaf() && layout.shape().is_tuple())
    layout = Layout(IntTuple::tuple({layout.shape()}), IntTuple::tuple({layout.stride()}));
  return TypedLayout{std::move(layout), b.domain, a.codomain};
}

std::string to_string(const TypedLayout& t) {
  return labels(t.domain) + " -> " + labels(t.codomain) + " : " + to_string(t.layout);
}

}  // namespace tack::tile
