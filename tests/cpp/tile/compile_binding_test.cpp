// How the launch's parallel nest binds to the launch (docs/tile/compile.md,
// "Binding"): its levels in an order of the launch's dimensions, and those
// dimensions fused into one, through a layout the prover proves a
// bijection. The plan names the layout and the proof; the code gives the
// interpreter's bits on the CPU (in SIMD lanes and one iteration at a time)
// and on OpenCL, in workgroups and one iteration per lane. Every library
// kernel also runs fused on the CPU in compile_lib_test (`cpu_fused`).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "tack/tile/capture.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"

namespace tack::tile {
namespace {

std::string binding_line(const Kernel& k, bool fuse, const LoweringTarget& target = {}, std::vector<int> order = {}) {
  CompileOptions options;
  options.fuse_nest = fuse;
  options.nest_order = order;
  std::string ir = lowered_kernel_ir(k, options, target);
  size_t at = ir.find("; binding: ");
  return at == std::string::npos ? "" : ir.substr(at, ir.find('\n', at) - at);
}

int launch_dimensions(const Kernel& k, bool fuse, std::vector<int> order = {}) {
  CompileOptions options;
  options.fuse_nest = fuse;
  options.nest_order = order;
  std::string ir = lowered_kernel_ir(k, options);
  std::string loop = ir.substr(ir.find("parallel for"));
  loop = loop.substr(0, loop.find('\n'));
  int n = 0;
  for (size_t p = 0; (p = loop.find(" in range(", p)) != std::string::npos; ++p) ++n;
  return n;
}

TEST(TileBinding, ThePlanNamesTheLayoutAndItsProof) {
  std::string fused = binding_line(lib::matmul(), true);
  EXPECT_NE(fused.find("the nest fused into one launch dimension, levels (0, 1) outermost first, the last fastest"),
            std::string::npos)
      << fused;
  // Two run-time extents ?a, ?b: the layout (?a,?b):(?b,1) onto [0, ?a*?b).
  EXPECT_NE(fused.find("a bijection onto [0, ?"), std::string::npos) << fused;
  EXPECT_NE(fused.find("a mixed radix"), std::string::npos) << fused;
  EXPECT_EQ(binding_line(lib::matmul(), false), "; binding: one launch dimension per level, in the nest's order");
  std::string swapped = binding_line(lib::matmul(), false, {}, {1, 0});
  EXPECT_EQ(swapped.rfind("; binding: one launch dimension per level, levels (1, 0) outermost first: the layout (?", 0),
            0u)
      << swapped;
  EXPECT_NE(swapped.find("is a bijection onto"), std::string::npos) << swapped;
  EXPECT_EQ(binding_line(lib::softmax(), true), "; binding: one launch dimension per level (the nest has one level)");
  // conv2d's nest has four levels; in workgroups the lanes come after it.
  EXPECT_NE(binding_line(lib::conv2d(), true, workgroup_target()).find("fused"), std::string::npos);
  EXPECT_EQ(launch_dimensions(lib::matmul(), false), 2);
  // Fused: a leading dimension of one iteration (two where the nest's size
  // passes 2^63 - 1, which the launch refuses) and the nest's.
  EXPECT_EQ(launch_dimensions(lib::matmul(), true), 2);
  EXPECT_EQ(launch_dimensions(lib::conv2d(), false), 4);
  EXPECT_EQ(launch_dimensions(lib::conv2d(), true), 2);
  EXPECT_EQ(launch_dimensions(lib::conv2d(), false, {3, 1, 0, 2}), 4);
}

TEST(TileBinding, AnOrderThatIsNotOneOfTheNestsLevelsIsRefused) {
  for (std::vector<int> order : {std::vector<int>{0, 0}, {0}, {0, 1, 2}, {1, 2}}) {
    try {
      binding_line(lib::matmul(), false, {}, order);
      ADD_FAILURE() << "an order of " << order.size() << " levels was taken for matmul's two";
    } catch (const Error& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("compile @matmul: CompileOptions::nest_order ("), std::string::npos) << m;
      EXPECT_NE(m.find("is not an order of its launch nest's 2 levels"), std::string::npos) << m;
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
    if (GetParam() == "cpu") return;
    try {
      compile(GetParam(), lib::copy(8, 32));
    } catch (const Error& e) {
      GTEST_SKIP() << "no " << GetParam() << " backend here: " << e.what();
    }
  }
  // Each binding (`order`, per level and fused) in the forms a device has:
  // SIMD lanes and one iteration at a time on the CPU; workgroups and one
  // iteration per lane off it.
  std::vector<CompileOptions> forms(std::vector<int> order) const {
    std::vector<CompileOptions> out;
    for (bool fuse : {false, true})
      for (bool second : {false, true}) {
        CompileOptions o;
        o.nest_order = order;
        o.fuse_nest = fuse;
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
  for (std::vector<int> order : {std::vector<int>{}, {1, 0}})
    for (const CompileOptions& options : forms(order))
      for (auto [m, k, n] : {std::array<int64_t, 3>{67, 19, 130}, {45, 5, 3}, {1, 7, 9}})
        expect_interpreters_bits(GetParam(), lib::matmul({4, 4, 4}), {{m, k}, {k, n}}, {{m, n}}, options);
}

TEST_P(TileBindingRuns, ConvolutionOverFourLevels) {
  for (std::vector<int> order : {std::vector<int>{}, {3, 1, 0, 2}})
    for (const CompileOptions& options : forms(order))
      expect_interpreters_bits(GetParam(), lib::conv2d({1, 4}), {{3, 2, 11, 9}, {5, 2, 3, 3}}, {{3, 5, 11, 9}},
                               options);
}

TEST_P(TileBindingRuns, NegativeExtentsLaunchNothing) {
  // Extents of -3 and -2: each level is an empty range, and so is the
  // fused one, though the product of the two is 6.
  Kernel shifted = tile_kernel("shifted", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0) - 5))
      for (auto j : parallel(X.shape(1) - 5)) Y(i, j).store(X[{i, j}]);
  });
  for (const CompileOptions& options : forms({}))
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
  for (bool fuse : {false, true}) {
    CompileOptions options;
    options.fuse_nest = fuse;
    try {
      compile(GetParam(), all, options)->launch({xv, yv});
      ADD_FAILURE() << "2^80 iterations were launched" << (fuse ? " fused" : " per level");
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("iterations"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(std::isnan(y)) << (fuse ? "fused" : "per level") << ": an iteration ran";
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, TileBindingRuns, ::testing::Values("cpu", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tack::tile
