// The tri-state layout prover: PROVEN, DISPROVEN or UNKNOWN.
//
// It decides totality, bounds, injectivity and surjectivity of a layout by
// reasoning about its extents and strides, never by enumerating its domain.
// A proof holds for every runtime value of the layout's dynamic leaves
// (extents are at least 1); a disproof comes with a witness wherever one can
// be named. UNKNOWN means the question lies outside the fragment below, not
// that the property fails; every legality check treats it as a rejection.
//
// The fragment (docs/tile/layout.md has the arguments in full):
//   bounds, totality  exact for static leaves: the extreme values of a layout
//                     are sums of per-leaf extremes. A dynamic leaf with a
//                     nonzero stride leaves it UNKNOWN unless the static
//                     leaves alone already break the bound.
//   injectivity       PROVEN when the leaves, sorted by |stride|, form a
//                     (gapped) mixed radix: each |stride| >= the previous
//                     |stride| * extent. Extents and strides may be symbolic
//                     (monomials over run-time extents, each >= 1): the
//                     inequality holds for every value when the right side's
//                     symbols are among the left's and its |coefficient| is
//                     no larger, so compact layouts over run-time extents are
//                     proven. DISPROVEN by an explicit colliding pair: a
//                     stride-0 leaf, or a nonzero difference vector delta with
//                     |delta_k| < extent_k and sum delta_k * stride_k == 0,
//                     found by solving the two largest leaves with the
//                     extended gcd for each difference of the others (within
//                     a budget). PROVEN when that search is exhaustive and
//                     finds none. Otherwise UNKNOWN.
//   surjectivity      onto [0, n) means image == [0, n). Exact for static
//                     leaves: after totality, sorted by stride the values
//                     reachable by the leaves so far are an interval [0, r]
//                     as long as each next stride is <= r + 1; the first
//                     stride that jumps further proves r + 1 is never taken.
//                     Onto a symbolic size n: PROVEN for a mixed radix
//                     without gaps (strides 1, e0, e0*e1, ... in some order)
//                     whose extents multiply to n; UNKNOWN otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tack/tile/layout.h"

namespace tack::tile {

enum class Truth { proven, disproven, unknown };
const char* to_string(Truth t);

struct Verdict {
  Truth truth = Truth::unknown;
  // The argument that decided it, or what kept it undecided; one sentence.
  std::string reason;
  // Witness points, as flat coordinates (one entry per leaf of the shape):
  // one point whose value breaks the bound, or two distinct points with the
  // same value. Empty when the disproof names no point.
  std::vector<std::vector<std::int64_t>> points;
  // Surjectivity: a value of [0, n) the layout never takes.
  std::optional<std::int64_t> missing_value;

  bool proven() const { return truth == Truth::proven; }
  bool disproven() const { return truth == Truth::disproven; }
};

// lo <= A(i) + offset < hi for every i of A's domain.
Verdict prove_bounds(const AffineLayout& a, std::int64_t lo, std::int64_t hi);
// Every point maps inside the codomain extent: 0 <= A(i) < n.
Verdict prove_total(const Layout& a, std::int64_t n);
// A(i) == A(j) only when i == j.
Verdict prove_injective(const Layout& a);
// A's image is exactly [0, n).
Verdict prove_surjective(const Layout& a, std::int64_t n);
// Injective and surjective onto [0, n).
Verdict prove_bijective(const Layout& a, std::int64_t n);
// The same onto [0, n) for a leaf n that may be symbolic (the product of a
// nest's run-time extents, say).
Verdict prove_bijective(const Layout& a, const IntTuple& n);

// Legality checks for other passes. Each accepts only a proof: UNKNOWN and
// DISPROVEN both reject.
//
// A store through `a` into a buffer of `extent` elements: every participant
// writes inside the buffer and no two write the same element.
bool is_legal_store_layout(const Layout& a, std::int64_t extent);
// A load through `a` from a buffer of `extent` elements: every read is inside.
bool is_legal_load_layout(const Layout& a, std::int64_t extent);
// A relabeling of [0, n): every element exactly once.
bool is_legal_bijection(const Layout& a, std::int64_t n);
bool is_legal_bijection(const Layout& a, const IntTuple& n);

}  // namespace tack::tile
