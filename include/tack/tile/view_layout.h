// Views as layouts: the address map of every TileIR view, in the layout
// algebra (layout.h). The interpreter evaluates it and the lowering emits it;
// neither derives a view's addresses any other way.
//
// A kernel parameter of rank r is the layout
//
//     P = (?e0, ..., ?e(r-1)) : (?s0, ..., ?s(r-1))
//
// from its coordinates to element offsets in its storage, its extents and
// strides dynamic leaves bound when the kernel runs (the storage's own
// offset is the launch's). A `view` operation with coordinates c over a
// parent view V + t (a layout V translated by t) is
//
//     (w_k, ...) : (D_k, ...)  +  t + V(c)
//
// where k runs over the spanned axes, w_k is a span's extent and D_k the
// parent's stride on that axis: each kept mode E:D cut to w:D (its
// composition with w:1, taking the mode's last stride past its extent as
// CuTe does: a window may run past the parent, where the view's bounds mask
// it), the indexed axes sliced away,
// and the whole translated by the parent at c. A nested view is therefore
// one layout over its parameter's strides. The coordinates are run-time
// values, so the translation is kept as its terms, coordinate times stride.
//
// The view's type, not its layout, gives its extents: a span of extent 0
// keeps a mode of extent 1, since a layout's extents are at least 1.
//
// Bounds (which positions lie inside the parameter and every enclosing
// window) are not part of the layout: a layout maps coordinates, it does not
// mask them. The interpreter and the lowering track them beside it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tack/tile/ir.h"
#include "tack/tile/layout.h"

namespace tack::tile {

// The symbols of a kernel parameter's layout, one extent and one stride per axis.
struct ParameterLayout {
  unsigned param = 0;
  std::vector<IntTuple> extents;  // dynamic leaves
  std::vector<IntTuple> strides;  // dynamic leaves
};

// Parameter `param` of rank `rank`, with fresh symbols.
ParameterLayout parameter_layout(unsigned param, int rank);

// One term of a view's translation: a coordinate times a stride leaf.
struct ViewOffsetTerm {
  const Value* coordinate = nullptr;  // a rank-0 i64 value
  IntTuple stride = 0;
};

struct ViewLayout {
  unsigned param = 0;
  // One leaf mode w:D per view axis; the view's layout is their
  // concatenation (layout() below).
  std::vector<Layout> modes;
  // The translation: the sum of coordinate * stride over the terms, outermost view first.
  std::vector<ViewOffsetTerm> offset;

  // make_layout(modes), a rank-1 view's mode itself, the single point 1:0
  // for a view of rank 0.
  Layout layout() const;
};

// The parameter as a view: mode d is ?e_d:?s_d, no translation.
ViewLayout view_layout(const ParameterLayout& p);

// The layout of `view`'s result from its parent's (operand 0).
// @pre   view.kind() == OpKind::view and parent has one mode per parent axis.
// Example: over P = (?1,?2):(?3,?4), view(%P, %i, %j:16) is 16:?4 + %i*?3 + %j*?4.
ViewLayout view_layout(const ViewLayout& parent, const Operation& view);

// The parameter axis whose stride `leaf` is, or nullopt.
std::optional<int> stride_axis(const ParameterLayout& p, const IntTuple& leaf);
// The parameter axis whose extent `leaf` is, or nullopt.
std::optional<int> extent_axis(const ParameterLayout& p, const IntTuple& leaf);

// The values of p's symbols for a tensor of these extents and strides.
void bind_parameter(const ParameterLayout& p, const std::vector<int64_t>& extents, const std::vector<int64_t>& strides,
                    std::map<SymbolId, std::int64_t>& values);

// "16:?4 + %5*?3 + %6*?4", the coordinates named by `name`.
template <class Name>
std::string to_string(const ViewLayout& v, Name&& name) {
  std::string s = to_string(v.layout());
  for (const ViewOffsetTerm& t : v.offset) s += " + " + name(t.coordinate) + "*" + to_string(t.stride);
  return s;
}

}  // namespace tack::tile
