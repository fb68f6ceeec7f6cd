// Total orders for ordering kernels (Top-K, sort) over f32 values with int64
// positions. Values compare numerically with -0 equal to +0; NaN compares
// above +inf and equal to NaN; equal values order by lower position first.
// With distinct positions the order is strict and total, so merges under it
// are associative and commutative.
#pragma once

#include <cmath>

#include "tack/tile/capture.h"

namespace tack::tile::lib {

// (va, ia) comes before (vb, ib) when sorting in decreasing value.
inline Tile<bool> before_descending(const Tile<float>& va, const Index& ia, const Tile<float>& vb, const Index& ib) {
  Tile<bool> nan_a = va != va, nan_b = vb != vb;
  Tile<bool> tie = (va == vb) | (nan_a & nan_b);
  return (va > vb) | (nan_a & !nan_b) | (tie & (ia < ib));
}

// (va, ia) comes before (vb, ib) when sorting in increasing value.
inline Tile<bool> before_ascending(const Tile<float>& va, const Index& ia, const Tile<float>& vb, const Index& ib) {
  Tile<bool> nan_a = va != va, nan_b = vb != vb;
  Tile<bool> tie = (va == vb) | (nan_a & nan_b);
  return (va < vb) | (nan_b & !nan_a) | (tie & (ia < ib));
}

// The direction of an ordering kernel (sort_runs, merge_path).
enum class Order { ascending, descending };

inline Tile<bool> before(Order order, const Tile<float>& va, const Index& ia, const Tile<float>& vb, const Index& ib) {
  return order == Order::ascending ? before_ascending(va, ia, vb, ib) : before_descending(va, ia, vb, ib);
}

// The value that, at a position past every element of the row, comes after
// all of them in `order`: NaN ascending, -inf descending.
inline float last_value(Order order) { return order == Order::ascending ? NAN : -INFINITY; }

}  // namespace tack::tile::lib
