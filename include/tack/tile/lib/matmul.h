// Matrix multiplication and einsum over f32 tensors.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "tack/tile/lib/common.h"

namespace tack::tile::lib {

struct MatmulTiles {
  int64_t m = 16, n = 16, k = 16;
  // Above 0, B comes packed by pack_panels(n, panel_lanes): block column
  // bj = g * L + l of B at Bp[g, k, j, l] = B[k, bj * n + j] (L =
  // panel_lanes), so that the tiles of L consecutive block columns lie
  // interleaved in one contiguous panel per g, and the parallel iterations
  // over l (innermost, extent L) load them as vectors in the CPU's SIMD
  // lanes instead of gathering. L is the lanes' count: L f32 elements fill a
  // SIMD register (docs/tile/compile.md, "B in panels").
  int64_t panel_lanes = 0;
};

namespace detail_matmul {

// Block (bi, bj) of C: its K loop is a two-stage pipeline that loads A's
// tile and `b_tile(k)`, B's for step k, and then accumulates them with mma;
// then the block is stored. `A` and `C` address the product's matrices by
// (row, column): the views themselves, or a batch's product through them.
// A's tile past K reads -0 (B's +0): each padded step adds -0 * +0 = -0,
// which leaves every accumulator as it is, -0 included, so the result is
// the fold over K's steps alone whatever the tile sizes.
template <class AView, class BTile, class CView>
void block(const MatmulTiles& t, const Index& K, const AView& A, const CView& C, const Index& bi, const Index& bj,
           const BTile& b_tile) {
  Tile<float> acc = full<float>({t.m, t.n}, 0.0f);
  for (auto k : pipeline(ceil_div(K, t.k))) {
    Tile<float> a = A(span(bi * t.m, t.m), span(k * t.k, t.k)).load(-0.0f);
    Tile<float> b = b_tile(k);
    k.stage("mma");
    acc = mma(a, b, acc);
  }
  C(span(bi * t.m, t.m), span(bj * t.n, t.n)).store(acc);
}

// The panels' count G = ceil(ceil(N / n) / L) of a B with N columns packed
// in panels of L block columns of n.
inline Index panels(const Index& N, int64_t n, int64_t lanes) { return ceil_div(ceil_div(N, n), lanes); }

}  // namespace detail_matmul

// C = A @ B for A: MxK, B: KxN, C: MxN. Each block of C is a parallel
// iteration; its K loop is a two-stage pipeline that loads the A and B tiles
// and then accumulates them with mma. Ragged edges load zeros and store
// nothing outside C. With panel_lanes the second parameter is B packed into
// panels (ceil(ceil(N / n) / L) x K x n x L) and the block columns are two
// parallel levels, panel g and lane l; the products and their order are the
// same.
inline Kernel matmul(MatmulTiles t = {}) {
  if (t.panel_lanes > 0)
    return tile_kernel("matmul", [t](TensorView<float, 2> A, TensorView<float, 4> Bp, TensorView<float, 2> C) {
      for (auto bi : parallel(ceil_div(C.shape(0), t.m), exec::block))
        for (auto g : parallel(Bp.shape(0), exec::block))
          for (auto l : parallel(t.panel_lanes, exec::block))
            detail_matmul::block(t, A.shape(1), A, C, bi, g * t.panel_lanes + l, [&](const Index& k) -> Tile<float> {
              return Bp[{g, span(k * t.k, t.k), span(0, t.n), l}];
            });
    });
  return tile_kernel("matmul", [t](TensorView<float, 2> A, TensorView<float, 2> B, TensorView<float, 2> C) {
    for (auto bi : parallel(ceil_div(C.shape(0), t.m), exec::block))
      for (auto bj : parallel(ceil_div(C.shape(1), t.n), exec::block))
        detail_matmul::block(t, A.shape(1), A, C, bi, bj, [&](const Index& k) -> Tile<float> {
          return B[{span(k * t.k, t.k), span(bj * t.n, t.n)}];
        });
  });
}

// A batch of products C[b] = A[b] @ B[b] for A: batch x M x K, B: batch x K
// x N, C: batch x M x N, in one launch: the batch is the outermost parallel
// level, each product's blocks matmul's. A batch stride of 0 broadcasts an
// operand. With panel_lanes the second parameter is the products' B packed
// by batched_pack_panels, (batch * G) x K x n x L with product b's panel g
// at b * G + g (G = ceil(ceil(N / n) / L)), or with `shared_b` one B that
// every product reads, G x K x n x L.
inline Kernel batched_matmul(MatmulTiles t = {}, bool shared_b = false) {
  if (t.panel_lanes > 0)
    return tile_kernel("batched_matmul", [t, shared_b](TensorView<float, 3> A, TensorView<float, 4> Bp,
                                                       TensorView<float, 3> C) {
      for (auto b : parallel(C.shape(0), exec::block))
        for (auto bi : parallel(ceil_div(C.shape(1), t.m), exec::block)) {
          Index panels = detail_matmul::panels(C.shape(2), t.n, t.panel_lanes);
          for (auto g : parallel(panels, exec::block))
            for (auto l : parallel(t.panel_lanes, exec::block)) {
              Index panel = shared_b ? Index(g) : b * panels + g;
              detail_matmul::block(
                  t, A.shape(2), [&](const Coord& i, const Coord& j) { return A(b, i, j); },
                  [&](const Coord& i, const Coord& j) { return C(b, i, j); }, bi, g * t.panel_lanes + l,
                  [&](const Index& k) -> Tile<float> { return Bp[{panel, span(k * t.k, t.k), span(0, t.n), l}]; });
            }
        }
    });
  return tile_kernel("batched_matmul", [t](TensorView<float, 3> A, TensorView<float, 3> B, TensorView<float, 3> C) {
    for (auto b : parallel(C.shape(0), exec::block))
      for (auto bi : parallel(ceil_div(C.shape(1), t.m), exec::block))
        for (auto bj : parallel(ceil_div(C.shape(2), t.n), exec::block))
          detail_matmul::block(
              t, A.shape(2), [&](const Coord& i, const Coord& j) { return A(b, i, j); },
              [&](const Coord& i, const Coord& j) { return C(b, i, j); }, bi, bj,
              [&](const Index& k) -> Tile<float> { return B[{b, span(k * t.k, t.k), span(bj * t.n, t.n)}]; });
  });
}

// Bp[g, k, j, l] = B[k, (g * L + l) * n + j] for Bp: G x K x n x L, zero
// where that column is past B's last (matmul's panel_lanes operand;
// G = ceil(ceil(N / n) / L)).
inline Kernel pack_panels(int64_t n, int64_t lanes) {
  return tile_kernel("pack_panels", [n, lanes](TensorView<float, 2> B, TensorView<float, 4> Bp) {
    for (auto g : parallel(Bp.shape(0), exec::block)) {
      for (auto k : parallel(Bp.shape(1), exec::block)) {
        for (auto l : parallel(lanes, exec::block)) {
          Tile<float> row = B[{k, span((g * lanes + l) * n, n)}];
          Bp(g, k, span(0, n), l).store(row);
        }
      }
    }
  });
}

// pack_panels for each product of a batch: Bp[b * G + g, k, j, l] =
// B[b, k, (g * L + l) * n + j] for B: batch x K x N and Bp: (batch * G) x K
// x n x L (batched_matmul's panel_lanes operand; G = ceil(ceil(N / n) / L)).
inline Kernel batched_pack_panels(int64_t n, int64_t lanes) {
  return tile_kernel("batched_pack_panels", [n, lanes](TensorView<float, 3> B, TensorView<float, 4> Bp) {
    for (auto b : parallel(B.shape(0), exec::block)) {
      Index panels = detail_matmul::panels(B.shape(2), n, lanes);
      for (auto g : parallel(panels, exec::block)) {
        for (auto k : parallel(B.shape(1), exec::block)) {
          for (auto l : parallel(lanes, exec::block)) {
            Tile<float> row = B[{b, k, span((g * lanes + l) * n, n)}];
            Bp(b * panels + g, k, span(0, n), l).store(row);
          }
        }
      }
    }
  });
}

namespace detail_einsum {

struct Spec {
  std::vector<std::string> inputs;
  std::string output;
};

inline Spec parse(std::string_view spec, size_t operands) {
  Spec s;
  size_t arrow = spec.find("->");
  if (arrow == std::string_view::npos) throw Error("einsum: the spec '" + std::string(spec) + "' has no '->'.");
  std::string_view lhs = spec.substr(0, arrow);
  s.output = std::string(spec.substr(arrow + 2));
  while (true) {
    size_t comma = lhs.find(',');
    s.inputs.emplace_back(lhs.substr(0, comma));
    if (comma == std::string_view::npos) break;
    lhs = lhs.substr(comma + 1);
  }
  if (s.inputs.size() != operands)
    throw Error("einsum: the spec '" + std::string(spec) + "' names " + std::to_string(s.inputs.size()) + " operands, not " +
                std::to_string(operands) + ".");
  return s;
}

// Loops: one parallel region per output label, then the contracted labels
// in the order they first appear. One operand: one reduce region per
// contracted label, summing its elements. Two operands: serial loops, one
// per contracted label, the first outermost, whose body is one fused step
// acc = fma(a, b, acc) from acc = 0 (an `mma` of 1x1 tiles): each output
// is matmul's fold over the contracted points in row-major order.
inline void body(std::string_view text, std::vector<Value*> in, Value* out) {
  Spec spec = parse(text, in.size());
  std::map<char, Index> extent;
  for (size_t o = 0; o < in.size(); ++o) {
    if (spec.inputs[o].size() != size_t(in[o]->type().rank()))
      throw Error("einsum: operand " + std::to_string(o) + " has rank " + std::to_string(in[o]->type().rank()) + " but '" +
                  spec.inputs[o] + "' names " + std::to_string(spec.inputs[o].size()) + " axes.");
    for (size_t a = 0; a < spec.inputs[o].size(); ++a)
      if (!extent.count(spec.inputs[o][a])) extent.emplace(spec.inputs[o][a], Index(detail::dim(in[o], int(a))));
  }
  std::string contracted;
  for (const std::string& labels : spec.inputs)
    for (char c : labels)
      if (spec.output.find(c) == std::string::npos && contracted.find(c) == std::string::npos) contracted += c;
  for (char c : spec.output)
    if (!extent.count(c)) throw Error(std::string("einsum: output label '") + c + "' names no operand axis.");
  if (spec.output.size() != size_t(out->type().rank()))
    throw Error("einsum: the output has rank " + std::to_string(out->type().rank()) + " but '" + spec.output + "' names " +
                std::to_string(spec.output.size()) + " axes.");

  std::map<char, Index> at;
  auto element = [&](Value* view, const std::string& labels) {
    std::vector<Coord> coords;
    for (char c : labels) coords.emplace_back(at.at(c));
    return Tile<float>(detail::load(detail::view(view, coords), 0.0, 0));
  };
  std::function<Tile<float>(size_t)> contract = [&](size_t level) -> Tile<float> {
    if (level == contracted.size()) {
      Tile<float> product = element(in[0], spec.inputs[0]);
      for (size_t o = 1; o < in.size(); ++o) product = product * element(in[o], spec.inputs[o]);
      return product;
    }
    Tile<float> acc = 0.0f;
    for (auto i : reduce(extent.at(contracted[level]))) {
      at.insert_or_assign(contracted[level], i);
      acc = acc + contract(level + 1);
    }
    return acc;
  };
  auto fold = [&]() -> Tile<float> {
    Tile<float> acc = full<float>({1, 1}, 0.0f);
    std::function<void(size_t)> step = [&](size_t level) {
      if (level == contracted.size()) {
        acc = mma(reshape(element(in[0], spec.inputs[0]), {1, 1}), reshape(element(in[1], spec.inputs[1]), {1, 1}), acc);
        return;
      }
      for (auto i : serial(extent.at(contracted[level]))) {
        at.insert_or_assign(contracted[level], i);
        step(level + 1);
      }
    };
    step(0);
    return reshape(acc, {});
  };
  std::function<void(size_t)> spread = [&](size_t level) {
    if (level == spec.output.size()) {
      Tile<float> value = in.size() == 2 && !contracted.empty() ? fold() : contract(0);
      std::vector<Coord> coords;
      for (char c : spec.output) coords.emplace_back(at.at(c));
      detail::store(detail::view(out, coords), value);
      return;
    }
    for (auto i : parallel(extent.at(spec.output[level]))) {
      at.insert_or_assign(spec.output[level], i);
      spread(level + 1);
    }
  };
  spread(0);
}

}  // namespace detail_einsum

// Einstein summation over one or two operands, e.g. "ij,jk->ik",
// "bij,bjk->bik", "ij->ji", "ii->i" or "ij->". Every output element is a
// parallel iteration; a contracted label is a reduce region of one
// operand's sum, or a serial loop of two operands' fused steps (body).
template <int RA, int RC>
Kernel einsum(std::string spec) {
  return tile_kernel("einsum", [spec](TensorView<float, RA> A, TensorView<float, RC> C) {
    detail_einsum::body(spec, {A.value()}, C.value());
  });
}
template <int RA, int RB, int RC>
Kernel einsum(std::string spec) {
  return tile_kernel("einsum", [spec](TensorView<float, RA> A, TensorView<float, RB> B, TensorView<float, RC> C) {
    detail_einsum::body(spec, {A.value(), B.value()}, C.value());
  });
}

}  // namespace tack::tile::lib
