// The CPU's and the workgroups' realization of mma (c + a @ b on an M x K
// and a K x N tile) as an atom of register blocks, and its legality.
//
// The atom splits the M x N result into blocks of rows x cols elements; each
// block's accumulators stay in locals over all of k, reading `rows` elements
// of a's column k and `cols` of b's row k per step. Three layouts of the
// layout algebra describe it, over row-major tiles:
//   c_blocks  ((u, v), (jb, ib)) -> the result's offset (ib*rows + u)*N +
//             jb*cols + v: element (u, v) of block (ib, jb), the block
//             index jb fastest (workgroups spread blocks over lanes in that
//             order);
//   a_reads   ((u, k), ib) -> a's offset (ib*rows + u)*K + k;
//   b_reads   ((v, k), jb) -> b's offset k*N + jb*cols + v.
// The atom is legal when the prover proves
//   - c_blocks a bijection onto [0, M*N): every result element is computed
//     exactly once (false where the block does not divide the tile: the
//     blocks reach past it);
//   - a_reads total on [0, M*K) and b_reads on [0, K*N): every read lies
//     in its operand;
// and the operand layouts are compatible with the result's: the row of a
// result element, offset / N, and the row a_reads reads for it, offset / K,
// are the same layout of (u, ib); so are its column, offset mod N, and the
// column b_reads reads, offset mod N, as layouts of (v, jb); and the k
// coordinate walks a's row and b's column with strides 1 and N. Then each
// block computes its own elements from the operands' right rows and
// columns, each element over k in order, as the interpreter does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tack/tile/layout.h"

namespace tack::tile::lower {

struct MmaAtom {
  int64_t rows = 1, cols = 1;  // the register block
  std::optional<Layout> c_blocks, a_reads, b_reads;
  bool legal = false;
  std::string why;  // the layouts and the proof, or what failed

  // Blocks along the result's rows and columns.
  int64_t block_rows() const;
  int64_t block_columns() const;
};

// The atom of rows x cols blocks for an M x K by K x N product, proved or
// not (`why` says which step failed).
MmaAtom plan_mma_atom(int64_t M, int64_t N, int64_t K, int64_t rows, int64_t cols);

}  // namespace tack::tile::lower
