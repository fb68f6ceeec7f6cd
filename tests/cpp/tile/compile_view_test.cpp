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

}  // namespace
}  // namespace tack::tile
