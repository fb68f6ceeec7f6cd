// Pipelines compiled with their stages overlapped across iterations
// (CompileOptions::overlap_stages, src/tile/lower/pipeline_schedule.h):
// the schedule's versions follow the dependence distances, the overlapped
// code gives the interpreter's bits (a value read from the wrong version
// would be another iteration's), and pipelines whose overlap is not legal
// run their stages in order.
#include <gtest/gtest.h>

#include <cstring>

#include "tack/tile/capture.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"
#include "tile/lower/pipeline_schedule.h"

namespace tack::tile {
namespace {

const CompileOptions kOverlap = [] {
  CompileOptions options;
  options.overlap_stages = true;
  return options;
}();

void expect_same_bits(const GuardedTensor<float>& want, const GuardedTensor<float>& got, const std::string& what) {
  auto w = want.values(), g = got.values();
  ASSERT_EQ(w.size(), g.size());
  for (size_t i = 0; i < w.size(); ++i)
    if (std::memcmp(&w[i], &g[i], sizeof w[i]) != 0) {
      ADD_FAILURE() << what << ": element " << i << " is " << g[i] << " compiled, " << w[i] << " interpreted";
      return;
    }
  EXPECT_TRUE(got.margin_intact()) << what << ": written outside the view";
}

// Three stages per row: load an element and a window (stage 0), scale the
// element by its iteration's index (stage 1), accumulate (stage 2). The
// element crosses two stages (three versions), the window too, the scaled
// value one (two versions); both accumulators are carried in stage 2.
Kernel three_stages() {
  return tile_kernel("three_stages", [](TensorView<float, 2> X, TensorView<float, 1> Y) {
    for (auto r : parallel(X.shape(0))) {
      Tile<float> acc = 0.0f;
      Tile<float> vec = full<float>({4}, 0.0f);
      for (auto k : pipeline(X.shape(1))) {
        Tile<float> x = X[{r, k}];
        Tile<float> w = X[{r, span(k, 4)}];
        k.stage("scale");
        Tile<float> y = x * 3.0f + cast<float>(k);
        k.stage("accumulate");
        acc = acc * 0.5f + y - x;
        vec = vec + w * y;
      }
      Y(r).store(acc + sum(vec, 0));
    }
  });
}

TEST(TileCompilePipeline, VersionsFollowDependenceDistances) {
  Kernel k = three_stages();
  const Operation* pipe = nullptr;
  k.walk([&](Operation& op) {
    if (op.kind() == OpKind::pipeline) pipe = &op;
  });
  ASSERT_NE(pipe, nullptr);
  lower::PipelinePlan plan = lower::plan_pipeline(*pipe);
  ASSERT_TRUE(plan.schedule) << plan.why_not;
  EXPECT_EQ(plan.schedule->stages.size(), 3u);
  std::vector<int> versions;
  for (const auto& [v, c] : plan.schedule->crossing) {
    versions.push_back(c.versions);
    EXPECT_EQ(c.stage, c.versions == 2 ? 1 : 0);
  }
  std::sort(versions.begin(), versions.end());
  // y: stage 1 -> 2; x and w: stage 0 -> 2 (x is also read in stage 1).
  EXPECT_EQ(versions, (std::vector<int>{2, 3, 3}));
  EXPECT_EQ(plan.schedule->carried_stage, (std::vector<int>{2, 2}));

  std::string text = lower::describe_pipelines(k, true);
  EXPECT_NE(text.find("3 stages, overlapped; versions: "), std::string::npos) << text;
  EXPECT_NE(lower::describe_pipelines(k, false).find("in order (overlap_stages is off)"), std::string::npos);
}

TEST(TileCompilePipeline, OverlappedStagesGiveTheInterpretersBits) {
  Kernel k = three_stages();
  // Rows of 0, 1 and 2 iterations leave the pipeline's fill and drain
  // without a full step; the window runs past the row's end (pad 0).
  for (int64_t cols : {0, 1, 2, 3, 5, 17, 64}) {
    GuardedTensor<float> x = uniform_tensor({9, cols}, uint32_t(cols) + 1, -3, 3);
    GuardedTensor<float> want({9}, NAN), in_order({9}, NAN), overlapped({9}, NAN);
    interpret(k, {x.view(), want.view()});
    compile("cpu", k)->launch({x.view(), in_order.view()});
    compile("cpu", k, kOverlap)->launch({x.view(), overlapped.view()});
    expect_same_bits(want, in_order, "in order, " + std::to_string(cols) + " columns");
    expect_same_bits(want, overlapped, "overlapped, " + std::to_string(cols) + " columns");
  }
}

TEST(TileCompilePipeline, OverlappedMatmulGivesTheInterpretersBits) {
  for (lib::MatmulTiles tiles : {lib::MatmulTiles{}, lib::MatmulTiles{32, 8, 16}, lib::MatmulTiles{8, 8, 4}})
    for (auto [m, k, n] : {std::array<int64_t, 3>{17, 7, 65}, {33, 61, 16}, {1, 1, 1}, {4, 0, 5}, {8, 40, 8}}) {
      Kernel kernel = lib::matmul(tiles);
      GuardedTensor<float> a = uniform_tensor({m, k}, 3, -3, 3), b = uniform_tensor({k, n}, 4, -3, 3);
      GuardedTensor<float> want({m, n}, NAN), got({m, n}, NAN);
      interpret(kernel, {a.view(), b.view(), want.view()});
      for (bool lanes : {true, false}) {
        CompileOptions options = kOverlap;
        options.simd_lanes = lanes;
        compile("cpu", kernel, options)->launch({a.view(), b.view(), got.view()});
        expect_same_bits(want, got,
                         "matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                             (lanes ? " in lanes" : " one at a time"));
      }
    }
}

// A store in the body: a later iteration's loads would run before it.
Kernel storing_pipeline() {
  return tile_kernel("storing", [](TensorView<float, 1> X) {
    for (auto k : pipeline(X.shape(0) - 1)) {
      Tile<float> v = X[{k}];
      k.stage();
      X(k + 1).store(v + 1.0f);
    }
  });
}

// The carried value is read in stage 0 and made in stage 1.
Kernel carried_across_stages() {
  return tile_kernel("carried", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> acc = 1.0f;
    for (auto k : pipeline(X.shape(0))) {
      Tile<float> v = X[{k}] * acc;
      k.stage();
      acc = v + 0.25f;
    }
    Y(0).store(acc);
  });
}

TEST(TileCompilePipeline, StagesRunInOrderWhereOverlapIsNotLegal) {
  struct Case {
    Kernel kernel;
    const char* why;
  };
  Case cases[] = {{storing_pipeline(), "writes memory"}, {carried_across_stages(), "carried value #0 is read or made in stages 0 and 1"}};
  for (Case& c : cases) {
    const Operation* pipe = nullptr;
    c.kernel.walk([&](Operation& op) {
      if (op.kind() == OpKind::pipeline) pipe = &op;
    });
    lower::PipelinePlan plan = lower::plan_pipeline(*pipe);
    EXPECT_FALSE(plan.schedule) << c.kernel.name();
    EXPECT_NE(plan.why_not.find(c.why), std::string::npos) << plan.why_not;
  }
  // And they still compute what the interpreter does: the prefix chain
  // through memory, and the carried product.
  GuardedTensor<float> x = uniform_tensor({11}, 5, -3, 3), want = x;
  interpret(cases[0].kernel, {want.view()});
  compile("cpu", cases[0].kernel, kOverlap)->launch({x.view()});
  expect_same_bits(want, x, "storing");
  EXPECT_EQ(want[10], want[0] + 10.0f);

  GuardedTensor<float> v = uniform_tensor({13}, 6, -3, 3), y_want({1}, NAN), y_got({1}, NAN);
  interpret(cases[1].kernel, {v.view(), y_want.view()});
  compile("cpu", cases[1].kernel, kOverlap)->launch({v.view(), y_got.view()});
  expect_same_bits(y_want, y_got, "carried");
}

}  // namespace
}  // namespace tack::tile
