// Reduction policies in compiled tile kernels, against reference results
// computed here in C++ float: folds are bitwise the serial loops (and a
// subtraction tells left from right), ordered_tree is bitwise the pairwise
// tree whatever the thread count; and the constructs the lowering refuses.
#include <gtest/gtest.h>

#include <bit>

#include <tbb/task_arena.h>

#include <cmath>
#include <cstring>
#include <random>

#include "tack/tile/capture.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"
#include "tack/tile/printer.h"  // parse
#include "devices.h"
#include "tile/lower/lower.h"

namespace tack::tile {
namespace {

uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Y[r] = seed (+) X[r, 0] (+) ... under `policy`; (+) is - or +.
Kernel row_reduce(ReductionPolicy policy, float seed, bool subtract) {
  return tile_kernel("row_reduce", [=](TensorView<float, 2> X, TensorView<float, 1> Y) {
    for (auto r : parallel(X.shape(0))) {
      Tile<float> acc = seed;
      for (auto k : reduce(X.shape(1), policy)) {
        if (subtract) acc = acc - X[{r, k}];
        else acc = acc + X[{r, k}];
      }
      Y(r).store(acc);
    }
  });
}

// Magnitudes over eight decades and both signs: regrouping changes the bits.
GuardedTensor<float> wide(Shape shape, uint32_t seed) {
  GuardedTensor<float> t(shape, 0.0f);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> exponent(-4, 4), sign(-1, 1);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = std::copysign(std::pow(10.0f, exponent(gen)), sign(gen));
  return t;
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
  return v[0];
}

std::vector<float> row(const GuardedTensor<float>& x, int64_t r, int64_t cols) {
  std::vector<float> out;
  for (int64_t c = 0; c < cols; ++c) out.push_back(x[r * cols + c]);
  return out;
}

TEST(TileCompilePolicy, SubtractionFoldsKeepTheirOrder) {
  const float seed = 0.75f;
  for (int64_t cols : {0, 1, 2, 7, 33}) {
    int64_t rows = 9;
    GuardedTensor<float> x = wide({rows, cols}, 1), left({rows}, NAN), right({rows}, NAN);
    compile("cpu", row_reduce(ReductionPolicy::left_fold, seed, true))->launch({x.view(), left.view()});
    compile("cpu", row_reduce(ReductionPolicy::right_fold, seed, true))->launch({x.view(), right.view()});
    bool differ = false;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<float> c = row(x, r, cols);
      float l = seed, rf = seed;
      for (float v : c) l = l - v;                                       // ((s - c0) - c1) - ...
      for (auto it = c.rbegin(); it != c.rend(); ++it) rf = *it - rf;   // c0 - (c1 - (... - (c[n-1] - s)))
      EXPECT_EQ(bits(left[r]), bits(l)) << cols << " columns, row " << r;
      EXPECT_EQ(bits(right[r]), bits(rf)) << cols << " columns, row " << r;
      differ = differ || bits(left[r]) != bits(right[r]);
    }
    if (cols >= 2) {
      EXPECT_TRUE(differ) << "left and right folds of - agree on every row of " << cols << " columns";
    }
    EXPECT_TRUE(x.margin_intact() && left.margin_intact() && right.margin_intact());
  }
}

TEST(TileCompilePolicy, AdditionFoldsAreTheSerialLoops) {
  const float seed = 3.0f;
  GuardedTensor<float> x = wide({6, 41}, 2), left({6}, NAN), right({6}, NAN);
  compile("cpu", row_reduce(ReductionPolicy::left_fold, seed, false))->launch({x.view(), left.view()});
  compile("cpu", row_reduce(ReductionPolicy::right_fold, seed, false))->launch({x.view(), right.view()});
  for (int64_t r = 0; r < 6; ++r) {
    std::vector<float> c = row(x, r, 41);
    float l = seed, rf = seed;
    for (float v : c) l = l + v;
    for (auto it = c.rbegin(); it != c.rend(); ++it) rf = *it + rf;
    EXPECT_EQ(bits(left[r]), bits(l)) << r;
    EXPECT_EQ(bits(right[r]), bits(rf)) << r;
  }
}

TEST(TileCompilePolicy, OrderedTreeDoesNotDependOnTheThreadCount) {
  const float seed = 1.5f;
  auto compiled = compile("cpu", row_reduce(ReductionPolicy::ordered_tree, seed, false));
  for (int64_t cols : {0, 1, 2, 3, 5, 8, 13, 64, 100, 257}) {
    int64_t rows = 301;  // enough iterations to be split across workers
    GuardedTensor<float> x = wide({rows, cols}, uint32_t(cols) + 3);
    std::vector<std::vector<float>> results;
    for (int threads : {1, 2, 3, 8}) {
      GuardedTensor<float> y({rows}, NAN);
      tbb::task_arena arena(threads);
      arena.execute([&] { compiled->launch({x.view(), y.view()}); });
      EXPECT_TRUE(y.margin_intact());
      results.push_back(y.values());
    }
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<float> c = row(x, r, cols);
      float want = cols == 0 ? seed : seed + pairwise(c);
      for (size_t t = 0; t < results.size(); ++t)
        ASSERT_EQ(bits(results[t][size_t(r)]), bits(want)) << cols << " columns, row " << r << ", arena #" << t;
    }
    // The interpreter's ordered tree is the same under any run options.
    for (RunOptions o : {RunOptions{1, 0}, RunOptions{7, 3}}) {
      GuardedTensor<float> y({rows}, NAN);
      interpret(row_reduce(ReductionPolicy::ordered_tree, seed, false), {x.view(), y.view()}, o);
      EXPECT_EQ(std::memcmp(y.values().data(), results[0].data(), sizeof(float) * size_t(rows)), 0) << cols;
    }
  }
}

TEST(TileCompilePolicy, UnorderedTreeIsAPermittedGrouping) {
  // One serial run, then the seed: the interpreter's grouping with one thread.
  const float seed = -2.0f;
  GuardedTensor<float> x = wide({5, 77}, 4), y({5}, NAN), want({5}, NAN);
  compile("cpu", row_reduce(ReductionPolicy::unordered_tree, seed, false))->launch({x.view(), y.view()});
  interpret(row_reduce(ReductionPolicy::unordered_tree, seed, false), {x.view(), want.view()});
  for (int64_t r = 0; r < 5; ++r) {
    std::vector<float> c = row(x, r, 77);
    float run = c[0];
    for (size_t i = 1; i < c.size(); ++i) run = run + c[i];
    EXPECT_EQ(bits(y[r]), bits(seed + run)) << r;
    EXPECT_EQ(bits(y[r]), bits(want[r])) << r;
  }
}

// A row tile of `width` columns reduced over its constant extent under
// `policy`, in the states (sum of f32, i64 digits): the sum by `+`, the
// digits by `a * 3 + b`, which tells every grouping and both operand
// orders apart (it is neither associative nor commutative; the promise of
// the laws lets the tree policies run it, and the ordered tree defines its
// result all the same).
Kernel lane_reduce(ReductionPolicy policy, int64_t width) {
  return tile_kernel("lane_reduce", [=](TensorView<float, 2> X, TensorView<int64_t, 2> D, TensorView<float, 1> S,
                                        TensorView<int64_t, 1> T) {
    Reducer<float, int64_t> both([](const auto& a, const auto& b) {
      return std::tuple{std::get<0>(a) + std::get<0>(b), std::get<1>(a) * int64_t(3) + std::get<1>(b)};
    }, Laws{.associative = true, .commutative = true});
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> x = X[{r, span(0, width)}];
      Tile<int64_t> d = D[{r, span(0, width)}];
      std::tuple<Tile<float>, Tile<int64_t>> acc{Tile<float>(0.25f), Tile<int64_t>(int64_t(5))};
      for (auto k : reduce(width, policy)) acc = both(acc, std::tuple{extract(x, 0, k), extract(d, 0, k)});
      S(r).store(std::get<0>(acc));
      T(r).store(std::get<1>(acc));
    }
  });
}

using Digits = std::pair<float, uint64_t>;
Digits merge_digits(Digits a, Digits b) { return {a.first + b.first, a.second * 3 + b.second}; }

// lane_reduce's row r under `policy`, written out: the serial loop for
// left_fold, else the seed merged with the pairwise tree.
Digits digits_want(ReductionPolicy policy, const GuardedTensor<float>& x, const GuardedTensor<int64_t>& d, int64_t r,
                   int64_t width) {
  std::vector<Digits> items;
  for (int64_t c = 0; c < width; ++c) items.emplace_back(x[r * width + c], uint64_t(d[r * width + c]));
  Digits want{0.25f, 5};
  if (policy == ReductionPolicy::left_fold) {
    for (const Digits& c : items) want = merge_digits(want, c);
    return want;
  }
  while (items.size() > 1) {
    std::vector<Digits> next;
    for (size_t i = 0; i + 1 < items.size(); i += 2) next.push_back(merge_digits(items[i], items[i + 1]));
    if (items.size() % 2) next.push_back(items.back());
    items = next;
  }
  return merge_digits(want, items[0]);
}

void fill_digits(GuardedTensor<int64_t>& d, uint32_t seed) {
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < d.size(); ++i) d[i] = int64_t(gen() % 1000);
}

// An ordered tree over a small constant domain of scalars is written out
// (no 64-slot stack), on the CPU as in a lane of a group; larger domains
// take the stack. Both are the pairwise tree.
TEST(TileCompilePolicy, AnOrderedTreeOverAFewContributionsIsWrittenOut) {
  const int64_t rows = 6;
  for (int64_t width : {1, 2, 3, 5, 8, 9, 13}) {
    Kernel kernel = lane_reduce(ReductionPolicy::ordered_tree, width);
    const std::string ir = lowered_kernel_ir(kernel);
    // Above 8 the stack, of as many states as the domain's bit length.
    EXPECT_EQ(ir.find("array[f32, (4)]") != std::string::npos, width > 8) << width << "\n" << ir;
    EXPECT_EQ(ir.find("array[f32, (64)]"), std::string::npos) << width << "\n" << ir;
    GuardedTensor<float> x = wide({rows, width}, uint32_t(width) + 40), s({rows}, NAN);
    GuardedTensor<int64_t> d({rows, width}, 0), t({rows}, -777);
    fill_digits(d, uint32_t(width));
    compile("cpu", kernel)->launch({x.view(), d.view(), s.view(), t.view()});
    for (int64_t r = 0; r < rows; ++r) {
      Digits want = digits_want(ReductionPolicy::ordered_tree, x, d, r, width);
      EXPECT_EQ(bits(s[r]), bits(want.first)) << width << " columns, row " << r;
      EXPECT_EQ(uint64_t(t[r]), want.second) << width << " columns, row " << r;
    }
    EXPECT_TRUE(s.margin_intact() && t.margin_intact());
  }
}

// An ordered tree of tile states over a constant domain keeps as many
// states on its stack as the domain's bit length (after k contributions
// it holds popcount(k) perfect subtrees), not the 64 of a domain known
// only at run time: 32x32 f32 states over 5 contributions take 12 KiB,
// where 64 slots (256 KiB) are refused (ScratchOverTheCap).
TEST(TileCompilePolicy, AnOrderedTreeOverAConstantDomainStacksItsBitLength) {
  for (int64_t n : {1, 2, 5, 8, 13}) {
    // Y[i] = -0 (+) the tree over X[i, 0..n) of 32x32 tiles.
    Kernel tree = tile_kernel("tree", [n](TensorView<float, 4> X, TensorView<float, 3> Y) {
      for (auto i : parallel(Y.shape(0))) {
        Tile<float> acc = full<float>({32, 32}, -0.0f);
        for (auto k : reduce(n, ReductionPolicy::ordered_tree)) acc = acc + X[{i, k, span(0, 32), span(0, 32)}];
        Y(i, span(0, 32), span(0, 32)).store(acc);
      }
    });
    const std::string ir = lowered_kernel_ir(tree);
    const std::string stack = "array[f32, (" + std::to_string(std::bit_width(uint64_t(n))) + ", 32, 32)]";
    EXPECT_NE(ir.find(stack), std::string::npos) << n << ": no " << stack << "\n" << ir;
    const int64_t rows = 3, tile = 32 * 32;
    GuardedTensor<float> x = wide({rows, n, 32, 32}, uint32_t(n) + 70), y({rows, 32, 32}, NAN);
    compile("cpu", tree)->launch({x.view(), y.view()});
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t e = 0; e < tile; ++e) {
        std::vector<float> c;
        for (int64_t k = 0; k < n; ++k) c.push_back(x[(i * n + k) * tile + e]);
        ASSERT_EQ(bits(y[i * tile + e]), bits(-0.0f + pairwise(c))) << n << " contributions, Y[" << i << "] element " << e;
      }
    EXPECT_TRUE(y.margin_intact());
  }
}

// In workgroups a tree policy's reduce over a constant extent runs on the
// group's lanes, pairs merged level by level in shared memory: the bits
// are the ordered tree's (written out here), for ordered_tree and for
// unordered_tree of scalars alike; left_fold stays the serial loop.
TEST(TileCompilePolicy, AGroupsLanesMergeAReduceAsTheOrderedTree) {
  if (auto why = missing_backend("opencl")) GTEST_SKIP() << *why;
  CompileOptions options;
  options.workgroups = CompileOptions::Workgroups::always;
  const int64_t rows = 5;
  for (ReductionPolicy policy : {ReductionPolicy::ordered_tree, ReductionPolicy::unordered_tree, ReductionPolicy::left_fold}) {
    for (int64_t width : {2, 3, 7, 32, 255, 256, 600}) {
      Kernel kernel = lane_reduce(policy, width);
      const std::string plan = lowered_kernel_ir(kernel, options, workgroup_target());
      ASSERT_EQ(plan.rfind("; in workgroups", 0), 0u) << plan.substr(0, plan.find('\n'));
      const bool over_lanes = plan.find("contributions over the group's lanes") != std::string::npos;
      EXPECT_EQ(over_lanes, policy != ReductionPolicy::left_fold) << width;
      GuardedTensor<float> x = wide({rows, width}, uint32_t(width)), s({rows}, NAN);
      GuardedTensor<int64_t> d({rows, width}, 0), t({rows}, -777);
      fill_digits(d, uint32_t(width) + 1);
      compile("opencl", kernel, options)->launch({x.view(), d.view(), s.view(), t.view()});
      for (int64_t r = 0; r < rows; ++r) {
        const Digits want = digits_want(policy, x, d, r, width);
        EXPECT_EQ(bits(s[r]), bits(want.first)) << width << " columns, row " << r;
        EXPECT_EQ(uint64_t(t[r]), want.second) << width << " columns, row " << r;
      }
      EXPECT_TRUE(x.margin_intact() && d.margin_intact() && s.margin_intact() && t.margin_intact());
      // The interpreter gives the same grouping where it is told to.
      GuardedTensor<float> si({rows}, NAN);
      GuardedTensor<int64_t> ti({rows}, -777);
      RunOptions grouping;
      grouping.scalar_trees = true;
      interpret(kernel, {x.view(), d.view(), si.view(), ti.view()}, grouping);
      EXPECT_EQ(si.values(), s.values()) << width;
      EXPECT_EQ(ti.values(), t.values()) << width;
    }
  }
}

TEST(TileCompilePolicy, AKernelWithoutParallelRegionRunsAsOneIteration) {
  Kernel k = tile_kernel("total", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> acc = 0.5f;
    for (auto i : reduce(X.shape(0), ReductionPolicy::ordered_tree)) acc = acc + X[{i}];
    Y(0).store(acc);
    Y(1).store(acc * 2.0f);
  });
  GuardedTensor<float> x = wide({37}, 5), y({2}, NAN);
  compile("cpu", k)->launch({x.view(), y.view()});
  float want = 0.5f + pairwise(x.values());
  EXPECT_EQ(bits(y[0]), bits(want));
  EXPECT_EQ(bits(y[1]), bits(want * 2.0f));
  EXPECT_TRUE(y.margin_intact());
}

// --- refusals ----------------------------------------------------------------

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TileCompileRefusal, DivisionByAnUnprovedDivisor) {
  Kernel k = tile_kernel("divide", [](TensorView<int64_t, 1> X, TensorView<int64_t, 1> Y) {
    for (auto i : parallel(X.shape(0))) Y(i).store(Index(100) / X[{i}]);
  });
  std::string m = refusal([&] { compile("cpu", k); });
  EXPECT_NE(m.find("compile @divide: 'div'"), std::string::npos) << m;
  EXPECT_NE(m.find("not proved positive"), std::string::npos) << m;
}

TEST(TileCompileRefusal, FloatingRemainder) {
  Kernel k = tile_kernel("fmod", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    for (auto i : parallel(X.shape(0))) Y(i).store(X[{i}] % Tile<float>(0.75f));
  });
  std::string m = refusal([&] { compile("cpu", k); });
  EXPECT_NE(m.find("'rem'"), std::string::npos) << m;
  EXPECT_NE(m.find("remainder"), std::string::npos) << m;
}

TEST(TileCompileRefusal, ExtractAtAnUnprovedPosition) {
  Kernel k = tile_kernel("pick", [](TensorView<float, 1> X, TensorView<int64_t, 1> P, TensorView<float, 1> Y) {
    for (auto i : parallel(Y.shape(0))) Y(i).store(extract(X[{span(0, 8)}], 0, P[{i}]));
  });
  std::string m = refusal([&] { compile("cpu", k); });
  EXPECT_NE(m.find("'extract'"), std::string::npos) << m;
}

TEST(TileCompileRefusal, ScratchOverTheCap) {
  Kernel big = tile_kernel("big", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0))) Y(span(i, 129), span(0, 128)).store(X[{span(i, 129), span(0, 128)}]);
  });
  std::string m = refusal([&] { compile("cpu", big); });
  EXPECT_NE(m.find("'load'"), std::string::npos) << m;
  EXPECT_NE(m.find("a tile of more than 64 KiB"), std::string::npos) << m;
  // 64 slots of a 32x32 f32 state are 256 KiB.
  Kernel tree = tile_kernel("tree", [](TensorView<float, 3> X, TensorView<float, 2> Y) {
    for (auto i : parallel(Y.shape(0))) {
      Tile<float> acc = full<float>({32, 32}, 0.0f);
      for (auto k : reduce(X.shape(0), ReductionPolicy::ordered_tree)) acc = acc + X[{k, span(0, 32), span(0, 32)}];
      Y(span(0, 32), span(0, 32)).store(acc);
    }
  });
  m = refusal([&] { compile("cpu", tree); });
  EXPECT_NE(m.find("'reduce'"), std::string::npos) << m;
  EXPECT_NE(m.find("ordered-tree stack"), std::string::npos) << m;
  // Twenty tiles of 64 KiB live at once, more than 1 MiB: a worker's
  // stack would overflow (the process crashed before). The load whose tile
  // crosses the budget is named.
  Kernel many = tile_kernel("many", [](TensorView<float, 3> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0))) {
      std::vector<Tile<float>> rows;
      for (int64_t n = 0; n < 20; ++n) rows.push_back(X[{i, n, span(0, 16384)}]);
      Tile<float> t = rows[0];
      for (int64_t n = 1; n < 20; ++n) t = t + rows[size_t(n)];
      Y(i, span(0, 16384)).store(t);
    }
  });
  m = refusal([&] { compile("cpu", many); });
  EXPECT_NE(m.find("compile @many: 'load'"), std::string::npos) << m;
  EXPECT_NE(m.find("more than the 1 MiB a worker's stack holds"), std::string::npos) << m;
}

// A chain of 81 tile operations on 64 KiB tiles (5.2 MiB if each had its
// own array) holds only the tiles that are live at once: x, the running
// value and the next one, with the product between them.
TEST(TileCompileScratch, AChainOfTilesReusesItsArrays) {
  Kernel chain = tile_kernel("chain", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0))) {
      Tile<float> x = X[{i, span(0, 16384)}];
      Tile<float> t = x;
      for (int n = 0; n < 40; ++n) t = t * 0.5f + x;
      Y(i, span(0, 16384)).store(t);
    }
  });
  int64_t bytes = ir::private_scratch_bytes(*lower::lower_to_kernel_ir(chain));
  EXPECT_LE(bytes, 4 * 65536) << bytes;
  GuardedTensor<float> x = uniform_tensor({3, 16384}, 8, -3, 3), want({3, 16384}, NAN), got({3, 16384}, NAN);
  interpret(chain, {x.view(), want.view()});
  compile("cpu", chain)->launch({x.view(), got.view()});
  auto w = want.values(), g = got.values();
  ASSERT_EQ(std::memcmp(w.data(), g.data(), w.size() * sizeof(float)), 0);
  EXPECT_TRUE(got.margin_intact());
}

// A chain computed where it is read holds the arrays it reads until then
// (src/tile/lower/fusion.cpp): t = t * 0.5 + (the next 64 KiB tile loaded),
// 40 times, each load before the step that reads it, would hold all 40
// loaded tiles (2.6 MB, refused); it holds at most kMostArraysHeld, so the
// kernel stays within the 1 MiB of scratch a worker has. (Written as text:
// capture places pure operations just before their first reader, here
// after every load.)
TEST(TileCompileScratch, AComputedChainHoldsFewArrays) {
  constexpr int64_t kTiles = 40, kWidth = 16384;
  const std::string tile = "tile<" + std::to_string(kWidth) + "xf32>", view = "view<" + std::to_string(kWidth) + "xf32>";
  std::string text = "kernel @chain(%0: view<?x?xf32>, %1: view<?x?xf32>) {\n  %2 = dim %0 axis 0 : i64\n  parallel %3 < %2 {\n";
  int next = 4;
  auto load = [&](int64_t n) {
    const int at = next++, v = next++, t = next++;
    text += "    %" + std::to_string(at) + " = const " + std::to_string(n * kWidth) + " : i64\n";
    text += "    %" + std::to_string(v) + " = view %0[%3, %" + std::to_string(at) + ":" + std::to_string(kWidth) + "] : " + view + "\n";
    text += "    %" + std::to_string(t) + " = load %" + std::to_string(v) + " pad 0.0 : " + tile + "\n";
    return t;
  };
  int t = load(0);
  for (int64_t n = 1; n < kTiles; ++n) {
    const int x = load(n), half = next++, halves = next++, product = next++, sum = next++;
    text += "    %" + std::to_string(half) + " = const 0.5 : f32\n";
    text += "    %" + std::to_string(halves) + " = broadcast %" + std::to_string(half) + " : " + tile + "\n";
    text += "    %" + std::to_string(product) + " = mul %" + std::to_string(t) + ", %" + std::to_string(halves) + " : " + tile + "\n";
    text += "    %" + std::to_string(sum) + " = add %" + std::to_string(product) + ", %" + std::to_string(x) + " : " + tile + "\n";
    t = sum;
  }
  const int zero = next++, out = next++;
  text += "    %" + std::to_string(zero) + " = const 0 : i64\n";
  text += "    %" + std::to_string(out) + " = view %1[%3, %" + std::to_string(zero) + ":" + std::to_string(kWidth) + "] : " + view + "\n";
  text += "    store %" + std::to_string(out) + ", %" + std::to_string(t) + "\n  }\n}\n";
  Kernel chain = parse(text);
  int64_t bytes = ir::private_scratch_bytes(*lower::lower_to_kernel_ir(chain));
  EXPECT_LE(bytes, 10 * 65536) << bytes;
  GuardedTensor<float> x = uniform_tensor({2, kTiles * kWidth}, 9, -3, 3), want({2, kWidth}, NAN), got({2, kWidth}, NAN);
  interpret(chain, {x.view(), want.view()});
  compile("cpu", chain)->launch({x.view(), got.view()});
  auto w = want.values(), g = got.values();
  ASSERT_EQ(std::memcmp(w.data(), g.data(), w.size() * sizeof(float)), 0);
  EXPECT_TRUE(got.margin_intact());
}

TEST(TileCompileRefusal, UnknownDevices) {
  Kernel k = tile_kernel("noop", [](TensorView<float, 1> X) {
    for (auto i : parallel(X.shape(0))) X(i).store(X[{i}]);
  });
  std::string m = refusal([&] { compile("nowhere", k); });
  EXPECT_NE(m.find("nowhere"), std::string::npos) << m;
}

// The C-family backends compile the same kernel IR: on OpenCL (PoCL in CI)
// a kernel run on host tensors gives the interpreter's bits, its output
// written back to host memory and nothing around it touched.
TEST(TileCompileDevices, OpenCLRunsHostTensorsAsTheInterpreterDoes) {
  if (auto why = missing_backend("opencl")) GTEST_SKIP() << *why;
  std::unique_ptr<CompiledKernel> compiled = compile("opencl", lib::matmul());
  EXPECT_EQ(compiled->device(), "opencl");
  const int64_t m = 19, k = 23, n = 17;
  std::mt19937 gen(7);
  std::normal_distribution<float> normal;
  std::vector<float> a(m * k), b(k * n), want(m * n, NAN), got(m * n + 8, -7.0f);
  for (float& x : a) x = normal(gen);
  for (float& x : b) x = normal(gen);
  interpret(lib::matmul(), {host_tensor(a.data(), {m, k}), host_tensor(b.data(), {k, n}), host_tensor(want.data(), {m, n})});
  compiled->launch({host_tensor(a.data(), {m, k}), host_tensor(b.data(), {k, n}), host_tensor(got.data() + 4, {m, n})});
  for (int64_t i = 0; i < m * n; ++i) EXPECT_EQ(std::memcmp(&got[4 + i], &want[i], 4), 0) << i;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], -7.0f) << i;
  for (int64_t i = 4 + m * n; i < m * n + 8; ++i) EXPECT_EQ(got[i], -7.0f) << i;
}

TEST(TileCompileRefusal, LaunchArgumentsAreChecked) {
  Kernel k = tile_kernel("noop", [](TensorView<float, 1> X) {
    for (auto i : parallel(X.shape(0))) X(i).store(X[{i}]);
  });
  auto compiled = compile("cpu", k);
  std::vector<double> d(4);
  std::string m = refusal([&] { compiled->launch({host_tensor(d.data(), {4})}); });
  EXPECT_NE(m.find("argument #0"), std::string::npos) << m;
  m = refusal([&] { compiled->launch({}); });
  EXPECT_NE(m.find("takes 1 tensors"), std::string::npos) << m;
}

}  // namespace
}  // namespace tack::tile
