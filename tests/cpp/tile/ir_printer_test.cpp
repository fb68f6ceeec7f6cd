// The text form: print, parse, print is a fixed point on every gallery kernel,
// and parsed kernels compute what the printed ones did.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "tack/tile/interpreter.h"
#include "tack/tile/lib.h"
#include "tack/tile/printer.h"
#include "tack/tile/verifier.h"

namespace tack::tile {
namespace {

// Every library kernel under the configurations the tests run, plus kernels
// that use the rest of the surface (pipelines, custom combiners, all four
// policies, exec levels, casts, tile extraction).
std::vector<std::pair<std::string, std::function<Kernel()>>> gallery() {
  return {
      {"matmul", [] { return lib::matmul(); }},
      {"matmul_8x4x2", [] { return lib::matmul({8, 4, 2}); }},
      {"batched_matmul", [] { return lib::batched_matmul({8, 4, 2}); }},
      {"batched_matmul_packed", [] { return lib::batched_matmul({8, 4, 2, 4}); }},
      {"batched_pack_panels", [] { return lib::batched_pack_panels(4, 4); }},
      {"einsum_matmul", [] { return lib::einsum<2, 2, 2>("ij,jk->ik"); }},
      {"einsum_batched", [] { return lib::einsum<3, 3, 3>("bij,bjk->bik"); }},
      {"einsum_diagonal", [] { return lib::einsum<2, 1>("ii->i"); }},
      {"conv2d", [] { return lib::conv2d({1, 32}); }},
      {"conv2d_columns", [] { return lib::conv2d_columns({.kh = 3, .kw = 2, .pad_h = 1, .pad_w = 0, .stride_h = 2, .dilation_w = 2, .width = 16}); }},
      {"softmax", [] { return lib::softmax(); }},
      {"layer_norm", [] { return lib::layer_norm(); }},
      {"rms_norm", [] { return lib::rms_norm(1e-6f, 16); }},
      {"topk", [] { return lib::topk(4); }},
      {"topk_ordered", [] { return lib::topk(3, ReductionPolicy::ordered_tree); }},
      {"sort", [] { return lib::sort(); }},
      {"inclusive_scan", [] { return lib::scan(lib::ScanKind::inclusive); }},
      {"exclusive_scan", [] { return lib::scan(lib::ScanKind::exclusive); }},
      {"gather_rows", [] { return lib::gather_rows(); }},
      {"scatter_rows", [] { return lib::scatter_rows(); }},
      {"copy", [] { return lib::copy(); }},
      {"policies",
       [] {
         return tile_kernel("policies", [](TensorView<float, 1> X, TensorView<double, 1> Y) {
           Tile<float> a = 0.0f, b = 1.0f, c = -INFINITY, d = 0.0f;
           for (auto k : reduce(X.shape(0), ReductionPolicy::left_fold)) a = a - X[{k}];
           for (auto k : reduce(X.shape(0), ReductionPolicy::right_fold)) b = b * X[{k}];
           for (auto k : reduce(X.shape(0), ReductionPolicy::ordered_tree)) c = maximum(c, X[{k}]);
           for (auto k : reduce(X.shape(0))) d = d + X[{k}];
           Y(0).store(cast<double>(a + b + c + d));
         });
       }},
      {"exec_levels",
       [] {
         return tile_kernel("exec_levels", [](TensorView<int32_t, 2> X) {
           for (auto b : parallel(X.shape(0), exec::block))
             for (auto t : parallel(X.shape(1), exec::thread)) X(b, t).store(cast<int32_t>(b * 7 + t));
         });
       }},
      {"pipeline_extract",
       [] {
         return tile_kernel("pipeline_extract", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
           Tile<float> acc = full<float>({4}, 0.0f);
           Tile<bool> flags = full<bool>({4}, true);
           for (auto k : pipeline(X.shape(0) / 4)) {
             Tile<float> x = X[{span(k * 4, 4)}];
             k.stage("compute");
             acc = select(flags, acc + x, acc);
             flags = !flags;
           }
           Y(span(0, 1)).store(reshape(extract(acc, 0, int64_t(2)), {1}));
         });
       }},
  };
}

TEST(TileIrPrinter, PrintParsePrintIsAFixedPointOnTheGallery) {
  for (auto& [name, make] : gallery()) {
    Kernel k = make();
    std::string text = print(k);
    Kernel parsed = parse(text);
    EXPECT_EQ(verify(parsed), std::nullopt) << name;
    EXPECT_EQ(print(parsed), text) << name;
  }
}

TEST(TileIrPrinter, ParsedKernelsComputeWhatTheOriginalsDid) {
  Kernel original = lib::softmax(8);
  Kernel parsed = parse(print(original));
  std::vector<float> x(3 * 13), a(x.size(), NAN), b(x.size(), NAN);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i)) * 3;
  interpret(original, {host_tensor(x.data(), {3, 13}), host_tensor(a.data(), {3, 13})});
  interpret(parsed, {host_tensor(x.data(), {3, 13}), host_tensor(b.data(), {3, 13})});
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

TEST(TileIrPrinter, NumbersRoundTripBitForBit) {
  for (double v : {0.0, -0.0, 0.1, -1.5, 1e-30, 3.4028234663852886e38, double(INFINITY), double(-INFINITY), 1e300}) {
    for (Scalar e : {Scalar::f32, Scalar::f64}) {
      if (e == Scalar::f32 && std::fabs(v) > 3.5e38 && std::isfinite(v)) continue;
      double stored = e == Scalar::f32 ? double(float(v)) : v;
      Kernel k("n");
      k.body().add_argument(Type::view(Scalar::f32, {kDynamic}));
      Attrs a;
      a.number = stored;
      Builder(k.body()).value(OpKind::constant, {}, Type::tile(e), a);
      Kernel back = parse(print(k));
      double got = back.body().front()->attrs().number;
      EXPECT_EQ(std::memcmp(&got, &stored, sizeof got), 0) << print(k);
      EXPECT_EQ(print(back), print(k));
    }
  }
  Kernel k = parse("kernel @n(%x: view<?xf32>) {\n  %a = const nan : f32\n  %b = const -9223372036854775808 : i64\n}\n");
  EXPECT_TRUE(std::isnan(k.body().front()->attrs().number));
  EXPECT_EQ(k.body().back()->attrs().integer, INT64_MIN);
  EXPECT_EQ(print(k), "kernel @n(%0: view<?xf32>) {\n  %1 = const nan : f32\n  %2 = const -9223372036854775808 : i64\n}\n");
}

TEST(TileIrPrinter, ElidesAndRestoresEmptyYields) {
  Kernel k = parse(R"(
kernel @empty(%x: view<?xf32>) {
  %n = dim %x axis 0 : i64
  parallel %i < %n {
  }
}
)");
  Operation* loop = k.body().back();
  ASSERT_EQ(loop->region(0).block(0).size(), 1u);
  EXPECT_EQ(loop->region(0).block(0).back()->kind(), OpKind::yield);
  EXPECT_EQ(print(k), "kernel @empty(%0: view<?xf32>) {\n  %1 = dim %0 axis 0 : i64\n  parallel %2 < %1 {\n  }\n}\n");
}

void expect_parse_error(const std::string& text, const std::string& fragment) {
  try {
    parse(text);
    ADD_FAILURE() << "parsed: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(TileIrPrinter, ParseErrorsNameTheLineAndColumn) {
  expect_parse_error("kernel @k(%x: view<?xf32>) {\n  %a = gemm %x : f32\n}\n", "line 2, column 8: unknown operation 'gemm'");
  expect_parse_error("kernel @k(%x: view<?xf32>) {\n  %a = neg %b : f32\n}\n", "line 2, column 12: value %b is not defined");
  expect_parse_error("kernel @k(%x: view<?xf32>) {\n  %x = const 1.0 : f32\n}\n", "value %x is defined twice");
  expect_parse_error("kernel @k(%x: view<?xf32>) {\n  %a = const 1.0 : f16\n}\n", "unknown element type 'f16'");
  expect_parse_error("kernel @k(%x: view<?xf32>) {\n  %a = const one : f32\n}\n", "'one' is not a number");
  expect_parse_error("kernel @k(%x: view<?xf32>) {\n", "expected '}'");
}

}  // namespace
}  // namespace tack::tile
