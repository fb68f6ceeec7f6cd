// The lowering for targets with workgroups (docs/tile/compile.md,
// "Workgroups"): where each iteration of the launch nest runs (a workgroup
// of 256 lanes, or one lane) and why, the execution bindings checked against
// the GPU's levels, and the form of the workgroup code. That the library's
// code gives the interpreter's bits is compile_lib_test's (`opencl_groups`);
// regions bound to exec::thread are run here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tack/tile/capture.h"
#include "tack/tile/compile.h"
#include "tack/tile/interpreter.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"
#include "devices.h"

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
  // A region bound to a warp is not one the lowering gives lanes of its
  // own yet, nor a launch whose outermost level is bound to threads: those
  // kernels run one iteration per lane.
  Kernel warps = tile_kernel("warps", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0), exec::block))
      for (auto j : parallel(X.shape(1), exec::warp)) Y(i, j).store(X[{i, j}]);
  });
  std::string p = plan(warps, CompileOptions::Workgroups::always);
  EXPECT_NE(p.find("is bound to exec::warp"), std::string::npos) << p;
  Kernel threads = tile_kernel("threads", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    for (auto i : parallel(X.shape(0), exec::thread)) Y(i).store(X[{i}]);
  });
  p = plan(threads, CompileOptions::Workgroups::always);
  EXPECT_NE(p.find("outermost level, 'parallel' %"), std::string::npos) << p;
  EXPECT_NE(p.find(", is bound to exec::thread"), std::string::npos) << p;
}

// A region bound to exec::thread inside a group's iteration spreads its
// iterations over the group's lanes, one each, with private tiles: as a
// level of the launch nest (which ends above it) and as a region after
// group-wide work. Oracle: the interpreter, with the workgroups' grouping.
Kernel thread_levels() {
  return tile_kernel("thread_levels", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0), exec::block))
      for (auto j : parallel(X.shape(1), exec::thread)) Y(i, j).store(X[{i, j}] * 2.0f);
  });
}

Kernel thread_regions() {
  return tile_kernel("thread_regions", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> m = max(X[{r, span(0, 256)}], 0);  // the group's tile, merged over its lanes
      for (auto j : parallel(X.shape(1), exec::thread)) {
        Tile<float> w = X[{r, span(j, 4)}];  // each lane's own, past the row's end 0
        Tile<float> a = reshape(w, {2, 2});
        Tile<float> p = mma(a, a, full<float>({2, 2}, 0.0f));
        Y(r, j).store(sum(reshape(p, {4}), 0) - m);
      }
    }
  });
}

TEST(TileWorkgroups, ThreadRegionsSpreadTheirIterationsOverTheLanes) {
  for (const Kernel& kernel : {thread_levels(), thread_regions()}) {
    CompileOptions options;
    options.workgroups = CompileOptions::Workgroups::always;
    const std::string ir = lowered_kernel_ir(kernel, options, workgroup_target());
    EXPECT_TRUE(in_groups(ir.substr(0, ir.find('\n')))) << ir;
    EXPECT_NE(ir.find("its iterations over the group's lanes, one each, tiles private"), std::string::npos) << ir;
    if (kernel.name() == "thread_regions") {
      EXPECT_NE(ir.find("local $tile"), std::string::npos) << ir;   // the lanes' own tiles
      EXPECT_NE(ir.find("shared $tile"), std::string::npos) << ir;  // the group's
    }
    if (auto why = missing_backend("opencl")) GTEST_SKIP() << *why;
    for (Shape s : {Shape{3, 300}, Shape{5, 7}, Shape{2, 600}}) {
      GuardedTensor<float> x = uniform_tensor(s, uint32_t(s[1]), -3.0f, 3.0f), want(s, NAN), got(s, NAN);
      RunOptions grouping;
      grouping.scalar_trees = true;
      interpret(kernel, {x.view(), want.view()}, grouping);
      compile("opencl", kernel, options)->launch({x.view(), got.view()});
      for (int64_t i = 0; i < want.size(); ++i) ASSERT_EQ(std::memcmp(&want[i], &got[i], 4), 0) << kernel.name() << " " << i;
      EXPECT_TRUE(got.margin_intact() && x.margin_intact());
    }
  }
}

// Tiles only their own lane touches, element by element, in registers:
// 300 elements (two slots a lane, the second only for the first 44 lanes)
// through loads, elementwise operations, casts, iota, a broadcast scalar
// and a select, into a store. A tile a reshape reads stays shared.
Kernel lane_chain() {
  return tile_kernel("lane_chain", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> x = X[{r, span(0, 300)}];
      Tile<float> y = exp(x * 0.5f) - cast<float>(r);
      Tile<int32_t> n = cast<int32_t>(x * 10.0f);
      Tile<bool> even = n % 2 == 0;
      Tile<float> z = select(even & (iota({300}) < 200), y, -x);
      Y(r, span(0, 300)).store(z);
      Tile<float> w = reshape(reshape(z, {20, 15}), {300});  // read across lanes: shared
      Y(r, span(300, 300)).store(w + 1.0f);
    }
  });
}

TEST(TileWorkgroups, TilesOnlyTheirOwnLaneTouchesLiveInRegisters) {
  CompileOptions options;
  options.workgroups = CompileOptions::Workgroups::always;
  const std::string ir = lowered_kernel_ir(lane_chain(), options, workgroup_target());
  EXPECT_TRUE(in_groups(ir.substr(0, ir.find('\n')))) << ir;
  // The registers: arrays of two slots per lane; shared: z (reshaped) and
  // the two reshapes' results, 300 floats each at most.
  EXPECT_NE(ir.find("local $tile"), std::string::npos) << ir;
  EXPECT_NE(ir.find("array[f32, (2)]"), std::string::npos) << ir;
  EXPECT_NE(ir.find("shared $tile"), std::string::npos) << ir;
  EXPECT_NE(ir.find("slot"), std::string::npos) << ir;
  if (auto why = missing_backend("opencl")) GTEST_SKIP() << *why;
  for (Shape s : {Shape{3, 600}, Shape{2, 650}, Shape{4, 310}}) {
    GuardedTensor<float> x = uniform_tensor(s, uint32_t(s[1]), -3.0f, 3.0f), want(s, NAN), got(s, NAN);
    interpret(lane_chain(), {x.view(), want.view()});
    compile("opencl", lane_chain(), options)->launch({x.view(), got.view()});
    for (int64_t i = 0; i < want.size(); ++i) {
      // exp is the device's own, within 8 ulp (docs/numerics.md): of
      // exp(x / 2) < e^1.5 < 4.5, 8 * 2^-21 < 3.9e-6, and the subtraction
      // of r and the addition of 1 round once each (< 2.5e-7 apiece at
      // these magnitudes). An element that is not the interpreter's bits
      // must be within that.
      const float a = want[i], b = got[i];
      if (std::memcmp(&a, &b, 4) != 0) {
        ASSERT_LE(std::fabs(a - b), 4.4e-6f) << i << ": " << a << " against " << b;
      }
    }
    EXPECT_TRUE(got.margin_intact() && x.margin_intact());
  }
}

// Every lane register (a tile of at most a group's lanes, each lane's
// element in a local) is assigned on every lane where it is defined,
// before the loop over the lane's elements that assigns it on the lanes
// holding one: PoCL 3.1's work-group methods disagree on registers
// assigned on some work-items only (its `loops` method gave wrong values:
// docs/tile/compile.md, "Workgroups"). Here: a load into registers, an operation, a reshape read
// through, a select and a store, every register first assigned in the
// parallel region's own block (8 spaces in), none first in a loop.
TEST(TileWorkgroups, EveryLaneRegisterIsAssignedOnEveryLane) {
  Kernel k = tile_kernel("registers", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0))) {
      Tile<float> x = X(i, span(0, 16)).load(0.0f);
      Tile<float> t = reshape(reshape(x * 2.0f, {4, 4}), {2, 8});
      Tile<float> u = reshape(maximum(t, t) - t, {16});
      Y(i, span(0, 16)).store(select(x > 0.0f, u, x));
    }
  });
  CompileOptions options;
  options.workgroups = CompileOptions::Workgroups::always;
  const std::string ir = lowered_kernel_ir(k, options, workgroup_target());
  ASSERT_TRUE(in_groups(ir.substr(0, ir.find('\n')))) << ir;
  std::set<std::string> seen;
  size_t registers = 0;
  for (size_t at = 0, end; at < ir.size(); at = end + 1) {
    end = ir.find('\n', at);
    if (end == std::string::npos) end = ir.size();
    const std::string line = ir.substr(at, end - at);
    const size_t indent = line.find_first_not_of(' ');
    const size_t name_end = line.find(":r = ");
    if (indent == std::string::npos || name_end == std::string::npos || line[indent] != '%') continue;
    const std::string name = line.substr(indent, name_end - indent);
    if (!seen.insert(name).second) continue;
    ++registers;
    EXPECT_EQ(indent, 8u) << name << " is first assigned in a nested block:\n" << line << "\n" << ir;
  }
  EXPECT_GE(registers, 3u) << ir;
}

// A row shifted right by one in place: the tile is in the lanes' registers,
// and its store writes elements other lanes load, so the store must wait
// for every lane's load (the interpreter loads the whole tile first). PoCL
// runs lane 0's load and store before lane 1's load: without the barrier
// lane 1 would read lane 0's store.
TEST(TileWorkgroups, AStoreWaitsForTheLoadsOfAViewItMayAlias) {
  Kernel shift = tile_kernel("shift", [](TensorView<float, 2> X) {
    for (auto r : parallel(X.shape(0), exec::block)) {
      Tile<float> t = X[{r, span(0, 256)}];
      X(r, span(1, 256)).store(t * 2.0f);
    }
  });
  CompileOptions options;
  options.workgroups = CompileOptions::Workgroups::always;
  const std::string ir = lowered_kernel_ir(shift, options, workgroup_target());
  EXPECT_EQ(ir.find("shared $tile"), std::string::npos) << ir;
  EXPECT_NE(ir.find("barrier()"), std::string::npos) << ir;
  if (auto why = missing_backend("opencl")) GTEST_SKIP() << *why;
  GuardedTensor<float> want = uniform_tensor({3, 300}, 5, -3.0f, 3.0f);
  GuardedTensor<float> got = uniform_tensor({3, 300}, 5, -3.0f, 3.0f);
  interpret(shift, {want.view()});
  compile("opencl", shift, options)->launch({got.view()});
  for (int64_t i = 0; i < want.size(); ++i) ASSERT_EQ(std::memcmp(&want[i], &got[i], 4), 0) << i;
  EXPECT_TRUE(got.margin_intact());
}

TEST(TileWorkgroups, TilesAreSharedArraysWithBarriersBetweenOperations) {
  std::string ir = lowered_kernel_ir(lib::matmul(), {}, workgroup_target());
  EXPECT_EQ(ir.find("local $tile"), std::string::npos) << ir;  // no private tiles
  EXPECT_NE(ir.find("shared $tile"), std::string::npos) << ir;
  EXPECT_NE(ir.find("lane in range(i64(0:i32), i64(256:i32), i64(1:i32))"), std::string::npos) << ir;
  // A tile of 16x16, as many elements as lanes: each lane's element is the
  // lane's own, no loop. One of 32x32: a loop from the lane in steps of the
  // group.
  EXPECT_NE(ir.find(":e = %"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("in range(%"), std::string::npos) << ir;
  EXPECT_NE(lowered_kernel_ir(lib::matmul({32, 32, 16}), {}, workgroup_target()).find("in range(%"), std::string::npos);
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

// The barriers in `ir`, printed kernel IR, that stand inside an `if` or
// its `else` (at any depth; a loop's body between them counts as inside).
std::vector<std::string> barriers_in_branches(const std::string& ir) {
  std::vector<std::pair<size_t, bool>> open;  // each open block's indentation, and whether it is a branch
  std::vector<std::string> found;
  size_t line_number = 0;
  for (size_t at = 0; at < ir.size();) {
    size_t end = ir.find('\n', at);
    if (end == std::string::npos) end = ir.size();
    const std::string line = ir.substr(at, end - at);
    at = end + 1;
    ++line_number;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || line[0] == ';') continue;
    while (!open.empty() && open.back().first >= indent) open.pop_back();
    const std::string text = line.substr(indent);
    if (text == "barrier()")
      for (const auto& [depth, branch] : open)
        if (branch) found.push_back("line " + std::to_string(line_number));
    if (text.back() == ':') open.push_back({indent, text.rfind("if ", 0) == 0 || text == "else:"});
  }
  return found;
}

// A pipeline of two stages whose second repeats a step over the group's
// tile (of 256 elements) as many times as X has rows: a loop with barriers
// inside a stage.
Kernel staged_serial_loop() {
  return tile_kernel("staged_serial_loop", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto r : parallel(X.shape(0))) {
      Tile<float> acc = full<float>({256}, 1.0f);
      for (auto k : pipeline(X.shape(1))) {
        Tile<float> w = X[{r, span(k, 256)}];  // past the row's end 0
        k.stage("repeat");
        for (auto j : serial(X.shape(0))) acc = acc * 0.5f + w * cast<float>(j + k);
      }
      Y(r, span(0, 256)).store(acc);
    }
  });
}

// Every condition around a barrier is the same on all of a group's lanes,
// and the lowering takes the barriers out of the branches: the condition is
// kept in a variable, each branch's pieces between barriers run under it,
// and a loop with barriers runs under it through its bounds. A compiler
// that runs a group's lanes as loops (PoCL) copies the code after a barrier
// in a branch for each way to reach it: Top-K over the ordered tree, with
// 180 barriers in branches, took 17 s to compile optimized on PoCL (11 s
// without them), and a random program with 110 more than 5 minutes
// unoptimized (about 1 s without them). That
// every lowering here still gives the interpreter's bits is
// compile_lib_test's and compile_random_test's (`opencl_groups`).
TEST(TileWorkgroups, NoBarrierStandsInABranch) {
  CompileOptions always;
  always.workgroups = CompileOptions::Workgroups::always;
  // Top-K's folds and merges, the convolution's reductions: the kernels
  // whose barriers stood in branches before.
  for (const Kernel& k : {lib::topk(8), lib::topk(16), lib::topk(8, ReductionPolicy::ordered_tree), lib::conv2d(),
                          lib::matmul(), lib::softmax(), lib::layer_norm()}) {
    const std::string ir = lowered_kernel_ir(k, always, workgroup_target());
    ASSERT_TRUE(in_groups(ir.substr(0, ir.find('\n')))) << k.name();
    EXPECT_NE(ir.find("barrier()"), std::string::npos) << k.name();
    const std::vector<std::string> inside = barriers_in_branches(ir);
    EXPECT_TRUE(inside.empty()) << k.name() << ": " << inside.size() << " barriers in branches, the first at "
                                << inside[0] << "\n" << ir;
  }
  // Overlapped stages run each stage under the test that its iteration is
  // live; a stage's serial loop over the group's tile (barriers in it)
  // leaves that branch with no iteration where the test fails.
  CompileOptions overlapped = always;
  overlapped.overlap_stages = true;
  const std::string ir = lowered_kernel_ir(staged_serial_loop(), overlapped, workgroup_target());
  EXPECT_TRUE(barriers_in_branches(ir).empty()) << ir;
  // The check itself: a barrier under an `else` inside a loop inside an
  // `if` is found, one after the `if` is not.
  EXPECT_EQ(barriers_in_branches("    if a:\n        for i in x:\n            b()\n    else:\n        barrier()\n"
                                 "    barrier()\n"),
            std::vector<std::string>{"line 5"});
  // Run: rows of 0, 1, 2 and 5 iterations leave the pipeline's fill and
  // drain with stages not live. Oracle: the interpreter.
  if (auto why = missing_backend("opencl")) GTEST_SKIP() << *why;
  for (int64_t cols : {0, 1, 2, 5}) {
    GuardedTensor<float> x = uniform_tensor({3, cols}, uint32_t(cols) + 7, -3.0f, 3.0f);
    GuardedTensor<float> want({3, 256}, NAN), got({3, 256}, NAN);
    interpret(staged_serial_loop(), {x.view(), want.view()});
    compile("opencl", staged_serial_loop(), overlapped)->launch({x.view(), got.view()});
    for (int64_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(std::memcmp(&want[i], &got[i], 4), 0) << cols << " columns, element " << i << ": " << got[i]
                                                      << " compiled, " << want[i] << " interpreted";
    EXPECT_TRUE(got.margin_intact() && x.margin_intact());
  }
}

}  // namespace
}  // namespace tack::tile
