// Sorting rows of an f32 matrix.
#pragma once

#include "tack/tile/lib/bitonic.h"
#include "tack/tile/lib/common.h"
#include "tack/tile/lib/order.h"

namespace tack::tile::lib {

// Y[r, :] is row r of X in increasing order (NaN last, equal values by
// lower position: a stable sort) and I[r, :] the positions they came from.
// Each element's final place is the number of elements that precede it,
// counted in blocks of `width`; the element is then scattered there. Full
// sort is a permutation of the row, so it is written through memory.
inline Kernel sort(int64_t width = 32) {
  return tile_kernel("sort", [width](TensorView<float, 2> X, TensorView<float, 2> Y, TensorView<int64_t, 2> I) {
    Index cols = X.shape(1);
    for (auto r : parallel(X.shape(0), exec::block)) {
      for (auto i : parallel(cols)) {
        Tile<float> x = X[{r, i}];
        Index place = int64_t(0);
        for (auto b : reduce(ceil_div(cols, width))) {
          Index j = positions(b * width, width);
          Tile<bool> earlier = in_range(b * width, width, cols) & before_ascending(X[{r, span(b * width, width)}], j, x, i);
          place = place + sum(cast<int64_t>(earlier), 0);
        }
        Y(r, place).store(x);
        I(r, place).store(i);
      }
    }
  });
}

// The first pass of a merge sort: Y[r, :] holds each run of `run`
// consecutive elements of X's row sorted (in the order of sort above, or
// with `order` descending in before_descending's), and I the positions they
// came from. Y and I may be wider than X: the elements past X's row are
// (last_value(order), their position): NaN ascending, -inf descending,
// which come after every element of the row, so the runs of a row padded
// to a multiple of `run` are full. Each element's place is its rank in its
// run.
inline Kernel sort_runs(int64_t run = 32, Order order = Order::ascending) {
  const float last = last_value(order);
  return tile_kernel("sort_runs", [run, order, last](TensorView<float, 2> X, TensorView<float, 2> Y, TensorView<int64_t, 2> I) {
    for (auto r : parallel(Y.shape(0), exec::block)) {
      for (auto i : parallel(Y.shape(1))) {
        Tile<float> x = X(r, i).load(last);
        Index start = (i / run) * run;
        Tile<bool> earlier = before(order, X(r, span(start, run)).load(last), positions(start, run), x, i);
        Index place = start + sum(cast<int64_t>(earlier), 0);
        Y(r, place).store(x);
        I(r, place).store(i);
      }
    }
  });
}

// sort_runs by Batcher's bitonic network (lib/bitonic.h): the same Y and I
// for a `run` that is a power of two, each run loaded as one tile and
// sorted by compare-exchanges (run log2(run)^2 / 4 of them, against
// sort_runs' run^2 comparisons and a scatter), then stored as a row. Its
// code grows as run log2(run)^2: in the CPU's SIMD lanes on a 2-core Zen 4
// it compiles in about 1 s at 16 and 1.6 s at 32, where sort_runs takes
// a tenth of a second.
inline Kernel sort_runs_bitonic(int64_t run = 16, Order order = Order::ascending) {
  if (run < 1 || (run & (run - 1)) != 0)
    throw Error("sort_runs_bitonic: the run " + std::to_string(run) + " is not a power of two.");
  const float last = last_value(order);
  return tile_kernel("sort_runs_bitonic", [run, order, last](TensorView<float, 2> X, TensorView<float, 2> Y,
                                                              TensorView<int64_t, 2> I) {
    for (auto r : parallel(Y.shape(0), exec::block)) {
      for (auto j : parallel(ceil_div(Y.shape(1), run))) {
        Index start = j * run;
        Tile<float> x = X(r, span(start, run)).load(last);
        auto [v, p] = bitonic::sort({reshape(x, {1, run}), reshape(positions(start, run), {1, run})}, 1, run, order);
        Y(r, span(start, run)).store(reshape(v, {run}));
        I(r, span(start, run)).store(reshape(p, {run}));
      }
    }
  });
}

// One merge pass of a merge sort. X and J are a row's values and positions
// as pairs of sorted runs, X[r, p, s, :] run s (0 or 1) of pair p, each of
// L = X.shape(3) elements; the pass writes each pair merged, Y[r, p * 2L +
// place] and I likewise, skipping places past Y's row. An element's place is
// its index in its run plus the number of elements of the other run that
// come before it (positions break ties, so the order is strict), found by a
// binary search of D.shape(0) steps, at least the bit length of L (D is any
// vector of that length: an extent is the one kind of launch constant).
inline Kernel merge_runs() {
  return tile_kernel("merge_runs", [](TensorView<float, 4> X, TensorView<int64_t, 4> J, TensorView<float, 1> D,
                                      TensorView<float, 2> Y, TensorView<int64_t, 2> I) {
    Index L = X.shape(3);
    for (auto r : parallel(X.shape(0), exec::block)) {
      for (auto p : parallel(X.shape(1))) {
        for (auto s : parallel(2)) {
          for (auto i : parallel(L)) {
            Tile<float> x = X[{r, p, s, i}];
            Index at = J[{r, p, s, i}];
            Index other = 1 - s;
            Index lo = int64_t(0), hi = L;
            for (auto step : serial(D.shape(0))) {
              (void)step;
              Index mid = (lo + hi) / 2;
              Tile<bool> open = lo < hi;
              Tile<float> v = X(r, p, other, mid).load(NAN);
              Index w = J(r, p, other, mid).load(0);
              Tile<bool> right = open & before_ascending(v, w, x, at);
              Tile<bool> left = open & !right;
              lo = select(right, mid + 1, lo);
              hi = select(left, mid, hi);
            }
            Index place = p * (2 * L) + i + lo;
            Y(r, place).store(x);
            I(r, place).store(at);
          }
        }
      }
    }
  });
}

// The same merge pass as merge_runs, by merge path (in `order`): each
// parallel iteration q writes the `block` consecutive places [q * block,
// (q + 1) * block) of pair p's first W, at Y[r, p * W + place] (those below
// Y's row): W = 2L, or with `keep` above 0, min(2L, keep), the merged run
// truncated to its first `keep` (Top-K's tournament). A binary search of D.shape(0) steps,
// at least the bit length of L, finds a, how many of run 0's elements hold
// the places before q * block: the smallest a in [max(0, q*block - L),
// min(q*block, L)] whose run-0 element does not come before run 1's
// element q*block - 1 - a (the path's crossing of that diagonal). The
// block's places are then filled in order, each from the run whose next
// element comes first (an exhausted run never). Positions break ties, so
// the order is strict and the merge is merge_runs's, element for element;
// a pass costs O(L) per pair instead of merge_runs's O(L log L).
inline Kernel merge_path(int64_t block = 64, Order order = Order::ascending, int64_t keep = 0) {
  return tile_kernel("merge_path", [block, order, keep](TensorView<float, 4> X, TensorView<int64_t, 4> J,
                                                        TensorView<float, 1> D, TensorView<float, 2> Y,
                                                        TensorView<int64_t, 2> I) {
    Index L = X.shape(3);
    Index W = keep > 0 ? minimum(2 * L, Index(keep)) : 2 * L;
    for (auto r : parallel(X.shape(0), exec::block)) {
      for (auto p : parallel(X.shape(1))) {
        for (auto q : parallel(ceil_div(W, block))) {
          Index diag = q * block;
          Index lo = maximum(diag - L, Index(int64_t(0))), hi = minimum(diag, L);
          for (auto step : serial(D.shape(0))) {
            (void)step;
            Index mid = (lo + hi) / 2;
            Tile<bool> open = lo < hi;
            Index partner = diag - 1 - mid;
            Tile<float> va = X(r, p, 0, mid).load(NAN);
            Index ia = J(r, p, 0, mid).load(0);
            Tile<float> vb = X(r, p, 1, partner).load(NAN);
            Index ib = J(r, p, 1, partner).load(0);
            Tile<bool> a_first = open & before(order, va, ia, vb, ib);
            lo = select(a_first, mid + 1, lo);
            hi = select(open & !a_first, mid, hi);
          }
          Index i = lo, j = diag - lo;
          for (auto t : serial(block)) {
            Index place = diag + t;
            Tile<float> va = X(r, p, 0, i).load(NAN);
            Index ia = J(r, p, 0, i).load(0);
            Tile<float> vb = X(r, p, 1, j).load(NAN);
            Index ib = J(r, p, 1, j).load(0);
            Tile<bool> take_b = (i >= L) | ((j < L) & before(order, vb, ib, va, ia));
            // Places past the pair's W belong to the next one: stored nowhere.
            Index at = select(place < W, p * W + place, int64_t(-1));
            Y(r, at).store(select(take_b, vb, va));
            I(r, at).store(select(take_b, ib, ia));
            i = select(take_b, i, i + 1);
            j = select(take_b, j + 1, j);
          }
        }
      }
    }
  });
}

}  // namespace tack::tile::lib
