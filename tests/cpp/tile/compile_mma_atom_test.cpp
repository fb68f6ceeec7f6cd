// mma's register blocks as an atom of layouts (src/tile/lower/mma_atom.h):
// the prover's verdict on the result's blocks and the operands' reads
// against the finite checker and against the blocks enumerated with plain
// loops, and the plan line that says which realization the lowering took.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tack/tile/compile.h"
#include "tack/tile/layout_check.h"
#include "tack/tile/lib.h"
#include "tile/lower/mma_atom.h"

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

}  // namespace
}  // namespace tack::tile
