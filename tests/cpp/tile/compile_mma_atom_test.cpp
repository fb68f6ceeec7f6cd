// mma's register blocks as an atom of layouts (src/tile/lower/mma_atom.h):
// the prover's verdict on the result's blocks and the operands' reads
// against the finite checker and against the blocks enumerated with plain
// loops, and the plan line that says which realization the lowering took;
// operands read in place (src/tile/lower/emit_mma.cpp) where nothing
// between their load and the mma writes memory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "backends/registry.h"
#include "ir/traverse.h"
#include "tack/tile/compile.h"
#include "tack/tile/layout_check.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"
#include "tack/tile/printer.h"
#include "tile/lower/lower.h"
#include "tile/lower/mma_atom.h"
#include "occurrences.h"

namespace tack::tile {
namespace {

using lower::MmaAtom;
using lower::plan_mma_atom;

// Every (M, N, K, rows, cols) with tiles up to 12 x 12 and blocks up to 5 x 5.
TEST(TileMmaAtom, LegalExactlyWhereTheBlocksTileTheResult) {
  for (int64_t M = 1; M <= 12; ++M)
    for (int64_t N = 1; N <= 12; ++N)
      for (int64_t rows = 1; rows <= 5; ++rows)
        for (int64_t cols = 1; cols <= 5; ++cols) {
          const int64_t K = 3;
          MmaAtom atom = plan_mma_atom(M, N, K, rows, cols);
          const bool divides = M % rows == 0 && N % cols == 0;
          ASSERT_EQ(atom.legal, divides) << M << "x" << N << " in " << rows << "x" << cols << ": " << atom.why;
          // The finite checker: the blocks cover [0, M*N) once exactly
          // where the prover says so.
          EXPECT_EQ(check::is_injective(*atom.c_blocks).value() && check::is_surjective(*atom.c_blocks, M * N).value(),
                    divides)
              << M << "x" << N << " in " << rows << "x" << cols;
          if (!divides) continue;
          // The layout against the blocks written out: element (u, v) of
          // block (ib, jb), jb fastest, and A's and B's reads for it.
          std::vector<int64_t> values = check::values(*atom.c_blocks).value();
          std::vector<int64_t> a_values = check::values(*atom.a_reads).value();
          std::vector<int64_t> b_values = check::values(*atom.b_reads).value();
          ASSERT_EQ(atom.block_rows(), M / rows);
          ASSERT_EQ(atom.block_columns(), N / cols);
          size_t i = 0;
          for (int64_t blk = 0; blk < (M / rows) * (N / cols); ++blk) {
            const int64_t ib = blk / (N / cols), jb = blk % (N / cols);
            for (int64_t v = 0; v < cols; ++v)
              for (int64_t u = 0; u < rows; ++u) {
                ASSERT_EQ(values[i++], (ib * rows + u) * N + jb * cols + v);
                for (int64_t k = 0; k < K; ++k) {
                  // a_reads: ((u, k), ib), u fastest; b_reads: ((v, k), jb).
                  EXPECT_EQ(a_values[size_t(u + rows * (k + K * ib))], (ib * rows + u) * K + k);
                  EXPECT_EQ(b_values[size_t(v + cols * (k + K * jb))], k * N + jb * cols + v);
                }
              }
          }
        }
}

TEST(TileMmaAtom, ThePlanSaysWhichRealizationTheLoweringTook) {
  CompileOptions options;
  options.mma_block[0] = 4;
  options.mma_block[1] = 2;
  std::string blocked = lowered_kernel_ir(lib::matmul({16, 16, 16}), options);
  EXPECT_NE(blocked.find("; mma %"), std::string::npos) << blocked.substr(0, 2000);
  EXPECT_NE(blocked.find(": blocks of 4x2, C ((4,2),(8,4)):((16,1),(2,64))"), std::string::npos)
      << blocked.substr(0, 2000);
  EXPECT_NE(blocked.find("the blocks cover the result once"), std::string::npos);
  options.mma_block[0] = 3;  // does not divide 16
  std::string unblocked = lowered_kernel_ir(lib::matmul({16, 16, 16}), options);
  EXPECT_NE(unblocked.find(": not blocked, k outermost: "), std::string::npos) << unblocked.substr(0, 2000);
  EXPECT_NE(unblocked.find("DISPROVEN"), std::string::npos) << unblocked.substr(0, 2000);
  // In workgroups, 16x16 results have fewer 4x2 blocks (32) than a group's
  // 256 lanes: one element a lane.
  std::string groups = lowered_kernel_ir(lib::matmul({16, 16, 16}), CompileOptions{}, workgroup_target());
  EXPECT_NE(groups.find(": blocks of 1x1, C ((1,1),(16,16)):((16,1),(1,16))"), std::string::npos)
      << groups.substr(0, 2000);
}


TEST(TileMmaAtom, OperandsLoadedForTheMmaAloneAreReadInPlace) {
  // One iteration at a time both operands; with the block columns in the
  // SIMD lanes A (the same for every lane), but not B, whose window moves
  // with the lanes (each lane gathers its own).
  CompileOptions scalar;
  scalar.simd_lanes = false;
  const std::string plan = lowered_kernel_ir(lib::matmul({16, 16, 16}), scalar);
  EXPECT_NE(plan.find(": a read in place where %28's window is whole"), std::string::npos) << plan.substr(0, 2000);
  EXPECT_NE(plan.find(": b read in place where %34's window is whole"), std::string::npos) << plan.substr(0, 2000);
  const std::string lanes = lowered_kernel_ir(lib::matmul({16, 16, 16}));
  EXPECT_NE(lanes.find(": a read in place where %28's window is whole"), std::string::npos) << lanes.substr(0, 2000);
  EXPECT_EQ(lanes.find(": b read in place"), std::string::npos) << lanes.substr(0, 2000);
  // B packed in panels of the lanes: every lane's B is one vector.
  const std::string panels = lowered_kernel_ir(lib::matmul({16, 8, 16, 16}));
  EXPECT_NE(panels.find(": b read in place"), std::string::npos) << panels.substr(0, 2000);
  // Overlapped stages load the next step's tiles before this step's mma;
  // workgroups keep tiles in the group's shared memory.
  CompileOptions overlapped;
  overlapped.overlap_stages = true;
  EXPECT_EQ(lowered_kernel_ir(lib::matmul({16, 16, 16}), overlapped).find("read in place"), std::string::npos);
  EXPECT_EQ(lowered_kernel_ir(lib::matmul({16, 16, 16}), CompileOptions{}, workgroup_target()).find("read in place"),
            std::string::npos);
}

// C = A @ B over 8 x 8 tiles, with B's tile loaded before a store
// overwrites B's window with 5: the mma multiplies the loaded tile (B as it
// was), so B is not read in place; A, loaded after the store, is.
const char* kOverwritten = R"(kernel @overwritten(%0: view<?x?xf32>, %1: view<?x?xf32>, %2: view<?x?xf32>) {
  %3 = const 0 : i64
  %6 = view %1[%3:8, %3:8] : view<8x8xf32>
  %7 = load %6 pad 0.0 : tile<8x8xf32>
  %8 = const 5.0 : tile<8x8xf32>
  store %6, %8
  %4 = view %0[%3:8, %3:8] : view<8x8xf32>
  %5 = load %4 pad 0.0 : tile<8x8xf32>
  %9 = const 0.0 : tile<8x8xf32>
  %10 = mma %5, %7, %9 : tile<8x8xf32>
  %11 = view %2[%3:8, %3:8] : view<8x8xf32>
  store %11, %10
}
)";

TEST(TileMmaAtom, AStoreBetweenTheLoadAndTheMmaKeepsTheTile) {
  Kernel k = parse(kOverwritten);
  const std::string plan = lowered_kernel_ir(k);
  EXPECT_NE(plan.find(": a read in place"), std::string::npos) << plan;
  EXPECT_EQ(plan.find(": b read in place"), std::string::npos) << plan;
  // Whole windows (8 x 8) and ragged ones (5 x 6 @ 6 x 7: pads of zeros).
  for (auto [m, kk, n] : {std::array<int64_t, 3>{8, 8, 8}, {5, 6, 7}})
    for (bool lanes : {false, true}) {
      CompileOptions options;
      options.simd_lanes = lanes;
      GuardedTensor<float> a({m, kk}, 0.0f), b({kk, n}, 0.0f), got({m, n}, NAN);
      for (int64_t i = 0; i < m * kk; ++i) a[i] = float(i % 7) - 2.5f;
      for (int64_t i = 0; i < kk * n; ++i) b[i] = float(i % 5) * 0.5f + 0.25f;
      GuardedTensor<float> b_before = b;
      compile("cpu", k, options)->launch({a.view(), b.view(), got.view()});
      // The products over k in order, one fused multiply-add each, from
      // B's values before the store (small integers and halves: exact).
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float acc = 0.0f;
          for (int64_t t = 0; t < kk; ++t) acc = std::fma(a[i * kk + t], b_before[t * n + j], acc);
          EXPECT_EQ(got[i * n + j], acc) << m << "x" << kk << "x" << n << ", lanes " << lanes << ", " << i << ", " << j;
        }
      for (int64_t i = 0; i < kk * n; ++i) EXPECT_EQ(b[i], 5.0f) << "B's element " << i;
      EXPECT_TRUE(got.margin_intact());
      EXPECT_TRUE(b.margin_intact());
    }
}

#ifdef TACK_WITH_LLVM  // the CPU backend
void clear_rolled_marks(ir::Block& block) {
  for (auto& s : block) {
    if (auto* f = s->as<ir::For>()) f->rolled = false;
    ir::for_each_child(*s, [](ir::ExprPtr&) {}, [](ir::Block& b) { clear_rolled_marks(b); });
  }
}

// A register block's k loop stays a loop on the CPU (emit_mma.cpp):
// unrolled, LLVM's scheduler hoisted every copy's loads of a above the
// multiply-adds and spilled them. The lowering marks the loop rolled and
// the CPU backend hints LLVM not to unroll it; unmarked, LLVM unrolls it.
TEST(TileMmaAtom, TheBlocksKLoopStaysRolledOnTheCpu) {
  std::string why;
  backends::Backend* cpu = backends::find_backend("cpu", &why);
  if (!cpu) GTEST_SKIP() << "no cpu backend here: " << why;
  CompileOptions options;
  options.mma_block[0] = 4;
  options.mma_block[1] = 2;
  lower::Lowered lowered = lower::lower(lib::matmul({16, 16, 16}), options, LoweringTarget{});
  for (auto& p : lowered.kernel->params) p.unit_inner_stride = true;
  const std::string lowered_text = ir::print(*lowered.kernel);
  ASSERT_NE(lowered_text.find("# rolled"), std::string::npos) << lowered_text;
  backends::CompileOptions one_at_a_time;
  one_at_a_time.lanes = backends::CpuLanes::Never;
  const std::string rolled = cpu->inspect("llvm", *lowered.kernel, one_at_a_time);
  clear_rolled_marks(lowered.kernel->body);
  const std::string unrolled = cpu->inspect("llvm", *lowered.kernel, one_at_a_time);
  EXPECT_NE(rolled.find("llvm.loop.unroll.disable"), std::string::npos) << rolled;
  // The multiply-adds written out: a 4x2 block's 8 per step of k, one step
  // in the rolled loop; unrolled, several steps' copies (41 against 161 on
  // x86-64 with LLVM 19).
  const size_t rolled_fmas = occurrences(rolled, "@llvm.fma.f32("), unrolled_fmas = occurrences(unrolled, "@llvm.fma.f32(");
  EXPECT_GT(rolled_fmas, 0u) << rolled;
  EXPECT_GE(unrolled_fmas, 3 * rolled_fmas) << rolled_fmas << " against " << unrolled_fmas;
}
#endif

}  // namespace
}  // namespace tack::tile
