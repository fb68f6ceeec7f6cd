// Arguments outside an operation's precondition: each returns a Failure of
// the right kind whose message names the operation and the violated
// condition, never a layout. Dynamic leaves the operation must read give
// unknown; dynamic leaves it can carry through give a layout.
#include <gtest/gtest.h>

#include <functional>

#include "tack/tile/layout.h"

namespace tack::tile {
namespace {

Layout L(std::string_view text) {
  Result<Layout> r = parse_layout(text);
  if (!r) throw std::invalid_argument(r.diagnostic());
  return *r;
}

IntTuple T(std::string_view text) {
  Result<IntTuple> r = parse_int_tuple(text);
  if (!r) throw std::invalid_argument(r.diagnostic());
  return *r;
}

struct Case {
  const char* what;
  std::function<Result<Layout>()> run;
  FailureKind kind;
  const char* message_part;  // a phrase the diagnostic must contain
};

TEST(LayoutInadmissible, CuratedArguments) {
  const Case cases[] = {
      {"stride 2 meets extent 3", [] { return composition(L("(3,4):(1,5)"), L("3:2")); },
       FailureKind::inadmissible, "stride divisibility"},
      {"6 steps cross extent 4", [] { return composition(L("(4,3):(1,10)"), L("6:1")); },
       FailureKind::inadmissible, "shape divisibility"},
      {"0,2,4 through (4,3):(1,10) is 0,2,10", [] { return composition(L("(4,3):(1,10)"), L("(2,3):(1,2)")); },
       FailureKind::inadmissible, "shape divisibility"},
      {"B leaves A's domain", [] { return composition(L("4:1"), L("5:1")); }, FailureKind::inadmissible,
       "(domain)"},
      {"B's leaves overlap", [] { return composition(L("(2,2):(1,10)"), L("(2,2):(1,1)")); },
       FailureKind::inadmissible, "no carries"},
      {"negative stride in B", [] { return composition(L("8:1"), L("2:-1")); }, FailureKind::inadmissible,
       "negative stride"},
      {"tiler longer than the rank", [] { return composition(L("(4,4):(1,4)"), Tiler{L("2:1"), L("2:1"), L("2:1")}); },
       FailureKind::inadmissible, "tiler"},
      {"complement of a non-injective layout", [] { return complement(L("(2,2):(1,1)"), 8); },
       FailureKind::inadmissible, "gapped mixed radix"},
      {"complement of a broadcast", [] { return complement(L("4:0"), 8); }, FailureKind::inadmissible,
       "not injective"},
      {"complement of an injective non-radix", [] { return complement(L("(2,2):(2,3)"), 12); },
       FailureKind::inadmissible, "gapped mixed radix"},
      {"complement of a negative stride", [] { return complement(L("4:-1"), 8); }, FailureKind::inadmissible,
       "negative"},
      {"complement with an empty cotarget", [] { return complement(L("4:1"), 0); }, FailureKind::inadmissible,
       "cotarget"},
      {"tile 4 does not divide 6", [] { return logical_divide(L("6:1"), L("4:1")); }, FailureKind::inadmissible,
       "logical_divide"},
      {"divide by a non-injective tiler", [] { return logical_divide(L("(4,3):(1,4)"), L("(2,2):(1,1)")); },
       FailureKind::inadmissible, "gapped mixed radix"},
      {"product pattern not a layout", [] { return logical_product(L("(1,1,2):(0,0,2)"), L("3:1")); },
       FailureKind::inadmissible, "shape divisibility"},
      {"product of a non-injective block", [] { return logical_product(L("(2,2):(1,1)"), L("2:1")); },
       FailureKind::inadmissible, "logical_product"},
      {"blocked product of a non-injective block", [] { return blocked_product(L("(2,2):(1,1)"), L("2:1")); },
       FailureKind::inadmissible, "blocked_product"},
      {"left inverse of a non-injective layout", [] { return left_inverse(L("(3,2):(1,2)")); },
       FailureKind::inadmissible, "left_inverse"},
      {"profile deeper than the layout", [] { return coalesce(L("4:1"), T("(1,1)")); }, FailureKind::inadmissible,
       "profile"},
      {"projection keeps a mode twice", [] { return projection(T("(4,3)"), {0, 0}); }, FailureKind::inadmissible,
       "twice"},
      {"projection past the rank", [] { return projection(T("(4,3)"), {2}); }, FailureKind::inadmissible,
       "past the rank"},
      {"permutation missing a mode", [] { return permutation(T("(4,3)"), {0}); }, FailureKind::inadmissible,
       "not a permutation"},
      {"dynamic extent in B", [] { return composition(L("8:1"), L("?1:1")); }, FailureKind::unknown, "dynamic"},
      {"dynamic stride in B", [] { return composition(L("8:1"), L("2:?1")); }, FailureKind::unknown, "dynamic"},
      {"B may leave a dynamic domain", [] { return composition(L("(4,?1):(1,4)"), L("8:1")); }, FailureKind::unknown,
       "domain size unknown"},
      {"complement of a dynamic layout", [] { return complement(L("?1:1"), 8); }, FailureKind::unknown, "dynamic"},
      {"divide a dynamic layout", [] { return logical_divide(L("?1:1"), L("4:1")); }, FailureKind::unknown,
       "dynamic"},
      {"right inverse of a dynamic layout", [] { return right_inverse(L("(4,?1):(1,4)")); }, FailureKind::unknown,
       "dynamic"},
  };
  for (const Case& c : cases) {
    Result<Layout> r = c.run();
    ASSERT_FALSE(r) << c.what << ": produced " << to_string(*r);
    EXPECT_EQ(r.failure().kind, c.kind) << c.what << ": " << r.diagnostic();
    EXPECT_NE(r.diagnostic().find(c.message_part), std::string::npos) << c.what << ": " << r.diagnostic();
    EXPECT_THROW((void)r.value(), std::logic_error);
  }
}

TEST(LayoutInadmissible, SizesOfDynamicLayouts) {
  EXPECT_TRUE(size(L("(4,?1):(1,4)")).is_unknown());
  EXPECT_TRUE(cosize(L("(4,8):(1,?1)")).is_unknown());
  EXPECT_TRUE(max_common_vector(L("?1:1"), L("4:1")).is_unknown());
  EXPECT_EQ(*max_common_vector(L("4:1"), L("8:1")), 1);  // no admissible composition: width 1
}

TEST(LayoutInadmissible, DynamicLeavesThatPassThrough) {
  // B stays in A's static first mode.
  EXPECT_EQ(to_string(*composition(L("(4,?1):(1,4)"), L("4:1"))), "4:1");
  EXPECT_EQ(to_string(*composition(L("(4,?1):(1,4)"), L("(2,2):(2,1)"))), "(2,2):(2,1)");
  // A broadcast leaf of B keeps its dynamic extent.
  EXPECT_EQ(to_string(*composition(L("8:1"), L("(?1,4):(0,2)"))), "(?1,4):(0,2)");
  // A's first mode with a dynamic stride, read at stride 1.
  EXPECT_EQ(to_string(*composition(L("16:?2"), L("4:1"))), "4:?2");
  EXPECT_TRUE(composition(L("16:?2"), L("4:2")).is_unknown());
  // Coalesce merges only what it can see.
  EXPECT_EQ(to_string(coalesce(L("(2,2,?1,1):(1,2,4,7)"))), "(4,?1):(1,4)");
  EXPECT_EQ(to_string(*compact_layout(T("(4,?1)"))), "(4,?1):(1,4)");
  // Strides after a dynamic extent are symbolic.
  EXPECT_EQ(to_string(*compact_layout(T("(?1,4,?2)"))), "(?1,4,?2):(1,?1,4*?1)");
  EXPECT_EQ(to_string(*compact_layout(T("(?1,(2,?2),3)"))), "(?1,(2,?2),3):(1,(?1,2*?1),2*?1*?2)");
  // Evaluation uses bound runtime values, and only those.
  const Layout a = L("(4,?1):(1,4)");
  EXPECT_FALSE(evaluate(a, 5));
  const Layout bound = bind(a, {{1, 3}});
  EXPECT_EQ(to_string(bound), "(4,?1=3):(1,4)");
  EXPECT_EQ(*evaluate(bound, 11), 11);
  EXPECT_FALSE(evaluate(bound, 12));
  // A bound value does not make an operation static.
  EXPECT_TRUE(size(bound).is_unknown());
}

}  // namespace
}  // namespace tack::tile
