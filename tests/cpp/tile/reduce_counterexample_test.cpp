// The ledger's semantic counterexample set for reductions: subtraction
// folds, associative but noncommutative merges, FP32-sensitive regrouping,
// nonidentity seeds, empty and masked domains, NaN / signed zero / ties, and
// strict and default reductions mixed in one kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "tack/tile/capture.h"
#include "tack/tile/interpreter.h"
#include "tack/tile/printer.h"
#include "tack/tile/verifier.h"

namespace tack::tile {
namespace {

constexpr ReductionPolicy kAll[] = {ReductionPolicy::unordered_tree, ReductionPolicy::ordered_tree,
                                    ReductionPolicy::left_fold, ReductionPolicy::right_fold};
const RunOptions kOptions[] = {{1, 0}, {3, 0}, {4, 17}, {8, 5}, {32, 1}};

uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

std::vector<float> run(const Kernel& k, std::vector<float> x, size_t outputs = 1, RunOptions options = {}) {
  std::vector<float> y(outputs, NAN);
  interpret(k, {host_tensor(x.data(), {int64_t(x.size())}), host_tensor(y.data(), {int64_t(outputs)})}, options);
  return y;
}

template <class Fn>
void expect_capture_error(Fn&& fn, std::initializer_list<std::string> fragments) {
  try {
    tile_kernel("rejected", std::forward<Fn>(fn));
    ADD_FAILURE() << "capture succeeded";
  } catch (const Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << "missing '" << f << "' in: " << e.what();
  }
}

TEST(TileReduceCounterexamples, LeftAndRightSubtractionFolds) {
  auto difference = [](ReductionPolicy p) {
    return tile_kernel("difference", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
      Tile<float> acc = 100.0f;
      for (auto k : reduce(X.shape(0), p)) acc = acc - X[{k}];
      Y(0).store(acc);
    });
  };
  std::vector<float> x{1, 2, 4, 8, 16, 0.1f, 3};
  float left = 100, right = 100;
  for (float v : x) left = left - v;                          // ((s - x0) - x1) - ...
  for (size_t i = x.size(); i-- > 0;) right = x[i] - right;   // x0 - (x1 - (... - (x6 - s)))
  EXPECT_NE(left, right);
  for (RunOptions o : kOptions) {
    EXPECT_EQ(bits(run(difference(ReductionPolicy::left_fold), x, 1, o)[0]), bits(left));
    EXPECT_EQ(bits(run(difference(ReductionPolicy::right_fold), x, 1, o)[0]), bits(right));
  }
  for (ReductionPolicy p : {ReductionPolicy::ordered_tree, ReductionPolicy::unordered_tree})
    expect_capture_error([p](TensorView<float, 1> X) {
      Tile<float> acc = 100.0f;
      for (auto k : reduce(X.shape(0), p)) acc = acc - X[{k}];
    }, {"merge 'sub' of state #0 (f32) is not associative", std::string(policy_name(p)), "use left_fold or right_fold"});
}

// 2x2 matrix products: associative, not commutative.
Kernel matrix_product(ReductionPolicy p) {
  return tile_kernel("matrix_product", [p](TensorView<double, 3> M, TensorView<double, 2> S, TensorView<double, 2> Out) {
    Reducer<double> times([](const Tile<double>& a, const Tile<double>& b) { return mma(a, b, full<double>({2, 2}, 0.0)); },
                          Laws{.associative = true});
    Tile<double> acc = S[{span(0, 2), span(0, 2)}];
    for (auto k : reduce(M.shape(0), p)) acc = times(acc, M[{k, span(0, 2), span(0, 2)}]);
    Out(span(0, 2), span(0, 2)).store(acc);
  });
}

using Mat = std::array<double, 4>;
Mat mul(const Mat& a, const Mat& b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
}

TEST(TileReduceCounterexamples, AssociativeNoncommutativeMatrixProducts) {
  std::mt19937 gen(3);
  const int n = 12;
  std::vector<double> m(n * 4);
  for (double& v : m) v = double(int(gen() % 5) - 2);  // small integers: every product is exact
  Mat seed{1, 2, 0, 1};
  Mat left = seed, right = seed;
  for (int k = 0; k < n; ++k) left = mul(left, {m[k * 4], m[k * 4 + 1], m[k * 4 + 2], m[k * 4 + 3]});
  for (int k = n; k-- > 0;) right = mul({m[k * 4], m[k * 4 + 1], m[k * 4 + 2], m[k * 4 + 3]}, right);
  Mat commuted = mul({m[0], m[1], m[2], m[3]}, {m[4], m[5], m[6], m[7]});
  ASSERT_NE(commuted, mul({m[4], m[5], m[6], m[7]}, {m[0], m[1], m[2], m[3]}));
  auto product = [&](ReductionPolicy p, RunOptions o) {
    Mat out{NAN, NAN, NAN, NAN};
    std::vector<double> s(seed.begin(), seed.end());
    interpret(matrix_product(p), {host_tensor(m.data(), {n, 2, 2}), host_tensor(s.data(), {2, 2}), host_tensor(out.data(), {2, 2})}, o);
    return out;
  };
  for (RunOptions o : kOptions) {
    EXPECT_EQ(product(ReductionPolicy::left_fold, o), left);
    EXPECT_EQ(product(ReductionPolicy::right_fold, o), right);
    EXPECT_EQ(product(ReductionPolicy::ordered_tree, o), left);  // associativity, exactly
  }
  expect_capture_error([] { matrix_product(ReductionPolicy::unordered_tree); },
                       {"this Reducer is declared associative but not commutative",
                        "unordered_tree needs an associative and commutative merge"});
  // The verifier rejects the same kernel when it arrives as text.
  std::string text = print(matrix_product(ReductionPolicy::ordered_tree));
  text.replace(text.find("ordered_tree"), 12, "unordered_tree");
  std::optional<std::string> error = verify(parse(text));
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("combiner #1 is declared associative only"), std::string::npos) << *error;
}

// Concatenation of decimal digit strings, encoded as (value, 10^length).
Kernel concatenation(ReductionPolicy p) {
  return tile_kernel("concatenation", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
    using Digits = std::tuple<Tile<double>, Tile<double>>;
    Reducer<double, double> concat(
        [](const Digits& a, const Digits& b) {
          auto [va, sa] = a;
          auto [vb, sb] = b;
          return Digits{va * sb + vb, sa * sb};
        },
        Laws{.associative = true});
    Tile<double> value = 7.0, scale = 10.0;
    for (auto k : reduce(X.shape(0), p)) {
      Digits digit{cast<double>(X[{k}]), Tile<double>(10.0)};
      std::tie(value, scale) = concat({value, scale}, digit);
    }
    Y(0).store(cast<float>(value / 1e6));
    Y(1).store(cast<float>(scale));
  });
}

TEST(TileReduceCounterexamples, StringConcatenationEncodedNumerically) {
  std::vector<float> digits{3, 1, 4, 1, 5};
  for (RunOptions o : kOptions) {
    EXPECT_EQ(run(concatenation(ReductionPolicy::left_fold), digits, 2, o), (std::vector<float>{float(731415 / 1e6), 1e6f}));
    EXPECT_EQ(run(concatenation(ReductionPolicy::ordered_tree), digits, 2, o), (std::vector<float>{float(731415 / 1e6), 1e6f}));
    EXPECT_EQ(run(concatenation(ReductionPolicy::right_fold), digits, 2, o), (std::vector<float>{float(314157 / 1e6), 1e6f}));
  }
  expect_capture_error([] { concatenation(ReductionPolicy::unordered_tree); }, {"associative but not commutative"});
}

TEST(TileReduceCounterexamples, Fp32SensitiveRegrouping) {
  std::vector<float> x;
  for (int i = 0; i < 64; ++i) x.push_back(i % 4 == 0 ? 1e8f : i % 4 == 2 ? -1e8f : 1.0f);
  auto sum = [](ReductionPolicy p) {
    return tile_kernel("sum", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
      Tile<float> acc = 0.0f;
      for (auto k : reduce(X.shape(0), p)) acc = acc + X[{k}];
      Y(0).store(acc);
    });
  };
  float left = 0;
  for (float v : x) left = left + v;
  std::vector<float> level = x;
  while (level.size() > 1) {
    std::vector<float> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(level[i] + level[i + 1]);
    if (level.size() % 2) next.push_back(level.back());
    level = next;
  }
  float tree = 0.0f + level[0];
  ASSERT_NE(left, tree);  // the grouping decides the FP32 result: 0 versus 32
  for (RunOptions o : kOptions) {
    EXPECT_EQ(bits(run(sum(ReductionPolicy::left_fold), x, 1, o)[0]), bits(left));
    EXPECT_EQ(bits(run(sum(ReductionPolicy::ordered_tree), x, 1, o)[0]), bits(tree));
    float any = run(sum(ReductionPolicy::unordered_tree), x, 1, o)[0];
    EXPECT_LE(std::fabs(any - 32.0), 64 * 6e-8 * 1.6e9) << o.threads << " threads";  // n * eps * sum |x|
  }
}

TEST(TileReduceCounterexamples, NonidentitySeedsCountOnce) {
  std::vector<float> x;
  for (int i = 1; i <= 40; ++i) x.push_back(float(i));
  for (ReductionPolicy p : kAll) {
    Kernel k = tile_kernel("seeded", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
      Tile<float> total = 10.0f, top = 100.0f, product = 2.0f;
      for (auto i : reduce(X.shape(0), p)) {
        Tile<float> v = X[{i}];
        total = total + v;
        top = maximum(top, v);
        product = product * select(v < 4.0f, v, 1.0f);
      }
      Y(0).store(total);
      Y(1).store(top);
      Y(2).store(product);
    });
    for (RunOptions o : kOptions)
      EXPECT_EQ(run(k, x, 3, o), (std::vector<float>{10 + 820, 100, 2 * 6})) << policy_name(p) << ", " << o.threads << " threads";
  }
}

TEST(TileReduceCounterexamples, EmptyDomainsGiveTheSeedBitForBit) {
  for (ReductionPolicy p : kAll) {
    Kernel k = tile_kernel("empty", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
      Tile<float> total = -0.0f, top = -INFINITY, product = 3.0f;
      for (auto i : reduce(X.shape(0), p)) {
        total = total + X[{i}];
        top = maximum(top, X[{i}]);
        product = product * X[{i}];
      }
      Y(0).store(total);
      Y(1).store(top);
      Y(2).store(product);
    });
    for (RunOptions o : kOptions) {
      std::vector<float> y = run(k, {}, 3, o);
      EXPECT_EQ(bits(y[0]), bits(-0.0f)) << policy_name(p);
      EXPECT_EQ(y[1], -INFINITY);
      EXPECT_EQ(y[2], 3.0f);
    }
  }
  std::vector<float> custom = run(concatenation(ReductionPolicy::ordered_tree), {}, 2);
  EXPECT_EQ(custom, (std::vector<float>{float(7 / 1e6), 10.0f}));
}

// Masked-out positions contribute the merge's identity: -0.0 for a sum (not
// +0.0, which would turn a -0.0 result positive) and -inf for a maximum.
TEST(TileReduceCounterexamples, MaskedDomains) {
  std::vector<float> x;
  for (int i = 0; i < 30; ++i) x.push_back(float(i % 7) - 3);
  for (ReductionPolicy p : kAll) {
    Kernel k = tile_kernel("masked", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
      Tile<float> some = 5.0f, none = -0.0f, top = -INFINITY;
      for (auto i : reduce(X.shape(0), p)) {
        Tile<float> v = X[{i}];
        Tile<bool> keep = i % int64_t(3) == int64_t(0);
        some = some + select(keep, v, -0.0f);
        none = none + select(i < int64_t(0), v, -0.0f);
        top = maximum(top, select(keep & (v < 2.0f), v, -INFINITY));
      }
      Y(0).store(some);
      Y(1).store(none);
      Y(2).store(top);
    });
    float want = 5, top = -INFINITY;
    for (int i = 0; i < 30; i += 3) want += x[size_t(i)], top = x[size_t(i)] < 2 ? std::max(top, x[size_t(i)]) : top;
    for (RunOptions o : kOptions) {
      std::vector<float> y = run(k, x, 3, o);
      EXPECT_EQ(y[0], want) << policy_name(p);
      EXPECT_EQ(bits(y[1]), bits(-0.0f)) << policy_name(p);
      EXPECT_EQ(y[2], top) << policy_name(p);
    }
  }
}

TEST(TileReduceCounterexamples, NanSignedZeroAndTies) {
  std::vector<float> zeros{-0.0f, 0.0f, -0.0f, -0.0f, 0.0f, -0.0f, 0.0f};
  std::vector<float> with_nan{1, 5, NAN, -2, 9, 3};
  for (ReductionPolicy p : kAll) {
    Kernel k = tile_kernel("extremes", [p](TensorView<float, 1> X, TensorView<float, 1> Y) {
      Tile<float> top = -INFINITY, bottom = INFINITY, total = -0.0f;
      for (auto i : reduce(X.shape(0), p)) {
        top = maximum(top, X[{i}]);
        bottom = minimum(bottom, X[{i}]);
        total = total + X[{i}];
      }
      Y(0).store(top);
      Y(1).store(bottom);
      Y(2).store(total);
    });
    for (RunOptions o : kOptions) {
      // maximum and minimum order -0 below +0, so every grouping agrees.
      std::vector<float> y = run(k, zeros, 3, o);
      EXPECT_EQ(bits(y[0]), bits(0.0f)) << policy_name(p);
      EXPECT_EQ(bits(y[1]), bits(-0.0f)) << policy_name(p);
      EXPECT_EQ(bits(y[2]), bits(0.0f)) << policy_name(p);
      std::vector<float> n = run(k, with_nan, 3, o);
      EXPECT_TRUE(std::isnan(n[0]) && std::isnan(n[1]) && std::isnan(n[2])) << policy_name(p);
    }
  }
  // Ties: an argmax under a total order on (value, position) picks the lowest
  // position among equal maxima whatever the grouping.
  using Best = std::tuple<Tile<float>, Index>;
  Kernel argmax = tile_kernel("argmax", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Reducer<float, int64_t> better(
        [](const Best& a, const Best& b) {
          auto [va, ia] = a;
          auto [vb, ib] = b;
          Tile<bool> take_a = (va > vb) | ((va == vb) & (ia < ib));
          return Best{select(take_a, va, vb), select(take_a, ia, ib)};
        },
        Laws{.associative = true, .commutative = true});
    Tile<float> value = -INFINITY;
    Index position = int64_t(1) << 40;
    for (auto i : reduce(X.shape(0))) std::tie(value, position) = better({value, position}, Best{X[{i}], i});
    Y(0).store(value);
    Y(1).store(cast<float>(position));
  });
  std::vector<float> ties{3, 7, 1, 7, -0.0f, 7, 2, 0.0f, 7};
  for (RunOptions o : kOptions) EXPECT_EQ(run(argmax, ties, 2, o), (std::vector<float>{7, 1})) << o.threads << " threads";
}

TEST(TileReduceCounterexamples, MixedStrictAndDefaultReductionsInOneKernel) {
  Kernel k = tile_kernel("mixed", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> left = 0.0f, right = 0.0f, ordered = 0.0f, any = 0.0f;
    for (auto i : reduce(X.shape(0), ReductionPolicy::left_fold)) left = left - X[{i}];
    for (auto i : reduce(X.shape(0), ReductionPolicy::right_fold)) right = right - X[{i}];
    for (auto i : reduce(X.shape(0), ReductionPolicy::ordered_tree)) ordered = ordered + X[{i}];
    for (auto i : reduce(X.shape(0))) any = any + X[{i}];
    // A strict fold nested in a default reduction keeps its own order.
    Tile<float> nested = 0.0f;
    for (auto i : reduce(X.shape(0) / int64_t(4))) {
      Tile<float> part = 0.0f;
      for (auto j : reduce(4, ReductionPolicy::left_fold)) part = part - X[{i * int64_t(4) + j}];
      nested = nested + part;
    }
    Y(0).store(left);
    Y(1).store(right);
    Y(2).store(ordered);
    Y(3).store(any);
    Y(4).store(nested);
  });
  std::string text = print(k);
  for (ReductionPolicy p : kAll) EXPECT_NE(text.find(std::string(policy_name(p)) + " init("), std::string::npos) << text;

  std::vector<float> x{1e8f, 1, -1e8f, 1, 0.5f, 3, -7, 1e-3f};
  float left = 0, right = 0;
  for (float v : x) left = left - v;
  for (size_t i = x.size(); i-- > 0;) right = x[i] - right;
  float ordered = 0.0f + (((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7])));
  double exact = 0;
  for (float v : x) exact += v;
  float part0 = 0, part1 = 0;
  for (int j = 0; j < 4; ++j) part0 = part0 - x[size_t(j)], part1 = part1 - x[size_t(4 + j)];
  for (RunOptions o : kOptions) {
    std::vector<float> y = run(k, x, 5, o);
    EXPECT_EQ(bits(y[0]), bits(left));
    EXPECT_EQ(bits(y[1]), bits(right));
    EXPECT_EQ(bits(y[2]), bits(ordered));
    EXPECT_LE(std::fabs(y[3] - exact), 8 * 6e-8 * 2.1e8);
    EXPECT_TRUE(y[4] == 0.0f + part0 + part1 || y[4] == 0.0f + part1 + part0);
  }
}

}  // namespace
}  // namespace tack::tile
