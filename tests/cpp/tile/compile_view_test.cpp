// Views of views in compiled tile kernels: an element is read or written
// only inside the parameter and inside every enclosing window, as in the
// interpreter. Capture makes views of parameters only, so these kernels are
// written in the TileIR text form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tack/tile/compile.h"
#include "tack/tile/oracle.h"
#include "tack/tile/printer.h"

namespace tack::tile {
namespace {

// W = X[2:6] (a window of 4); Y[0:8] = W[-1:8] with pad 9 (positions 1..4 of
// the inner view lie in W); Y[8] = W[5] (outside W, though inside X: pad);
// Y[9] = W[3]; V = Y[10:3] and V[1:4] = 7 writes Y[11], Y[12] only (V's
// fourth position is outside V, though inside Y).
const char* kNested = R"(kernel @nested(%0: view<?xf32>, %1: view<?xf32>) {
  %2 = const 2 : i64
  %3 = view %0[%2:4] : view<4xf32>
  %4 = const -1 : i64
  %5 = view %3[%4:8] : view<8xf32>
  %6 = load %5 pad 9.0 : tile<8xf32>
  %7 = const 0 : i64
  %8 = view %1[%7:8] : view<8xf32>
  store %8, %6
  %9 = const 5 : i64
  %10 = view %3[%9] : view<f32>
  %11 = load %10 pad 9.0 : f32
  %12 = const 8 : i64
  %13 = view %1[%12] : view<f32>
  store %13, %11
  %14 = const 3 : i64
  %15 = view %3[%14] : view<f32>
  %16 = load %15 pad 9.0 : f32
  %17 = const 9 : i64
  %18 = view %1[%17] : view<f32>
  store %18, %16
  %19 = const 10 : i64
  %20 = view %1[%19:3] : view<3xf32>
  %21 = const 1 : i64
  %22 = view %20[%21:4] : view<4xf32>
  %23 = const 7.0 : tile<4xf32>
  store %22, %23
}
)";

TEST(TileCompileView, NestedWindowsMaskLikeTheInterpreter) {
  Kernel k = parse(kNested);
  GuardedTensor<float> x({12}, 0.0f), got({14}, NAN), want({14}, NAN);
  for (int64_t i = 0; i < 12; ++i) x[i] = float(i) + 0.5f;
  compile("cpu", k)->launch({x.view(), got.view()});
  interpret(k, {x.view(), want.view()});
  // Written here from the rule: inner position p reads X[1 + p] when 0 <= p - 1 < 4.
  const float expected[14] = {9, 2.5f, 3.5f, 4.5f, 5.5f, 9, 9, 9, 9, 5.5f, NAN, 7, 7, NAN};
  for (int64_t i = 0; i < 14; ++i) {
    EXPECT_EQ(std::memcmp(&got[i], &expected[i], 4) == 0 || (std::isnan(got[i]) && std::isnan(expected[i])), true)
        << "element " << i << " is " << got[i];
    EXPECT_EQ(std::memcmp(&got[i], &want[i], 4), 0) << "element " << i;
  }
  EXPECT_TRUE(got.margin_intact());
}


// Y[r, 0:16] = X[r, -2:16] with pad 9 for every row r of Y: each row's
// window reaches before X's first column and past its last, and Y has more
// rows than X; an X without elements (and without storage) is read nowhere.
const char* kRaggedRows = R"(kernel @ragged(%0: view<?x?xf32>, %1: view<?x?xf32>) {
  %2 = dim %1 axis 0 : i64
  parallel %3 < %2 exec block {
    %4 = const -2 : i64
    %5 = view %0[%3, %4:16] : view<16xf32>
    %6 = load %5 pad 9.0 : tile<16xf32>
    %7 = const 0 : i64
    %8 = view %1[%3, %7:16] : view<16xf32>
    store %8, %6
  }
}
)";

// T = X[-1:4, -3:8] with pad 9; Y[0:4, 0:8] = T; Y[2:4, -3:8] = T: a 2-D
// box on both sides of X, and a store whose box is part of its tile.
const char* kRaggedBlock = R"(kernel @ragged_block(%0: view<?x?xf32>, %1: view<?x?xf32>) {
  %2 = const -1 : i64
  %3 = const -3 : i64
  %4 = view %0[%2:4, %3:8] : view<4x8xf32>
  %5 = load %4 pad 9.0 : tile<4x8xf32>
  %6 = const 0 : i64
  %7 = view %1[%6:4, %6:8] : view<4x8xf32>
  store %7, %5
  %8 = const 2 : i64
  %9 = view %1[%8:4, %3:8] : view<4x8xf32>
  store %9, %5
}
)";

// X[i, j] where 0 <= i < rows and 0 <= j < cols, else 9.
float x_or_pad(const GuardedTensor<float>& x, int64_t rows, int64_t cols, int64_t i, int64_t j) {
  return i >= 0 && i < rows && j >= 0 && j < cols ? x[i * cols + j] : 9.0f;
}

TEST(TileCompileView, ARaggedTileReadsAndWritesInsideItsParameterOnly) {
  Kernel rows = parse(kRaggedRows), block = parse(kRaggedBlock);
  for (bool lanes : {false, true}) {
    CompileOptions options;
    options.simd_lanes = lanes;
    std::unique_ptr<CompiledKernel> compiled_rows = compile("cpu", rows, options);
    std::unique_ptr<CompiledKernel> compiled_block = compile("cpu", block, options);
    // Rows: X of 3 x 11 under Y of 4 x 16.
    GuardedTensor<float> x({3, 11}, 0.0f), got({4, 16}, NAN), want({4, 16}, NAN);
    for (int64_t i = 0; i < 33; ++i) x[i] = float(i) + 0.5f;
    compiled_rows->launch({x.view(), got.view()});
    interpret(rows, {x.view(), want.view()});
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 16; ++c) {
        EXPECT_EQ(got[r * 16 + c], x_or_pad(x, 3, 11, r, c - 2)) << "lanes " << lanes << ", element " << r << ", " << c;
        EXPECT_EQ(std::memcmp(&got[r * 16 + c], &want[r * 16 + c], 4), 0) << "element " << r << ", " << c;
      }
    EXPECT_TRUE(got.margin_intact());
    // Block: X of 3 x 6 under Y of 4 x 8.
    GuardedTensor<float> xb({3, 6}, 0.0f), yb({4, 8}, NAN), wb({4, 8}, NAN);
    for (int64_t i = 0; i < 18; ++i) xb[i] = float(i) + 0.25f;
    compiled_block->launch({xb.view(), yb.view()});
    interpret(block, {xb.view(), wb.view()});
    float expected[4][8];
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 8; ++j) expected[i][j] = x_or_pad(xb, 3, 6, i - 1, j - 3);
    for (int64_t i = 0; i < 2; ++i)  // the second store: tile rows 0, 1 land on Y's rows 2, 3
      for (int64_t j = 3; j < 8; ++j) expected[2 + i][j - 3] = x_or_pad(xb, 3, 6, i - 1, j - 3);
    for (int64_t i = 0; i < 32; ++i) {
      EXPECT_EQ(yb[i], expected[i / 8][i % 8]) << "lanes " << lanes << ", element " << i;
      EXPECT_EQ(std::memcmp(&yb[i], &wb[i], 4), 0) << "element " << i;
    }
    EXPECT_TRUE(yb.margin_intact());
    // X without elements, and without storage: every element is the pad.
    for (Shape empty : {Shape({3, 0}), Shape({0, 5})}) {
      HostTensor none{nullptr, Scalar::f32, empty, {}, 0};
      none.strides[0] = empty[1];
      none.strides[1] = 1;
      GuardedTensor<float> padded({4, 16}, NAN), padded_block({4, 8}, NAN);
      compiled_rows->launch({none, padded.view()});
      compiled_block->launch({none, padded_block.view()});
      for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(padded[i], 9.0f) << "lanes " << lanes << ", element " << i;
      for (int64_t i = 0; i < 32; ++i) EXPECT_EQ(padded_block[i], 9.0f) << "lanes " << lanes << ", element " << i;
      EXPECT_TRUE(padded.margin_intact());
      EXPECT_TRUE(padded_block.margin_intact());
    }
  }
}

}  // namespace
}  // namespace tack::tile
