// Golden outputs of the algebra, compared as text in CuTe notation: the
// issue's reference values and every worked example of the header comments.
#include <gtest/gtest.h>

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

std::string S(const Result<Layout>& r) { return r ? to_string(*r) : "<" + r.diagnostic() + ">"; }

TEST(LayoutGolden, IssueReferenceValues) {
  EXPECT_EQ(S(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)"))), "((2,2),3):((24,2),8)");
  EXPECT_EQ(S(logical_divide(L("(4,2,3):(2,1,8)"), L("4:2"))), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(S(logical_product(L("(2,2):(4,1)"), L("6:1"))), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(S(complement(L("4:2"), 24)), "(2,3):(1,8)");
  EXPECT_EQ(S(complement(L("6:4"), 24)), "4:1");
  EXPECT_EQ(S(complement(L("(2,2):(1,6)"), 24)), "(3,2):(2,12)");
}

TEST(LayoutGolden, Notation) {
  EXPECT_EQ(to_string(L("4:2")), "4:2");
  EXPECT_EQ(to_string(L(" ( 4 , (2,3) ) : (1,(4,8)) ")), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(to_string(L("(_4,_2):(_1,_4)")), "(4,2):(1,4)");
  EXPECT_EQ(to_string(L("(4):(2)")), "(4):(2)");
  EXPECT_EQ(to_string(L("(?3,4):(1,?5=16)")), "(?3,4):(1,?5=16)");
  // Symbolic leaves: coefficient first, factors sorted by symbol, 1* and
  // *1 dropped; bound factors keep their values.
  EXPECT_EQ(to_string(L("(?3,4,?4):(1,?3,?3*4)")), "(?3,4,?4):(1,?3,4*?3)");
  EXPECT_EQ(to_string(T("?4*2*?3=5*3")), "6*?3=5*?4");
  EXPECT_EQ(to_string(T("1*?3*1")), "?3");
  EXPECT_EQ(to_string(T("0*?3")), "0");
  EXPECT_EQ(T("2*?3=5*?4=7").runtime_value(), 70);
  EXPECT_EQ(T("2*?3=5*?4").runtime_value(), std::nullopt);
  EXPECT_EQ(to_string(bind(T("2*?3*?4"), {{3, 5}})), "2*?3=5*?4");
  EXPECT_FALSE(parse_layout("(?3,4):(1,?3*)"));
  EXPECT_EQ(to_string(L("3:-2")), "3:-2");
  EXPECT_FALSE(parse_layout("-3:2"));
  EXPECT_FALSE(parse_layout("(4,2):(1)"));
  EXPECT_FALSE(parse_layout("(4,2)"));
  EXPECT_FALSE(parse_layout("(4,2):(1,4"));
  EXPECT_FALSE(parse_layout("0:1"));
  EXPECT_FALSE(parse_layout("4:2 junk"));
  EXPECT_EQ(to_string(T("((2,2),3)")), "((2,2),3)");
}

TEST(LayoutGolden, HeaderExamples) {
  const Layout a = L("(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(to_string(make_layout({L("4:1"), L("(2,3):(4,8)")})), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(S(compact_layout(T("(4,(2,3))"))), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(to_string(mode(a, 1)), "(2,3):(4,8)");
  EXPECT_EQ(to_string(flatten(a)), "(4,2,3):(1,4,8)");
  EXPECT_EQ(*size(a), 24);
  EXPECT_EQ(*cosize(L("(4,2):(2,1)")), 8);
  EXPECT_EQ(*cosize(L("4:0")), 1);
  EXPECT_EQ(*evaluate(a, 13), 13);
  EXPECT_EQ(*evaluate_coordinate(a, {1, 1, 1}), 13);

  EXPECT_EQ(to_string(coalesce(L("(2,(1,6)):(1,(6,2))"))), "12:1");
  EXPECT_EQ(to_string(coalesce(L("(1,1):(3,5)"))), "1:0");
  EXPECT_EQ(S(coalesce(L("(2,(1,6)):(1,(6,2))"), T("(1,1)"))), "(2,6):(1,2)");
  EXPECT_EQ(to_string(coalesce_modes(L("((2,2),(3,1)):((1,2),(4,9))"))), "(4,3):(1,4)");

  EXPECT_EQ(S(composition(L("(12,8):(1,12)"), Tiler{L("3:4"), L("4:2")})), "(3,4):(4,24)");
  EXPECT_TRUE(composition(L("(4,3):(1,10)"), L("6:1")).is_inadmissible());

  EXPECT_TRUE(complement(L("(2,2):(1,1)"), 4).is_inadmissible());

  const Tiler t{L("2:1"), L("3:1")};
  const Layout b = L("(8,6):(1,8)");
  EXPECT_EQ(S(logical_divide(b, t)), "((2,4),(3,2)):((1,2),(8,24))");
  EXPECT_EQ(S(zipped_divide(b, t)), "((2,3),(4,2)):((1,8),(2,24))");
  EXPECT_EQ(S(tiled_divide(b, t)), "((2,3),4,2):((1,8),2,24)");
  EXPECT_EQ(S(flat_divide(b, t)), "(2,3,4,2):(1,8,2,24)");

  EXPECT_EQ(S(blocked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"))), "(6,(5,4)):(5,(1,30))");
  EXPECT_EQ(S(raked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"))), "((3,2),(4,5)):((10,5),(30,1))");

  EXPECT_EQ(S(right_inverse(L("(4,2):(2,1)"))), "(2,4):(4,1)");
  EXPECT_EQ(S(left_inverse(L("4:2"))), "(2,4):(4,1)");
  EXPECT_EQ(*max_common_vector(L("(4,8):(1,4)"), L("(4,8):(1,4)")), 32);
  EXPECT_EQ(*max_common_vector(L("(4,8):(1,4)"), L("(4,8):(8,1)")), 1);

  EXPECT_EQ(S(projection(T("(4,3,2)"), {0, 2})), "(4,3,2):(1,0,4)");
  EXPECT_EQ(S(permutation(T("(4,3,2)"), {2, 0, 1})), "(4,3,2):(2,8,1)");
  const AffineLayout shifted = translation(L("4:2"), 3);
  EXPECT_EQ(to_string(shifted), "4:2+3");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(*evaluate(shifted, i), 3 + 2 * i);
}

}  // namespace
}  // namespace tack::tile
