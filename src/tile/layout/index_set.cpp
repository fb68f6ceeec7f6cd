#include "tack/tile/layout_index_set.h"

#include <algorithm>

namespace tack::tile {

namespace {

using Points = std::shared_ptr<const std::vector<std::int64_t>>;

Result<Points> materialize(const AffineLayout& a) {
  Result<std::int64_t> n = size(a.layout);
  if (!n) return n.failure();
  if (!is_static(a.layout))
    return unknown("IndexSet: the image of " + to_string(a) + " has a dynamic stride.");
  if (*n > IndexSet::materialize_limit)
    return unknown("IndexSet: the image of " + to_string(a) + " has " + std::to_string(*n) +
                   " points, more than the sets materialize.");
  auto pts = std::make_shared<std::vector<std::int64_t>>();
  pts->reserve(static_cast<std::size_t>(*n));
  for (std::int64_t i = 0; i < *n; ++i) pts->push_back(*evaluate(a, i));
  std::sort(pts->begin(), pts->end());
  pts->erase(std::unique(pts->begin(), pts->end()), pts->end());
  return Points(std::move(pts));
}

}  // namespace

IndexSet IndexSet::box(std::int64_t begin, std::int64_t end) {
  IndexSet s;
  s.begin_ = begin;
  s.end_ = std::max(begin, end);
  return s;
}

IndexSet IndexSet::image(const Layout& a) { return image(translation(a, 0)); }

IndexSet IndexSet::image(const AffineLayout& a) {
  IndexSet s;
  s.is_box_ = false;
  s.image_ = std::make_shared<const AffineLayout>(a);
  s.points_ = std::make_shared<const Result<Points>>(materialize(a));
  return s;
}

Result<Points> IndexSet::points() const {
  if (!is_box_) return *points_;
  if (end_ - begin_ > materialize_limit)
    return unknown("IndexSet: the box " + to_string() + " is larger than the sets materialize.");
  auto pts = std::make_shared<std::vector<std::int64_t>>();
  for (std::int64_t x = begin_; x < end_; ++x) pts->push_back(x);
  return Points(std::move(pts));
}

Result<bool> IndexSet::contains(std::int64_t x) const {
  if (is_box_) return begin_ <= x && x < end_;
  if (!*points_) return points_->failure();
  const std::vector<std::int64_t>& p = ***points_;
  return std::binary_search(p.begin(), p.end(), x);
}

Result<std::int64_t> IndexSet::size() const {
  if (is_box_) return end_ - begin_;
  if (!*points_) return points_->failure();
  return static_cast<std::int64_t>((**points_)->size());
}

Result<bool> IndexSet::disjoint(const IndexSet& other) const {
  if (is_box_ && other.is_box_) return end_ <= other.begin_ || other.end_ <= begin_ || begin_ == end_ || other.begin_ == other.end_;
  if (is_box_ != other.is_box_) {
    const IndexSet& b = is_box_ ? *this : other;
    const IndexSet& img = is_box_ ? other : *this;
    if (!*img.points_) return img.points_->failure();
    const auto& p = **img.points_;
    auto it = std::lower_bound(p->begin(), p->end(), b.begin_);
    return it == p->end() || *it >= b.end_;
  }
  if (!*points_) return points_->failure();
  if (!*other.points_) return other.points_->failure();
  const auto& x = **points_;
  const auto& y = **other.points_;
  auto i = x->begin();
  auto j = y->begin();
  while (i != x->end() && j != y->end()) {
    if (*i == *j) return false;
    if (*i < *j) ++i; else ++j;
  }
  return true;
}

Result<bool> IndexSet::subset_of(const IndexSet& other) const {
  if (is_box_ && other.is_box_) return begin_ == end_ || (other.begin_ <= begin_ && end_ <= other.end_);
  Result<Points> mine = points();
  if (!mine) return mine.failure();
  for (std::int64_t x : **mine) {
    Result<bool> in = other.contains(x);
    if (!in) return in.failure();
    if (!*in) return false;
  }
  return true;
}

std::string IndexSet::to_string() const {
  if (is_box_) {
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on the chained form.
    std::string s = "[";
    s += std::to_string(begin_);
    s += ", ";
    s += std::to_string(end_);
    s += ")";
    return s;
  }
  return "image(" + tack::tile::to_string(*image_) + ")";
}

}  // namespace tack::tile
