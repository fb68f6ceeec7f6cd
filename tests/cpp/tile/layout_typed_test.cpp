// Typed dimensions, index sets, and the index maps built from a shape.
#include <gtest/gtest.h>

#include "tack/tile/layout.h"
#include "tack/tile/layout_check.h"
#include "tack/tile/layout_index_set.h"
#include "tack/tile/layout_typed.h"

namespace tack::tile {
namespace {

Layout L(std::string_view text) {
  Result<Layout> r = parse_layout(text);
  if (!r) throw std::invalid_argument(r.diagnostic());
  return *r;
}

TEST(LayoutTyped, DimsAreFreshIdentities) {
  const Dim k1 = Dim::fresh("k");
  const Dim k2 = Dim::fresh("k");
  const Dim copy = k1;
  EXPECT_NE(k1, k2);
  EXPECT_EQ(k1, copy);
  EXPECT_EQ(k2.label(), "k");
}

TEST(LayoutTyped, ComposesOnlyMatchingSpaces) {
  const Dim m = Dim::fresh("m"), n = Dim::fresh("n"), t = Dim::fresh("t"), addr = Dim::fresh("addr");
  const TypedLayout a = *make_typed_layout(L("(4,8):(8,1)"), {m, n}, {addr});
  const TypedLayout b = *make_typed_layout(L("32:1"), {t}, {m, n});
  Result<TypedLayout> r = compose(a, b);
  ASSERT_TRUE(r) << r.diagnostic();
  EXPECT_EQ(to_string(*r), "(t) -> (addr) : ((4,8)):((8,1))");
  EXPECT_EQ(r->domain, std::vector<Dim>{t});
  EXPECT_EQ(r->codomain, std::vector<Dim>{addr});

  // Same labels, different Dims: rejected, and the message says so.
  const Dim other_m = Dim::fresh("m");
  const TypedLayout stranger = *make_typed_layout(L("32:1"), {t}, {other_m, n});
  Result<TypedLayout> bad = compose(a, stranger);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.diagnostic().find("'m' is not A's 'm' (a different Dim with the same label)"), std::string::npos)
      << bad.diagnostic();

  const Dim k = Dim::fresh("k");
  Result<TypedLayout> swapped = compose(a, *make_typed_layout(L("32:1"), {t}, {k, n}));
  ASSERT_FALSE(swapped);
  EXPECT_NE(swapped.diagnostic().find("B's codomain (k,n) is not A's domain (m,n)"), std::string::npos)
      << swapped.diagnostic();

  // Matching spaces, inadmissible layouts: the algebra's diagnostic comes through.
  Result<TypedLayout> outside = compose(a, *make_typed_layout(L("33:1"), {t}, {m, n}));
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.diagnostic().find("(domain)"), std::string::npos) << outside.diagnostic();

  EXPECT_FALSE(make_typed_layout(L("(4,8):(8,1)"), {m}, {addr}));
  EXPECT_FALSE(make_typed_layout(L("(4,8):(8,1)"), {m, m}, {addr}));
  EXPECT_FALSE(make_typed_layout(L("(4,8):(8,1)"), {m, n}, {}));
}

TEST(LayoutIndexSet, BoxesAndImages) {
  const IndexSet box = IndexSet::box(2, 6);
  EXPECT_EQ(*box.size(), 4);
  EXPECT_TRUE(*box.contains(5));
  EXPECT_FALSE(*box.contains(6));
  const IndexSet evens = IndexSet::image(L("4:2"));
  EXPECT_EQ(*evens.size(), 4);
  EXPECT_TRUE(*evens.contains(6));
  EXPECT_FALSE(*evens.contains(7));
  EXPECT_FALSE(*evens.disjoint(box));
  EXPECT_TRUE(*evens.disjoint(IndexSet::image(translation(L("4:2"), 1))));
  EXPECT_TRUE(*IndexSet::box(0, 2).disjoint(IndexSet::box(2, 4)));
  EXPECT_EQ(*IndexSet::image(L("(2,2):(1,1)")).size(), 3);
  EXPECT_TRUE(*IndexSet::image(L("(2,2):(1,1)")).subset_of(IndexSet::box(0, 3)));
  EXPECT_FALSE(*evens.subset_of(IndexSet::box(0, 6)));
  EXPECT_EQ(evens.to_string(), "image(4:2)");
  EXPECT_EQ(IndexSet::box(0, 3).to_string(), "[0, 3)");
  EXPECT_TRUE(IndexSet::image(L("?1:1")).size().is_unknown());
  EXPECT_TRUE(IndexSet::image(L("?1:1")).disjoint(box).is_unknown());
}

// Complement's postcondition in the language of index sets: the translates
// A + C(j) are pairwise disjoint and together fill [0, size(A) * size(C)).
TEST(LayoutIndexSet, ComplementTranslatesTileTheCodomain) {
  check::LayoutFamily small;
  small.max_size = 16;
  small.max_rank = 2;
  std::size_t admitted = 0;
  for (const Layout& a : check::enumerate_layouts(small)) {
    Result<Layout> c = complement(a, 32);
    if (!c) continue;
    ++admitted;
    const std::vector<std::int64_t> offsets = *check::values(*c);
    std::vector<IndexSet> translates;
    for (std::int64_t off : offsets) translates.push_back(IndexSet::image(translation(a, off)));
    const IndexSet image_c = IndexSet::image(*c);
    const IndexSet image_a = IndexSet::image(a);
    for (std::int64_t x : offsets) ASSERT_EQ(*image_a.contains(x), x == 0) << to_string(a);
    for (std::size_t i = 0; i < translates.size(); ++i)
      for (std::size_t j = i + 1; j < translates.size(); ++j)
        ASSERT_TRUE(*translates[i].disjoint(translates[j])) << to_string(a) << " " << to_string(*c);
    const std::int64_t n = *size(a) * *size(*c);
    ASSERT_TRUE(*IndexSet::image(make_layout({a, *c})).subset_of(IndexSet::box(0, n)));
    ASSERT_EQ(*IndexSet::image(make_layout({a, *c})).size(), n);
    ASSERT_TRUE(*image_c.subset_of(IndexSet::box(0, n)));
  }
  EXPECT_GT(admitted, 200u);
}

// Every shape of rank <= 3 and size <= 64, every subset and order of modes.
TEST(LayoutMaps, ProjectionAndPermutationOverAllSmallShapes) {
  std::size_t checked = 0;
  for (const Layout& l : check::enumerate_layouts(check::LayoutFamily{3, 64, {1}, {1}})) {
    const IntTuple& shape = l.shape();
    const std::size_t r = shape.rank();
    std::vector<std::int64_t> extent(r);
    for (std::size_t i = 0; i < r; ++i) extent[i] = (shape.is_leaf() ? shape : shape[i]).value();
    for (unsigned mask = 0; mask < (1u << r); ++mask) {
      std::vector<std::size_t> keep;
      for (std::size_t i = 0; i < r; ++i)
        if (mask & (1u << i)) keep.push_back(i);
      do {
        Layout p = *projection(shape, keep);
        ASSERT_EQ(p.shape(), shape);
        const std::vector<std::int64_t> vp = *check::values(p);
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(vp.size()); ++i) {
          std::vector<std::int64_t> coord(r);
          std::int64_t rest = i;
          for (std::size_t k = 0; k < r; ++k) {
            coord[k] = rest % extent[k];
            rest /= extent[k];
          }
          std::int64_t expected = 0, scale = 1;
          for (std::size_t k : keep) {
            expected += coord[k] * scale;
            scale *= extent[k];
          }
          ASSERT_EQ(vp[static_cast<std::size_t>(i)], expected) << to_string(p);
        }
        if (keep.size() == r) {
          ASSERT_EQ(*permutation(shape, keep), p);
          ASSERT_TRUE(*check::is_surjective(p, *size(p)));
        }
        ++checked;
      } while (std::next_permutation(keep.begin(), keep.end()));
    }
  }
  EXPECT_GT(checked, 1000u);
}

TEST(LayoutMaps, TranslationComposes) {
  const AffineLayout a = translation(L("(4,8):(8,1)"), 100);
  Result<AffineLayout> r = composition(a, L("(2,2):(2,1)"));
  ASSERT_TRUE(r);
  EXPECT_EQ(to_string(*r), "(2,2):(16,8)+100");
  const std::vector<std::int64_t> inner = *check::values(L("(2,2):(2,1)"));
  for (std::size_t i = 0; i < inner.size(); ++i)
    EXPECT_EQ(*evaluate(*r, static_cast<std::int64_t>(i)), *evaluate(a, inner[i]));
  EXPECT_EQ(to_string(translation(L("4:2"), -3)), "4:2-3");
}

}  // namespace
}  // namespace tack::tile
