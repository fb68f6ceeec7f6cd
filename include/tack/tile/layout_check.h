// The exhaustive finite checker: decides a property of a layout by
// evaluating it at every point of its domain.
//
// It is the independent oracle for the prover (prover.h) and for the
// algebra's postconditions: it shares no code with either, only the IntTuple
// and Layout data types, and reads every leaf itself. It uses the runtime
// values bound to dynamic leaves, so it also checks a dynamic layout once its
// values are known. Every query answers nullopt when a leaf is unbound or the
// domain has more than `limit` points.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "tack/tile/layout.h"

namespace tack::tile::check {

inline constexpr std::int64_t default_limit = std::int64_t{1} << 22;

// A(i) for every i in [0, size(A)), colexicographic (first leaf fastest).
std::optional<std::vector<std::int64_t>> values(const Layout& a, std::int64_t limit = default_limit);

// lo <= A(i) < hi for every i.
std::optional<bool> is_bounded(const Layout& a, std::int64_t lo, std::int64_t hi, std::int64_t limit = default_limit);
// 0 <= A(i) < n for every i.
std::optional<bool> is_total(const Layout& a, std::int64_t n, std::int64_t limit = default_limit);
// A(i) != A(j) for every i != j.
std::optional<bool> is_injective(const Layout& a, std::int64_t limit = default_limit);
// The image of A is exactly [0, n).
std::optional<bool> is_surjective(const Layout& a, std::int64_t n, std::int64_t limit = default_limit);
// Same size, and A(i) == B(i) for every i.
std::optional<bool> same_function(const Layout& a, const Layout& b, std::int64_t limit = default_limit);

// A finite family of flat static layouts, for exhaustive tests of the algebra.
struct LayoutFamily {
  int max_rank = 3;
  std::int64_t max_size = 64;
  // Strides of leaves whose extent is at least 2.
  std::vector<std::int64_t> strides = {0, 1, 2, 3, 4, 5, 6, 7, 8, 16};
  // An extent-1 leaf's stride never changes the function, only how the layout
  // is written, so two representatives cover it.
  std::vector<std::int64_t> unit_extent_strides = {0, 5};
};

// Every layout of the family: rank 1 .. max_rank (rank 1 as a leaf layout
// "s:d", higher ranks as flat tuples), extents >= 1 with product <= max_size.
std::vector<Layout> enumerate_layouts(const LayoutFamily& family);

// Random static layouts for property tests, from a seeded generator.
struct RandomLayoutOptions {
  int max_rank = 4;                // top-level modes
  std::int64_t max_size = 512;
  double nested = 0.25;            // chance that a top-level mode is a pair of leaves
  double mixed_radix = 0.5;        // chance of strides from a permuted, gapped mixed radix
  double negative_stride = 0.0;    // chance that a leaf's stride is negated
};

// A layout drawn from `rng`: extents in [1, 8] (biased to small), total size
// at most max_size; strides either arbitrary in {0..12, 16, 24, 32, 48, 64}
// or those of a random permutation of the leaves laid out as a mixed radix
// with random gaps, so that injective layouts are common.
Layout random_layout(std::mt19937_64& rng, const RandomLayoutOptions& options = {});

}  // namespace tack::tile::check
