// TileIR core: operation table, types, use lists, the rewriter.
#include <gtest/gtest.h>

#include "tack/tile/ir.h"
#include "tack/tile/printer.h"
#include "tack/tile/verifier.h"

namespace tack::tile {
namespace {

Type f32() { return Type::tile(Scalar::f32); }
Type i64() { return Type::tile(Scalar::i64); }

Value* constant(Builder& b, double v, Type t = Type::tile(Scalar::f32)) {
  Attrs a;
  a.number = v;
  a.integer = int64_t(v);
  return b.value(OpKind::constant, {}, t, a);
}

std::vector<std::string> names_of(const Block& block) {
  std::vector<std::string> out;
  for (const Operation& op : block) out.emplace_back(op.name());
  return out;
}

TEST(TileIrOpTable, EveryKindRoundTripsThroughItsName) {
  int kinds = 0;
#define TACK_TILE_X(kind, text, format)                         \
  EXPECT_EQ(op_name(OpKind::kind), text);                       \
  EXPECT_EQ(op_format(OpKind::kind), OpFormat::format);         \
  EXPECT_EQ(op_from_name(text), std::optional(OpKind::kind));   \
  ++kinds;
  TACK_TILE_OPS(TACK_TILE_X)
#undef TACK_TILE_X
  EXPECT_EQ(kinds, 39);
  EXPECT_EQ(op_from_name("gemm"), std::nullopt);
}

TEST(TileIrTypes, PrintAndCompare) {
  EXPECT_EQ(to_string(Type::tile(Scalar::f32)), "f32");
  EXPECT_EQ(to_string(Type::tile(Scalar::i1, {32, 65})), "tile<32x65xi1>");
  EXPECT_EQ(to_string(Type::view(Scalar::f64, {kDynamic, 4})), "view<?x4xf64>");
  EXPECT_EQ(Type::tile(Scalar::f32, {2, 3}), Type::tile(Scalar::f32, {2, 3}));
  EXPECT_FALSE(Type::tile(Scalar::f32, {2, 3}) == Type::view(Scalar::f32, {2, 3}));
  EXPECT_FALSE(Type::tile(Scalar::f32, {2, 3}) == Type::tile(Scalar::f32, {3, 2}));
  EXPECT_TRUE(Type::tile(Scalar::i64).is_index());
  EXPECT_FALSE(Type::view(Scalar::f32, {kDynamic}).is_static());
  EXPECT_EQ(Shape({2, 3, 4}).drop(1), Shape({2, 4}));
  EXPECT_EQ(Shape({2, 3, 4}).num_elements(), 24);
  EXPECT_EQ(Shape().num_elements(), 1);
  EXPECT_THROW(Shape({1, 2, 3, 4, 5}), Error);
}

TEST(TileIrUses, UseListsTrackEveryOperand) {
  Kernel k("uses");
  Builder b(k.body());
  Value* x = constant(b, 1);
  Value* y = constant(b, 2);
  Value* sum = b.value(OpKind::add, {x, y}, f32());
  Value* square = b.value(OpKind::mul, {sum, sum}, f32());
  EXPECT_EQ(x->num_uses(), 1u);
  EXPECT_EQ(sum->num_uses(), 2u);
  EXPECT_FALSE(square->has_uses());
  std::vector<Operation*> users = sum->users();
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0], square->defining_op());
  EXPECT_EQ(users[1], square->defining_op());
  for (Use* u = sum->first_use(); u; u = u->next_use()) {
    EXPECT_EQ(u->get(), sum);
    EXPECT_EQ(u->owner()->operand(u->operand_index()), sum);
  }

  Operation* mul = square->defining_op();
  mul->set_operand(1, x);
  EXPECT_EQ(sum->num_uses(), 1u);
  EXPECT_EQ(x->num_uses(), 2u);
  mul->append_operand(y);
  EXPECT_EQ(mul->num_operands(), 3u);
  EXPECT_EQ(y->num_uses(), 2u);
  mul->erase_operand(0);
  EXPECT_EQ(mul->operand(0), x);
  EXPECT_EQ(mul->operand(1), y);
  EXPECT_FALSE(sum->has_uses());
  for (Use* u = y->first_use(); u; u = u->next_use()) EXPECT_EQ(u->owner()->operand(u->operand_index()), y);
}

TEST(TileIrRewriter, ReplaceAllUsesAndErase) {
  Kernel k("rauw");
  Builder b(k.body());
  Value* x = constant(b, 1);
  Value* sum = b.value(OpKind::add, {x, x}, f32());
  Value* twice = b.value(OpKind::mul, {sum, x}, f32());
  Value* three = constant(b, 3);
  three->defining_op()->move_before(sum->defining_op());
  sum->replace_all_uses_with(three);
  EXPECT_FALSE(sum->has_uses());
  EXPECT_EQ(twice->defining_op()->operand(0), three);
  EXPECT_EQ(x->num_uses(), 3u);
  sum->defining_op()->erase();
  EXPECT_EQ(x->num_uses(), 1u);
  EXPECT_EQ(names_of(k.body()), (std::vector<std::string>{"const", "const", "mul"}));

  replace_op(twice->defining_op(), {x});
  EXPECT_EQ(k.body().size(), 2u);
  EXPECT_EQ(verify(k), std::nullopt);
}

TEST(TileIrRewriter, InsertBeforeAfterAndMove) {
  Kernel k("order");
  Builder b(k.body());
  Value* n = constant(b, 4, i64());
  Operation* loop = b.create(OpKind::serial, {n}, {}, {}, 1);
  Block& body = loop->region(0).add_block();
  body.add_argument(i64());
  Builder inner(body);
  Operation* yield = inner.create(OpKind::yield, {}, {});
  Value* last = constant(b, 9);

  b.set_insertion_before(loop);
  Value* before = constant(b, 1);
  b.set_insertion_after(loop);
  Value* after = constant(b, 2);
  EXPECT_EQ(k.body().front()->next(), before->defining_op());
  EXPECT_EQ(loop->next(), after->defining_op());
  EXPECT_EQ(after->defining_op()->next(), last->defining_op());

  // Move a definition into the loop body, before its terminator.
  before->defining_op()->move_before(body.back());
  EXPECT_EQ(body.front(), before->defining_op());
  EXPECT_EQ(before->defining_op()->parent_op(), loop);
  EXPECT_TRUE(loop->is_ancestor_of(before->defining_op()));
  EXPECT_FALSE(before->defining_op()->is_ancestor_of(loop));

  last->defining_op()->move_after(k.body().front());
  EXPECT_EQ(k.body().front()->next(), last->defining_op());
  after->defining_op()->move_to_end(body);
  EXPECT_EQ(body.back(), after->defining_op());
  // The terminator is no longer last: the verifier says so.
  ASSERT_TRUE(verify(k).has_value());
  EXPECT_NE(verify(k)->find("'yield'"), std::string::npos);
  after->defining_op()->move_before(yield);
  EXPECT_EQ(body.back(), yield);
  EXPECT_EQ(verify(k), std::nullopt);
}

TEST(TileIrStructure, BlockArgumentsRegionsAndWalk) {
  Kernel k("walk");
  Value* view = k.body().add_argument(Type::view(Scalar::f32, {kDynamic}));
  Builder b(k.body());
  Attrs axis;
  Value* n = b.value(OpKind::dim, {view}, i64(), axis);
  Operation* par = b.create(OpKind::parallel, {n}, {}, {}, 1);
  Block& body = par->region(0).add_block();
  Value* i = body.add_argument(i64());
  Value* extra = body.add_argument(f32());
  EXPECT_EQ(extra->index(), 1u);
  EXPECT_EQ(i->owner_block(), &body);
  EXPECT_EQ(body.parent_op(), par);
  EXPECT_EQ(par->region(0).parent_op(), par);
  body.erase_argument(1);
  EXPECT_EQ(body.num_arguments(), 1u);
  Builder inner(body);
  Attrs e;
  e.extents = {kIndexed};
  Value* element = inner.value(OpKind::view, {view, i}, Type::view(Scalar::f32, {}), e);
  Value* x = inner.value(OpKind::load, {element}, f32());
  inner.create(OpKind::store, {element, x}, {});
  inner.create(OpKind::yield, {}, {});

  std::vector<std::string> order;
  k.walk([&](Operation& op) { order.emplace_back(op.name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"dim", "parallel", "view", "load", "store", "yield"}));
  EXPECT_EQ(verify(k), std::nullopt);
}

TEST(TileIrStructure, KernelsMoveWithTheirIr) {
  Kernel k("moved");
  Builder b(k.body());
  Value* x = constant(b, 1);
  b.value(OpKind::neg, {x}, f32());
  std::string before = print(k);
  Kernel other = std::move(k);
  EXPECT_EQ(print(other), before);
  Kernel third("empty");
  third = std::move(other);
  EXPECT_EQ(print(third), before);
}

}  // namespace
}  // namespace tack::tile
