// The algebra's postconditions on 10,000 seeded random layouts (nested
// modes, rank <= 4, size <= 512, some negative strides), each checked over
// every index, with random right operands drawn to be admissible often.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tack/tile/layout.h"
#include "tack/tile/layout_check.h"

namespace tack::tile {
namespace {

constexpr int kLayouts = 10000;

std::vector<std::int64_t> V(const Layout& a) {
  auto v = check::values(a);
  if (!v) throw std::invalid_argument("no values for " + to_string(a));
  return *v;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::int64_t pick(std::mt19937_64& rng, const std::vector<std::int64_t>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

// An injective layout into [0, n): one to three leaves laid out as a gapped
// mixed radix of divisors of n, in a random order.
Layout divisor_tiler(std::mt19937_64& rng, std::int64_t n) {
  std::vector<std::int64_t> shape, stride;
  std::int64_t span = pick(rng, divisors(n));  // the first stride
  const int leaves = std::uniform_int_distribution<int>(1, 3)(rng);
  for (int k = 0; k < leaves && n % span == 0 && span < n; ++k) {
    const std::int64_t s = pick(rng, divisors(n / span));
    shape.push_back(s);
    stride.push_back(span);
    span *= s;
    if (n % span == 0) span *= pick(rng, divisors(n / span));
  }
  if (shape.empty()) return Layout(1, 0);
  std::vector<std::size_t> order(shape.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  if (order.size() == 1) return Layout(shape[0], stride[0]);
  std::vector<IntTuple> s, d;
  for (std::size_t i : order) {
    s.emplace_back(shape[i]);
    d.emplace_back(stride[i]);
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

std::int64_t gapped_mixed_radix_span(const Layout& a) {
  std::vector<std::pair<std::int64_t, std::int64_t>> ls;  // (stride, extent)
  std::vector<IntTuple> s = leaves(a.shape()), d = leaves(a.stride());
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i].value() > 1) ls.emplace_back(d[i].value(), s[i].value());
  std::sort(ls.begin(), ls.end());
  std::int64_t span = 1;
  for (const auto& [stride, extent] : ls) {
    if (stride <= 0 || stride % span != 0) return 0;
    span = stride * extent;
  }
  return span;
}

bool is_permutation_of_iota(const std::vector<std::int64_t>& values) {
  std::vector<bool> seen(values.size(), false);
  for (std::int64_t v : values) {
    if (v < 0 || v >= static_cast<std::int64_t>(values.size()) || seen[static_cast<std::size_t>(v)]) return false;
    seen[static_cast<std::size_t>(v)] = true;
  }
  return true;
}

class LayoutRandom : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(20260907);
    check::RandomLayoutOptions options;
    options.negative_stride = 0.05;
    for (int i = 0; i < kLayouts; ++i) layouts.push_back(check::random_layout(rng, options));
  }
  std::vector<Layout> layouts;
};

TEST_F(LayoutRandom, CoalescePreservesTheFunctionAndByModeTheRank) {
  for (const Layout& a : layouts) {
    const Layout c = coalesce(a);
    ASSERT_EQ(V(c), V(a)) << to_string(a);
    ASSERT_LE(depth(c), 1);
    const Layout m = coalesce_modes(a);
    ASSERT_EQ(rank(m), rank(a)) << to_string(a);
    for (std::size_t i = 0; i < rank(a); ++i) ASSERT_EQ(V(mode(m, i)), V(mode(a, i))) << to_string(a);
    std::vector<IntTuple> ones(rank(a), IntTuple(1));
    if (rank(a) > 1) {
      ASSERT_EQ(*coalesce(a, IntTuple::tuple(ones)), m);
    }
  }
}

TEST_F(LayoutRandom, ComplementAndInverses) {
  std::size_t admitted = 0;
  for (const Layout& a : layouts) {
    const std::int64_t span = gapped_mixed_radix_span(a);
    for (std::int64_t cotarget : {*cosize(a), 2 * std::max<std::int64_t>(span, 1)}) {
      Result<Layout> c = complement(a, cotarget);
      ASSERT_EQ(c.ok(), span != 0) << to_string(a) << ": " << c.diagnostic();
      if (!c) continue;
      ++admitted;
      const std::vector<std::int64_t> joint = V(make_layout({a, *c}));
      ASSERT_TRUE(is_permutation_of_iota(joint)) << to_string(a) << " " << to_string(*c);
      if (cotarget % span == 0) {
        ASSERT_EQ(static_cast<std::int64_t>(joint.size()), cotarget);
      }
    }
    const std::vector<std::int64_t> va = V(a);
    const std::vector<std::int64_t> vr = V(*right_inverse(a));
    for (std::size_t i = 0; i < vr.size(); ++i) ASSERT_EQ(va.at(static_cast<std::size_t>(vr[i])), static_cast<std::int64_t>(i));
    Result<Layout> l = left_inverse(a);
    ASSERT_EQ(l.ok(), span != 0);
    if (l) {
      const std::vector<std::int64_t> vl = V(*l);
      for (std::size_t i = 0; i < va.size(); ++i) ASSERT_EQ(vl.at(static_cast<std::size_t>(va[i])), static_cast<std::int64_t>(i));
    }
  }
  EXPECT_GT(admitted, static_cast<std::size_t>(kLayouts / 2));
}

TEST_F(LayoutRandom, CompositionAgreesWithFunctionComposition) {
  std::mt19937_64 rng(7);
  std::size_t admitted = 0;
  for (const Layout& a : layouts) {
    const std::int64_t n = *size(a);
    for (int k = 0; k < 2; ++k) {
      check::RandomLayoutOptions small;
      small.max_size = n;
      small.max_rank = 3;
      const Layout b = k == 0 ? divisor_tiler(rng, n) : check::random_layout(rng, small);
      Result<Layout> r = composition(a, b);
      const std::vector<std::int64_t> va = V(a), vb = V(b);
      const bool inside = std::all_of(vb.begin(), vb.end(), [&](std::int64_t x) { return x >= 0 && x < n; });
      if (!inside) {
        ASSERT_FALSE(r) << to_string(a) << " o " << to_string(b);
        continue;
      }
      if (!r) continue;
      ++admitted;
      const std::vector<std::int64_t> vr = V(*r);
      ASSERT_EQ(vr.size(), vb.size());
      for (std::size_t i = 0; i < vr.size(); ++i)
        ASSERT_EQ(vr[i], va[static_cast<std::size_t>(vb[i])]) << to_string(a) << " o " << to_string(b);
    }
  }
  EXPECT_GT(admitted, static_cast<std::size_t>(kLayouts));
}

TEST_F(LayoutRandom, DivideAndItsRegroupings) {
  std::mt19937_64 rng(11);
  std::size_t admitted = 0;
  for (const Layout& a : layouts) {
    const Layout b = divisor_tiler(rng, *size(a));
    Result<Layout> d = logical_divide(a, b);
    Result<Layout> c = complement(b, *size(a));
    ASSERT_TRUE(c) << to_string(b);
    Result<Layout> expected = composition(a, make_layout({b, *c}));
    ASSERT_EQ(d.ok(), expected.ok());
    if (!d) continue;
    ++admitted;
    ASSERT_EQ(*d, *expected);
    const Layout flat = *flat_divide(a, b);
    ASSERT_EQ(flatten(*d), flatten(flat));
    ASSERT_EQ(flatten(*zipped_divide(a, b)), flatten(flat));
    ASSERT_EQ(flatten(*tiled_divide(a, b)), flatten(flat));
    // The tile mode walks A along B.
    const std::vector<std::int64_t> vt = V(mode(*d, 0)), va = V(a), vb = V(b);
    for (std::size_t i = 0; i < vt.size(); ++i) ASSERT_EQ(vt[i], va[static_cast<std::size_t>(vb[i])]);
  }
  EXPECT_GT(admitted, static_cast<std::size_t>(kLayouts / 4));
}

TEST_F(LayoutRandom, ProductsRepeatTheBlock) {
  std::mt19937_64 rng(13);
  check::RandomLayoutOptions small;
  small.max_size = 8;
  small.max_rank = 2;
  small.mixed_radix = 0.8;
  std::size_t admitted = 0;
  for (const Layout& a : layouts) {
    const Layout b = check::random_layout(rng, small);
    Result<Layout> p = logical_product(a, b);
    if (!p) continue;
    ++admitted;
    const Layout pattern = *composition(*complement(a, *size(a) * *cosize(b)), b);
    ASSERT_EQ(*p, make_layout({a, pattern}));
    const std::vector<std::int64_t> vp = V(*p), va = V(a), vq = V(pattern);
    for (std::size_t i = 0; i < vp.size(); ++i) ASSERT_EQ(vp[i], va[i % va.size()] + vq[i / va.size()]);

    Result<Layout> blocked = blocked_product(a, b);
    Result<Layout> raked = raked_product(a, b);
    ASSERT_EQ(blocked.ok(), raked.ok());
    if (blocked) {
      const std::size_t r = std::max(rank(a), rank(b));
      ASSERT_EQ(rank(*blocked), r);
      ASSERT_EQ(rank(*raked), r);
      // Same multiset of values: both place every copy of A.
      std::vector<std::int64_t> x = V(*blocked), y = V(*raked);
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      ASSERT_EQ(x, y) << to_string(a) << " " << to_string(b);
    }
  }
  EXPECT_GT(admitted, static_cast<std::size_t>(kLayouts / 4));
}

}  // namespace
}  // namespace tack::tile
