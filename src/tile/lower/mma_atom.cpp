#include "tile/lower/mma_atom.h"

#include "tack/tile/prover.h"

namespace tack::tile::lower {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Stride j of mode i of a layout whose modes are pairs or leaves.
int64_t stride(const Layout& l, size_t mode, size_t j) {
  const IntTuple& s = l.stride()[mode];
  return (s.is_tuple() ? s[j] : s).value();
}

MmaAtom refused(MmaAtom atom, const std::string& why) {
  atom.legal = false;
  atom.why = why;
  return atom;
}

}  // namespace

int64_t MmaAtom::block_rows() const { return c_blocks ? c_blocks->shape()[1][1].value() : 0; }
int64_t MmaAtom::block_columns() const { return c_blocks ? c_blocks->shape()[1][0].value() : 0; }

MmaAtom plan_mma_atom(int64_t M, int64_t N, int64_t K, int64_t rows, int64_t cols) {
  MmaAtom atom;
  atom.rows = rows;
  atom.cols = cols;
  if (M < 1 || N < 1 || K < 1 || rows < 1 || cols < 1)
    return refused(atom, "an empty tile or block");
  const int64_t br = ceil_div(M, rows), bc = ceil_div(N, cols);
  auto pair = [](int64_t a, int64_t b) { return IntTuple::tuple({a, b}); };
  atom.c_blocks = Layout(IntTuple::tuple({pair(rows, cols), pair(bc, br)}),
                         IntTuple::tuple({pair(N, 1), pair(cols, rows * N)}));
  atom.a_reads = Layout(IntTuple::tuple({pair(rows, K), br}), IntTuple::tuple({pair(K, 1), rows * K}));
  atom.b_reads = Layout(IntTuple::tuple({pair(cols, K), bc}), IntTuple::tuple({pair(1, N), cols}));
  const std::string layouts = "C " + to_string(*atom.c_blocks) + ", A " + to_string(*atom.a_reads) + ", B " +
                              to_string(*atom.b_reads);

  Verdict once = prove_bijective(*atom.c_blocks, M * N);
  if (!once.proven())
    return refused(atom, layouts + ": the blocks are not proven to cover the " + std::to_string(M) + "x" +
                             std::to_string(N) + " result once (" + to_string(once.truth) + ": " + once.reason + ")");
  for (const auto& [reads, extent, name] : {std::tuple{&*atom.a_reads, M * K, "A"}, {&*atom.b_reads, K * N, "B"}})
    if (Verdict inside = prove_total(*reads, extent); !inside.proven())
      return refused(atom, layouts + ": " + name + "'s reads are not proven inside its tile (" +
                               to_string(inside.truth) + ": " + inside.reason + ")");

  // A result offset is row * N + column with the column in [0, N): its
  // column part (v, jb) must stay below N, and its row part (u, ib) be a
  // multiple of N; likewise a's reads over K and b's columns below N.
  const Layout& c = *atom.c_blocks;
  const Layout& a = *atom.a_reads;
  const Layout& b = *atom.b_reads;
  const Layout c_columns(pair(cols, bc), pair(stride(c, 0, 1), stride(c, 1, 0)));
  const Layout b_columns(pair(cols, bc), pair(stride(b, 0, 0), stride(b, 1, 0)));
  const Layout a_k(K, stride(a, 0, 1));
  for (const auto& [part, extent, name] : {std::tuple{&c_columns, N, "C's columns"}, {&b_columns, N, "B's columns"},
                                           {&a_k, K, "A's k"}})
    if (!prove_total(*part, extent).proven())
      return refused(atom, layouts + ": " + name + " are not proven below " + std::to_string(extent));
  if (stride(c, 0, 0) % N != 0 || stride(c, 1, 1) % N != 0 || stride(a, 0, 0) % K != 0 || stride(a, 1, 0) % K != 0)
    return refused(atom, layouts + ": a row stride is not a whole number of rows");
  const Layout c_rows(pair(rows, br), pair(stride(c, 0, 0) / N, stride(c, 1, 1) / N));
  const Layout a_rows(pair(rows, br), pair(stride(a, 0, 0) / K, stride(a, 1, 0) / K));
  if (c_rows != a_rows || c_columns != b_columns || stride(a, 0, 1) != 1 || stride(b, 0, 1) != N)
    return refused(atom, layouts + ": the operands' rows, columns or k do not match the result's");
  atom.legal = true;
  atom.why = layouts + ": the blocks cover the result once (" + once.reason + "), every read lies in its operand, and "
             "A's rows " + to_string(a_rows) + " and B's columns " + to_string(b_columns) + " are C's";
  return atom;
}

}  // namespace tack::tile::lower
