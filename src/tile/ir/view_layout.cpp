// Views as layouts (tack/tile/view_layout.h): a parameter's layout over
// dynamic extents and strides, and each view operation's layout from its
// parent's.
#include "tack/tile/view_layout.h"

#include <algorithm>
#include <stdexcept>

namespace tack::tile {

ParameterLayout parameter_layout(unsigned param, int rank) {
  ParameterLayout p;
  p.param = param;
  for (int d = 0; d < rank; ++d) {
    p.extents.push_back(IntTuple::dynamic(fresh_symbol()));
    p.strides.push_back(IntTuple::dynamic(fresh_symbol()));
  }
  return p;
}

Layout ViewLayout::layout() const {
  if (modes.empty()) return Layout(1, 0);
  if (modes.size() == 1) return modes[0];
  return make_layout(modes);
}

ViewLayout view_layout(const ParameterLayout& p) {
  ViewLayout v;
  v.param = p.param;
  for (size_t d = 0; d < p.extents.size(); ++d) v.modes.emplace_back(p.extents[d], p.strides[d]);
  return v;
}

ViewLayout view_layout(const ViewLayout& parent, const Operation& view) {
  const std::vector<int64_t>& extents = view.attrs().extents;
  if (view.kind() != OpKind::view || extents.size() != parent.modes.size() ||
      view.num_operands() != parent.modes.size() + 1)
    throw std::invalid_argument("view_layout: the operation is not a view of a rank-" +
                                std::to_string(parent.modes.size()) + " view.");
  ViewLayout v;
  v.param = parent.param;
  v.offset = parent.offset;
  for (size_t d = 0; d < extents.size(); ++d) {
    const IntTuple& stride = parent.modes[d].stride();
    // The translation by the parent at the coordinates: each one times its axis's stride.
    v.offset.push_back(ViewOffsetTerm{view.operand(unsigned(d) + 1), stride});
    // A span of no positions keeps a mode of one (a layout's extents are at
    // least 1); the view's type says it is empty.
    if (extents[d] != kIndexed) v.modes.emplace_back(IntTuple(std::max<int64_t>(extents[d], 1)), stride);
  }
  return v;
}

namespace {

std::optional<int> find(const std::vector<IntTuple>& leaves, const IntTuple& leaf) {
  for (size_t d = 0; d < leaves.size(); ++d)
    if (leaves[d] == leaf) return int(d);
  return std::nullopt;
}

}  // namespace

std::optional<int> stride_axis(const ParameterLayout& p, const IntTuple& leaf) { return find(p.strides, leaf); }
std::optional<int> extent_axis(const ParameterLayout& p, const IntTuple& leaf) { return find(p.extents, leaf); }

void bind_parameter(const ParameterLayout& p, const std::vector<int64_t>& extents, const std::vector<int64_t>& strides,
                    std::map<SymbolId, std::int64_t>& values) {
  for (size_t d = 0; d < p.extents.size(); ++d) {
    values[p.extents[d].symbol()] = extents.at(d);
    values[p.strides[d].symbol()] = strides.at(d);
  }
}

}  // namespace tack::tile
