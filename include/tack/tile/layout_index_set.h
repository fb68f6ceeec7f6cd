// IndexSet: a finite set of codomain indices, as a box or as a layout image.
//
// A box is the interval [begin, end) of the integer codomain; an image is the
// set of values of an affine layout (a layout plus an offset). Images are
// decided exactly by materializing their values, so they need static leaves
// and a bounded size; past that every query answers unknown. The sets serve
// postconditions such as complement's: image(A) and image(complement(A))
// meet only in 0, and the translates A + C(j) are pairwise disjoint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tack/tile/layout.h"

namespace tack::tile {

class IndexSet {
 public:
  // [begin, end); empty when end <= begin.
  static IndexSet box(std::int64_t begin, std::int64_t end);
  // { A(i) : i in [0, size(A)) }.
  static IndexSet image(const Layout& a);
  // { A(i) + offset : i in [0, size(A)) }.
  static IndexSet image(const AffineLayout& a);

  Result<bool> contains(std::int64_t x) const;
  // Number of distinct indices.
  Result<std::int64_t> size() const;
  // No index in both sets.
  Result<bool> disjoint(const IndexSet& other) const;
  // Every index of this set is in `other`.
  Result<bool> subset_of(const IndexSet& other) const;

  std::string to_string() const;

  // Images larger than this many points are not materialized.
  static constexpr std::int64_t materialize_limit = std::int64_t{1} << 22;

 private:
  IndexSet() = default;
  // The sorted distinct points, or why they are not available.
  Result<std::shared_ptr<const std::vector<std::int64_t>>> points() const;

  bool is_box_ = true;
  std::int64_t begin_ = 0;
  std::int64_t end_ = 0;
  std::shared_ptr<const AffineLayout> image_;
  std::shared_ptr<const Result<std::shared_ptr<const std::vector<std::int64_t>>>> points_;
};

}  // namespace tack::tile
