// Top-K and sort against std::sort under the library's total order, written
// here independently: values descending (Top-K) or ascending (sort), NaN
// beyond every number, -0 equal to +0, equal values by lower position.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"

namespace tack::tile {
namespace {

struct Entry {
  float value;
  int64_t position;
};

// Rank of a value in the total order, NaN above +inf; -0 and +0 share a rank.
double rank(float v) { return std::isnan(v) ? INFINITY : v == 0 ? 0.0 : double(v); }
bool larger_first(const Entry& a, const Entry& b) {
  if (std::isnan(a.value) && std::isnan(b.value)) return a.position < b.position;
  if (std::isnan(a.value) != std::isnan(b.value)) return std::isnan(a.value);
  if (rank(a.value) != rank(b.value)) return rank(a.value) > rank(b.value);
  return a.position < b.position;
}
bool smaller_first(const Entry& a, const Entry& b) {
  if (std::isnan(a.value) && std::isnan(b.value)) return a.position < b.position;
  if (std::isnan(a.value) != std::isnan(b.value)) return std::isnan(b.value);
  if (rank(a.value) != rank(b.value)) return rank(a.value) < rank(b.value);
  return a.position < b.position;
}

// Rows full of ties: small integers, both zeros, infinities and NaNs.
GuardedTensor<float> tie_heavy(Shape shape, uint32_t seed) {
  GuardedTensor<float> t(shape, 0.0f);
  std::mt19937 gen(seed);
  const float pool[] = {-0.0f, 0.0f, 1.0f, -1.0f, 2.5f, -2.5f, 7.0f, INFINITY, -INFINITY, NAN, 3.0f, -3.0f};
  for (int64_t i = 0; i < t.size(); ++i) t[i] = pool[gen() % std::size(pool)];
  return t;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

struct TopKCase {
  int64_t rows, cols, k;
};

TEST(TileLibTopK, MatchesAStableSortUnderTheTotalOrder) {
  const int64_t none = std::numeric_limits<int64_t>::max();
  // k up to lib::kTopKNetwork merges through bitonic networks, above by rank.
  static_assert(lib::kTopKNetwork == 64, "the cases cover both algorithms for this bound");
  for (TopKCase c : {TopKCase{17, 65, 5}, {4, 7, 7}, {4, 32, 7}, {3, 65, 1}, {3, 3, 5}, {0, 65, 2}, {2, 0, 3}, {6, 50, 8},
                     {5, 70, 9}, {3, 40, 12}, {4, 70, 16}, {3, 50, 17}, {3, 90, 32}, {2, 50, 33}, {2, 150, 64}, {2, 90, 65}}) {
    GuardedTensor<float> x = tie_heavy({c.rows, c.cols}, uint32_t(c.cols));
    std::vector<Entry> want;
    for (int64_t r = 0; r < c.rows; ++r) {
      std::vector<Entry> row;
      for (int64_t p = 0; p < c.cols; ++p) row.push_back({x[r * c.cols + p], p});
      std::sort(row.begin(), row.end(), larger_first);
      row.resize(size_t(c.k), Entry{-INFINITY, none});
      want.insert(want.end(), row.begin(), row.end());
    }
    // Blocks of the default width, of exactly k, of k + 3 and of 40 (or k
    // above): the same selection whatever the blocks.
    for (int64_t width : {int64_t(0), c.k, c.k + 3, std::max<int64_t>(40, c.k)})
    for (ReductionPolicy policy : {ReductionPolicy::unordered_tree, ReductionPolicy::ordered_tree,
                                   ReductionPolicy::left_fold, ReductionPolicy::right_fold}) {
      Kernel kernel = lib::topk(c.k, policy, width);
      for (RunOptions options : {RunOptions{1, 0}, RunOptions{3, 7}}) {
        GuardedTensor<float> v({c.rows, c.k}, NAN);
        GuardedTensor<int64_t> i({c.rows, c.k}, -7);
        interpret(kernel, {x.view(), v.view(), i.view()}, options);
        for (size_t e = 0; e < want.size(); ++e) {
          ASSERT_TRUE(same_bits(v[int64_t(e)], want[e].value) && i[int64_t(e)] == want[e].position)
              << c.rows << "x" << c.cols << " k=" << c.k << " width " << width << " " << policy_name(policy) << " entry " << e << ": got ("
              << v[int64_t(e)] << ", " << i[int64_t(e)] << "), want (" << want[e].value << ", " << want[e].position << ")";
        }
        EXPECT_TRUE(v.margin_intact() && i.margin_intact() && x.margin_intact());
      }
    }
  }
}

TEST(TileLibTopK, ABlockNarrowerThanKIsRefused) {
  try {
    lib::topk(8, ReductionPolicy::unordered_tree, 7);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the block width 7 is below k = 8"), std::string::npos) << e.what();
  }
}

// Top-K's prefilter (lib::topk_threshold, topk_compact, topk_columns)
// against its definition computed here: G groups of columns c % G, each
// group's runs of L strides, t the least over the groups of the rank-th
// largest run maximum (NaN as +inf, -inf where a group has fewer runs),
// the entries at or above t (NaN or >= t) in order; and the property the
// tournament relies on, that the row's first k are all among them.
struct PrefilterCase {
  int64_t rows, cols, k, rank, run, width;
};

TEST(TileLibTopK, ThePrefilterKeepsTheFirstKInOrder) {
  const int64_t none = std::numeric_limits<int64_t>::max();
  for (PrefilterCase c : {PrefilterCase{5, 200, 65, 16, 2, 16}, {4, 300, 100, 16, 1, 8}, {3, 1000, 130, 8, 4, 16},
                          {6, 97, 20, 4, 3, 16}, {2, 40, 40, 16, 8, 16}, {3, 64, 65, 16, 1, 16}, {0, 50, 10, 2, 1, 16}}) {
    const int64_t groups = (c.k + c.rank - 1) / c.rank, strides = (c.cols + groups - 1) / groups,
                  runs = (strides + c.run - 1) / c.run;
    for (bool ties : {true, false}) {
      GuardedTensor<float> x = tie_heavy({c.rows, c.cols}, uint32_t(c.cols + c.k));
      std::mt19937 gen(uint32_t(c.k));
      std::normal_distribution<float> normal;
      if (!ties)
        for (int64_t i = 0; i < x.size(); ++i) x[i] = normal(gen);
      GuardedTensor<float> shape({runs, c.run, groups}, 0.0f), t({c.rows}, NAN);
      GuardedTensor<int64_t> n({c.rows}, -7);
      interpret(lib::topk_threshold(c.rank, c.width), {x.view(), shape.view(), t.view(), n.view()});
      // Rows wider than every count, and narrower than most (the first
      // entries kept, as many as fit).
      for (const int64_t wide : {c.cols + 3, c.k / 2 + 1}) {
      GuardedTensor<float> v({c.rows, wide}, NAN);
      GuardedTensor<int64_t> p({c.rows, wide}, -7);
      interpret(lib::topk_compact(8), {x.view(), t.view(), v.view(), p.view()});
      std::string where = std::to_string(c.rows) + "x" + std::to_string(c.cols) + " k=" + std::to_string(c.k) +
                          (ties ? " ties" : " normal") + " in rows of " + std::to_string(wide);
      for (int64_t r = 0; r < c.rows; ++r) {
        auto at = [&](int64_t col) { return col < c.cols ? x[r * c.cols + col] : -INFINITY; };
        double want_t = INFINITY;
        for (int64_t g = 0; g < groups; ++g) {
          std::vector<double> maxima;
          for (int64_t q = 0; q < runs; ++q) {
            double most = -INFINITY;
            for (int64_t s = q * c.run; s < (q + 1) * c.run; ++s) most = std::max(most, rank(at(s * groups + g)));
            maxima.push_back(most);
          }
          std::sort(maxima.begin(), maxima.end(), std::greater<double>());
          want_t = std::min(want_t, c.rank <= runs ? maxima[size_t(c.rank - 1)] : -INFINITY);
        }
        ASSERT_EQ(rank(t[r]), want_t) << where << " row " << r;
        std::vector<Entry> kept, row;
        for (int64_t col = 0; col < c.cols; ++col) {
          row.push_back({at(col), col});
          if (std::isnan(at(col)) || double(at(col)) >= want_t) kept.push_back({at(col), col});
        }
        ASSERT_EQ(n[r], int64_t(kept.size())) << where << " row " << r;
        for (int64_t j = 0; j < wide; ++j) {
          Entry want = j < int64_t(kept.size()) ? kept[size_t(j)] : Entry{-INFINITY, none};
          ASSERT_TRUE(same_bits(v[r * wide + j], want.value) && p[r * wide + j] == want.position)
              << where << " row " << r << " place " << j << ": got (" << v[r * wide + j] << ", " << p[r * wide + j]
              << "), want (" << want.value << ", " << want.position << ")";
        }
        // Every one of the row's first k is kept.
        std::sort(row.begin(), row.end(), larger_first);
        for (int64_t j = 0; j < std::min(c.k, c.cols); ++j)
          ASSERT_TRUE(std::isnan(row[size_t(j)].value) || double(row[size_t(j)].value) >= want_t)
              << where << " row " << r << ": entry " << j << " of the first k is below the threshold";
      }
      EXPECT_TRUE(t.margin_intact() && n.margin_intact() && v.margin_intact() && p.margin_intact());
      }
    }
  }
}

// The tournament's first entries over compacted rows, given back their
// columns: I[r, j] = P[r, Q[r, j]].
TEST(TileLibTopK, ThePrefilteredColumnsAreLookedUp) {
  const int64_t rows = 3, run = 6, k = 4, wide = 9;
  GuardedTensor<float> s({rows, run}, 0.0f), v({rows, k}, NAN);
  GuardedTensor<int64_t> q({rows, run}, 0), p({rows, wide}, 0), i({rows, k}, -7);
  for (int64_t e = 0; e < s.size(); ++e) s[e] = float(e) * 0.5f, q[e] = (e * 5) % wide;
  for (int64_t e = 0; e < p.size(); ++e) p[e] = 1000 + 7 * e;
  interpret(lib::topk_columns(), {s.view(), q.view(), p.view(), v.view(), i.view()});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < k; ++j) {
      EXPECT_EQ(v[r * k + j], s[r * run + j]);
      EXPECT_EQ(i[r * k + j], p[r * wide + q[r * run + j]]) << r << ", " << j;
    }
  EXPECT_TRUE(v.margin_intact() && i.margin_intact());
}

TEST(TileLibSort, MatchesAStableSortUnderTheTotalOrder) {
  Kernel kernel = lib::sort();
  for (Shape shape : {Shape{17, 65}, Shape{4, 7}, Shape{4, 32}, Shape{4, 65}, Shape{3, 1}, Shape{0, 65}, Shape{3, 0}}) {
    GuardedTensor<float> x = tie_heavy(shape, uint32_t(shape[1] + 100)), y(shape, NAN);
    GuardedTensor<int64_t> i(shape, -7);
    interpret(kernel, {x.view(), y.view(), i.view()});
    for (int64_t r = 0; r < shape[0]; ++r) {
      std::vector<Entry> row;
      for (int64_t p = 0; p < shape[1]; ++p) row.push_back({x[r * shape[1] + p], p});
      std::stable_sort(row.begin(), row.end(), smaller_first);
      for (int64_t p = 0; p < shape[1]; ++p) {
        int64_t at = r * shape[1] + p;
        ASSERT_TRUE(same_bits(y[at], row[size_t(p)].value) && i[at] == row[size_t(p)].position)
            << shape[0] << "x" << shape[1] << " row " << r << " place " << p << ": got (" << y[at] << ", " << i[at]
            << "), want (" << row[size_t(p)].value << ", " << row[size_t(p)].position << ")";
      }
    }
    EXPECT_TRUE(y.margin_intact() && i.margin_intact());
  }
}

// A merge sort's first pass by bitonic networks: each run of Y's row holds
// the run's elements of X (past X's row, the order's last value at its own
// position) in the order's stable sort; outputs as wide as X and wider.
TEST(TileLibSort, BitonicRunsAreEachRunStablySorted) {
  for (lib::Order order : {lib::Order::ascending, lib::Order::descending})
    for (int64_t run : {1, 2, 8, 32})
      for (auto [rows, cols, width] : {std::array<int64_t, 3>{5, 70, 96}, {3, 64, 64}, {4, 7, 32}, {2, 1, 8}, {0, 5, 8}}) {
        if (width % run != 0 && width > run) continue;
        const bool descending = order == lib::Order::descending;
        GuardedTensor<float> x = tie_heavy({rows, cols}, uint32_t(cols + run)), y({rows, width}, 1.5f);
        GuardedTensor<int64_t> i({rows, width}, -7);
        interpret(lib::sort_runs_bitonic(run, order), {x.view(), y.view(), i.view()});
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t start = 0; start < width; start += run) {
            std::vector<Entry> want;
            for (int64_t p = start; p < std::min(start + run, width); ++p)
              want.push_back({p < cols ? x[r * cols + p] : descending ? -INFINITY : NAN, p});
            std::stable_sort(want.begin(), want.end(), descending ? larger_first : smaller_first);
            for (size_t e = 0; e < want.size(); ++e) {
              int64_t at = r * width + start + int64_t(e);
              ASSERT_TRUE(same_bits(y[at], want[e].value) && i[at] == want[e].position)
                  << (descending ? "descending" : "ascending") << " run " << run << " " << rows << "x" << cols << " into "
                  << width << ", row " << r << " place " << start + int64_t(e) << ": got (" << y[at] << ", " << i[at]
                  << "), want (" << want[e].value << ", " << want[e].position << ")";
            }
          }
        EXPECT_TRUE(y.margin_intact() && i.margin_intact() && x.margin_intact());
      }
}

TEST(TileLibSort, BitonicRunsOfNoPowerOfTwoAreRefused) {
  try {
    lib::sort_runs_bitonic(12);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the run 12 is not a power of two"), std::string::npos) << e.what();
  }
}

TEST(TileLibSort, SortsRandomRowsAgainstFp64) {
  GuardedTensor<float> x({17, 65}, 0.0f), y({17, 65}, NAN);
  GuardedTensor<int64_t> i({17, 65}, -1);
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-100, 100);
  for (int64_t e = 0; e < x.size(); ++e) x[e] = dist(gen);
  interpret(lib::sort(16), {x.view(), y.view(), i.view()});
  std::vector<double> want;
  for (int64_t r = 0; r < 17; ++r) {
    std::vector<double> row;
    for (int64_t p = 0; p < 65; ++p) row.push_back(x[r * 65 + p]);
    std::sort(row.begin(), row.end());
    want.insert(want.end(), row.begin(), row.end());
  }
  EXPECT_EQ(mismatch(y.values(), want, 5e-5, 5e-5), std::nullopt);
  for (int64_t e = 0; e < x.size(); ++e) EXPECT_EQ(x[e / 65 * 65 + i[e]], y[e]);
}

}  // namespace
}  // namespace tack::tile
