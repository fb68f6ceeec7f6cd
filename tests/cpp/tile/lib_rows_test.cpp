// Row kernels (softmax, LayerNorm, RMSNorm, scans) against FP64 formulas
// written here, on ragged shapes, NaN-initialized outputs and guarded views.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"

namespace tack::tile {
namespace {

constexpr double kTol = 5e-5;

struct Rows {
  int64_t rows, cols, width;  // width: the kernel's block of columns
};

// 17x65 and 129x768, widths 7/32/65 (below, at and above one block), and
// zero-trip shapes.
const Rows kShapes[] = {{17, 65, 32}, {129, 768, 128}, {5, 7, 32}, {5, 32, 32}, {5, 65, 32}, {3, 65, 16}, {0, 65, 32}, {3, 0, 32}};

GuardedTensor<float> random_tensor(Shape shape, uint32_t seed, float lo = -3, float hi = 3) {
  GuardedTensor<float> t(shape, 0.0f);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = dist(gen);
  return t;
}

std::string label(const Rows& s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols) + " width " + std::to_string(s.width);
}

TEST(TileLibSoftmax, MatchesTheFp64Formula) {
  for (Rows s : kShapes) {
    GuardedTensor<float> x = random_tensor({s.rows, s.cols}, 11), y({s.rows, s.cols}, NAN);
    interpret(lib::softmax(s.width), {x.view(), y.view()});
    std::vector<double> want(size_t(s.rows * s.cols));
    for (int64_t r = 0; r < s.rows; ++r) {
      double m = -INFINITY, total = 0;
      for (int64_t c = 0; c < s.cols; ++c) m = std::max(m, double(x[r * s.cols + c]));
      for (int64_t c = 0; c < s.cols; ++c) total += std::exp(double(x[r * s.cols + c]) - m);
      for (int64_t c = 0; c < s.cols; ++c) want[size_t(r * s.cols + c)] = std::exp(double(x[r * s.cols + c]) - m) / total;
    }
    EXPECT_EQ(mismatch(y.values(), want, kTol, kTol), std::nullopt) << label(s);
    EXPECT_TRUE(x.margin_intact() && y.margin_intact()) << label(s);
  }
}

TEST(TileLibSoftmax, LargeLogitsDoNotOverflow) {
  GuardedTensor<float> x({2, 9}, 0.0f), y({2, 9}, NAN);
  for (int64_t i = 0; i < 18; ++i) x[i] = 80.0f + float(i % 9);
  interpret(lib::softmax(4), {x.view(), y.view()});
  std::vector<double> want(18);
  double total = 0;
  for (int c = 0; c < 9; ++c) total += std::exp(double(c - 8));
  for (int i = 0; i < 18; ++i) want[size_t(i)] = std::exp(double(i % 9 - 8)) / total;
  EXPECT_EQ(mismatch(y.values(), want, kTol, kTol), std::nullopt);
}

TEST(TileLibNorm, LayerNormMatchesTheFp64Formula) {
  const float eps = 1e-5f;
  for (Rows s : kShapes) {
    GuardedTensor<float> x = random_tensor({s.rows, s.cols}, 12, 2, 5), g = random_tensor({s.cols}, 13),
                         b = random_tensor({s.cols}, 14), y({s.rows, s.cols}, NAN);
    interpret(lib::layer_norm(eps, s.width), {x.view(), g.view(), b.view(), y.view()});
    std::vector<double> want(size_t(s.rows * s.cols));
    for (int64_t r = 0; r < s.rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < s.cols; ++c) mean += x[r * s.cols + c];
      mean /= double(s.cols);
      for (int64_t c = 0; c < s.cols; ++c) var += (x[r * s.cols + c] - mean) * (x[r * s.cols + c] - mean);
      var /= double(s.cols);
      for (int64_t c = 0; c < s.cols; ++c)
        want[size_t(r * s.cols + c)] = (x[r * s.cols + c] - mean) / std::sqrt(var + double(eps)) * g[c] + b[c];
    }
    EXPECT_EQ(mismatch(y.values(), want, kTol, kTol), std::nullopt) << label(s);
    EXPECT_TRUE(x.margin_intact() && y.margin_intact() && g.margin_intact()) << label(s);
  }
}

TEST(TileLibNorm, RmsNormMatchesTheFp64Formula) {
  const float eps = 1e-6f;
  for (Rows s : kShapes) {
    GuardedTensor<float> x = random_tensor({s.rows, s.cols}, 15), g = random_tensor({s.cols}, 16), y({s.rows, s.cols}, NAN);
    interpret(lib::rms_norm(eps, s.width), {x.view(), g.view(), y.view()});
    std::vector<double> want(size_t(s.rows * s.cols));
    for (int64_t r = 0; r < s.rows; ++r) {
      double squares = 0;
      for (int64_t c = 0; c < s.cols; ++c) squares += double(x[r * s.cols + c]) * x[r * s.cols + c];
      double scale = 1 / std::sqrt(squares / double(s.cols) + double(eps));
      for (int64_t c = 0; c < s.cols; ++c) want[size_t(r * s.cols + c)] = x[r * s.cols + c] * scale * g[c];
    }
    EXPECT_EQ(mismatch(y.values(), want, kTol, kTol), std::nullopt) << label(s);
    EXPECT_TRUE(y.margin_intact()) << label(s);
  }
}

TEST(TileLibScan, InclusiveAndExclusiveMatchFp64PrefixSums) {
  Kernel inclusive = lib::scan(lib::ScanKind::inclusive), exclusive = lib::scan(lib::ScanKind::exclusive);
  for (Rows s : kShapes) {
    // Values of one sign keep the prefix sums well conditioned for the tolerance.
    GuardedTensor<float> x = random_tensor({s.rows, s.cols}, 17, 0, 1), in({s.rows, s.cols}, NAN), ex({s.rows, s.cols}, NAN);
    interpret(inclusive, {x.view(), in.view()});
    interpret(exclusive, {x.view(), ex.view()});
    std::vector<double> want_in(size_t(s.rows * s.cols)), want_ex(want_in.size());
    for (int64_t r = 0; r < s.rows; ++r) {
      double total = 0;
      for (int64_t c = 0; c < s.cols; ++c) {
        want_ex[size_t(r * s.cols + c)] = total;
        total += x[r * s.cols + c];
        want_in[size_t(r * s.cols + c)] = total;
      }
    }
    EXPECT_EQ(mismatch(in.values(), want_in, kTol, kTol), std::nullopt) << label(s);
    EXPECT_EQ(mismatch(ex.values(), want_ex, kTol, kTol), std::nullopt) << label(s);
    EXPECT_TRUE(in.margin_intact() && ex.margin_intact()) << label(s);
  }
}

}  // namespace
}  // namespace tack::tile
