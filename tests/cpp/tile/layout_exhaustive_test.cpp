// Postconditions of the algebra checked over every index of every layout in
// a finite family: all flat layouts of rank <= 3 and size <= 64, extents >= 1,
// strides of extent >= 2 leaves in {0..8, 16}, strides of extent-1 leaves in
// {0, 5} (check::LayoutFamily's defaults; 264,824 layouts).
// Binary operations take every layout of the family on one side and, on the
// other, the fixed layouts of a small table in rotation, so that every layout
// meets one of them and every table entry meets a slice of the family.
#include <gtest/gtest.h>

#include <algorithm>

#include "tack/tile/layout.h"
#include "tack/tile/layout_check.h"
#include "tack/tile/prover.h"

namespace tack::tile {
namespace {

Layout L(std::string_view text) {
  Result<Layout> r = parse_layout(text);
  if (!r) throw std::invalid_argument(r.diagnostic());
  return *r;
}

const std::vector<Layout>& family() {
  static const std::vector<Layout> layouts = check::enumerate_layouts(check::LayoutFamily{});
  return layouts;
}

std::vector<std::int64_t> V(const Layout& a) {
  auto v = check::values(a);
  if (!v) throw std::invalid_argument("no values for " + to_string(a));
  return *v;
}

struct Leaf {
  std::int64_t shape, stride;
};

std::vector<Leaf> flat_leaves(const Layout& a) {
  std::vector<Leaf> out;
  std::vector<IntTuple> s = leaves(a.shape()), d = leaves(a.stride());
  for (std::size_t i = 0; i < s.size(); ++i) out.push_back({s[i].value(), d[i].value()});
  return out;
}

// The complement's precondition, restated independently: the leaves of extent
// >= 2, sorted by stride, have positive strides, each a multiple of the span
// of the previous one. Returns the span, or 0 when the precondition fails.
std::int64_t gapped_mixed_radix_span(const Layout& a) {
  std::vector<Leaf> ls;
  for (const Leaf& l : flat_leaves(a))
    if (l.shape > 1) ls.push_back(l);
  std::sort(ls.begin(), ls.end(), [](const Leaf& x, const Leaf& y) { return x.stride < y.stride; });
  std::int64_t span = 1;
  for (const Leaf& l : ls) {
    if (l.stride <= 0 || l.stride % span != 0) return 0;
    span = l.stride * l.shape;
  }
  return span;
}

// True when `values` is a bijection onto [0, values.size()).
bool is_permutation_of_iota(const std::vector<std::int64_t>& values) {
  std::vector<bool> seen(values.size(), false);
  for (std::int64_t v : values) {
    if (v < 0 || v >= static_cast<std::int64_t>(values.size()) || seen[static_cast<std::size_t>(v)]) return false;
    seen[static_cast<std::size_t>(v)] = true;
  }
  return true;
}

TEST(LayoutExhaustive, FamilyIsWhatTheHeaderSays) { EXPECT_EQ(family().size(), 264824u); }

TEST(LayoutExhaustive, CoalescePreservesTheFunction) {
  for (const Layout& a : family()) {
    const Layout c = coalesce(a);
    ASSERT_EQ(V(c), V(a)) << to_string(a) << " -> " << to_string(c);
    ASSERT_LE(depth(c), 1) << to_string(a);
    const Layout m = coalesce_modes(a);
    ASSERT_EQ(rank(m), rank(a)) << to_string(a);
    for (std::size_t i = 0; i < rank(a); ++i) ASSERT_EQ(V(mode(m, i)), V(mode(a, i))) << to_string(a);
  }
}

TEST(LayoutExhaustive, ComplementFillsTheCodomain) {
  std::size_t admitted = 0;
  for (std::size_t k = 0; k < family().size(); ++k) {
    const Layout& a = family()[k];
    const std::int64_t span = gapped_mixed_radix_span(a);
    {
      // The tight cotarget, or one that needs rounding up and several copies.
      const std::int64_t cotarget = k % 2 == 0 ? *cosize(a) : 64;
      Result<Layout> c = complement(a, cotarget);
      ASSERT_EQ(c.ok(), span != 0) << to_string(a) << " " << c.diagnostic();
      if (!c) continue;
      ++admitted;
      std::vector<Leaf> cl = flat_leaves(*c);
      for (std::size_t i = 1; i < cl.size(); ++i) ASSERT_LT(cl[i - 1].stride, cl[i].stride) << to_string(*c);
      // (A, C) is a bijection onto [0, size(A) * size(C)) ...
      const std::vector<std::int64_t> joint = V(make_layout({a, *c}));
      ASSERT_TRUE(is_permutation_of_iota(joint)) << to_string(a) << " " << to_string(*c);
      // ... which covers the cotarget, exactly when the span divides it.
      const std::int64_t n = static_cast<std::int64_t>(joint.size());
      ASSERT_GE(n, cotarget);
      if (cotarget % span == 0) {
        ASSERT_EQ(n, cotarget) << to_string(a) << " " << to_string(*c);
      }
    }
  }
  EXPECT_GT(admitted, 5000u);
}

TEST(LayoutExhaustive, RightInverseIsInvertedByTheLayout) {
  for (const Layout& a : family()) {
    Result<Layout> r = right_inverse(a);
    ASSERT_TRUE(r) << r.diagnostic();
    const std::vector<std::int64_t> va = V(a), vr = V(*r);
    for (std::size_t i = 0; i < vr.size(); ++i) {
      ASSERT_GE(vr[i], 0);
      ASSERT_LT(vr[i], static_cast<std::int64_t>(va.size()));
      ASSERT_EQ(va[static_cast<std::size_t>(vr[i])], static_cast<std::int64_t>(i)) << to_string(a) << " " << to_string(*r);
    }
    // A bijection onto [0, size) has its whole inverse found.
    if (is_permutation_of_iota(va)) {
      ASSERT_EQ(vr.size(), va.size()) << to_string(a);
    }
  }
}

TEST(LayoutExhaustive, LeftInverseUndoesTheLayout) {
  std::size_t admitted = 0;
  for (const Layout& a : family()) {
    Result<Layout> l = left_inverse(a);
    ASSERT_EQ(l.ok(), gapped_mixed_radix_span(a) != 0) << to_string(a);
    if (!l) continue;
    ++admitted;
    const std::vector<std::int64_t> va = V(a), vl = V(*l);
    for (std::size_t i = 0; i < va.size(); ++i) {
      ASSERT_LT(va[i], static_cast<std::int64_t>(vl.size())) << to_string(a);
      ASSERT_EQ(vl[static_cast<std::size_t>(va[i])], static_cast<std::int64_t>(i)) << to_string(a) << " " << to_string(*l);
    }
  }
  EXPECT_GT(admitted, 5000u);
}

// R(i) == A(B(i)) over every index; an image outside A's domain must be refused.
void expect_composition(const Layout& a, const std::vector<std::int64_t>& va, const Layout& b,
                        const std::vector<std::int64_t>& vb, std::size_t& admitted) {
  Result<Layout> r = composition(a, b);
  const bool inside = std::all_of(vb.begin(), vb.end(),
                                  [&](std::int64_t x) { return x >= 0 && x < static_cast<std::int64_t>(va.size()); });
  if (!inside) {
    ASSERT_FALSE(r) << to_string(a) << " o " << to_string(b) << " = " << to_string(*r);
    return;
  }
  if (!r) return;
  ++admitted;
  if (b.shape().is_tuple()) {
    ASSERT_EQ(rank(*r), rank(b)) << to_string(a) << " o " << to_string(b);
  }
  const std::vector<std::int64_t> vr = V(*r);
  ASSERT_EQ(vr.size(), vb.size()) << to_string(a) << " o " << to_string(b);
  for (std::size_t i = 0; i < vr.size(); ++i)
    ASSERT_EQ(vr[i], va[static_cast<std::size_t>(vb[i])])
        << to_string(a) << " o " << to_string(b) << " = " << to_string(*r) << " at " << i;
}

TEST(LayoutExhaustive, CompositionWithFixedRightOperands) {
  const std::vector<Layout> bs = {L("4:1"), L("(2,2):(2,1)"), L("(2,3):(3,1)"), L("(2,2,2):(4,1,2)")};
  std::size_t admitted = 0;
  std::vector<std::vector<std::int64_t>> vbs;
  for (const Layout& b : bs) vbs.push_back(V(b));
  for (std::size_t k = 0; k < family().size(); ++k) {
    const std::size_t j = k % bs.size();
    expect_composition(family()[k], V(family()[k]), bs[j], vbs[j], admitted);
  }
  EXPECT_GT(admitted, 20000u);
}

TEST(LayoutExhaustive, CompositionWithFixedLeftOperands) {
  const std::vector<Layout> as = {L("64:1"), L("(8,8):(8,1)"), L("(4,4,4):(16,1,4)"), L("(2,3,4,2):(1,2,6,24)")};
  std::size_t admitted = 0;
  std::vector<std::vector<std::int64_t>> vas;
  for (const Layout& a : as) vas.push_back(V(a));
  const Layout line = L("64:3");
  for (std::size_t k = 0; k < family().size(); ++k) {
    const Layout& b = family()[k];
    const std::vector<std::int64_t> vb = V(b);
    const std::size_t j = k % as.size();
    expect_composition(as[j], vas[j], b, vb, admitted);
    // Into a linear layout every B inside the domain composes.
    if (*std::max_element(vb.begin(), vb.end()) < 64 && *std::min_element(vb.begin(), vb.end()) >= 0) {
      ASSERT_TRUE(composition(line, b)) << to_string(b);
    }
  }
  EXPECT_GT(admitted, 20000u);
}

TEST(LayoutExhaustive, DivideIsCompositionWithTheComplement) {
  const std::vector<Layout> tilers = {L("2:1"), L("(2,2):(1,4)"), L("3:2")};
  std::size_t admitted = 0;
  for (std::size_t k = 0; k < family().size(); ++k) {
    const Layout& a = family()[k];
    const Layout& b = tilers[k % tilers.size()];
    Result<Layout> d = logical_divide(a, b);
    Result<Layout> c = complement(b, *size(a));
    ASSERT_TRUE(c);
    Result<Layout> expected = composition(a, make_layout({b, *c}));
    ASSERT_EQ(d.ok(), expected.ok()) << to_string(a) << " / " << to_string(b);
    if (!d) continue;
    ++admitted;
    ASSERT_EQ(*d, *expected);
    // The tiles partition A's domain: (B, complement) is a bijection onto it.
    const std::vector<std::int64_t> tiles = V(make_layout({b, *c}));
    ASSERT_EQ(tiles.size(), static_cast<std::size_t>(*size(a)));
    ASSERT_TRUE(is_permutation_of_iota(tiles)) << to_string(a) << " / " << to_string(b);
    // Regroupings keep the leaves: checked in rotation, one per layout.
    const Layout leaves_of_d = flatten(*d);
    switch (k / tilers.size() % 3) {
      case 0: ASSERT_EQ(flatten(*zipped_divide(a, b)), leaves_of_d); break;
      case 1: ASSERT_EQ(flatten(*tiled_divide(a, b)), leaves_of_d); break;
      default: ASSERT_EQ(flatten(*flat_divide(a, b)), leaves_of_d); break;
    }
  }
  EXPECT_GT(admitted, 20000u);
}

TEST(LayoutExhaustive, ByModeDivideRegroupsTheSameLeaves) {
  const Tiler tiler = {L("2:1"), L("2:1")};
  std::size_t admitted = 0;
  for (std::size_t k = 0; k < family().size(); ++k) {
    const Layout& a = family()[k];
    if (rank(a) < 2) continue;
    Result<Layout> d = logical_divide(a, tiler);
    if (!d) continue;
    ++admitted;
    for (std::size_t i = 0; i < 2; ++i) ASSERT_EQ(mode(*d, i), *logical_divide(mode(a, i), tiler[i]));
    std::vector<Layout> tiles, rests;
    for (std::size_t i = 0; i < rank(*d); ++i) {
      if (i < 2) {
        tiles.push_back(mode(mode(*d, i), 0));
        rests.push_back(mode(mode(*d, i), 1));
      } else {
        rests.push_back(mode(*d, i));
      }
    }
    std::vector<Layout> all = tiles;
    all.insert(all.end(), rests.begin(), rests.end());
    switch (k % 3) {
      case 0: ASSERT_EQ(*flat_divide(a, tiler), make_layout(all)) << to_string(a); break;
      case 1: ASSERT_EQ(flatten(*zipped_divide(a, tiler)), flatten(make_layout(all))); break;
      default: ASSERT_EQ(flatten(*tiled_divide(a, tiler)), flatten(make_layout(all))); break;
    }
  }
  EXPECT_GT(admitted, 10000u);
}

TEST(LayoutExhaustive, ProductRepeatsTheBlock) {
  const std::vector<Layout> tilers = {L("3:1"), L("(2,2):(2,1)")};
  std::size_t admitted = 0;
  for (std::size_t k = 0; k < family().size(); ++k) {
    const Layout& a = family()[k];
    {
      const Layout& b = tilers[k % tilers.size()];
      Result<Layout> p = logical_product(a, b);
      Result<Layout> c = complement(a, *size(a) * *cosize(b));
      Result<Layout> q = c ? composition(*c, b) : Result<Layout>(c.failure());
      ASSERT_EQ(p.ok(), q.ok()) << to_string(a) << " x " << to_string(b);
      if (!p) continue;
      ++admitted;
      const Layout pattern = *q;
      ASSERT_EQ(*p, make_layout({a, pattern}));
      const std::vector<std::int64_t> vp = V(*p), va = V(a), vq = V(pattern);
      for (std::size_t i = 0; i < vp.size(); ++i)
        ASSERT_EQ(vp[i], va[i % va.size()] + vq[i / va.size()]);
      // Copies of an injective block at an injective pattern never overlap.
      std::vector<std::int64_t> sorted = vp;
      std::sort(sorted.begin(), sorted.end());
      ASSERT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) << to_string(*p);
    }
  }
  EXPECT_GT(admitted, 10000u);
}

TEST(LayoutExhaustive, BlockedAndRakedProductsPerMode) {
  const std::vector<Layout> tilers = {L("(2,3):(1,2)"), L("2:1")};
  std::size_t admitted = 0;
  for (std::size_t k = 0; k < family().size(); ++k) {
    const Layout& a = family()[k];
    {
      const Layout& b = tilers[k % tilers.size()];
      {
        const bool blocked = k / tilers.size() % 2 == 0;
        Result<Layout> r = blocked ? blocked_product(a, b) : raked_product(a, b);
        const std::size_t R = std::max(rank(a), rank(b));
        auto pad = [&](const Layout& x) {
          std::vector<Layout> m;
          for (std::size_t i = 0; i < rank(x); ++i) m.push_back(mode(x, i));
          while (m.size() < R) m.push_back(L("1:0"));
          return R == 1 ? x : make_layout(m);
        };
        const Layout pa = pad(a), pb = pad(b);
        Result<Layout> c = complement(pa, *size(pa) * *cosize(pb));
        Result<Layout> q = c ? composition(*c, pb) : Result<Layout>(c.failure());
        ASSERT_EQ(r.ok(), q.ok()) << to_string(a) << " " << to_string(b);
        if (!r) continue;
        ++admitted;
        ASSERT_EQ(rank(*r), R);
        const Layout pattern = *q;
        for (std::size_t i = 0; i < R; ++i) {
          const std::vector<std::int64_t> vm = V(R == 1 ? *r : mode(*r, i));
          const std::vector<std::int64_t> va = V(R == 1 ? pa : mode(pa, i));
          const std::vector<std::int64_t> vq = V(R == 1 ? pattern : mode(pattern, i));
          ASSERT_EQ(vm.size(), va.size() * vq.size());
          for (std::size_t x = 0; x < vm.size(); ++x) {
            const std::int64_t expected = blocked ? va[x % va.size()] + vq[x / va.size()]
                                                  : vq[x % vq.size()] + va[x / vq.size()];
            ASSERT_EQ(vm[x], expected) << (blocked ? "blocked " : "raked ") << to_string(a) << " " << to_string(b);
          }
        }
      }
    }
  }
  EXPECT_GT(admitted, 10000u);
}

TEST(LayoutExhaustive, ProverAgreesWithTheChecker) {
  std::size_t unknown_count = 0, total = 0;
  for (const Layout& a : family()) {
    const std::int64_t n = *size(a);
    // Totality is checked on random maps; here the two properties whose
    // proofs argue about the arrangement of the strides.
    const std::pair<Verdict, std::optional<bool>> cases[] = {
        {prove_injective(a), check::is_injective(a)},
        {prove_surjective(a, n), check::is_surjective(a, n)},
    };
    for (const auto& [verdict, truth] : cases) {
      ++total;
      ASSERT_TRUE(truth.has_value());
      if (verdict.truth == Truth::unknown) {
        ++unknown_count;
        continue;
      }
      ASSERT_EQ(verdict.proven(), *truth) << to_string(a) << ": " << verdict.reason;
    }
  }
  EXPECT_EQ(unknown_count, 0u) << "of " << total;
}

}  // namespace
}  // namespace tack::tile
