// Batcher's bitonic networks over lists of (value, position) entries: the
// compare-exchanges that Top-K's blocks and merges (lib/topk.h) and the
// sorted runs of a merge sort (lib/sort.h) are built from.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "tack/tile/lib/common.h"
#include "tack/tile/lib/order.h"

namespace tack::tile::lib {

// A list of (value, position) entries as two tiles of the same shape.
using Entries = std::tuple<Tile<float>, Index>;

// The networks below work on `rows` independent lists of n = 2^m entries,
// held as (rows, n) tiles. Every step pairs the entries whose places differ
// in one bit, d, of the place: the list reshaped to (rows, n / 2d, 2, d)
// has the pair's members at positions 0 and 1 of axis 2.
namespace bitonic {

struct Halves {
  Tile<float> lo_v, hi_v;
  Index lo_p, hi_p;
};

inline Shape paired(int64_t rows, int64_t n, int64_t d) { return Shape{rows, n / (2 * d), 2, d}; }

inline Halves split(const Entries& t, int64_t rows, int64_t n, int64_t d) {
  Shape shape = paired(rows, n, d);
  Tile<float> v = reshape(std::get<0>(t), shape);
  Index p = reshape(std::get<1>(t), shape);
  Index zero = full<int64_t>({}, 0), one = full<int64_t>({}, 1);
  return {extract(v, 2, zero), extract(v, 2, one), extract(p, 2, zero), extract(p, 2, one)};
}

// The list with `first` at the pair's place 0 and `second` at place 1.
template <class T>
Tile<T> join(const Tile<T>& first, const Tile<T>& second, int64_t rows, int64_t n, int64_t d) {
  Shape shape = paired(rows, n, d), half{rows, n / (2 * d), 1, d};
  Tile<bool> at_first = iota(shape, 2) == int64_t(0);
  return reshape(select(at_first, broadcast_to(reshape(first, half), shape), broadcast_to(reshape(second, half), shape)),
                 Shape{rows, n});
}

// Compare-exchange of every pair at distance d: the entry that comes first
// by `order` goes to place 0, or, where `forward` (broadcast to the pairs'
// shape, (rows, n / 2d, d)) is given and false, to place 1.
inline Entries exchange(const Entries& t, int64_t rows, int64_t n, int64_t d,
                        const std::optional<Tile<bool>>& forward = std::nullopt, Order order = Order::descending) {
  auto [lo_v, hi_v, lo_p, hi_p] = split(t, rows, n, d);
  Tile<bool> keep = before(order, lo_v, lo_p, hi_v, hi_p);
  if (forward) keep = select(*forward, keep, !keep);
  return {join(select(keep, lo_v, hi_v), select(keep, hi_v, lo_v), rows, n, d),
          join(select(keep, lo_p, hi_p), select(keep, hi_p, lo_p), rows, n, d)};
}

// Every list in `order` (Batcher's bitonic sort): sorted runs of s double
// each round, run j sorted forward when j is even and backward when odd,
// so that two neighbours form a bitonic sequence, which the exchanges at
// distances s, s/2, ..., 1 sort. With distinct positions the order is
// strict, so the result is the one sorted list: a stable sort's.
inline Entries sort(Entries t, int64_t rows, int64_t n, Order order = Order::descending) {
  for (int64_t s = 2; s <= n; s *= 2) {
    for (int64_t d = s / 2; d >= 1; d /= 2) {
      // Pair group q of the (rows, n / 2d, d) pairs holds places
      // [2dq, 2d(q + 1)), inside run 2dq / s.
      Index run = iota({1, n / (2 * d), 1}, 1) / (s / (2 * d));
      t = exchange(t, rows, n, d, run % int64_t(2) == int64_t(0), order);
    }
  }
  return t;
}

// Each list in the opposite order: place i exchanged with n - 1 - i, bit by
// bit.
inline Entries reverse(Entries t, int64_t rows, int64_t n) {
  for (int64_t d = n / 2; d >= 1; d /= 2) {
    auto [lo_v, hi_v, lo_p, hi_p] = split(t, rows, n, d);
    t = {join(hi_v, lo_v, rows, n, d), join(hi_p, lo_p, rows, n, d)};
  }
  return t;
}

// The first n entries, under before_descending, of the union of two lists
// sorted in that order, sorted: a[i] or b[n - 1 - i], whichever comes
// first, is the union's first n as a bitonic sequence, which exchanges at
// distances n/2, ..., 1 sort.
inline Entries merge(const Entries& a, const Entries& b, int64_t rows, int64_t n) {
  auto [av, ap] = a;
  auto [bv, bp] = reverse(b, rows, n);
  Tile<bool> a_first = before_descending(av, ap, bv, bp);
  Entries t{select(a_first, av, bv), select(a_first, ap, bp)};
  for (int64_t d = n / 2; d >= 1; d /= 2) t = exchange(t, rows, n, d);
  return t;
}

}  // namespace bitonic

}  // namespace tack::tile::lib
