// How the launch's parallel nest binds to the launch (docs/tile/compile.md,
// "Binding"): its levels in an order of the launch's dimensions, and those
// dimensions fused into one, through a layout the prover proves a
// bijection. The plan names the layout and the proof; the code gives the
// interpreter's bits on the CPU (in SIMD lanes and one iteration at a time)
// and on OpenCL, in workgroups and one iteration per lane. Every library
// kernel also runs split and fused on the CPU in compile_lib_test
// (`cpu_split_fused`).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>

#include "tack/tile/capture.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"
#include "devices.h"

namespace tack::tile {
namespace {

CompileOptions binding(std::vector<int64_t> split, std::vector<int> order, std::vector<int> fuse) {
  CompileOptions options;
  options.nest_split = std::move(split);
  options.nest_order = std::move(order);
  options.nest_fuse = std::move(fuse);
  return options;
}

std::string binding_line(const Kernel& k, const CompileOptions& options, const LoweringTarget& target = {}) {
  std::string ir = lowered_kernel_ir(k, options, target);
  size_t at = ir.find("; binding: ");
  return at == std::string::npos ? "" : ir.substr(at, ir.find('\n', at) - at);
}

int launch_dimensions(const Kernel& k, const CompileOptions& options) {
  std::string ir = lowered_kernel_ir(k, options);
  std::string loop = ir.substr(ir.find("parallel for"));
  loop = loop.substr(0, loop.find('\n'));
  int n = 0;
  for (size_t p = 0; (p = loop.find(" in range(", p)) != std::string::npos; ++p) ++n;
  return n;
}

TEST(TileBinding, ThePlanNamesTheLayoutAndItsProof) {
  std::string fused = binding_line(lib::matmul(), binding({}, {}, {2}));
  EXPECT_NE(fused.find("the nest fused into one launch dimension, levels (0, 1) outermost first, the last fastest"),
            std::string::npos)
      << fused;
  // Two run-time extents ?a, ?b: the layout (?a,?b):(?b,1) onto [0, ?a*?b).
  EXPECT_NE(fused.find("a bijection onto [0, ?"), std::string::npos) << fused;
  EXPECT_NE(fused.find("a mixed radix"), std::string::npos) << fused;
  EXPECT_EQ(binding_line(lib::matmul(), {}), "; binding: one launch dimension per level, in the nest's order");
  std::string swapped = binding_line(lib::matmul(), binding({}, {1, 0}, {}));
  EXPECT_EQ(swapped.rfind("; binding: one launch dimension per level, levels (1, 0) outermost first: the layout (?", 0),
            0u)
      << swapped;
  EXPECT_NE(swapped.find("is a bijection onto"), std::string::npos) << swapped;
  EXPECT_EQ(binding_line(lib::softmax(), binding({}, {}, {1})),
            "; binding: one launch dimension per level (the nest has one level)");
  // conv2d's nest has four levels; in workgroups the lanes come after it.
  EXPECT_NE(binding_line(lib::conv2d(), binding({}, {}, {4}), workgroup_target()).find("fused"), std::string::npos);
  EXPECT_EQ(launch_dimensions(lib::matmul(), {}), 2);
  // Fused: a leading dimension of one iteration (two where the nest's size
  // passes 2^63 - 1, which the launch refuses) and the nest's.
  EXPECT_EQ(launch_dimensions(lib::matmul(), binding({}, {}, {2})), 2);
  EXPECT_EQ(launch_dimensions(lib::conv2d(), {}), 4);
  EXPECT_EQ(launch_dimensions(lib::conv2d(), binding({}, {}, {4})), 2);
  EXPECT_EQ(launch_dimensions(lib::conv2d(), binding({}, {3, 1, 0, 2}, {})), 4);
  EXPECT_EQ(launch_dimensions(lib::conv2d(), binding({}, {}, {2, 1, 1})), 4);
}

TEST(TileBinding, ASplitLevelIsTwoPartsWhosePointsPastTheLevelRunNothing) {
  // matmul's block columns split by 4: parts (0, 1 outer, 1 inner); the
  // outer one first makes the launch tiled, 4 block columns at a time.
  std::string tiled = binding_line(lib::matmul(), binding({0, 4}, {1, 0, 2}, {}));
  EXPECT_NE(tiled.find("level 1 split by 4 into ?"), std::string::npos) << tiled;
  EXPECT_NE(tiled.find(" / 4) outer and 4 inner, the points past ?"), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("one launch dimension per part, parts (1 outer, 0, 1 inner) outermost first"),
            std::string::npos)
      << tiled;
  // The split level's mode is (4, C) with strides (1, 4 * rows): inner
  // fastest, the rows between the outer and inner parts.
  EXPECT_NE(tiled.find(",(4,?"), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("is a bijection onto [0, 4*?"), std::string::npos) << tiled;
  EXPECT_EQ(launch_dimensions(lib::matmul(), binding({0, 4}, {1, 0, 2}, {})), 3);
  EXPECT_EQ(launch_dimensions(lib::matmul(), binding({0, 4}, {1, 0, 2}, {1, 2})), 3);  // with the overflow guard
  EXPECT_EQ(launch_dimensions(lib::matmul(), binding({3, 4}, {}, {4})), 2);
  // softmax's one level of rows, split by 16: a reshape of the rows into
  // (ceil(rows / 16), 16), so the CPU's SIMD lanes walk 16 rows.
  std::string rows = binding_line(lib::softmax(), binding({16}, {}, {}));
  EXPECT_NE(rows.find("level 0 split by 16"), std::string::npos) << rows;
  EXPECT_EQ(launch_dimensions(lib::softmax(), binding({16}, {}, {})), 2);
  // The guard is in the kernel IR: the split index against the level's extent.
  std::string ir = lowered_kernel_ir(lib::softmax(), binding({16}, {}, {}));
  EXPECT_NE(ir.find(":i:i64 * i64(16:i32)):i64 + %"), std::string::npos) << ir;
  EXPECT_NE(ir.find(":i:i64 < %"), std::string::npos) << ir;
  // A factor of 1 (or 0) keeps the level whole.
  EXPECT_EQ(binding_line(lib::matmul(), binding({1, 0}, {}, {})),
            "; binding: one launch dimension per level, in the nest's order");
}

TEST(TileBinding, OptionsThatDoNotFitTheNestAreRefused) {
  struct Case {
    CompileOptions options;
    const char* says;
  };
  std::vector<Case> cases = {
      {binding({}, {0, 0}, {}), "nest_order (0, 0) is not an order of its launch nest's 2 levels"},
      {binding({}, {0}, {}), "nest_order (0) is not an order of its launch nest's 2 levels"},
      {binding({}, {0, 1, 2}, {}), "is not an order of its launch nest's 2 levels"},
      {binding({}, {1, 2}, {}), "is not an order of its launch nest's 2 levels"},
      {binding({2}, {1, 0}, {}), "nest_order (1, 0) is not an order of its launch nest's 3 parts (its levels after "
                                 "nest_split)"},
      {binding({2, 2, 2}, {}, {}), "nest_split has 3 factors, but its launch nest has 2 levels"},
      {binding({-2}, {}, {}), "nest_split splits level 0 by -2, not a factor of 1 or more"},
      {binding({}, {}, {3}), "nest_fuse (3) does not fuse its launch nest's 2 levels"},
      {binding({}, {}, {1}), "nest_fuse (1) does not fuse its launch nest's 2 levels"},
      {binding({}, {}, {0, 2}), "nest_fuse (0, 2) does not fuse its launch nest's 2 levels"},
      {binding({4}, {}, {2}), "nest_fuse (2) does not fuse its launch nest's 3 parts"},
  };
  for (const Case& c : cases) {
    try {
      binding_line(lib::matmul(), c.options);
      ADD_FAILURE() << "taken: " << c.says;
    } catch (const Error& e) {
      std::string m = e.what();
      EXPECT_EQ(m.rfind("compile @matmul: CompileOptions::", 0), 0u) << m;
      EXPECT_NE(m.find(c.says), std::string::npos) << m;
    }
  }
}

// Runs `kernel` interpreted and compiled on `device` with `options` on
// copies of the same inputs; every output element and margin must agree.
void expect_interpreters_bits(const std::string& device, const Kernel& kernel, std::vector<Shape> inputs,
                              std::vector<Shape> outputs, const CompileOptions& options) {
  std::vector<GuardedTensor<float>> want, got;
  uint32_t seed = 11;
  for (const Shape& s : inputs) {
    want.push_back(uniform_tensor(s, seed, -3, 3));
    got.push_back(uniform_tensor(s, seed++, -3, 3));
  }
  for (const Shape& s : outputs) {
    want.emplace_back(s, NAN);
    got.emplace_back(s, NAN);
  }
  std::vector<HostTensor> wv, gv;
  for (auto& t : want) wv.push_back(t.view());
  for (auto& t : got) gv.push_back(t.view());
  interpret(kernel, wv);
  compile(device, kernel, options)->launch(gv);
  for (size_t a = inputs.size(); a < want.size(); ++a) {
    for (int64_t i = 0; i < want[a].size(); ++i)
      ASSERT_EQ(std::memcmp(&want[a][i], &got[a][i], sizeof(float)), 0)
          << kernel.name() << " on " << device << ": output element " << i << " is " << got[a][i] << ", interpreted "
          << want[a][i];
    EXPECT_TRUE(got[a].margin_intact()) << kernel.name() << ": written outside its view";
  }
}

class TileBindingRuns : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (auto why = missing_backend(GetParam())) GTEST_SKIP() << *why;
  }
  // Each binding in `bindings` in the forms a device has: SIMD lanes and
  // one iteration at a time on the CPU; workgroups and one iteration per
  // lane off it.
  std::vector<CompileOptions> forms(const std::vector<CompileOptions>& bindings) const {
    std::vector<CompileOptions> out;
    for (CompileOptions o : bindings)
      for (bool second : {false, true}) {
        if (GetParam() == "cpu") o.simd_lanes = !second;
        else o.workgroups = second ? CompileOptions::Workgroups::never : CompileOptions::Workgroups::always;
        out.push_back(o);
      }
    return out;
  }
};

TEST_P(TileBindingRuns, MatmulAcrossRowsOfBlocks) {
  // 4x4 tiles on 67x19x130: a nest of 17 x 33 blocks, so a fused index
  // crosses rows within SIMD groups and within chunks; and one block column.
  // Per level, permuted, fused, and split (by factors that divide neither
  // extent, one wider than it) and reordered and fused in groups.
  std::vector<CompileOptions> bindings = {
      {},
      binding({}, {1, 0}, {}),
      binding({}, {}, {2}),
      binding({}, {1, 0}, {2}),
      binding({3}, {}, {}),
      binding({0, 4}, {1, 0, 2}, {}),
      binding({5, 2}, {2, 0, 3, 1}, {2, 2}),
      binding({40}, {}, {3}),
  };
  for (const CompileOptions& options : forms(bindings))
    for (auto [m, k, n] : {std::array<int64_t, 3>{67, 19, 130}, {45, 5, 3}, {1, 7, 9}})
      expect_interpreters_bits(GetParam(), lib::matmul({4, 4, 4}), {{m, k}, {k, n}}, {{m, n}}, options);
}

TEST_P(TileBindingRuns, ConvolutionOverFourLevels) {
  std::vector<CompileOptions> bindings = {
      {},
      binding({}, {3, 1, 0, 2}, {}),
      binding({}, {}, {4}),
      binding({}, {3, 1, 0, 2}, {4}),
      binding({2, 0, 4}, {4, 0, 2, 3, 1, 5}, {2, 1, 3}),
  };
  for (const CompileOptions& options : forms(bindings))
    expect_interpreters_bits(GetParam(), lib::conv2d({1, 4}), {{3, 2, 11, 9}, {5, 2, 3, 3}}, {{3, 5, 11, 9}},
                             options);
}

TEST_P(TileBindingRuns, ScanRowsSplit) {
  // One level of rows split by 16 and by 3, whole and fused: the lanes walk
  // the inner part. 37 rows leave 11 and 2 points past the level.
  for (const CompileOptions& options :
       forms({binding({16}, {}, {}), binding({3}, {1, 0}, {}), binding({16}, {}, {2})}))
    for (int64_t rows : {37, 16, 1})
      expect_interpreters_bits(GetParam(), lib::scan(lib::ScanKind::inclusive), {{rows, 45}}, {{rows, 45}}, options);
}

TEST_P(TileBindingRuns, ThePointsPastASplitLevelRunNothing) {
  // Levels 3 and 2 shorter than the tensors, so the points a split adds past
  // a level lie inside them: a missing guard would copy their elements,
  // which the interpreter leaves NaN.
  Kernel inner = tile_kernel("inner", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0) - 3))
      for (auto j : parallel(X.shape(1) - 2)) Y(i, j).store(X[{i, j}]);
  });
  for (const CompileOptions& options :
       forms({binding({4, 8}, {}, {}), binding({4, 8}, {2, 0, 3, 1}, {}), binding({5, 3}, {1, 3, 0, 2}, {4}),
              binding({0, 16}, {}, {1, 2})}))
    expect_interpreters_bits(GetParam(), inner, {{40, 13}}, {{40, 13}}, options);
}

TEST_P(TileBindingRuns, RandomBindingsOfAThreeLevelNest) {
  // A transposing copy over a nest of three levels, each shorter than its
  // axis: every iteration must run once at its own indices, and no point
  // past a level (a wrong index reads another element, a missing iteration
  // leaves NaN, a point past a level copies one the interpreter does not).
  // Random split factors, orders of the parts and fusions, seeded.
  Kernel transpose = tile_kernel("transpose3", [](TensorView<float, 3> X, TensorView<float, 3> Y) {
    for (auto i : parallel(X.shape(2) - 1))
      for (auto j : parallel(X.shape(1) - 2))
        for (auto l : parallel(X.shape(0) - 1)) Y(i, j, l).store(X[{l, j, i}]);
  });
  std::mt19937 gen(2026);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  const int trials = GetParam() == "cpu" ? 40 : 10;
  for (int trial = 0; trial < trials; ++trial) {
    const int64_t factors[] = {1, 1, 2, 3, 4, 7, 16};
    std::vector<int64_t> split;
    int parts = 0;
    for (int level = 0; level < 3; ++level) {
      split.push_back(factors[pick(0, 6)]);
      parts += split.back() > 1 ? 2 : 1;
    }
    std::vector<int> order(static_cast<size_t>(parts), 0);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), gen);
    std::vector<int> fuse;
    if (pick(0, 2) > 0)
      for (int left = parts; left > 0;) {
        fuse.push_back(int(pick(1, left)));
        left -= fuse.back();
      }
    const int64_t a = pick(2, 9), b = pick(3, 9), c = pick(2, 9);
    for (const CompileOptions& options : forms({binding(split, order, fuse)}))
      expect_interpreters_bits(GetParam(), transpose, {{a, b, c}}, {{c, b, a}}, options);
    if (HasFatalFailure()) {
      ADD_FAILURE() << "trial " << trial << ": " << binding_line(transpose, binding(split, order, fuse));
      return;
    }
  }
}

TEST_P(TileBindingRuns, NegativeExtentsLaunchNothing) {
  // Extents of -3 and -2: each level is an empty range, and so is the
  // fused one, though the product of the two is 6, and so are split ones.
  Kernel shifted = tile_kernel("shifted", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0) - 5))
      for (auto j : parallel(X.shape(1) - 5)) Y(i, j).store(X[{i, j}]);
  });
  for (const CompileOptions& options :
       forms({{}, binding({}, {}, {2}), binding({2, 3}, {}, {}), binding({2, 3}, {3, 1, 2, 0}, {4})}))
    expect_interpreters_bits(GetParam(), shifted, {{2, 3}}, {{2, 3}}, options);
}

TEST_P(TileBindingRuns, ANestPastTwoToTheSixtyThreeIterationsIsRefused) {
  // Two levels of 2^40 (the square of a view's 2^20 elements, all one
  // element: stride 0): 2^80 iterations. Per level the launch refuses
  // them; fused it must too, rather than run a product that wrapped.
  Kernel all = tile_kernel("all", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Index n = X.shape(0) * X.shape(0);
    for (auto i : parallel(n))
      for (auto j : parallel(n)) Y(i % X.shape(0)).store(X[{j % X.shape(0)}]);
  });
  float x = 1.5f, y = NAN;
  const int64_t huge = int64_t{1} << 20;
  HostTensor xv{&x, Scalar::f32, Shape{huge}, {0}, 0}, yv{&y, Scalar::f32, Shape{huge}, {0}, 0};
  for (const CompileOptions& options : {CompileOptions{}, binding({}, {}, {2}), binding({3}, {}, {}),
                                         binding({3}, {}, {3}), binding({0, 5}, {1, 0, 2}, {1, 2})}) {
    try {
      compile(GetParam(), all, options)->launch({xv, yv});
      ADD_FAILURE() << "2^80 iterations were launched: " << binding_line(all, options);
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("iterations"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(std::isnan(y)) << binding_line(all, options) << ": an iteration ran";
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, TileBindingRuns, ::testing::Values("cpu", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tack::tile
