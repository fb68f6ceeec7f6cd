// Top-K along rows of an f32 matrix, as a merge-and-truncate reduction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>

#include "tack/tile/lib/common.h"
#include "tack/tile/lib/order.h"

namespace tack::tile::lib {

// A sorted list of k (value, position) entries; missing entries are the
// sentinel (-inf, INT64_MAX), which every real entry precedes.
using TopKState = std::tuple<Tile<float>, Index>;

// The first k entries of the merge of two sorted lists, under
// before_descending. Each entry's place in the merged list is its place in
// its own list plus the number of entries of the other list that precede it
// (ties between the lists go to `a`); the output then picks, for each place
// below k, the one entry that lands there.
inline TopKState merge_truncate(const TopKState& a, const TopKState& b, int64_t k) {
  auto [av, ai] = a;
  auto [bv, bi] = b;
  Shape col{k, 1}, row{1, k}, grid{k, k};
  // b_first[i, j]: b[j] precedes a[i].
  Tile<bool> b_first = before_descending(reshape(bv, row), reshape(bi, row), reshape(av, col), reshape(ai, col));
  Index b_before_a = sum(cast<int64_t>(b_first), 1);
  Index a_before_b = sum(cast<int64_t>(!b_first), 0);
  Index place_a = iota({k}) + b_before_a;
  Index place_b = iota({k}) + a_before_b;
  Index out = iota(grid, 0);
  Tile<bool> from_a = out == reshape(place_a, row);
  Tile<bool> from_b = out == reshape(place_b, row);
  // One candidate per place is real; -0.0 and 0 add nothing to it exactly.
  // Each reduction is its own statement, so the recorded order does not
  // depend on the compiler's order of evaluating operands.
  Tile<float> v_from_a = sum(select(from_a, broadcast_to(reshape(av, row), grid), -0.0f), 1);
  Tile<float> v_from_b = sum(select(from_b, broadcast_to(reshape(bv, row), grid), -0.0f), 1);
  Index i_from_a = sum(select(from_a, broadcast_to(reshape(ai, row), grid), int64_t(0)), 1);
  Index i_from_b = sum(select(from_b, broadcast_to(reshape(bi, row), grid), int64_t(0)), 1);
  Tile<float> v = v_from_a + v_from_b;
  Index i = i_from_a + i_from_b;
  return {v, i};
}

// The first k entries, under before_descending, of a block of `width` >= k
// entries with distinct positions: each entry's place is the number of
// entries of the block that precede it (a permutation of the places), and
// place t takes the one entry ranked t.
inline TopKState block_top(const Tile<float>& v, const Index& p, int64_t k, int64_t width) {
  Shape col{width, 1}, row{1, width}, grid{k, width};
  // first[i, j]: entry j precedes entry i.
  Tile<bool> first = before_descending(reshape(v, row), reshape(p, row), reshape(v, col), reshape(p, col));
  Index rank = sum(cast<int64_t>(first), 1);
  Tile<bool> at = iota(grid, 0) == reshape(rank, row);
  // One entry per place; -0.0 and 0 add nothing to it exactly.
  Tile<float> values = sum(select(at, broadcast_to(reshape(v, row), grid), -0.0f), 1);
  Index positions = sum(select(at, broadcast_to(reshape(p, row), grid), int64_t(0)), 1);
  return {values, positions};
}

// The block width topk uses for `k` when none is given: 4 up to k = 4 and
// k up to k = 8, small enough that the CPU compiler keeps a block's tiles
// in registers (on a 2-core Zen 3 with AVX2 at 1024x4096: 8-25x faster
// than blocks of 16 for k <= 4, 1.8-2.4x for k = 5 and 6, even at 8), then
// 16 up to k = 16, then k.
inline int64_t topk_block(int64_t k) { return k > 16 ? k : k > 8 ? 16 : std::max<int64_t>(k, 4); }

// V[r, :k] and I[r, :k]: the k largest entries of row r of X and their
// column positions, largest first, NaN above everything, equal values by
// lower position. Rows shorter than k end with (-inf, INT64_MAX). The row
// is reduced in blocks of `width` (at least k; 0: topk_block(k)): each
// block contributes its own first k entries (block_top; past the row's
// end, -inf at its own position, which every element of the row
// precedes, then given the sentinel's position), merged by
// merge_truncate. The result is the same selection whatever the blocks.
inline Kernel topk(int64_t k, ReductionPolicy policy = ReductionPolicy::unordered_tree, int64_t width = 0) {
  if (width == 0) width = topk_block(k);
  if (width < k) throw Error("topk: the block width " + std::to_string(width) + " is below k = " + std::to_string(k) + ".");
  return tile_kernel("topk", [k, policy, width](TensorView<float, 2> X, TensorView<float, 2> V, TensorView<int64_t, 2> I) {
    Reducer<float, int64_t> merge([k](const TopKState& a, const TopKState& b) { return merge_truncate(a, b, k); },
                                  Laws{.associative = true, .commutative = true});
    const int64_t none = std::numeric_limits<int64_t>::max();
    Index cols = X.shape(1);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> values = full<float>({k}, -INFINITY);
      Index positions = full<int64_t>({k}, none);
      for (auto b : reduce(ceil_div(cols, width), policy)) {
        Index at = lib::positions(b * width, width);
        Tile<float> v = X(r, span(b * width, width)).load(-INFINITY);
        auto [top_v, top_p] = block_top(v, at, k, width);
        Index real = select(top_p < cols, top_p, none);
        std::tie(values, positions) = merge({values, positions}, TopKState{top_v, real});
      }
      V(r, span(0, k)).store(values);
      I(r, span(0, k)).store(positions);
    }
  });
}

}  // namespace tack::tile::lib
