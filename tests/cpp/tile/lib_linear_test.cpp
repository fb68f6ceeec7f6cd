// Matmul, einsum and 2-D convolution against FP64 formulas written here.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include <cmath>
#include <random>

#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"

namespace tack::tile {
namespace {

constexpr double kTol = 5e-5;


GuardedTensor<float> nan_tensor(Shape shape) { return GuardedTensor<float>(shape, NAN); }

struct MatmulCase {
  int64_t m, k, n;
};

TEST(TileLibMatmul, MatchesTheFp64ProductOnRaggedShapes) {
  Kernel k = lib::matmul();
  for (MatmulCase c : {MatmulCase{17, 7, 65}, {17, 61, 65}, {129, 768, 7}, {7, 61, 17}, {1, 1, 1}}) {
    GuardedTensor<float> a = uniform_tensor({c.m, c.k}, 1), b = uniform_tensor({c.k, c.n}, 2), out = nan_tensor({c.m, c.n});
    interpret(k, {a.view(), b.view(), out.view()});
    std::vector<double> want(size_t(c.m * c.n));
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j)
        for (int64_t p = 0; p < c.k; ++p) want[size_t(i * c.n + j)] += double(a[i * c.k + p]) * double(b[p * c.n + j]);
    EXPECT_EQ(mismatch(out.values(), want, kTol, kTol), std::nullopt) << c.m << "x" << c.k << "x" << c.n;
    EXPECT_TRUE(a.margin_intact() && b.margin_intact() && out.margin_intact());
  }
}

TEST(TileLibMatmul, ZeroTripLoops) {
  Kernel k = lib::matmul({8, 4, 2});
  // K = 0: the pipeline runs no iteration and C is all zeros.
  GuardedTensor<float> a({5, 0}, 1.0f), b({0, 3}, 1.0f), c = nan_tensor({5, 3});
  interpret(k, {a.view(), b.view(), c.view()});
  EXPECT_EQ(mismatch(c.values(), std::vector<double>(15, 0.0), 0, 0), std::nullopt);
  EXPECT_TRUE(c.margin_intact());
  // M = 0: no block runs; nothing is written.
  GuardedTensor<float> a0({0, 4}, 1.0f), b0({4, 3}, 1.0f), c0 = nan_tensor({0, 3});
  interpret(k, {a0.view(), b0.view(), c0.view()});
  EXPECT_TRUE(c0.margin_intact());
}

// Product b of a batch: its own matmul's bits, interpreted (the oracle's
// per-product kernel is the tested unbatched one). A shared operand comes
// with a batch stride of 0; a shared packed B as one product's panels
// (batched_matmul's shared_b).
TEST(TileLibMatmul, ABatchGivesEachProductsMatmulBits) {
  constexpr int64_t batch = 3, m = 17, k = 13, n = 21, lanes = 4;
  for (lib::MatmulTiles tiles : {lib::MatmulTiles{8, 8, 4}, lib::MatmulTiles{8, 4, 4, lanes}})
    for (bool shared_a : {false, true})
      for (bool shared_b : {false, true}) {
        GuardedTensor<float> a = uniform_tensor({shared_a ? 1 : batch, m, k}, 1);
        GuardedTensor<float> b = uniform_tensor({shared_b ? 1 : batch, k, n}, 2);
        GuardedTensor<float> c = nan_tensor({batch, m, n});
        HostTensor av = a.view(), bv = b.view();
        av.shape = Shape{batch, m, k};
        if (shared_a) av.strides[0] = 0;
        if (tiles.panel_lanes > 0) {
          const int64_t g = (n + tiles.n * lanes - 1) / (tiles.n * lanes);
          GuardedTensor<float> bp = nan_tensor({b.shape()[0] * g, k, tiles.n, lanes});
          interpret(lib::batched_pack_panels(tiles.n, lanes), {bv, bp.view()});
          interpret(lib::batched_matmul(tiles, shared_b), {av, bp.view(), c.view()});
        } else {
          bv.shape = Shape{batch, k, n};
          if (shared_b) bv.strides[0] = 0;
          interpret(lib::batched_matmul(tiles), {av, bv, c.view()});
        }
        for (int64_t p = 0; p < batch; ++p) {
          GuardedTensor<float> ap({m, k}, 0.0f), bp({k, n}, 0.0f), cp = nan_tensor({m, n});
          for (int64_t i = 0; i < m * k; ++i) ap[i] = a[(shared_a ? 0 : p) * m * k + i];
          for (int64_t i = 0; i < k * n; ++i) bp[i] = b[(shared_b ? 0 : p) * k * n + i];
          interpret(lib::matmul({tiles.m, tiles.n, tiles.k}), {ap.view(), bp.view(), cp.view()});
          std::vector<double> want(size_t(m * n));
          std::vector<float> got(size_t(m * n));
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              for (int64_t q = 0; q < k; ++q) want[size_t(i * n + j)] += double(ap[i * k + q]) * double(bp[q * n + j]);
              got[size_t(i * n + j)] = c[p * m * n + i * n + j];
            }
          // The FP64 product, independent of the kernels, and the
          // unbatched kernel's bits.
          EXPECT_EQ(mismatch(got, want, kTol, kTol), std::nullopt) << "product " << p;
          for (int64_t i = 0; i < m * n; ++i)
            ASSERT_EQ(std::bit_cast<uint32_t>(c[p * m * n + i]), std::bit_cast<uint32_t>(cp[i]))
                << "tiles " << tiles.m << "x" << tiles.n << "x" << tiles.k << " lanes " << tiles.panel_lanes
                << ", product " << p << ", element " << i << (shared_a ? ", A shared" : "") << (shared_b ? ", B shared" : "");
        }
        EXPECT_TRUE(a.margin_intact() && b.margin_intact() && c.margin_intact());
      }
}

TEST(TileLibEinsum, ContractionsTransposesAndDiagonals) {
  GuardedTensor<float> a = uniform_tensor({17, 61}, 3), b = uniform_tensor({61, 7}, 4);
  {
    GuardedTensor<float> c = nan_tensor({17, 7});
    interpret(lib::einsum<2, 2, 2>("ij,jk->ik"), {a.view(), b.view(), c.view()});
    std::vector<double> want(17 * 7);
    for (int i = 0; i < 17; ++i)
      for (int k = 0; k < 7; ++k)
        for (int j = 0; j < 61; ++j) want[size_t(i * 7 + k)] += double(a[i * 61 + j]) * double(b[j * 7 + k]);
    EXPECT_EQ(mismatch(c.values(), want, kTol, kTol), std::nullopt);
    EXPECT_TRUE(c.margin_intact());
  }
  {
    GuardedTensor<float> t = nan_tensor({61, 17});
    interpret(lib::einsum<2, 2>("ij->ji"), {a.view(), t.view()});
    std::vector<double> want(61 * 17);
    for (int i = 0; i < 17; ++i)
      for (int j = 0; j < 61; ++j) want[size_t(j * 17 + i)] = a[i * 61 + j];
    EXPECT_EQ(mismatch(t.values(), want, 0, 0), std::nullopt);
  }
  {
    GuardedTensor<float> s = nan_tensor({17});
    interpret(lib::einsum<2, 1>("ij->i"), {a.view(), s.view()});
    std::vector<double> want(17);
    for (int i = 0; i < 17; ++i)
      for (int j = 0; j < 61; ++j) want[size_t(i)] += a[i * 61 + j];
    EXPECT_EQ(mismatch(s.values(), want, kTol, kTol), std::nullopt);
  }
  {
    GuardedTensor<float> sq = uniform_tensor({7, 7}, 5), d = nan_tensor({7});
    interpret(lib::einsum<2, 1>("ii->i"), {sq.view(), d.view()});
    std::vector<double> want(7);
    for (int i = 0; i < 7; ++i) want[size_t(i)] = sq[i * 7 + i];
    EXPECT_EQ(mismatch(d.values(), want, 0, 0), std::nullopt);
  }
  {
    GuardedTensor<float> x = uniform_tensor({3, 7, 5}, 6), y = uniform_tensor({3, 5, 4}, 7), z = nan_tensor({3, 7, 4});
    interpret(lib::einsum<3, 3, 3>("bij,bjk->bik"), {x.view(), y.view(), z.view()});
    std::vector<double> want(3 * 7 * 4);
    for (int n = 0; n < 3; ++n)
      for (int i = 0; i < 7; ++i)
        for (int k = 0; k < 4; ++k)
          for (int j = 0; j < 5; ++j) want[size_t((n * 7 + i) * 4 + k)] += double(x[(n * 7 + i) * 5 + j]) * double(y[(n * 5 + j) * 4 + k]);
    EXPECT_EQ(mismatch(z.values(), want, kTol, kTol), std::nullopt);
    EXPECT_TRUE(z.margin_intact());
  }
  EXPECT_THROW((lib::einsum<2, 2, 2>("ij,jk")), Error);
  EXPECT_THROW((lib::einsum<2, 2, 2>("ijk,jk->ik")), Error);
}

struct ConvCase {
  int64_t n, c, h, w, f, kh, kw, pad;
};

TEST(TileLibConv2d, MatchesDirectSummationWithPaddingAndRaggedWidths) {
  for (ConvCase t : {ConvCase{2, 3, 17, 65, 4, 3, 3, 1}, {1, 2, 9, 7, 3, 5, 5, 2}, {1, 3, 6, 32, 2, 3, 3, 0}, {2, 2, 5, 33, 2, 1, 1, 0}}) {
    int64_t oh = t.h + 2 * t.pad - t.kh + 1, ow = t.w + 2 * t.pad - t.kw + 1;
    GuardedTensor<float> x = uniform_tensor({t.n, t.c, t.h, t.w}, 8), w = uniform_tensor({t.f, t.c, t.kh, t.kw}, 9);
    GuardedTensor<float> y = nan_tensor({t.n, t.f, oh, ow});
    interpret(lib::conv2d({t.pad, 32}), {x.view(), w.view(), y.view()});
    // Blocks of output channels and other widths: each element's sum takes
    // the same terms in the same order, so the same bits.
    for (auto [width, filters] : {std::pair<int64_t, int64_t>{32, 3}, {8, 2}, {64, 4}}) {
      GuardedTensor<float> blocked = nan_tensor({t.n, t.f, oh, ow});
      interpret(lib::conv2d({t.pad, width, filters}), {x.view(), w.view(), blocked.view()});
      const std::vector<float> got = blocked.values(), want_bits = y.values();
      EXPECT_EQ(std::memcmp(got.data(), want_bits.data(), want_bits.size() * sizeof(float)), 0)
          << "width " << width << ", " << filters << " channels a block";
      EXPECT_TRUE(blocked.margin_intact());
    }
    std::vector<double> want(size_t(t.n * t.f * oh * ow));
    for (int64_t n = 0; n < t.n; ++n)
      for (int64_t f = 0; f < t.f; ++f)
        for (int64_t r = 0; r < oh; ++r)
          for (int64_t q = 0; q < ow; ++q) {
            double acc = 0;
            for (int64_t c = 0; c < t.c; ++c)
              for (int64_t ky = 0; ky < t.kh; ++ky)
                for (int64_t kx = 0; kx < t.kw; ++kx) {
                  int64_t yy = r + ky - t.pad, xx = q + kx - t.pad;
                  if (yy < 0 || yy >= t.h || xx < 0 || xx >= t.w) continue;
                  acc += double(x[((n * t.c + c) * t.h + yy) * t.w + xx]) * double(w[((f * t.c + c) * t.kh + ky) * t.kw + kx]);
                }
            want[size_t(((n * t.f + f) * oh + r) * ow + q)] = acc;
          }
    EXPECT_EQ(mismatch(y.values(), want, kTol, kTol), std::nullopt) << t.h << "x" << t.w << " k" << t.kh << " p" << t.pad;
    EXPECT_TRUE(y.margin_intact() && x.margin_intact());
  }
}

// conv2d_columns copies each image's windows into a (C*KH*KW) x (OH*OW)
// matrix; the filters, F x (C*KH*KW), times it by matmul take the direct
// kernel's steps: fma after fma in the order (c, ky, kx), the same bits.
TEST(TileLibConv2d, TheFiltersTimesTheWindowsMatrixGiveTheDirectKernelsBits) {
  for (ConvCase t : {ConvCase{2, 3, 7, 9, 5, 3, 3, 1}, {1, 2, 9, 7, 3, 5, 5, 2}, {2, 4, 6, 10, 17, 2, 3, 0}}) {
    const int64_t oh = t.h + 2 * t.pad - t.kh + 1, ow = t.w + 2 * t.pad - t.kw + 1, k = t.c * t.kh * t.kw, p = oh * ow;
    GuardedTensor<float> x = uniform_tensor({t.n, t.c, t.h, t.w}, 11), w = uniform_tensor({t.f, t.c, t.kh, t.kw}, 12);
    GuardedTensor<float> y = nan_tensor({t.n, t.f, oh, ow}), cols = nan_tensor({t.n, k, oh, ow});
    interpret(lib::conv2d({t.pad, 8, 2}), {x.view(), w.view(), y.view()});
    interpret(lib::conv2d_columns({.kh = t.kh, .kw = t.kw, .pad_h = t.pad, .pad_w = t.pad, .width = 8}), {x.view(), cols.view()});
    EXPECT_TRUE(cols.margin_intact());
    for (int64_t n = 0; n < t.n; ++n)
      for (int64_t c = 0; c < t.c; ++c)
        for (int64_t ky = 0; ky < t.kh; ++ky)
          for (int64_t kx = 0; kx < t.kw; ++kx)
            for (int64_t r = 0; r < oh; ++r)
              for (int64_t q = 0; q < ow; ++q) {
                const int64_t yy = r + ky - t.pad, xx = q + kx - t.pad;
                const bool inside = yy >= 0 && yy < t.h && xx >= 0 && xx < t.w;
                const float want = inside ? x[((n * t.c + c) * t.h + yy) * t.w + xx] : 0.0f;
                const int64_t row = (c * t.kh + ky) * t.kw + kx;
                ASSERT_EQ(cols[((n * k + row) * oh + r) * ow + q], want) << "image " << n << " row " << row;
              }
    GuardedTensor<float> filters({t.f, k}, 0.0f);
    for (int64_t i = 0; i < filters.size(); ++i) filters[i] = w[i];
    for (int64_t n = 0; n < t.n; ++n) {
      GuardedTensor<float> windows({k, p}, 0.0f), product = nan_tensor({t.f, p});
      for (int64_t i = 0; i < windows.size(); ++i) windows[i] = cols[n * k * p + i];
      interpret(lib::matmul({4, 8, 4}), {filters.view(), windows.view(), product.view()});
      for (int64_t i = 0; i < product.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(product[i]), std::bit_cast<uint32_t>(y[n * t.f * p + i]))
            << "image " << n << ", output " << i << " of " << t.f << "x" << p;
    }
  }
}

// Windows with strides and dilations, per axis: each entry against the
// formula, zeros in the padding.
TEST(TileLibConv2d, WindowsWithStridesAndDilations) {
  struct Case {
    int64_t h, w, kh, kw, ph, pw, sh, sw, dh, dw;
  };
  for (Case t : {Case{9, 11, 3, 3, 1, 1, 2, 2, 1, 1}, {8, 13, 3, 2, 0, 2, 1, 3, 2, 1}, {7, 7, 2, 3, 2, 1, 3, 1, 1, 2}}) {
    const int64_t n = 2, c = 3, k = c * t.kh * t.kw;
    const int64_t oh = (t.h + 2 * t.ph - t.dh * (t.kh - 1) - 1) / t.sh + 1;
    const int64_t ow = (t.w + 2 * t.pw - t.dw * (t.kw - 1) - 1) / t.sw + 1;
    GuardedTensor<float> x = uniform_tensor({n, c, t.h, t.w}, 13), cols = nan_tensor({n, k, oh, ow});
    interpret(lib::conv2d_columns({.kh = t.kh, .kw = t.kw, .pad_h = t.ph, .pad_w = t.pw, .stride_h = t.sh,
                                   .stride_w = t.sw, .dilation_h = t.dh, .dilation_w = t.dw, .width = 4}),
              {x.view(), cols.view()});
    EXPECT_TRUE(cols.margin_intact());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t row = 0; row < k; ++row)
        for (int64_t r = 0; r < oh; ++r)
          for (int64_t q = 0; q < ow; ++q) {
            const int64_t ch = row / (t.kh * t.kw), ky = row % (t.kh * t.kw) / t.kw, kx = row % t.kw;
            const int64_t yy = r * t.sh + ky * t.dh - t.ph, xx = q * t.sw + kx * t.dw - t.pw;
            const bool inside = yy >= 0 && yy < t.h && xx >= 0 && xx < t.w;
            ASSERT_EQ(cols[((i * k + row) * oh + r) * ow + q], inside ? x[((i * c + ch) * t.h + yy) * t.w + xx] : 0.0f)
                << "image " << i << " row " << row << " at " << r << ", " << q;
          }
  }
}

}  // namespace
}  // namespace tack::tile
