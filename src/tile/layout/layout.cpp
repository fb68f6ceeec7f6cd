// Construction, inspection, evaluation, notation and coalesce.
#include "tack/tile/layout.h"

#include <stdexcept>

#include "layout_internal.h"

namespace tack::tile {

namespace {

bool extents_valid(const IntTuple& shape) {
  // A symbolic extent is its coefficient times symbols that are each >= 1.
  if (shape.is_leaf()) return shape.is_dynamic_leaf() || shape.coefficient() >= 1;
  for (const IntTuple& c : shape.children())
    if (!extents_valid(c)) return false;
  return true;
}

bool is_static_value(const IntTuple& t, std::int64_t v) { return t.is_static_leaf() && t.value() == v; }

}  // namespace

Layout::Layout(IntTuple shape, IntTuple stride) : shape_(std::move(shape)), stride_(std::move(stride)) {
  if (!congruent(shape_, stride_))
    throw std::invalid_argument("Layout: the shape " + to_string(shape_) + " and the stride " + to_string(stride_) +
                                " are not congruent.");
  if (!extents_valid(shape_))
    throw std::invalid_argument("Layout: every extent of the shape " + to_string(shape_) + " must be at least 1.");
}

namespace detail {

Result<std::vector<Mode>> static_modes(const Layout& a, std::string_view op) {
  std::vector<Mode> modes;
  const IntTuple* bad_shape = nullptr;
  const IntTuple* bad_stride = nullptr;
  for_each_leaf(a.shape(), a.stride(), [&](const IntTuple& s, const IntTuple& d) {
    if (!s.is_static_leaf() || !d.is_static_leaf()) {
      bad_shape = &s;
      bad_stride = &d;
      return false;
    }
    modes.push_back(Mode{s.value(), d.value()});
    return true;
  });
  if (bad_shape)
    return unknown(std::string(op) + ": the layout " + to_string(a) + " has a dynamic leaf (" + to_string(*bad_shape) +
                   ":" + to_string(*bad_stride) + ") whose value the operation needs.");
  return modes;
}

std::vector<Mode> coalesced(const std::vector<Mode>& modes) {
  std::vector<Mode> out;
  out.reserve(modes.size());
  for (const Mode& m : modes) {
    if (m.shape == 1) continue;
    std::int64_t reach, merged;
    if (!out.empty() && !__builtin_mul_overflow(out.back().shape, out.back().stride, &reach) && reach == m.stride &&
        !__builtin_mul_overflow(out.back().shape, m.shape, &merged)) {
      out.back().shape = merged;
      continue;
    }
    out.push_back(m);
  }
  return out;
}

Layout layout_from_modes(const std::vector<Mode>& modes) {
  if (modes.empty()) return Layout(1, 0);
  if (modes.size() == 1) return Layout(modes[0].shape, modes[0].stride);
  std::vector<IntTuple> s, d;
  s.reserve(modes.size());
  d.reserve(modes.size());
  for (const Mode& m : modes) {
    s.emplace_back(m.shape);
    d.emplace_back(m.stride);
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

Failure with_context(const Failure& failure, const std::string& context) {
  return Failure{failure.kind, context + failure.message};
}

}  // namespace detail

Layout make_layout(const std::vector<Layout>& modes) {
  if (modes.empty()) throw std::invalid_argument("make_layout: a layout needs at least one mode.");
  std::vector<IntTuple> s, d;
  s.reserve(modes.size());
  d.reserve(modes.size());
  for (const Layout& m : modes) {
    s.push_back(m.shape());
    d.push_back(m.stride());
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

std::size_t rank(const Layout& a) { return a.shape().rank(); }

int depth(const Layout& a) { return depth(a.shape()); }

Layout mode(const Layout& a, std::size_t i) {
  if (a.shape().is_leaf()) {
    if (i != 0) throw std::out_of_range("mode: a rank-1 layout has only mode 0.");
    return a;
  }
  if (i >= a.shape().rank()) throw std::out_of_range("mode: index past the rank of " + to_string(a) + ".");
  return Layout(a.shape()[i], a.stride()[i]);
}

Layout flatten(const Layout& a) {
  if (a.shape().is_leaf()) return a;
  return Layout(IntTuple::tuple(leaves(a.shape())), IntTuple::tuple(leaves(a.stride())));
}

bool is_static(const Layout& a) { return is_static(a.shape()) && is_static(a.stride()); }

Layout bind(const Layout& a, const std::map<SymbolId, std::int64_t>& values) {
  return Layout(bind(a.shape(), values), bind(a.stride(), values));
}

Result<std::int64_t> size(const Layout& a) {
  Result<std::int64_t> p = product(a.shape());
  if (!p) return detail::with_context(p.failure(), "size(" + to_string(a) + "): ");
  return p;
}

Result<std::int64_t> cosize(const Layout& a) {
  Result<std::vector<detail::Mode>> modes = detail::static_modes(a, "cosize");
  if (!modes) return modes.failure();
  std::int64_t top = 0;
  for (const detail::Mode& m : *modes) {
    std::int64_t reach;
    if (__builtin_mul_overflow(m.shape - 1, m.stride, &reach) || (reach > 0 && __builtin_add_overflow(top, reach, &top)))
      return inadmissible("cosize(" + to_string(a) + "): the largest value overflows 64 bits.");
  }
  return top + 1;
}

std::optional<std::int64_t> evaluate(const Layout& a, std::int64_t i) {
  if (i < 0) return std::nullopt;
  std::int64_t rest = i;
  std::int64_t value = 0;
  const bool known = detail::for_each_leaf(a.shape(), a.stride(), [&](const IntTuple& s, const IntTuple& d) {
    std::optional<std::int64_t> extent = s.runtime_value();
    std::optional<std::int64_t> stride = d.runtime_value();
    if (!extent || !stride || *extent < 1) return false;
    value += (rest % *extent) * *stride;
    rest /= *extent;
    return true;
  });
  if (!known || rest != 0) return std::nullopt;
  return value;
}

std::optional<std::int64_t> evaluate_coordinate(const Layout& a, const std::vector<std::int64_t>& coordinate) {
  std::size_t k = 0;
  std::int64_t value = 0;
  const bool inside = detail::for_each_leaf(a.shape(), a.stride(), [&](const IntTuple& s, const IntTuple& d) {
    std::optional<std::int64_t> extent = s.runtime_value();
    std::optional<std::int64_t> stride = d.runtime_value();
    if (k >= coordinate.size() || !extent || !stride) return false;
    if (coordinate[k] < 0 || coordinate[k] >= *extent) return false;
    value += coordinate[k] * *stride;
    ++k;
    return true;
  });
  if (!inside || k != coordinate.size()) return std::nullopt;
  return value;
}

std::string to_string(const Layout& a) { return to_string(a.shape()) + ":" + to_string(a.stride()); }

Result<Layout> parse_layout(std::string_view text) {
  std::size_t used = 0;
  Result<IntTuple> shape = detail::parse_int_tuple_prefix(text, used);
  if (!shape) return shape.failure();
  if (used >= text.size() || text[used] != ':')
    return inadmissible("parse_layout: expected ':' after the shape in \"" + std::string(text) + "\".");
  Result<IntTuple> stride = parse_int_tuple(text.substr(used + 1));
  if (!stride) return stride.failure();
  if (!congruent(*shape, *stride))
    return inadmissible("parse_layout: the shape and the stride of \"" + std::string(text) + "\" are not congruent.");
  if (!extents_valid(*shape))
    return inadmissible("parse_layout: every extent of \"" + std::string(text) + "\" must be at least 1.");
  return Layout(std::move(shape).value(), std::move(stride).value());
}

Layout coalesce(const Layout& a) {
  std::vector<IntTuple> rs, rd;
  detail::for_each_leaf(a.shape(), a.stride(), [&](const IntTuple& s, const IntTuple& d) {
    if (is_static_value(s, 1)) return true;
    if (!rs.empty() && rs.back().is_static_leaf() && rd.back().is_static_leaf() && s.is_static_leaf() &&
        d.is_static_leaf()) {
      std::int64_t reach, merged;
      if (!__builtin_mul_overflow(rs.back().value(), rd.back().value(), &reach) && reach == d.value() &&
          !__builtin_mul_overflow(rs.back().value(), s.value(), &merged)) {
        rs.back() = IntTuple(merged);
        return true;
      }
    }
    rs.push_back(s);
    rd.push_back(d);
    return true;
  });
  if (rs.empty()) return Layout(1, 0);
  if (rs.size() == 1) return Layout(rs[0], rd[0]);
  return Layout(IntTuple::tuple(std::move(rs)), IntTuple::tuple(std::move(rd)));
}

Result<Layout> coalesce(const Layout& a, const IntTuple& profile) {
  if (profile.is_leaf()) return coalesce(a);
  if (a.shape().is_leaf()) {
    if (profile.rank() != 1)
      return inadmissible("coalesce: the profile " + to_string(profile) + " has more modes than the layout " +
                          to_string(a) + ".");
    return coalesce(a, profile[0]);
  }
  if (profile.rank() > rank(a))
    return inadmissible("coalesce: the profile " + to_string(profile) + " has more modes than the layout " +
                        to_string(a) + ".");
  std::vector<Layout> modes;
  for (std::size_t i = 0; i < rank(a); ++i) {
    if (i >= profile.rank()) {
      modes.push_back(mode(a, i));
      continue;
    }
    Result<Layout> m = coalesce(mode(a, i), profile[i]);
    if (!m) return m;
    modes.push_back(std::move(m).value());
  }
  return make_layout(modes);
}

Layout coalesce_modes(const Layout& a) {
  if (a.shape().is_leaf()) return coalesce(a);
  std::vector<Layout> modes;
  for (std::size_t i = 0; i < rank(a); ++i) modes.push_back(coalesce(mode(a, i)));
  return make_layout(modes);
}

}  // namespace tack::tile
