// The layout algebra of tack::tile: CuTe-style mixed-radix index maps.
//
// A layout A = S:D is a shape S and a congruent stride D (both IntTuples). It
// is a function from the integers [0, size(A)) to the integers: an index i is
// split into one coordinate per leaf of S, colexicographically (the first leaf
// varies fastest), and A(i) = sum over leaves of coordinate * stride.
//
//     A = (4,(2,3)):(1,(4,8))      A(13) = A((1,(1,1))) = 1 + 4 + 8 = 13
//
// Notation is CuTe's, "shape:stride"; a rank-1 layout whose shape is a leaf
// prints without parentheses ("4:2"). Extents are >= 1; strides may be any
// integer, including 0 (broadcast) and negative values.
//
// Every operation below is a free function that states
//   @pre   what the arguments must satisfy (checked: a violation returns an
//          inadmissible Failure, never a layout),
//   @post  the defining property of the result, which the tests check over
//          every index of tables of cases and of every enumerated layout,
//   and a worked example. docs/tile/layout.md is the reference page.
//
// Operations reason only with static leaves. An operation that needs a value
// hidden by a dynamic or symbolic leaf returns an unknown Failure; such a leaf
// it does not need to inspect passes through unchanged. The constructors of
// index maps (compact_layout, projection, permutation) build symbolic strides
// over dynamic extents, which the prover reasons about.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tack/tile/layout_int_tuple.h"
#include "tack/tile/layout_result.h"

namespace tack::tile {

class Layout {
 public:
  // Throws std::invalid_argument unless shape and stride are congruent and
  // every static extent is >= 1; parse_layout reports the same as a Failure.
  Layout(IntTuple shape, IntTuple stride);

  const IntTuple& shape() const { return shape_; }
  const IntTuple& stride() const { return stride_; }

  bool operator==(const Layout& other) const {
    return shape_ == other.shape_ && stride_ == other.stride_;
  }
  bool operator!=(const Layout& other) const { return !(*this == other); }

 private:
  IntTuple shape_;
  IntTuple stride_;
};

// A tiler applies one layout to each leading top-level mode of another layout
// ("by-mode"); modes past its length are left alone by divide and product.
using Tiler = std::vector<Layout>;

// ---------------------------------------------------------------------------
// Construction, inspection, evaluation
// ---------------------------------------------------------------------------

// The layout whose top-level modes are `modes`, in order.
// @pre   modes is not empty.
// @post  rank(result) == modes.size(), mode(result, i) == modes[i].
// Example: make_layout({4:1, (2,3):(4,8)}) == (4,(2,3)):(1,(4,8))
Layout make_layout(const std::vector<Layout>& modes);

// The compact column-major layout of `shape`: stride of each leaf = product of
// the extents before it, symbolic after a dynamic extent.
// @pre   the product of the static extents fits 64 bits.
// @post  result is a bijection from [0, size) onto [0, size), result(i) == i.
// Example: compact_layout((4,(2,3))) == (4,(2,3)):(1,(4,8))
//          compact_layout((?1,4,?2)) == (?1,4,?2):(1,?1,4*?1)
Result<Layout> compact_layout(const IntTuple& shape);

std::size_t rank(const Layout& a);
int depth(const Layout& a);
// Top-level mode i. @pre i < rank(a). Example: mode((4,(2,3)):(1,(4,8)), 1) == (2,3):(4,8)
Layout mode(const Layout& a, std::size_t i);
// The same function with every leaf as a top-level mode.
// Example: flatten((4,(2,3)):(1,(4,8))) == (4,2,3):(1,4,8)
Layout flatten(const Layout& a);
bool is_static(const Layout& a);
Layout bind(const Layout& a, const std::map<SymbolId, std::int64_t>& values);

// Number of points of the domain.
// @pre   every extent static (else unknown).
// Example: size((4,(2,3)):(1,(4,8))) == 24
Result<std::int64_t> size(const Layout& a);

// One more than the largest value the layout takes: 1 + sum of max(0, (s-1)*d).
// @pre   every leaf static (else unknown).
// @post  0 <= a(i) < cosize(a) for all i when every stride is >= 0.
// Example: cosize((4,2):(2,1)) == 8 ; cosize(4:0) == 1
Result<std::int64_t> cosize(const Layout& a);

// A(i) for a linear index, colexicographic split over the leaves of the
// shape, using the runtime values of bound dynamic leaves.
// @post  nullopt when i is outside [0, size(a)) or a needed leaf is unbound.
// Example: evaluate((4,(2,3)):(1,(4,8)), 13) == 13
std::optional<std::int64_t> evaluate(const Layout& a, std::int64_t i);
// A at a flat coordinate (one entry per leaf of the shape).
// @post  nullopt when the coordinate has the wrong length, is out of range,
//        or a needed leaf is unbound.
// Example: evaluate_coordinate((4,(2,3)):(1,(4,8)), {1, 1, 1}) == 13
std::optional<std::int64_t> evaluate_coordinate(const Layout& a, const std::vector<std::int64_t>& coordinate);

std::string to_string(const Layout& a);
// Parses "shape:stride" in the notation of to_string; used by tests and
// debugging. Example: parse_layout("((2,2),3):((24,2),8)")
Result<Layout> parse_layout(std::string_view text);

// ---------------------------------------------------------------------------
// Coalesce
// ---------------------------------------------------------------------------

// Merges adjacent leaves (s0:d0),(s1:d1) with d1 == s0*d0 and drops
// extent-1 leaves: the simplest layout with the same function.
// @pre   none; leaves whose merge would need a dynamic value stay apart.
// @post  size(result) == size(a), depth(result) <= 1, result(i) == a(i) for all i.
// Example: coalesce((2,(1,6)):(1,(6,2))) == 12:1 ; coalesce((1,1):(3,5)) == 1:0
Layout coalesce(const Layout& a);

// Coalesces at the terminals of `profile`: where the profile has a tuple the
// corresponding modes are coalesced one by one, where it has a leaf the whole
// sub-layout is coalesced.
// @pre   profile is no deeper than a, and each tuple of profile has no more
//        entries than the corresponding mode of a.
// @post  rank(result) == rank(a) when profile is a tuple; each mode named by
//        the profile computes the same function of its own linear index.
// Example: coalesce((2,(1,6)):(1,(6,2)), (1,1)) == (2,6):(1,2)
Result<Layout> coalesce(const Layout& a, const IntTuple& profile);

// Coalesces each top-level mode on its own: coalesce(a, (1,...,1)).
// @post  rank(result) == rank(a); mode i computes the same function as mode(a, i).
// Example: coalesce_modes(((2,2),(3,1)):((1,2),(4,9))) == (4,3):(1,4)
Layout coalesce_modes(const Layout& a);

// ---------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------

// Functional composition R = A o B: R(i) = A(B(i)), with R shaped like B.
// @pre   (domain) every stride of B is >= 0 and B's image lies in
//        [0, size(A)): A is applied only inside its domain;
//        (stride divisibility) for each leaf s:d of B, walking A's coalesced
//        modes, d is a product of whole leading extents times a divisor of the
//        next extent (or lands in the last mode);
//        (shape divisibility) s is then a product of whole following extents
//        times at most a prefix of one more extent;
//        (no carries) B's nontrivial leaves, sorted by stride, form a
//        mixed radix: each stride exceeds the largest value of the leaves
//        before it, so A(sum) == sum of A(each leaf).
//        When B's whole image lies inside A's first coalesced mode, A is
//        linear there and only the domain condition applies.
// @post  R is congruent to B when B is a tuple; size(R) == size(B);
//        R(i) == A(B(i)) for every i in [0, size(B)).
// Example: (6,2):(8,2) o (4,3):(3,1) == ((2,2),3):((24,2),8)
//          (4,3):(1,10) o 6:1 is inadmissible: 6 is neither a divisor nor a
//          multiple of the extent 4 it must cross.
Result<Layout> composition(const Layout& a, const Layout& b);

// By-mode composition: mode i of the result is mode(a, i) o b[i]; modes of a
// past b.size() are dropped.
// @pre   b.size() <= rank(a), each mode composition admissible.
// Example: composition((12,8):(1,12), {3:4, 4:2}) == (3,4):(4,24)
Result<Layout> composition(const Layout& a, const Tiler& b);

// ---------------------------------------------------------------------------
// Complement
// ---------------------------------------------------------------------------

// The layout C that fills the gaps of A up to `cotarget`: sorting A's leaves
// by stride, C has a mode for each gap below and between them, then a last
// mode of stride span(A) = (largest stride * its extent) repeating A's
// footprint ceil(cotarget / span(A)) times.
// @pre   every leaf static; A injective in the strong sense that its nontrivial
//        leaves sorted by stride form a gapped mixed radix: strides > 0 and
//        each stride a multiple of the previous stride times its extent;
//        cotarget >= 1.
// @post  C's strides strictly increase; (A, C) is a bijection from
//        [0, size(A)*size(C)) onto [0, span(A)*ceil(cotarget/span(A))), which
//        is [0, cotarget) when span(A) divides cotarget; so image(C) meets
//        image(A) only in 0, and size(A)*size(C) >= cotarget.
// Example: complement(4:2, 24) == (2,3):(1,8)
//          complement(6:4, 24) == 4:1
//          complement((2,2):(1,6), 24) == (3,2):(2,12)
//          complement((2,2):(1,1), 4) is inadmissible (not injective)
Result<Layout> complement(const Layout& a, std::int64_t cotarget);
// complement(a, cosize(a)).
Result<Layout> complement(const Layout& a);

// ---------------------------------------------------------------------------
// Divide
// ---------------------------------------------------------------------------

// Splits A into tiles of B: A o (B, complement(B, size(A))). Mode 0 of the
// result walks one tile, mode 1 walks the tiles.
// @pre   size(A) static; complement(B, size(A)) and the composition admissible
//        (so, for non-negative strides, B's tiles fit A's domain exactly).
// @post  result == composition(A, make_layout({B, complement(B, size(A))})).
// Example: logical_divide((4,2,3):(2,1,8), 4:2) == ((2,2),(2,3)):((4,1),(2,8))
Result<Layout> logical_divide(const Layout& a, const Layout& b);
// By-mode: mode i of the result is logical_divide(mode(a, i), b[i]); modes
// past b.size() are unchanged. @pre b.size() <= rank(a).
// Example: logical_divide((8,6):(1,8), {2:1, 3:1}) == ((2,4),(3,2)):((1,2),(8,24))
Result<Layout> logical_divide(const Layout& a, const Tiler& b);

// The same function as logical_divide, regrouped as ((tile modes), (rest modes)):
// for a tiler, ((t0,t1,..),(r0,r1,..,unchanged modes..)).
// @post  flatten(result) == flat_divide(a, b).
// Example: zipped_divide((8,6):(1,8), {2:1, 3:1}) == ((2,3),(4,2)):((1,8),(2,24))
Result<Layout> zipped_divide(const Layout& a, const Layout& b);
Result<Layout> zipped_divide(const Layout& a, const Tiler& b);

// zipped_divide with the rest modes lifted to the top level: ((tile), r0, r1, ...).
// Example: tiled_divide((8,6):(1,8), {2:1, 3:1}) == ((2,3),4,2):((1,8),2,24)
Result<Layout> tiled_divide(const Layout& a, const Layout& b);
Result<Layout> tiled_divide(const Layout& a, const Tiler& b);

// zipped_divide with both groups lifted to the top level: (t0, t1, ..., r0, r1, ...).
// Example: flat_divide((8,6):(1,8), {2:1, 3:1}) == (2,3,4,2):(1,8,2,24)
Result<Layout> flat_divide(const Layout& a, const Layout& b);
Result<Layout> flat_divide(const Layout& a, const Tiler& b);

// ---------------------------------------------------------------------------
// Product
// ---------------------------------------------------------------------------

// Repeats A in the pattern of B: (A, complement(A, size(A)*cosize(B)) o B).
// @pre   A and B static; the complement and the composition admissible.
// @post  result == make_layout({A, composition(complement(A, size(A)*cosize(B)), B)}).
// Example: logical_product((2,2):(4,1), 6:1) == ((2,2),(2,3)):((4,1),(2,8))
Result<Layout> logical_product(const Layout& a, const Layout& b);
// By-mode: mode i is logical_product(mode(a, i), b[i]); modes past b.size() unchanged.
Result<Layout> logical_product(const Layout& a, const Tiler& b);

// Rank-preserving products. With R = max(rank A, rank B), both padded to rank
// R with 1:0 modes, and P = complement(A, size(A)*cosize(B)) o B (rank R):
//   blocked_product: mode i = coalesce((A_i, P_i)), A's block is contiguous in mode i;
//   raked_product:   mode i = coalesce((P_i, A_i)), A's elements are spread across P.
// @pre   as logical_product.
// @post  rank(result) == R; for every mode coordinate x_i of the result,
//        blocked(x) == A(x_i mod size(A_i)) + P(x_i div size(A_i)) per mode,
//        raked(x)   == P(x_i mod size(P_i)) + A(x_i div size(P_i)) per mode.
// Example: blocked_product((2,5):(5,1), (3,4):(1,3)) == (6,(5,4)):(5,(1,30))
//          raked_product((2,5):(5,1), (3,4):(1,3))   == ((3,2),(4,5)):((10,5),(30,1))
Result<Layout> blocked_product(const Layout& a, const Layout& b);
Result<Layout> raked_product(const Layout& a, const Layout& b);

// ---------------------------------------------------------------------------
// Inverses
// ---------------------------------------------------------------------------

// The largest R found by following strides 1, s*d, ... through A's coalesced
// positive-stride modes: R(i) indexes A's domain and A undoes it.
// @pre   every leaf static.
// @post  A(R(i)) == i for every i in [0, size(R)); 1:0 when A never takes the value 1.
// Example: right_inverse((4,2):(2,1)) == (2,4):(4,1)
Result<Layout> right_inverse(const Layout& a);

// right_inverse((A, complement(A))): the layout that recovers A's index from
// A's value.
// @pre   A static and complement(A) admissible (A is a gapped mixed radix).
// @post  L(A(i)) == i for every i in [0, size(A)).
// Example: left_inverse(4:2) == (2,4):(4,1)
Result<Layout> left_inverse(const Layout& a);

// The number N of leading indices on which A and B agree through B's right
// inverse: the extent of the leading stride-1 mode of coalesce(A o right_inverse(B)).
// It is the width of a vector access that reads consecutive elements of both.
// @pre   A and B static (else unknown).
// @post  N >= 1 and A(R(n)) == n == B(R(n)) for all n < N, R = right_inverse(B);
//        N == 1 when the composition is inadmissible.
// Example: max_common_vector((4,8):(1,4), (4,8):(1,4)) == 32
//          max_common_vector((4,8):(1,4), (4,8):(8,1)) == 1
Result<std::int64_t> max_common_vector(const Layout& a, const Layout& b);

// ---------------------------------------------------------------------------
// Projection, permutation, translation
// ---------------------------------------------------------------------------

// The projection of the coordinate space `shape` onto the modes `keep`: maps
// a point of shape to the colexicographic index of its kept sub-coordinate in
// the space (shape[keep[0]], shape[keep[1]], ...). Dropped modes get stride 0.
// @pre   keep holds distinct top-level mode indices of shape; the product of
//        the kept static extents fits 64 bits (strides after a dynamic
//        extent are symbolic).
// @post  result(c) == index of (c[keep[0]], c[keep[1]], ...) in the kept space;
//        result is surjective onto [0, product of kept extents).
// Example: projection((4,3,2), {0,2}) == (4,3,2):(1,0,4)
Result<Layout> projection(const IntTuple& shape, const std::vector<std::size_t>& keep);

// The bijection that reorders the modes of `shape`: a point c maps to the
// colexicographic index of (c[order[0]], c[order[1]], ...) in the permuted space.
// @pre   order is a permutation of [0, rank(shape)); extents as for projection.
// @post  result is a bijection from [0, size) onto [0, size).
// Example: permutation((4,3,2), {2,0,1}) == (4,3,2):(2,8,1)
Result<Layout> permutation(const IntTuple& shape, const std::vector<std::size_t>& order);

// A layout followed by a constant offset: x -> A(x) + offset. It is what a
// subtile of a larger buffer is: the same layout, starting elsewhere.
struct AffineLayout {
  Layout layout;
  std::int64_t offset = 0;
  bool operator==(const AffineLayout& other) const {
    return layout == other.layout && offset == other.offset;
  }
};

// Translation of A by `offset`.
// @post  result(i) == A(i) + offset.
// Example: translation(4:2, 3) evaluates to 3, 5, 7, 9.
AffineLayout translation(const Layout& a, std::int64_t offset);
std::optional<std::int64_t> evaluate(const AffineLayout& a, std::int64_t i);
// (A + c) o B == (A o B) + c, under composition's preconditions.
Result<AffineLayout> composition(const AffineLayout& a, const Layout& b);
// "4:2+3"; a zero offset prints as the plain layout.
std::string to_string(const AffineLayout& a);

}  // namespace tack::tile
