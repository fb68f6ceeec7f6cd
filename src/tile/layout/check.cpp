// The exhaustive finite checker. Deliberately written from the data types up,
// without the algebra's helpers, so that a bug there cannot hide here.
#include "tack/tile/layout_check.h"

#include <algorithm>

namespace tack::tile::check {

namespace {

struct Axis {
  std::int64_t extent;
  std::int64_t stride;
};

bool read_leaves(const IntTuple& shape, const IntTuple& stride, std::vector<Axis>& out) {
  if (shape.is_tuple()) {
    if (!stride.is_tuple() || stride.children().size() != shape.children().size()) return false;
    for (std::size_t i = 0; i < shape.children().size(); ++i)
      if (!read_leaves(shape.children()[i], stride.children()[i], out)) return false;
    return true;
  }
  std::optional<std::int64_t> e = shape.runtime_value();
  std::optional<std::int64_t> d = stride.runtime_value();
  if (!e || !d || *e < 1) return false;
  out.push_back(Axis{*e, *d});
  return true;
}

}  // namespace

std::optional<std::vector<std::int64_t>> values(const Layout& a, std::int64_t limit) {
  std::vector<Axis> axes;
  if (!read_leaves(a.shape(), a.stride(), axes)) return std::nullopt;
  std::int64_t count = 1;
  for (const Axis& x : axes)
    if (__builtin_mul_overflow(count, x.extent, &count) || count > limit) return std::nullopt;

  // Odometer over the coordinates, first axis fastest, value kept incrementally.
  std::vector<std::int64_t> out(static_cast<std::size_t>(count));
  std::vector<std::int64_t> coord(axes.size(), 0);
  std::int64_t value = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    out[static_cast<std::size_t>(i)] = value;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      if (++coord[k] < axes[k].extent) {
        value += axes[k].stride;
        break;
      }
      value -= (axes[k].extent - 1) * axes[k].stride;
      coord[k] = 0;
    }
  }
  return out;
}

std::optional<bool> is_bounded(const Layout& a, std::int64_t lo, std::int64_t hi, std::int64_t limit) {
  auto v = values(a, limit);
  if (!v) return std::nullopt;
  for (std::int64_t x : *v)
    if (x < lo || x >= hi) return false;
  return true;
}

std::optional<bool> is_total(const Layout& a, std::int64_t n, std::int64_t limit) { return is_bounded(a, 0, n, limit); }

std::optional<bool> is_injective(const Layout& a, std::int64_t limit) {
  auto v = values(a, limit);
  if (!v) return std::nullopt;
  std::sort(v->begin(), v->end());
  return std::adjacent_find(v->begin(), v->end()) == v->end();
}

std::optional<bool> is_surjective(const Layout& a, std::int64_t n, std::int64_t limit) {
  auto v = values(a, limit);
  if (!v) return std::nullopt;
  if (n < 1) return false;
  std::vector<bool> hit(static_cast<std::size_t>(std::min(n, limit)), false);
  std::int64_t distinct = 0;
  for (std::int64_t x : *v) {
    if (x < 0 || x >= n) return false;
    if (x >= static_cast<std::int64_t>(hit.size())) return std::nullopt;
    if (!hit[static_cast<std::size_t>(x)]) {
      hit[static_cast<std::size_t>(x)] = true;
      ++distinct;
    }
  }
  return distinct == n;
}

std::optional<bool> same_function(const Layout& a, const Layout& b, std::int64_t limit) {
  auto va = values(a, limit);
  auto vb = values(b, limit);
  if (!va || !vb) return std::nullopt;
  return *va == *vb;
}

namespace {

void extend(const LayoutFamily& f, std::vector<std::int64_t>& extents, std::int64_t size, std::vector<Layout>& out);

void emit_strides(const LayoutFamily& f, const std::vector<std::int64_t>& extents, std::vector<std::int64_t>& strides,
                  std::vector<Layout>& out) {
  if (strides.size() == extents.size()) {
    if (extents.size() == 1) {
      out.emplace_back(extents[0], strides[0]);
      return;
    }
    std::vector<IntTuple> s, d;
    for (std::size_t i = 0; i < extents.size(); ++i) {
      s.emplace_back(extents[i]);
      d.emplace_back(strides[i]);
    }
    out.emplace_back(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
    return;
  }
  const auto& choices = extents[strides.size()] == 1 ? f.unit_extent_strides : f.strides;
  for (std::int64_t d : choices) {
    strides.push_back(d);
    emit_strides(f, extents, strides, out);
    strides.pop_back();
  }
}

void extend(const LayoutFamily& f, std::vector<std::int64_t>& extents, std::int64_t size, std::vector<Layout>& out) {
  if (!extents.empty()) {
    std::vector<std::int64_t> strides;
    emit_strides(f, extents, strides, out);
  }
  if (static_cast<int>(extents.size()) == f.max_rank) return;
  for (std::int64_t e = 1; size * e <= f.max_size; ++e) {
    extents.push_back(e);
    extend(f, extents, size * e, out);
    extents.pop_back();
  }
}

}  // namespace

std::vector<Layout> enumerate_layouts(const LayoutFamily& family) {
  std::vector<Layout> out;
  std::vector<std::int64_t> extents;
  extend(family, extents, 1, out);
  return out;
}

Layout random_layout(std::mt19937_64& rng, const RandomLayoutOptions& options) {
  auto uniform = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p; };
  static constexpr std::int64_t extents[] = {1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 8, 8};
  static constexpr std::int64_t strides[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 24, 32, 48, 64};

  while (true) {
    const int rank = static_cast<int>(uniform(1, options.max_rank));
    std::vector<int> leaves_per_mode;
    std::vector<std::int64_t> extent;
    std::int64_t size = 1;
    for (int m = 0; m < rank; ++m) {
      const int n = chance(options.nested) ? 2 : 1;
      leaves_per_mode.push_back(n);
      for (int k = 0; k < n; ++k) {
        extent.push_back(extents[uniform(0, std::size(extents) - 1)]);
        size *= extent.back();
      }
    }
    if (size > options.max_size) continue;

    std::vector<std::int64_t> stride(extent.size());
    if (chance(options.mixed_radix)) {
      std::vector<std::size_t> order(extent.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      std::int64_t next = 1;
      for (std::size_t i : order) {
        next *= chance(0.3) ? uniform(2, 3) : 1;  // a gap
        stride[i] = next;
        next *= extent[i];
      }
    } else {
      for (auto& d : stride) d = strides[uniform(0, std::size(strides) - 1)];
    }
    for (auto& d : stride)
      if (chance(options.negative_stride)) d = -d;

    std::vector<IntTuple> shape_modes, stride_modes;
    std::size_t leaf = 0;
    for (int n : leaves_per_mode) {
      if (n == 1) {
        shape_modes.emplace_back(extent[leaf]);
        stride_modes.emplace_back(stride[leaf]);
      } else {
        shape_modes.push_back(IntTuple::tuple({extent[leaf], extent[leaf + 1]}));
        stride_modes.push_back(IntTuple::tuple({stride[leaf], stride[leaf + 1]}));
      }
      leaf += static_cast<std::size_t>(n);
    }
    if (shape_modes.size() == 1) return Layout(shape_modes[0], stride_modes[0]);
    return Layout(IntTuple::tuple(std::move(shape_modes)), IntTuple::tuple(std::move(stride_modes)));
  }
}

}  // namespace tack::tile::check
