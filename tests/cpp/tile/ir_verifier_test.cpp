// The verifier rejects each kind of malformed kernel with a message that
// names the operation and the operand.
#include <gtest/gtest.h>

#include "tack/tile/printer.h"
#include "tack/tile/verifier.h"

namespace tack::tile {
namespace {

constexpr const char* kScale = R"(
kernel @scale(%x: view<?xf32>, %y: view<?xf32>) {
  %n = dim %x axis 0 : i64
  parallel %i < %n {
    %v = view %x[%i] : view<f32>
    %a = load %v pad 0.0 : f32
    %two = const 2.0 : f32
    %b = mul %a, %two : f32
    %w = view %y[%i] : view<f32>
    store %w, %b
  }
}
)";

Operation* find(const Kernel& k, OpKind kind, int nth = 0) {
  Operation* found = nullptr;
  k.walk([&](Operation& op) {
    if (op.kind() == kind && nth-- == 0) found = &op;
  });
  return found;
}

// The verifier's message, which must exist and contain every fragment.
void expect_rejected(const Kernel& k, std::initializer_list<std::string> fragments) {
  std::optional<std::string> error = verify(k);
  ASSERT_TRUE(error.has_value()) << print(k);
  for (const std::string& f : fragments) EXPECT_NE(error->find(f), std::string::npos) << "missing '" << f << "' in: " << *error;
}

TEST(TileIrVerifier, AcceptsAWellFormedKernel) { EXPECT_EQ(verify(parse(kScale)), std::nullopt); }

TEST(TileIrVerifier, RejectsUseBeforeDefinition) {
  Kernel k = parse(kScale);
  Operation* mul = find(k, OpKind::mul);
  mul->move_before(find(k, OpKind::constant));
  // Printed numbering after the move: %6 = mul %5, %7 ; %7 = const.
  expect_rejected(k, {"'mul' %6", "operand #1 (%7)", "used before its definition"});
}

TEST(TileIrVerifier, RejectsAnOperandWhoseDefinitionLeftTheKernel) {
  Kernel k = parse(kScale);
  Operation* mul = find(k, OpKind::mul);
  std::unique_ptr<Operation> detached = find(k, OpKind::constant)->remove();
  expect_rejected(k, {"'mul' %6", "operand #1 (%?)", "'const'", "not in the kernel", "dangling"});
  mul->set_operand(1, mul->operand(0));
}

TEST(TileIrVerifier, RejectsAUseByAnOperationOutsideTheKernel) {
  Kernel k = parse(kScale);
  std::unique_ptr<Operation> detached = find(k, OpKind::store)->remove();
  expect_rejected(k, {"dangling use", "operand #", "'store'", "not in the kernel"});
}

TEST(TileIrVerifier, RejectsOperandTypeMismatch) {
  Kernel k = parse(R"(
kernel @mixed(%x: view<?xf32>) {
  %a = const 1.0 : f32
  %b = const 2.0 : f64
  %c = add %a, %b : f32
}
)");
  expect_rejected(k, {"'add' %3", "operand #1 (%2)", "has type f64; expected f32"});
}

TEST(TileIrVerifier, RejectsResultTypeMismatch) {
  Kernel k = parse(R"(
kernel @mixed(%x: view<?xf32>) {
  %a = const 1.0 : tile<4xf32>
  %c = lt %a, %a : tile<4xf32>
}
)");
  expect_rejected(k, {"'lt' %2", "result %2 has type tile<4xf32>; expected tile<4xi1>"});
}

TEST(TileIrVerifier, RejectsViewLoadAndMmaTypeMismatches) {
  expect_rejected(parse(R"(
kernel @v(%x: view<?x?xf32>) {
  %i = const 0 : i64
  %v = view %x[%i:4, %i:8] : view<8x4xf32>
}
)"),
                  {"'view' %2", "result %2 has type view<8x4xf32>; expected view<4x8xf32>"});
  expect_rejected(parse(R"(
kernel @l(%x: view<?xf32>) {
  %i = const 0 : i64
  %v = view %x[%i:4] : view<4xf32>
  %t = load %v pad 0.0 : tile<4xf64>
}
)"),
                  {"'load' %3", "expected tile<4xf32>"});
  expect_rejected(parse(R"(
kernel @m(%x: view<?xf32>) {
  %a = const 0.0 : tile<2x3xf32>
  %b = const 0.0 : tile<2x3xf32>
  %c = const 0.0 : tile<2x3xf32>
  %d = mma %a, %b, %c : tile<2x3xf32>
}
)"),
                  {"'mma' %4", "operand #1 (%2)", "does not multiply"});
}

TEST(TileIrVerifier, RejectsMalformedRegions) {
  constexpr const char* kLoop = R"(
kernel @loop(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  %z = const 0.0 : f32
  %s = serial %i < %n iter(%acc = %z) {
    %one = const 1.0 : f32
    %next = add %acc, %one : f32
    yield %next
  }
}
)";
  ASSERT_EQ(verify(parse(kLoop)), std::nullopt);
  {
    Kernel k = parse(kLoop);
    find(k, OpKind::serial)->region(0).add_block();
    expect_rejected(k, {"'serial' %3", "its body has 2 blocks", "exactly one block"});
  }
  {
    Kernel k = parse(kLoop);
    find(k, OpKind::yield)->erase();
    expect_rejected(k, {"'serial' %3", "does not end in 'yield'"});
  }
  {
    Kernel k = parse(kLoop);
    Operation* yield = find(k, OpKind::yield);
    yield->move_before(yield->parent_block()->front());
    expect_rejected(k, {"'serial' %3", "does not end in 'yield'"});
  }
  expect_rejected(parse(R"(
kernel @count(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  %z = const 0.0 : f32
  %s = serial %i < %n iter(%acc = %z) {
    yield
  }
}
)"),
                  {"'serial' %3", "yields 0 values; expected 1"});
  expect_rejected(parse(R"(
kernel @stage(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  serial %i < %n {
    stage "load"
  }
}
)"),
                  {"'stage'", "directly in the body of a 'pipeline'"});
  {
    Kernel k = parse(R"(
kernel @carry(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  parallel %i < %n {
  }
}
)");
    find(k, OpKind::parallel)->add_result(Type::tile(Scalar::f32));
    expect_rejected(k, {"'parallel' %2", "has 1 results for 0 carried values"});
  }
}

TEST(TileIrVerifier, RejectsAValueUsedOutsideItsRegion) {
  Kernel k = parse(R"(
kernel @escape(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  parallel %i < %n {
    %one = const 1.0 : f32
  }
  %two = const 2.0 : f32
}
)");
  Operation* one = find(k, OpKind::constant, 0);
  Operation* two = find(k, OpKind::constant, 1);
  Builder b(k.body());
  b.value(OpKind::add, {one->result(), two->result()}, Type::tile(Scalar::f32));
  expect_rejected(k, {"'add' %5", "operand #0 (%3)", "outside its region"});
}

constexpr const char* kProduct = R"(
kernel @product(%x: view<?xf64>) {
  %n = dim %x axis 0 : i64
  %one = const 1.0 : f64
  %p = reduce %i < %n POLICY init(%one) merge(#1) {
    %v = view %x[%i] : view<f64>
    %a = load %v pad 0.0 : f64
    yield %a
  } combiner #1 associative (%l: f64, %r: f64) {
    %m = mul %l, OPERAND : f64
    yield %m
  }
}
)";

std::string product(std::string policy, std::string operand = "%r") {
  std::string text = kProduct;
  text.replace(text.find("POLICY"), 6, policy);
  text.replace(text.find("OPERAND"), 7, operand);
  return text;
}

TEST(TileIrVerifier, ChecksReduceMergeLawsAgainstThePolicy) {
  EXPECT_EQ(verify(parse(product("ordered_tree"))), std::nullopt);
  EXPECT_EQ(verify(parse(product("left_fold"))), std::nullopt);
  expect_rejected(parse(product("unordered_tree")),
                  {"'reduce' %3", "combiner #1 is declared associative only",
                   "unordered_tree needs an associative and commutative merge"});
  expect_rejected(parse(R"(
kernel @difference(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  %z = const 0.0 : f32
  %d = reduce %i < %n ordered_tree init(%z) merge(sub) {
    %v = view %x[%i] : view<f32>
    %a = load %v pad 0.0 : f32
    yield %a
  }
}
)"),
                  {"'reduce' %3", "merge 'sub' of state #0 is not associative", "use left_fold or right_fold"});
}

TEST(TileIrVerifier, RejectsACombinerThatReadsOutsideItself) {
  expect_rejected(parse(product("left_fold", "%one")),
                  {"'mul' %9", "operand #1 (%2)", "outside the reduce combiner"});
}

TEST(TileIrVerifier, RejectsMemoryWritesInReduceBodies) {
  expect_rejected(parse(R"(
kernel @writes(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  %z = const 0.0 : f32
  %s = reduce %i < %n left_fold init(%z) merge(add) {
    %v = view %x[%i] : view<f32>
    %a = load %v pad 0.0 : f32
    store %v, %a
    yield %a
  }
}
)"),
                  {"'store'", "writes memory inside the body of 'reduce' %3"});
}

}  // namespace
}  // namespace tack::tile
