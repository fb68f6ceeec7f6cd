// Reduction policies: folds are bitwise the serial loops, ordered_tree is
// bitwise reproducible across runs and thread counts, unordered_tree is
// within tolerance. The reference results are computed here, in C++ float.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "tack/tile/capture.h"
#include "tack/tile/interpreter.h"
#include "tack/tile/printer.h"

namespace tack::tile {
namespace {

uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Y[0] = seed (+) X[0] (+) ... under `policy`.
Kernel sum_kernel(ReductionPolicy policy, float seed) {
  return tile_kernel("sum", [=](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> acc = seed;
    for (auto k : reduce(X.shape(0), policy)) acc = acc + X[{k}];
    Y(0).store(acc);
  });
}

float run(const Kernel& k, std::vector<float> x, RunOptions options = {}) {
  float y = NAN;
  interpret(k, {host_tensor(x.data(), {int64_t(x.size())}), host_tensor(&y, {1})}, options);
  return y;
}

// Magnitudes over eight decades and both signs: regrouping changes the bits.
std::vector<float> wide(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> exponent(-4, 4), sign(-1, 1);
  std::vector<float> x(n);
  for (float& v : x) v = std::copysign(std::pow(10.0f, exponent(gen)), sign(gen));
  return x;
}

// The ordered tree, written out: adjacent pairs merge level by level and an
// odd last element moves up unchanged.
float pairwise(std::vector<float> v) {
  while (v.size() > 1) {
    std::vector<float> next;
    for (size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(v[i] + v[i + 1]);
    if (v.size() % 2) next.push_back(v.back());
    v = next;
  }
  return v.empty() ? -0.0f : v[0];
}

const RunOptions kOptions[] = {{1, 0}, {2, 0}, {3, 0}, {4, 11}, {7, 3}, {16, 0}, {64, 99}};

TEST(TileReducePolicy, LeftFoldIsBitwiseTheSerialLoop) {
  for (size_t n : {1u, 7u, 100u, 1000u}) {
    std::vector<float> x = wide(n, uint32_t(n));
    float want = 0.25f;
    for (float v : x) want = want + v;
    Kernel k = sum_kernel(ReductionPolicy::left_fold, 0.25f);
    for (RunOptions o : kOptions) EXPECT_EQ(bits(run(k, x, o)), bits(want)) << n << " elements, " << o.threads << " threads";
  }
}

TEST(TileReducePolicy, RightFoldIsBitwiseTheReversedSerialLoop) {
  for (size_t n : {1u, 7u, 100u, 1000u}) {
    std::vector<float> x = wide(n, uint32_t(n + 1));
    float want = 0.25f;
    for (size_t i = n; i-- > 0;) want = x[i] + want;
    Kernel k = sum_kernel(ReductionPolicy::right_fold, 0.25f);
    for (RunOptions o : kOptions) EXPECT_EQ(bits(run(k, x, o)), bits(want)) << n << " elements, " << o.threads << " threads";
  }
}

TEST(TileReducePolicy, OrderedTreeIsReproducibleAcrossRunsAndThreadCounts) {
  for (size_t n : {1u, 2u, 5u, 7u, 100u, 1000u, 1023u}) {
    std::vector<float> x = wide(n, uint32_t(n + 2));
    float want = 0.25f + pairwise(x);
    Kernel k = sum_kernel(ReductionPolicy::ordered_tree, 0.25f);
    for (int repeat = 0; repeat < 2; ++repeat)
      for (RunOptions o : kOptions) EXPECT_EQ(bits(run(k, x, o)), bits(want)) << n << " elements, " << o.threads << " threads";
  }
}

TEST(TileReducePolicy, UnorderedTreeIsWithinToleranceAndExploresGroupings) {
  std::vector<float> x = wide(1000, 5);
  double exact = 0.25, magnitude = 0.25;
  for (float v : x) exact += v, magnitude += std::fabs(v);
  Kernel k = sum_kernel(ReductionPolicy::unordered_tree, 0.25f);
  std::set<uint32_t> seen;
  for (RunOptions o : kOptions) {
    float got = run(k, x, o);
    EXPECT_LE(std::fabs(got - exact), 1000 * 6e-8 * magnitude) << o.threads << " threads";
    seen.insert(bits(got));
  }
  // The oracle really uses the freedom the policy grants.
  EXPECT_GT(seen.size(), 1u);
  // With one run and no shuffle it is the left fold.
  float left = 0.25f;
  for (float v : x) left = left + v;
  EXPECT_EQ(bits(run(k, x, {1, 0})), bits(left));
}

TEST(TileReducePolicy, EachReduceRegionCarriesItsPolicy) {
  for (ReductionPolicy p : {ReductionPolicy::unordered_tree, ReductionPolicy::ordered_tree, ReductionPolicy::left_fold,
                            ReductionPolicy::right_fold}) {
    std::string text = print(sum_kernel(p, 0.0f));
    EXPECT_NE(text.find(std::string(policy_name(p)) + " init("), std::string::npos) << text;
    EXPECT_EQ(print(parse(text)), text);
  }
  // The default is unordered_tree.
  Kernel k = tile_kernel("default", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> acc = 0.0f;
    for (auto i : reduce(X.shape(0))) acc = acc + X[{i}];
    Y(0).store(sum(X[{span(0, 4)}], 0) + acc);
  });
  std::string text = print(k);
  EXPECT_EQ(text.find(" ordered_tree"), std::string::npos);
  EXPECT_EQ(text.find("fold"), std::string::npos);
}

TEST(TileReducePolicy, AxisReductionsHonourTheirPolicy) {
  std::vector<float> x = wide(64, 9);
  auto axis_sum = [](ReductionPolicy p) {
    return tile_kernel("axis", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
      Y(0).store(sum(X[{span(0, 64)}], 0, p));
    });
  };
  // The identity seed -0.0 leaves every sum's bits alone.
  float left = -0.0f, right = -0.0f;
  for (float v : x) left = left + v;
  for (size_t i = 64; i-- > 0;) right = x[i] + right;
  EXPECT_EQ(bits(run(axis_sum(ReductionPolicy::left_fold), x, {8, 3})), bits(left));
  EXPECT_EQ(bits(run(axis_sum(ReductionPolicy::right_fold), x, {8, 3})), bits(right));
  EXPECT_EQ(bits(run(axis_sum(ReductionPolicy::ordered_tree), x, {8, 3})), bits(-0.0f + pairwise(x)));
}

}  // namespace
}  // namespace tack::tile
