// The lowering for targets with workgroups (docs/tile/compile.md,
// "Workgroups"): where each iteration of the launch nest runs (a workgroup
// of 256 lanes, or one lane) and why, the execution bindings checked against
// the GPU's levels, and the form of the workgroup code. That the code gives
// the interpreter's bits is compile_lib_test's (`opencl_groups`).
#include <gtest/gtest.h>

#include <string>

#include "tack/tile/capture.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"

namespace tack::tile {
namespace {

std::string plan(const Kernel& k, CompileOptions::Workgroups w = CompileOptions::Workgroups::fill,
                 const LoweringTarget& target = workgroup_target()) {
  CompileOptions options;
  options.workgroups = w;
  std::string ir = lowered_kernel_ir(k, options, target);
  return ir.substr(0, ir.find('\n'));
}

bool in_groups(const std::string& line) { return line.rfind("; in workgroups", 0) == 0; }

TEST(TileWorkgroups, LargeTilesFillAGroupAndSmallOnesRunARowPerLane) {
  EXPECT_TRUE(in_groups(plan(lib::matmul()))) << plan(lib::matmul());  // 16x16 tiles: 256 elements
  EXPECT_TRUE(in_groups(plan(lib::copy(8, 32))));
  // Top-K of 5 sorts lists of 8 entries by network; its largest tile is the
  // 5x8 grid that keeps the first 5 of them.
  std::string topk = plan(lib::topk(5));
  EXPECT_EQ(topk, "; one iteration per lane, tiles private: its largest tile has 40 elements, fewer than a group's "
                  "256 lanes");
  EXPECT_TRUE(in_groups(plan(lib::topk(5), CompileOptions::Workgroups::always)));
  EXPECT_EQ(plan(lib::matmul(), CompileOptions::Workgroups::never),
            "; one iteration per lane, tiles private: CompileOptions::workgroups is never");
  EXPECT_EQ(plan(lib::matmul(), CompileOptions::Workgroups::always, LoweringTarget{}),
            "; one iteration per lane, tiles private: the target has no workgroups");
  EXPECT_NE(plan(lib::scan(lib::ScanKind::inclusive)).find("it has no tiles"), std::string::npos);
}

TEST(TileWorkgroups, TilesPastTheSharedBudgetRunOnOneLane) {
  // A 128x128 f32 result is 64 KiB, twice the 32 KiB a group may use.
  std::string p = plan(lib::matmul({128, 128, 8}));
  EXPECT_FALSE(in_groups(p)) << p;
  EXPECT_NE(p.find("brings the group's shared memory past 32768 bytes"), std::string::npos) << p;
  // Half of it fits: 64x64 (16 KiB) with 64x8 and 8x64 operand tiles.
  EXPECT_TRUE(in_groups(plan(lib::matmul({64, 64, 8})))) << plan(lib::matmul({64, 64, 8}));
  EXPECT_FALSE(in_groups(plan(lib::matmul({64, 64, 8}), CompileOptions::Workgroups::fill,
                              LoweringTarget{256, 16 * 1024})));
}

TEST(TileWorkgroups, BindingsAreCheckedAgainstTheGpusLevels) {
  // thread does not contain block on a GPU: refused for the GPU, while the
  // CPU, which has no levels, runs it.
  Kernel upside_down = tile_kernel("upside_down", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0), exec::thread))
      for (auto j : parallel(X.shape(1), exec::block)) Y(i, j).store(X[{i, j}]);
  });
  EXPECT_NO_THROW(lowered_kernel_ir(upside_down));
  try {
    lowered_kernel_ir(upside_down, {}, workgroup_target());
    ADD_FAILURE() << "an upside-down binding lowered for a GPU";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("compile @upside_down"), std::string::npos) << m;
    EXPECT_NE(m.find("nested bindings must descend"), std::string::npos) << m;
  }
  // A region bound to the lanes' level is not one the group's lanes share
  // out yet: the kernel runs one iteration per lane.
  Kernel lanes = tile_kernel("lanes", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0), exec::block))
      for (auto j : parallel(X.shape(1), exec::thread)) Y(i, j).store(X[{i, j}]);
  });
  std::string p = plan(lanes, CompileOptions::Workgroups::always);
  EXPECT_NE(p.find("is bound to exec::thread"), std::string::npos) << p;
}

TEST(TileWorkgroups, TilesAreSharedArraysWithBarriersBetweenOperations) {
  std::string ir = lowered_kernel_ir(lib::matmul(), {}, workgroup_target());
  EXPECT_EQ(ir.find("local $tile"), std::string::npos) << ir;  // no private tiles
  EXPECT_NE(ir.find("shared $tile"), std::string::npos) << ir;
  EXPECT_NE(ir.find("lane in range(i64(0:i32), i64(256:i32), i64(1:i32))"), std::string::npos) << ir;
  // Each element loop starts at the lane and steps by the group.
  EXPECT_NE(ir.find("in range(%"), std::string::npos) << ir;
  size_t barriers = 0;
  for (size_t at = ir.find("barrier()"); at != std::string::npos; at = ir.find("barrier()", at + 1)) ++barriers;
  // After the result tile's first fill, and in the k loop after A's load,
  // B's load and the product.
  EXPECT_GE(barriers, 3u) << ir;
  // The CPU's lowering has none of it.
  std::string cpu = lowered_kernel_ir(lib::matmul());
  EXPECT_EQ(cpu.find("barrier()"), std::string::npos);
  EXPECT_EQ(cpu.find("shared $tile"), std::string::npos);
}

}  // namespace
}  // namespace tack::tile
