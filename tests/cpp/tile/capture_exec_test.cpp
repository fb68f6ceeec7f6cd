// Exec constraints on parallel regions, checked against a target's
// containment relation, never against an ordering of level names.
#include <gtest/gtest.h>

#include "tack/tile/capture.h"
#include "tack/tile/printer.h"
#include "tack/tile/verifier.h"

namespace tack::tile {
namespace {

// Two nested parallel regions constrained to `outer` and `inner`.
Kernel nested(ExecLevel outer, ExecLevel inner) {
  return tile_kernel("nested", [&](TensorView<float, 2> X) {
    for (auto i : parallel(X.shape(0), outer))
      for (auto j : parallel(X.shape(1), inner)) X(i, j).store(0.0f);
  });
}

void expect_rejected(const Kernel& k, const Target& target, std::initializer_list<std::string> fragments) {
  std::optional<std::string> error = verify(k, &target);
  ASSERT_TRUE(error.has_value()) << print(k);
  for (const std::string& f : fragments) EXPECT_NE(error->find(f), std::string::npos) << "missing '" << f << "' in: " << *error;
}

TEST(TileCaptureExec, ConstraintsAreRecordedOnParallelRegions) {
  std::string text = print(nested(exec::block, exec::thread));
  EXPECT_NE(text.find("parallel %3 < %1 exec block {"), std::string::npos) << text;
  EXPECT_NE(text.find("parallel %4 < %2 exec thread {"), std::string::npos) << text;
}

TEST(TileCaptureExec, NestedBindingsMustDescendOnTheGpuTarget) {
  Target gpu = Target::gpu();
  EXPECT_EQ(verify(nested(exec::block, exec::thread), &gpu), std::nullopt);
  EXPECT_EQ(verify(nested(exec::grid, exec::warp), &gpu), std::nullopt);
  // Equal levels extend one level's index space, as a 2-D grid of blocks does.
  EXPECT_EQ(verify(nested(exec::block, exec::block), &gpu), std::nullopt);
  EXPECT_EQ(verify(nested(exec::block, {}), &gpu), std::nullopt);
  expect_rejected(nested(exec::thread, exec::block), gpu,
                  {"'parallel'", "constrained to exec::block inside 'parallel'", "constrained to exec::thread",
                   "on target gpu thread does not contain block", "nested bindings must descend"});
  expect_rejected(nested(exec::warp, exec::grid), gpu, {"warp does not contain grid"});
  // Without a target only the structure is checked.
  EXPECT_EQ(verify(nested(exec::thread, exec::block)), std::nullopt);
}

TEST(TileCaptureExec, AnUnconstrainedRegionDoesNotHideItsAncestorsLevel) {
  Kernel k = tile_kernel("skip", [](TensorView<float, 3> X) {
    for (auto i : parallel(X.shape(0), exec::thread))
      for (auto j : parallel(X.shape(1)))
        for (auto l : parallel(X.shape(2), exec::block)) X(i, j, l).store(1.0f);
  });
  Target gpu = Target::gpu();
  expect_rejected(k, gpu, {"thread does not contain block"});
}

// A target whose levels are not a chain: two incomparable kinds of lane group
// sit below a cluster. Any enumeration of the level names would order them;
// the relation does not.
Target clustered() {
  return Target("clustered", {{"cluster", "subgroup"}, {"grid", "cluster"}, {"cluster", "quad"}, {"subgroup", "lane"},
                              {"quad", "lane"}});
}

TEST(TileCaptureExec, IncomparableLevelsAreRejectedWhateverTheirNames) {
  Target t = clustered();
  EXPECT_TRUE(t.encloses("grid", "lane"));
  EXPECT_TRUE(t.encloses("cluster", "quad"));
  EXPECT_FALSE(t.encloses("subgroup", "quad"));
  EXPECT_FALSE(t.encloses("quad", "subgroup"));
  EXPECT_FALSE(t.encloses("lane", "grid"));
  EXPECT_TRUE(t.encloses("quad", "quad"));
  EXPECT_FALSE(t.encloses("block", "block"));

  ExecLevel grid{"grid"}, cluster{"cluster"}, subgroup{"subgroup"}, quad{"quad"}, lane{"lane"};
  EXPECT_EQ(verify(nested(grid, lane), &t), std::nullopt);
  EXPECT_EQ(verify(nested(cluster, quad), &t), std::nullopt);
  EXPECT_EQ(verify(nested(subgroup, lane), &t), std::nullopt);
  expect_rejected(nested(subgroup, quad), t, {"subgroup does not contain quad"});
  expect_rejected(nested(quad, subgroup), t, {"quad does not contain subgroup"});
  expect_rejected(nested(lane, cluster), t, {"lane does not contain cluster"});
}

TEST(TileCaptureExec, LevelsUnknownToTheTargetAreRejected) {
  Target t = clustered();
  expect_rejected(nested(exec::block, exec::thread), t, {"exec level 'block' is not a level of target clustered"});
  Target cpu("cpu", {{"grid", "thread"}});
  expect_rejected(nested(exec::block, exec::thread), cpu, {"'block' is not a level of target cpu"});
  EXPECT_EQ(verify(nested(exec::grid, exec::thread), &cpu), std::nullopt);
}

}  // namespace
}  // namespace tack::tile
