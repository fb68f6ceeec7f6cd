// Reference-library kernels compiled for each device against the
// interpreter, on the same inputs: ragged shapes, NaN-initialized outputs,
// guarded strided views. On the CPU, and on OpenCL (PoCL here) twice: as
// tack.tile compiles them there (CompileOptions::Workgroups::fill: the
// kernels with large tiles in workgroups, the others one iteration per
// lane), and with every kernel in workgroups (`always`: tiles in shared
// memory, each operation's elements spread over a group's lanes, barriers
// between operations), which the test checks the lowering chose. The
// lowering keeps the interpreter's order for every reduction it realizes
// (folds, the ordered tree, and for unordered_tree the grouping the
// interpreter uses with one thread and no shuffle, or in workgroups, for
// scalar states, the ordered tree: RunOptions::scalar_trees), and rounds
// every f32 operation as the interpreter does, so results must agree bit
// for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <algorithm>
#include <numeric>
#include <random>
#include <variant>

#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"
#include "devices.h"

namespace tack::tile {
namespace {

using Tensor = std::variant<GuardedTensor<float>, GuardedTensor<int64_t>>;

struct Arg {
  Scalar elem = Scalar::f32;
  Shape shape;
  bool output = false;
  int64_t lo = -3, hi = 3;  // the range of random inputs
};

Arg in(Shape s) { return {Scalar::f32, s, false, -3, 3}; }
Arg out(Shape s) { return {Scalar::f32, s, true, 0, 0}; }
Arg index_in(Shape s, int64_t lo, int64_t hi) { return {Scalar::i64, s, false, lo, hi}; }
Arg index_out(Shape s) { return {Scalar::i64, s, true, 0, 0}; }

std::vector<Tensor> make(const std::vector<Arg>& args, uint32_t seed) {
  std::vector<Tensor> out;
  std::mt19937 gen(seed);
  for (const Arg& a : args) {
    if (a.elem == Scalar::f32) {
      GuardedTensor<float> t(a.shape, a.output ? NAN : 0.0f);
      std::uniform_real_distribution<float> dist(float(a.lo), float(a.hi));
      if (!a.output)
        for (int64_t i = 0; i < t.size(); ++i) t[i] = dist(gen);
      out.emplace_back(std::move(t));
    } else {
      GuardedTensor<int64_t> t(a.shape, a.output ? int64_t(-777) : 0);
      std::uniform_int_distribution<int64_t> dist(a.lo, a.hi);
      if (!a.output)
        for (int64_t i = 0; i < t.size(); ++i) t[i] = dist(gen);
      out.emplace_back(std::move(t));
    }
  }
  return out;
}

std::vector<HostTensor> views(std::vector<Tensor>& ts) {
  std::vector<HostTensor> out;
  for (Tensor& t : ts) out.push_back(std::visit([](auto& g) { return g.view(); }, t));
  return out;
}

// Where each test runs (a parameter of TileCompileLib): a device,
// "cpu_split_fused", the CPU with every launch nest's outermost level split
// and its parts fused into one dimension, or a GPU backend's "_groups"
// variant ("opencl_groups", "cuda_groups", "hip_groups"), every kernel in
// workgroups. A backend that is missing skips.
class TileCompileLib : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (auto why = missing_backend(device())) GTEST_SKIP() << *why;
  }
  std::string device() const {
    return variant_device(GetParam());
  }
  bool on_cpu() const { return device() == "cpu"; }
  bool groups() const { return variant_in_groups(GetParam()); }

  // Off the CPU, exp is the device's own math library (within 8 ulp, as the
  // CPU's is: docs/numerics.md). A kernel that normalizes by a sum of exps
  // then moves by the two exps' errors, the sum's and one division: 33 ulp
  // at most (the bound test_tile_library.py's softmax test uses). 0: bits.
  int64_t exp_ulps_ = 0;
  bool within_exp_bound(float want, float got) const {
    if (exp_ulps_ == 0 || std::isnan(want) || std::isnan(got)) return false;
    auto key = [](float f) {
      int32_t b;
      std::memcpy(&b, &f, 4);
      return b < 0 ? int64_t(INT32_MIN) - b : int64_t(b);  // monotone in f, -0 next to +0
    };
    return std::abs(key(want) - key(got)) <= exp_ulps_;
  }
  bool within_exp_bound(int64_t, int64_t) const { return false; }

  // Runs `kernel` interpreted and compiled on copies of the same inputs and
  // compares every tensor bit for bit, and every margin.
  void expect_same(const Kernel& kernel, const std::vector<Arg>& args, uint32_t seed = 7,
                   const std::function<void(std::vector<Tensor>&)>& prepare = {}, const CompileOptions& options = {});
};

void TileCompileLib::expect_same(const Kernel& kernel, const std::vector<Arg>& args, uint32_t seed,
                                 const std::function<void(std::vector<Tensor>&)>& prepare,
                                 const CompileOptions& options) {
  CompileOptions chosen = options;
  if (GetParam() == "cpu_split_fused") {
    // The outermost level split by 3 (ragged against most of the tests'
    // extents, so the guard skips points) and every part fused into one
    // dimension, wherever the kernel has a parallel nest: never a silent
    // fallback. A kernel without one lowers as under `cpu`, which runs it.
    const std::string plain = lowered_kernel_ir(kernel, chosen);
    if (plain.find("no parallel nest") != std::string::npos) return;
    std::string loop = plain.substr(plain.find("parallel for"));
    loop = loop.substr(0, loop.find('\n'));
    int depth = 0;
    for (size_t p = 0; (p = loop.find(" in range(", p)) != std::string::npos; ++p) ++depth;
    chosen.nest_split = {3};
    chosen.nest_fuse = {depth + 1};
    std::string plan = lowered_kernel_ir(kernel, chosen);
    const size_t at = plan.find("; binding: ");
    ASSERT_NE(at, std::string::npos) << kernel.name();
    const std::string binding = plan.substr(at, plan.find('\n', at) - at);
    ASSERT_NE(binding.find("level 0 split by 3"), std::string::npos) << kernel.name() << ": " << binding;
    ASSERT_NE(binding.find("fused into one launch dimension"), std::string::npos) << kernel.name() << ": " << binding;
  }
  std::vector<Tensor> want = make(args, seed), got = make(args, seed);
  if (prepare) prepare(want), prepare(got);
  if (groups()) chosen.workgroups = CompileOptions::Workgroups::always;
  // In workgroups an unordered reduction of scalars is merged by the
  // group's lanes as the ordered tree, one of the groupings the
  // interpreter offers.
  RunOptions grouping;
  if (!on_cpu()) {
    const std::string plan = lowered_kernel_ir(kernel, chosen, workgroup_target());
    grouping.scalar_trees = plan.rfind("; in workgroups", 0) == 0;
    if (groups()) {
      ASSERT_TRUE(grouping.scalar_trees) << kernel.name() << ": " << plan.substr(0, plan.find('\n'));
    }
  }
  interpret(kernel, views(want), grouping);
  compile(device(), kernel, chosen)->launch(views(got));
  for (size_t a = 0; a < args.size(); ++a) {
    std::visit(
        [&](auto& w) {
          auto& g = std::get<std::decay_t<decltype(w)>>(got[a]);
          auto wv = w.values(), gv = g.values();
          for (size_t i = 0; i < wv.size(); ++i)
            if (std::memcmp(&wv[i], &gv[i], sizeof wv[i]) != 0 && !within_exp_bound(wv[i], gv[i])) {
              ADD_FAILURE() << kernel.name() << ": tensor #" << a << " element " << i << " is " << gv[i]
                            << " compiled, " << wv[i] << " interpreted";
              return;
            }
          EXPECT_TRUE(g.margin_intact()) << kernel.name() << ": tensor #" << a << " written outside its view";
        },
        want[a]);
  }
}

TEST_P(TileCompileLib, Copy) {
  for (Shape s : {Shape{17, 65}, Shape{8, 32}, Shape{0, 5}, Shape{3, 1}}) {
    expect_same(lib::copy(8, 32), {in(s), out(s)});
    expect_same(lib::copy(8, 32), {in(s), out({s[0] + 3, s[1] + 5})});  // reads past In give zeros
  }
}

TEST_P(TileCompileLib, Scans) {
  for (Shape s : {Shape{17, 65}, Shape{1, 1}, Shape{0, 4}, Shape{4, 0}}) {
    expect_same(lib::scan(lib::ScanKind::inclusive), {in(s), out(s)});
    expect_same(lib::scan(lib::ScanKind::exclusive), {in(s), out(s)});
  }
}

TEST_P(TileCompileLib, SoftmaxAndNorms) {
  for (Shape s : {Shape{17, 65}, Shape{5, 7}, Shape{5, 32}, Shape{3, 65}, Shape{0, 65}, Shape{3, 0}}) {
    for (int64_t width : {16, 32}) {
      exp_ulps_ = on_cpu() ? 0 : 33;
      expect_same(lib::softmax(width), {in(s), out(s)});
      exp_ulps_ = 0;
      expect_same(lib::layer_norm(1e-5f, width), {in(s), in({s[1]}), in({s[1]}), out(s)});
      expect_same(lib::rms_norm(1e-5f, width), {in(s), in({s[1]}), out(s)});
    }
  }
}

// Blocks as wide as a workgroup's 256 lanes, as tack.tile runs the row
// kernels on GPUs: a group per row, each block's sum and maximum merged
// over the lanes as the ordered tree, the block's tiles in the lanes'
// registers. Under `fill` on OpenCL the plan must say so.
TEST_P(TileCompileLib, RowKernelsInAGroupPerRow) {
  for (Shape s : {Shape{5, 300}, Shape{3, 256}, Shape{4, 37}, Shape{2, 600}}) {
    for (const Kernel& kernel : {lib::softmax(256), lib::layer_norm(1e-5f, 256), lib::rms_norm(1e-5f, 256)}) {
      if (!on_cpu() && !groups()) {
        const std::string plan = lowered_kernel_ir(kernel, {}, workgroup_target());
        ASSERT_EQ(plan.rfind("; in workgroups", 0), 0u) << kernel.name() << ": " << plan.substr(0, plan.find('\n'));
        EXPECT_NE(plan.find("contributions over the group's lanes"), std::string::npos) << kernel.name();
        // The rows' tiles stay in the lanes' registers: each block's sum and
        // maximum take contribution k on lane k, the element's own.
        EXPECT_NE(plan.find("each on its element's lane"), std::string::npos) << kernel.name();
      }
      exp_ulps_ = kernel.name() == "softmax" && !on_cpu() ? 33 : 0;
      if (kernel.name() == "softmax") expect_same(kernel, {in(s), out(s)});
      else if (kernel.name() == "layer_norm") expect_same(kernel, {in(s), in({s[1]}), in({s[1]}), out(s)});
      else expect_same(kernel, {in(s), in({s[1]}), out(s)});
    }
  }
}

TEST_P(TileCompileLib, Matmul) {
  for (auto [m, k, n] : {std::array<int64_t, 3>{17, 7, 65}, {17, 61, 65}, {33, 16, 7}, {1, 1, 1}, {0, 3, 4}, {4, 0, 5}})
    expect_same(lib::matmul(), {in({m, k}), in({k, n}), out({m, n})});
}

TEST_P(TileCompileLib, MatmulInBlocksForEveryLane) {
  // Tiles with a register block for every lane of a 256-lane group (64x64
  // in 4x4 or 2x2 blocks; 32x32 in 2x2 blocks) and tiles without (16x16 in
  // 4x4: one element per lane then), on ragged shapes.
  for (auto [tiles, block] : {std::pair{lib::MatmulTiles{64, 64, 8}, 4}, {lib::MatmulTiles{64, 64, 4}, 2},
                              {lib::MatmulTiles{32, 32, 8}, 2}, {lib::MatmulTiles{16, 16, 16}, 4}}) {
    CompileOptions options;
    options.mma_block[0] = options.mma_block[1] = block;
    for (auto [m, k, n] : {std::array<int64_t, 3>{67, 19, 130}, {5, 3, 70}})
      expect_same(lib::matmul(tiles), {in({m, k}), in({k, n}), out({m, n})}, 7, {}, options);
  }
}

TEST_P(TileCompileLib, MatmulInEveryRegisterBlock) {
  // Blocks that divide the 8x8 and 16x16 tiles and blocks that do not
  // (8x2 for 4x4 tiles, 3x3 for most): the unblocked loops then.
  for (std::array<int, 2> block : {std::array<int, 2>{1, 1}, {2, 2}, {4, 2}, {2, 4}, {4, 4}, {8, 2}, {3, 3}})
    for (lib::MatmulTiles tiles : {lib::MatmulTiles{}, lib::MatmulTiles{8, 8, 8}, lib::MatmulTiles{4, 4, 4}})
      for (bool lanes : {true, false}) {
        if (!lanes && !on_cpu()) continue;  // SIMD lanes are the CPU's alone
        CompileOptions options;
        options.simd_lanes = lanes;
        options.mma_block[0] = block[0];
        options.mma_block[1] = block[1];
        for (auto [m, k, n] : {std::array<int64_t, 3>{17, 7, 65}, {33, 16, 7}})
          expect_same(lib::matmul(tiles), {in({m, k}), in({k, n}), out({m, n})}, 7, {}, options);
      }
}

TEST_P(TileCompileLib, MatmulOnPanelPackedB) {
  // pack_panels and the product that reads its panels, each against the
  // interpreter on both CPU bindings: panels of 4 and 8 block columns,
  // N neither a multiple of the tile nor of a panel.
  for (int64_t lanes : {4, 8})
    for (lib::MatmulTiles tiles : {lib::MatmulTiles{8, 8, 8, lanes}, lib::MatmulTiles{4, 8, 2, lanes},
                                   lib::MatmulTiles{16, 4, 16, lanes}})
      for (bool simd : {true, false}) {
        if (!simd && !on_cpu()) continue;
        CompileOptions options;
        options.simd_lanes = simd;
        for (auto [m, k, n] : {std::array<int64_t, 3>{17, 7, 65}, {33, 16, 7}}) {
          int64_t g = (n + tiles.n * lanes - 1) / (tiles.n * lanes);
          expect_same(lib::pack_panels(tiles.n, lanes), {in({k, n}), out({g, k, tiles.n, lanes})}, 7, {}, options);
          expect_same(lib::matmul(tiles), {in({m, k}), in({g, k, tiles.n, lanes}), out({m, n})}, 7, {}, options);
          // Panels narrower than the lanes: the lanes past them read the
          // pad, each tested on its own (the range test over all lanes fails).
          expect_same(lib::matmul(tiles), {in({m, k}), in({g, k, tiles.n, lanes - 1}), out({m, n})}, 7, {}, options);
        }
      }
}

TEST_P(TileCompileLib, BatchedMatmul) {
  // A batch of products in one launch, its B unpacked and packed (a shared
  // packed B: one product's panels), on both CPU bindings.
  constexpr int64_t lanes = 4;
  for (lib::MatmulTiles tiles : {lib::MatmulTiles{8, 8, 8}, lib::MatmulTiles{4, 8, 2, lanes}})
    for (bool simd : {true, false}) {
      if (!simd && !on_cpu()) continue;
      CompileOptions options;
      options.simd_lanes = simd;
      for (auto [batch, m, k, n] : {std::array<int64_t, 4>{3, 17, 7, 65}, {2, 33, 16, 7}, {1, 5, 3, 9}}) {
        if (tiles.panel_lanes == 0) {
          expect_same(lib::batched_matmul(tiles), {in({batch, m, k}), in({batch, k, n}), out({batch, m, n})}, 7, {},
                      options);
          continue;
        }
        const int64_t g = (n + tiles.n * lanes - 1) / (tiles.n * lanes);
        expect_same(lib::batched_pack_panels(tiles.n, lanes), {in({batch, k, n}), out({batch * g, k, tiles.n, lanes})},
                    7, {}, options);
        for (int64_t shared : {batch, int64_t(1)})
          expect_same(lib::batched_matmul(tiles, shared == 1 && batch > 1),
                      {in({batch, m, k}), in({shared * g, k, tiles.n, lanes}), out({batch, m, n})},
                      7, {}, options);
      }
    }
}

TEST_P(TileCompileLib, Einsum) {
  expect_same(lib::einsum<2, 2, 2>("ij,jk->ik"), {in({7, 5}), in({5, 9}), out({7, 9})});
  expect_same(lib::einsum<3, 3, 3>("bij,bjk->bik"), {in({3, 4, 5}), in({3, 5, 2}), out({3, 4, 2})});
  expect_same(lib::einsum<2, 2>("ij->ji"), {in({6, 11}), out({11, 6})});
  expect_same(lib::einsum<2, 1>("ii->i"), {in({6, 6}), out({6})});
}

TEST_P(TileCompileLib, Conv2d) {
  for (int64_t padding : {0, 1, 2}) {
    int64_t h = 9, w = 13, kh = 3, kw = 2;
    Shape y{2, 3, h + 2 * padding - kh + 1, w + 2 * padding - kw + 1};
    expect_same(lib::conv2d({padding, 8}), {in({2, 4, h, w}), in({3, 4, kh, kw}), out(y)});
    // Blocks of two output channels over three: the last block half empty.
    expect_same(lib::conv2d({padding, 8, 2}), {in({2, 4, h, w}), in({3, 4, kh, kw}), out(y)});
    expect_same(lib::conv2d_columns({.kh = kh, .kw = kw, .pad_h = padding, .pad_w = padding, .width = 8}),
                {in({2, 4, h, w}), out({2, 4 * kh * kw, y[2], y[3]})});
    // Strides and dilations: windows of every other row, columns one at a time.
    expect_same(lib::conv2d_columns({.kh = kh, .kw = kw, .pad_h = padding, .pad_w = 1, .stride_h = 2, .stride_w = 3,
                                     .dilation_h = 2, .dilation_w = 1, .width = 8}),
                {in({2, 4, h, w}), out({2, 4 * kh * kw, (h + 2 * padding - 2 * (kh - 1) - 1) / 2 + 1, (w + 2 - kw) / 3 + 1})});
    expect_same(lib::conv2d_columns({.kh = kh, .kw = kw, .pad_h = 0, .pad_w = padding, .dilation_w = 2, .width = 4}),
                {in({2, 4, h, w}), out({2, 4 * kh * kw, h - kh + 1, w + 2 * padding - 2 * (kw - 1)})});
  }
}

TEST_P(TileCompileLib, TopKUnderEveryPolicy) {
  for (ReductionPolicy p : {ReductionPolicy::unordered_tree, ReductionPolicy::ordered_tree, ReductionPolicy::left_fold,
                            ReductionPolicy::right_fold})
    for (Shape s : {Shape{9, 23}, Shape{4, 3}, Shape{3, 0}}) {
      // In workgroups one policy and the smallest networks (k = 3 in
      // blocks of 4: runs sorted, then merged, and the first 3 of 4 taken):
      // with a barrier after each of the networks' operations, PoCL takes
      // about 40 s to build topk(5) and 20 s to build this one. (k not a
      // power of two gave values of 0 there before a scalar's broadcast was
      // assigned on every lane: docs/tile/compile.md, "Workgroups".)
      const bool in_groups = groups();
      if (in_groups && p != ReductionPolicy::ordered_tree) continue;
      // Split and fused, one policy too: what that variant tests is the
      // launch's binding, and under it the CPU runs the network in SIMD
      // lanes, a compile of about 10 s per kernel (the policies are `cpu`'s).
      if (GetParam() == "cpu_split_fused" && p != ReductionPolicy::ordered_tree) continue;
      const int64_t k = in_groups ? 3 : 5;
      // Few distinct values: ties and their positions matter.
      Arg x{Scalar::f32, s, false, -2, 2};
      const Kernel topk = lib::topk(k, p, in_groups ? 4 : 0);
      expect_same(topk, {x, out({s[0], k}), index_out({s[0], k})}, 3, [](std::vector<Tensor>& t) {
        auto& x = std::get<GuardedTensor<float>>(t[0]);
        for (int64_t i = 0; i < x.size(); ++i) x[i] = i % 7 == 3 ? NAN : float(int(x[i] * 2)) / 2;
      });
    }
}

TEST_P(TileCompileLib, Sort) {
  for (Shape s : {Shape{5, 37}, Shape{3, 8}, Shape{2, 1}, Shape{0, 3}})
    expect_same(lib::sort(8), {in(s), out(s), index_out(s)}, 5, [](std::vector<Tensor>& t) {
      auto& x = std::get<GuardedTensor<float>>(t[0]);
      for (int64_t i = 0; i < x.size(); ++i) x[i] = i % 5 == 1 ? -0.0f : i % 11 == 2 ? NAN : float(int(x[i] * 3));
    });
}

// X (rows, pairs, 2, run) and J alike, as merge passes take them: each
// row's positions a shuffle of 0 .. its size - 1 (distinct), each run of
// (value, position) sorted by std::sort in the order ascending or
// descending (NaN last or first, ties by lower position), written in the
// test independently of the library's orders.
void sort_each_run(std::vector<Tensor>& t, bool descending, uint32_t seed) {
  auto& x = std::get<GuardedTensor<float>>(t[0]);
  auto& j = std::get<GuardedTensor<int64_t>>(t[1]);
  const int64_t run = x.shape()[3], per_row = x.size() / std::max<int64_t>(x.shape()[0], 1);
  std::mt19937 gen(seed);
  for (int64_t r = 0; r < x.shape()[0]; ++r) {
    std::vector<int64_t> pos(static_cast<size_t>(per_row));
    std::iota(pos.begin(), pos.end(), 0);
    std::shuffle(pos.begin(), pos.end(), gen);
    for (int64_t e = 0; e < per_row; ++e) j[r * per_row + e] = pos[size_t(e)];
    for (int64_t start = r * per_row; start < (r + 1) * per_row; start += run) {
      std::vector<std::pair<float, int64_t>> items;
      for (int64_t e = start; e < start + run; ++e) items.emplace_back(x[e], j[e]);
      std::sort(items.begin(), items.end(), [descending](auto a, auto b) {
        bool na = std::isnan(a.first), nb = std::isnan(b.first);
        if (na != nb) return descending ? na : nb;
        if (!na && a.first != b.first) return descending ? a.first > b.first : a.first < b.first;
        return a.second < b.second;
      });
      for (int64_t e = start; e < start + run; ++e) x[e] = items[size_t(e - start)].first, j[e] = items[size_t(e - start)].second;
    }
  }
}

TEST_P(TileCompileLib, MergeSortPasses) {
  // Ties, -0, NaN; outputs as wide as the row and wider (padded runs).
  auto ties = [](std::vector<Tensor>& t) {
    auto& x = std::get<GuardedTensor<float>>(t[0]);
    for (int64_t i = 0; i < x.size(); ++i) x[i] = i % 5 == 1 ? -0.0f : i % 11 == 2 ? NAN : float(int(x[i] * 3));
  };
  for (auto [rows, cols, padded] : {std::array<int64_t, 3>{5, 37, 40}, {3, 8, 8}, {2, 1, 8}, {4, 5, 5}, {0, 3, 8}}) {
    expect_same(lib::sort_runs(8), {in({rows, cols}), out({rows, padded}), index_out({rows, padded})}, 5, ties);
    expect_same(lib::sort_runs_bitonic(8), {in({rows, cols}), out({rows, padded}), index_out({rows, padded})}, 5, ties);
  }
  // Pairs of sorted runs of 1, 4 and 7 (values with ties, -0 and NaN,
  // distinct positions, each run in the order of before_ascending), so
  // every place is taken once; the merged rows as wide as the pairs and
  // narrower (places past the row skipped).
  auto sorted_runs = [&](std::vector<Tensor>& t) {
    ties(t);
    sort_each_run(t, false, 3);
  };
  for (auto [pairs, run, cols] : {std::array<int64_t, 3>{3, 4, 24}, {2, 7, 25}, {1, 1, 2}, {4, 4, 30}})
    expect_same(lib::merge_runs(),
                {in({3, pairs, 2, run}), index_in({3, pairs, 2, run}, 0, 0), in({4}), out({3, cols}),
                 index_out({3, cols})},
                9, sorted_runs);
  // Merge path: blocks of 1 to past a pair's 2L (places past the pair and
  // past Y's row stored nowhere), runs of 1 to 37.
  for (int64_t block : {1, 3, 8, 64})
    for (auto [pairs, run, cols] :
         {std::array<int64_t, 3>{3, 4, 24}, {2, 7, 25}, {1, 1, 2}, {4, 4, 30}, {2, 37, 150}})
    {
      const std::vector<Arg> args{in({3, pairs, 2, run}), index_in({3, pairs, 2, run}, 0, 0), in({7}), out({3, cols}),
                                  index_out({3, cols})};
      expect_same(lib::merge_path(block), args, 9, sorted_runs);
      // The other oracle: merge_runs's binary searches, interpreted, give
      // the same merged rows.
      std::vector<Tensor> by_search = make(args, 9), by_path = make(args, 9);
      sorted_runs(by_search), sorted_runs(by_path);
      interpret(lib::merge_runs(), views(by_search));
      interpret(lib::merge_path(block), views(by_path));
      for (size_t a = 3; a < args.size(); ++a)
        std::visit(
            [&](auto& w) {
              auto wv = w.values(), gv = std::get<std::decay_t<decltype(w)>>(by_path[a]).values();
              ASSERT_EQ(wv.size(), gv.size());
              for (size_t e = 0; e < wv.size(); ++e)
                ASSERT_EQ(std::memcmp(&wv[e], &gv[e], sizeof wv[e]), 0)
                    << "merge_path(" << block << ") and merge_runs differ at output #" << a << " element " << e;
            },
            by_search[a]);
    }
}

TEST_P(TileCompileLib, TopKTournamentKernels) {
  // tack.tile's Top-K above k = 8: runs sorted descending (elements past
  // the row -inf), merged in pairs keeping the first `keep` of each, then
  // the first k with padding's positions the sentinel's.
  auto ties = [](std::vector<Tensor>& t) {
    auto& x = std::get<GuardedTensor<float>>(t[0]);
    for (int64_t i = 0; i < x.size(); ++i)
      x[i] = i % 5 == 1 ? -0.0f : i % 11 == 2 ? NAN : i % 13 == 3 ? -INFINITY : float(int(x[i] * 3));
  };
  for (auto [rows, cols, padded] : {std::array<int64_t, 3>{5, 37, 40}, {3, 8, 8}, {2, 1, 8}, {0, 3, 8}}) {
    expect_same(lib::sort_runs(8, lib::Order::descending), {in({rows, cols}), out({rows, padded}), index_out({rows, padded})},
                5, ties);
    expect_same(lib::sort_runs_bitonic(8, lib::Order::descending),
                {in({rows, cols}), out({rows, padded}), index_out({rows, padded})}, 5, ties);
  }
  auto sorted_descending = [&](std::vector<Tensor>& t) {
    ties(t);
    sort_each_run(t, true, 4);
  };
  // Each pair's merge truncated to `keep` (or whole where 2L is less), the
  // outputs pairs * W wide.
  for (int64_t block : {1, 8, 64})
    for (auto [pairs, run, keep] : {std::array<int64_t, 3>{3, 4, 4}, {2, 7, 8}, {4, 8, 32}, {2, 37, 16}, {1, 1, 1}}) {
      const int64_t w = std::min(2 * run, keep);
      expect_same(lib::merge_path(block, lib::Order::descending, keep),
                  {in({3, pairs, 2, run}), index_in({3, pairs, 2, run}, 0, 0), in({7}), out({3, pairs * w}),
                   index_out({3, pairs * w})},
                  9, sorted_descending);
    }
  // The first k of a run (k past it: the sentinel), positions at or past
  // X's row (its second extent, 10) the sentinel's.
  for (int64_t k : {3, 16, 40})
    expect_same(lib::topk_first(16), {in({4, 10}), in({4, 20}), index_in({4, 20}, 0, 25), out({4, k}), index_out({4, k})});
  // The prefilter: thresholds over groups of runs (a group's runs
  // exhausted: -inf) and the entries at or above them, compacted into rows
  // wider and narrower than their counts; then places mapped to columns.
  for (auto [groups, run, runs] : {std::array<int64_t, 3>{3, 2, 7}, {20, 1, 3}, {5, 4, 2}}) {
    expect_same(lib::topk_threshold(2, 8), {in({6, 37}), in({runs, run, groups}), out({6}), index_out({6})}, 5, ties);
    expect_same(lib::topk_threshold(1, 16), {in({6, 37}), in({runs, run, groups}), out({6}), index_out({6})}, 5, ties);
  }
  auto thresholds = [&](std::vector<Tensor>& t) {
    ties(t);
    auto& x = std::get<GuardedTensor<float>>(t[0]);
    auto& at = std::get<GuardedTensor<float>>(t[1]);
    const float pick[] = {0.0f, -INFINITY, NAN, 1.0f, INFINITY, -1.0f};
    for (int64_t r = 0; r < at.size(); ++r) at[r] = r < 6 ? pick[r] : x[r * 3];
  };
  for (int64_t wide : {40, 12, 1})
    expect_same(lib::topk_compact(8), {in({7, 37}), in({7}), out({7, wide}), index_out({7, wide})}, 5, thresholds);
  expect_same(lib::topk_columns(), {in({4, 20}), index_in({4, 20}, 0, 24), index_in({4, 24}, 0, 1000), out({4, 9}), index_out({4, 9})});
}

TEST_P(TileCompileLib, GatherAndScatterRows) {
  // Indices run past both ends: those rows read zeros or write nothing.
  expect_same(lib::gather_rows(16), {in({9, 37}), index_in({12}, -2, 10), out({12, 37})});
  // Distinct indices (a permutation with holes), some outside Out.
  expect_same(lib::scatter_rows(16), {in({6, 37}), index_in({6}, 0, 0), out({7, 37})}, 7, [](std::vector<Tensor>& t) {
    auto& idx = std::get<GuardedTensor<int64_t>>(t[1]);
    const int64_t to[] = {3, -1, 0, 6, 9, 2};
    for (int64_t i = 0; i < 6; ++i) idx[i] = to[i];
  });
}

INSTANTIATE_TEST_SUITE_P(Devices, TileCompileLib,
                         ::testing::Values("cpu", "cpu_split_fused", "opencl", "opencl_groups", "cuda", "cuda_groups", "hip",
                                           "hip_groups"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tack::tile
