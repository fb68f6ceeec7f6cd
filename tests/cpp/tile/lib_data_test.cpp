// Gather, scatter and copy: element moves checked exactly, including
// out-of-range indices, views that are offset, strided or transposed, and
// windows that start before the tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"

namespace tack::tile {
namespace {

GuardedTensor<float> counting(Shape shape) {
  GuardedTensor<float> t(shape, 0.0f);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = float(i) * 0.5f + 1;
  return t;
}

TEST(TileLibGather, CopiesIndexedRowsAndReadsZerosOutsideTheSource) {
  GuardedTensor<float> src = counting({17, 65});
  GuardedTensor<int64_t> idx({9}, 0);
  const int64_t rows[] = {3, 16, 0, -1, 17, 3, 8, 100, 15};
  for (int i = 0; i < 9; ++i) idx[i] = rows[i];
  for (int64_t width : {7, 32, 65}) {
    GuardedTensor<float> out({9, 65}, NAN);
    interpret(lib::gather_rows(width), {src.view(), idx.view(), out.view()});
    std::vector<double> want(9 * 65, 0.0);
    for (int i = 0; i < 9; ++i)
      if (rows[i] >= 0 && rows[i] < 17)
        for (int c = 0; c < 65; ++c) want[size_t(i * 65 + c)] = src[rows[i] * 65 + c];
    EXPECT_EQ(mismatch(out.values(), want, 0, 0), std::nullopt) << "width " << width;
    EXPECT_TRUE(out.margin_intact() && src.margin_intact());
  }
}

TEST(TileLibScatter, WritesIndexedRowsAndNothingOutsideTheTarget) {
  GuardedTensor<float> src = counting({6, 33});
  GuardedTensor<int64_t> idx({6}, 0);
  const int64_t rows[] = {4, -3, 0, 9, 16, 2};
  for (int i = 0; i < 6; ++i) idx[i] = rows[i];
  GuardedTensor<float> out({10, 33}, NAN);
  interpret(lib::scatter_rows(16), {src.view(), idx.view(), out.view()});
  for (int64_t r = 0; r < 10; ++r)
    for (int64_t c = 0; c < 33; ++c) {
      int from = -1;
      for (int i = 0; i < 6; ++i)
        if (rows[i] == r) from = i;
      float got = out[r * 33 + c];
      if (from < 0) EXPECT_TRUE(std::isnan(got)) << "row " << r << " was written";
      else EXPECT_EQ(got, src[from * 33 + c]) << "row " << r;
    }
  EXPECT_TRUE(out.margin_intact());
}

TEST(TileLibCopy, CopiesThroughOffsetStridedAndTransposedViews) {
  GuardedTensor<float> in = counting({17, 65});
  for (Shape tiles : {Shape{8, 32}, Shape{5, 7}, Shape{1, 65}}) {
    GuardedTensor<float> out({17, 65}, NAN);
    interpret(lib::copy(tiles[0], tiles[1]), {in.view(), out.view()});
    EXPECT_EQ(out.values(), in.values());
    EXPECT_TRUE(out.margin_intact());
  }
  // A transposed view of `in` is an ordinary strided view.
  HostTensor transposed = in.view();
  std::swap(transposed.shape[0], transposed.shape[1]);
  std::swap(transposed.strides[0], transposed.strides[1]);
  GuardedTensor<float> out({65, 17}, NAN);
  interpret(lib::copy(), {transposed, out.view()});
  for (int64_t r = 0; r < 65; ++r)
    for (int64_t c = 0; c < 17; ++c) EXPECT_EQ(out[r * 17 + c], in[c * 65 + r]);
  EXPECT_TRUE(out.margin_intact() && in.margin_intact());
}

TEST(TileLibCopy, ReadsZerosOutsideTheSourceAndHandlesEmptyTensors) {
  GuardedTensor<float> in = counting({5, 7});
  GuardedTensor<float> out({9, 12}, NAN);
  interpret(lib::copy(4, 8), {in.view(), out.view()});
  for (int64_t r = 0; r < 9; ++r)
    for (int64_t c = 0; c < 12; ++c) EXPECT_EQ(out[r * 12 + c], r < 5 && c < 7 ? in[r * 7 + c] : 0.0f);
  GuardedTensor<float> none({0, 65}, 1.0f), empty({0, 65}, NAN);
  interpret(lib::copy(), {none.view(), empty.view()});
  EXPECT_TRUE(empty.margin_intact());
  GuardedTensor<float> big = counting({129, 768}), copy({129, 768}, NAN);
  interpret(lib::copy(16, 128), {big.view(), copy.view()});
  EXPECT_EQ(copy.values(), big.values());
}

}  // namespace
}  // namespace tack::tile
