// Top-K along rows of an f32 matrix, as a merge-and-truncate reduction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "tack/tile/lib/bitonic.h"
#include "tack/tile/lib/common.h"
#include "tack/tile/lib/order.h"

namespace tack::tile::lib {

// A list of (value, position) entries as two tiles of the same shape.
// A Top-K state is its k best entries sorted by before_descending; missing
// entries are the sentinel (-inf, INT64_MAX), which every real entry
// precedes.
using TopKState = Entries;

// The first n (a power of two) entries of a block of m * n entries (m a
// power of two) with distinct positions, sorted: each run of n sorted, then
// runs merged in pairs.
inline TopKState bitonic_block_top(const Tile<float>& v, const Index& p, int64_t n, int64_t m) {
  TopKState t = bitonic::sort({reshape(v, {m, n}), reshape(p, {m, n})}, m, n);
  for (; m > 1; m /= 2) {
    Shape pairs{m / 2, 2, n};
    Tile<float> tv = reshape(std::get<0>(t), pairs);
    Index tp = reshape(std::get<1>(t), pairs);
    Index zero = full<int64_t>({}, 0), one = full<int64_t>({}, 1);
    t = bitonic::merge({extract(tv, 1, zero), extract(tp, 1, zero)}, {extract(tv, 1, one), extract(tp, 1, one)}, m / 2, n);
  }
  return {reshape(std::get<0>(t), {n}), reshape(std::get<1>(t), {n})};
}

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
inline TopKState block_top_by_rank(const Tile<float>& v, const Index& p, int64_t k, int64_t width) {
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

// The first k of a sorted list of n >= k entries.
inline TopKState first_entries(const TopKState& t, int64_t k, int64_t n) {
  if (k == n) return t;
  auto [v, p] = t;
  Shape grid{k, n};
  Tile<bool> at = iota(grid, 0) == iota(grid, 1);
  // One entry per place; -0.0 and 0 add nothing to it exactly.
  Tile<float> values = sum(select(at, broadcast_to(reshape(v, {1, n}), grid), -0.0f), 1);
  Index positions = sum(select(at, broadcast_to(reshape(p, {1, n}), grid), int64_t(0)), 1);
  return {values, positions};
}

inline int64_t power_of_two_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// The largest k that topk reduces through bitonic networks. A network's
// state of n entries needs about n log2(n)^2 / 4 exchanges per block
// against the rank merge's k^2 comparisons, and its tiles are small enough
// that the CPU compiler keeps them in registers; but the networks' code
// grows as n log2(n)^2. With the lowering computing each exchange's tiles
// where they are read (src/tile/lower/fusion.cpp), the first call takes
// about 0.7 s at k = 8, 1.4 s at k = 16, 4.1 s at k = 32 and 8.1 s at k = 64
// on a 2-core Zen 4 in SIMD lanes (k = 16 took 17 s with an array per
// tile; the disk cache keeps the code for later processes), and at
// 1024x4096 k = 32 runs in 23 ms and k = 64 in 39-49 ms against 75-82 for
// the merges of sorted runs that tack.tile uses above (_TopKTournament).
// Above 64 the networks' code would grow past what a first call can
// afford (128 entries: about 2.3 times 64's). (tack.tile now prefilters
// the tournament's rows, topk_threshold below, which makes it the faster
// of the two on rows of 32 times its entries or more, from k = 17.)
inline constexpr int64_t kTopKNetwork = 64;

// The block width topk uses for `k` when none is given: 8 up to k = 8, the
// network's entries (the power of two at or above k) up to kTopKNetwork,
// then k.
inline int64_t topk_block(int64_t k) { return k <= 8 ? 8 : k <= kTopKNetwork ? power_of_two_at_least(k) : k; }

// V[r, :k] and I[r, :k]: the k largest entries of row r of X and their
// column positions, largest first, NaN above everything, equal values by
// lower position. Rows shorter than k end with (-inf, INT64_MAX). The row
// is reduced in blocks of `width` (at least k; 0: topk_block(k)), each
// block giving its own first entries (past the row's end, -inf at its own
// position, which every element of the row precedes, then given the
// sentinel's position), merged into a state of sorted entries:
// - k <= kTopKNetwork: a state of n entries, n the power of two at or
//   above k; blocks widened with sentinels to n times a power of two,
//   sorted and merged by bitonic networks (bitonic_block_top,
//   bitonic::merge);
// - above: a state of k entries; blocks ranked (block_top_by_rank) and
//   merged by rank (merge_truncate).
// The result is the same selection whatever the blocks and the algorithm.
inline Kernel topk(int64_t k, ReductionPolicy policy = ReductionPolicy::unordered_tree, int64_t width = 0) {
  if (width == 0) width = topk_block(k);
  if (width < k) throw Error("topk: the block width " + std::to_string(width) + " is below k = " + std::to_string(k) + ".");
  const bool network = k <= kTopKNetwork;
  const int64_t n = network ? power_of_two_at_least(k) : k;
  const int64_t runs = network ? power_of_two_at_least((width + n - 1) / n) : 1;
  const int64_t loaded = network ? n * runs : width;
  return tile_kernel("topk", [=](TensorView<float, 2> X, TensorView<float, 2> V, TensorView<int64_t, 2> I) {
    Reducer<float, int64_t> merge(
        [=](const TopKState& a, const TopKState& b) {
          if (!network) return merge_truncate(a, b, k);
          auto [v, p] = bitonic::merge(a, b, 1, n);
          return TopKState{reshape(v, {n}), reshape(p, {n})};
        },
        Laws{.associative = true, .commutative = true});
    const int64_t none = std::numeric_limits<int64_t>::max();
    Index cols = X.shape(1);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> values = full<float>({n}, -INFINITY);
      Index positions = full<int64_t>({n}, none);
      for (auto b : reduce(ceil_div(cols, width), policy)) {
        Index at = lib::positions(b * width, loaded);
        Tile<float> v = X(r, span(b * width, loaded)).load(-INFINITY);
        if (loaded > width) {
          // Entries past the block are the sentinel, which the block's own
          // entries precede.
          Tile<bool> inside = iota({loaded}) < width;
          v = select(inside, v, -INFINITY);
          at = select(inside, at, none);
        }
        auto [top_v, top_p] = network ? bitonic_block_top(v, at, n, runs) : block_top_by_rank(v, at, k, width);
        Index real = select(top_p < cols, top_p, none);
        std::tie(values, positions) = merge({values, positions}, TopKState{top_v, real});
      }
      auto [first_v, first_p] = first_entries({values, positions}, k, n);
      V(r, span(0, k)).store(first_v);
      I(r, span(0, k)).store(first_p);
    }
  });
}

// Top-K as a tournament of merges, for k too large for topk's own blocks:
// sort_runs(run, Order::descending) sorts runs of the row padded to run *
// 2^passes, then merge_path(block, Order::descending, keep) passes merge
// pairs of runs keeping the first `keep` (a power of two, at least k and
// the run) of each, until one run is left; this kernel then takes V and I
// from that run (S, P): its first V.shape(1) entries, with the positions of
// the padding (at or past X's row, X giving only the row's length) and the
// entries past S's row the sentinel (-inf, INT64_MAX), as topk gives them.
// Every pass keeps each run's first entries in before_descending's strict
// order, so the result is topk's selection, whatever the runs.
inline Kernel topk_first(int64_t width = 32) {
  return tile_kernel("topk_first", [width](TensorView<float, 2> X, TensorView<float, 2> S, TensorView<int64_t, 2> P,
                                           TensorView<float, 2> V, TensorView<int64_t, 2> I) {
    const int64_t none = std::numeric_limits<int64_t>::max();
    Index cols = X.shape(1);
    for (auto r : parallel(V.shape(0), exec::block))
      for (auto b : parallel(ceil_div(V.shape(1), width))) {
        Tile<float> v = S(r, span(b * width, width)).load(-INFINITY);
        Index p = P(r, span(b * width, width)).load(none);
        V(r, span(b * width, width)).store(v);
        I(r, span(b * width, width)).store(select(p < cols, p, none));
      }
  });
}

// Top-K's prefilter for the tournament (tack.tile's topk above
// kTopKNetwork, and from k = 17 on wide rows): the entries that can be
// among a row's first k, found before any sorting. Groups is any view (zero strides, say: an extent is
// the one kind of launch constant) of shape [Q, L, G]: columns c of a row
// fall into G groups by c % G, and each group's elements at strides
// [q * L, (q + 1) * L) into its q-th run (Q * L strides of G covering the
// row). With `rank` * G >= k, let t be the least over the groups of each
// group's rank-th largest run maximum (NaN counted as +inf: it ranks above
// every value, as in before_descending). Each group then has `rank` runs,
// so `rank` distinct entries, at or above t: at least k in all, so every
// one of the row's first k is at or above t (an entry below t has k
// entries before it). Elements past the row's end count as -inf; a group
// left with fewer than `rank` runs of the row makes t -inf, which keeps
// every entry. Runs of L > 1 elements cost one comparison per element
// instead of the rank-th largest's 2 * rank; on rows of 4096 normal values
// at k = 128 the threshold keeps about 5 % of the row with rank 16 and
// runs of 8, where the least of k groups' maxima keeps about 15 % (up to
// 30 %).
// A value is at or above t when it is NaN or compares >= t (-0 equal to +0).
inline Tile<bool> at_or_above(const Tile<float>& x, const Tile<float>& t) { return (x >= t) | (x != x); }

// T[r] = row r's threshold t and N[r] the number of its entries at or
// above t, `width` groups at a time. Each group keeps the `rank` largest
// run maxima so far, largest first (best[0] >= best[1] >= ...); a new
// maximum m moves into place i when it is above best[i] and the ones
// before i shift down: best[i] = max(best[i], min(best[i - 1], m)).
// (IEEE maximum and minimum would order NaN and zeros, which cost here
// five comparisons and selects where one does.)
inline Kernel topk_threshold(int64_t rank = 16, int64_t width = 16) {
  if (rank < 1) throw Error("topk_threshold: the rank " + std::to_string(rank) + " is below 1.");
  return tile_kernel("topk_threshold", [rank, width](TensorView<float, 2> X, TensorView<float, 3> Groups,
                                                     TensorView<float, 1> T, TensorView<int64_t, 1> N) {
    Index runs = Groups.shape(0), run = Groups.shape(1), groups = Groups.shape(2), cols = X.shape(1);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> t = INFINITY;
      for (auto g : serial(ceil_div(groups, width))) {
        // Groups [g * width, (g + 1) * width): their elements at stride s
        // are the columns s * G + g * width + j.
        std::vector<Tile<float>> best(rank, full<float>({width}, -INFINITY));
        for (auto q : serial(runs)) {
          // Plain comparisons and selects: a NaN is kept as the run's
          // maximum and then made +inf, so no value compared is NaN, and
          // the sign of an equal zero does not matter to t.
          Tile<float> m = full<float>({width}, -INFINITY);
          for (auto s : serial(run)) {
            Tile<float> x = X(r, span((q * run + s) * groups + g * width, width)).load(-INFINITY);
            m = select((x > m) | (x != x), x, m);
          }
          m = select(m != m, INFINITY, m);
          for (int64_t i = rank - 1; i > 0; --i) {
            Tile<float> shifted = select(best[i - 1] < m, best[i - 1], m);
            best[i] = select(shifted > best[i], shifted, best[i]);
          }
          best[0] = select(m > best[0], m, best[0]);
        }
        t = minimum(t, min(select(in_range(g * width, width, groups), best[rank - 1], INFINITY), 0));
      }
      Index count = int64_t(0);
      for (auto b : reduce(ceil_div(cols, width))) {
        Tile<bool> kept = in_range(b * width, width, cols) & at_or_above(X(r, span(b * width, width)).load(-INFINITY), t);
        count = count + sum(cast<int64_t>(kept), 0);
      }
      T(r).store(t);
      N(r).store(count);
    }
  });
}

// The entries of row r of X at or above T[r], in their order: V[r, :] their
// values and P[r, :] their columns, then (-inf, INT64_MAX) to V's row's end
// (the tournament's padding, after every entry). Places past V's row are
// not written (launch V at least N[r] wide). Every entry is stored at the
// next free place, which only an entry kept moves on: one not kept is
// overwritten by the next one kept, or by the padding, and no branch
// depends on the data (one on whether the entry is kept took half of the
// kernel's time on random rows).
inline Kernel topk_compact(int64_t width = 32) {
  return tile_kernel("topk_compact", [width](TensorView<float, 2> X, TensorView<float, 1> T, TensorView<float, 2> V,
                                             TensorView<int64_t, 2> P) {
    const int64_t none = std::numeric_limits<int64_t>::max();
    Index w = V.shape(1);
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> t = T[{r}];
      Index count = int64_t(0);
      for (auto c : serial(X.shape(1))) {
        Tile<float> x = X[{r, c}];
        Tile<bool> kept = at_or_above(x, t);
        V(r, count).store(x);  // past the row (count == w): not written
        P(r, count).store(c);
        count = count + cast<int64_t>(kept);
      }
      for (auto b : parallel(ceil_div(w, width))) {
        Tile<bool> filled = positions(b * width, width) < count;
        V(r, span(b * width, width)).store(select(filled, V(r, span(b * width, width)).load(-INFINITY), -INFINITY));
        P(r, span(b * width, width)).store(select(filled, P(r, span(b * width, width)).load(none), none));
      }
    }
  });
}

// V[r, j] = S[r, j] and I[r, j] = P[r, Q[r, j]]: the tournament's first
// entries over compacted rows (S, Q: values, places in the compacted row)
// given the columns those places came from (P, topk_compact's).
inline Kernel topk_columns() {
  return tile_kernel("topk_columns", [](TensorView<float, 2> S, TensorView<int64_t, 2> Q, TensorView<int64_t, 2> P,
                                        TensorView<float, 2> V, TensorView<int64_t, 2> I) {
    const int64_t none = std::numeric_limits<int64_t>::max();
    for (auto r : parallel(V.shape(0), exec::block))
      for (auto j : parallel(V.shape(1))) {
        V(r, j).store(S(r, j).load(-INFINITY));
        I(r, j).store(P(r, Q(r, j).load(0)).load(none));
      }
  });
}

}  // namespace tack::tile::lib
