// Element arithmetic of compiled tile kernels on the values where rules
// differ between languages: NaN and signed zeros in maximum/minimum, integer
// division and remainder of negative numbers (truncating), wrapping i32
// arithmetic, saturating float-to-int casts, i1 memory. Compared bit for
// bit with the interpreter and, for the defining cases, with values written
// here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "backends/registry.h"
#ifdef TACK_WITH_LLVM
#include "codegen/llvm/jit.h"
#endif
#include "ir/traverse.h"
#include "tack/tile/capture.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"
#include "tack/tile/printer.h"  // parse
#include "devices.h"
#include "tile/lower/lower.h"

namespace tack::tile {
namespace {

constexpr int kFloatOps = 9, kIntOps = 9;

Kernel ops() {
  return tile_kernel("ops", [](TensorView<float, 1> A, TensorView<float, 1> B, TensorView<int32_t, 1> I,
                               TensorView<bool, 1> P, TensorView<float, 2> F, TensorView<int32_t, 2> N,
                               TensorView<bool, 2> Q) {
    for (auto i : parallel(A.shape(0))) {
      Tile<float> a = A[{i}];
      Tile<float> b = B[{i}];
      Tile<int32_t> n = I[{i}];
      Tile<bool> p = P[{i}];
      F(i, 0).store(maximum(a, b));
      F(i, 1).store(minimum(a, b));
      F(i, 2).store(select(a < b, a, b));
      F(i, 3).store(sqrt(a));
      F(i, 4).store(exp(a));
      F(i, 5).store(log(b));
      F(i, 6).store(abs(a) - b * a / b);
      F(i, 7).store(cast<float>(n));
      F(i, 8).store(-a);
      N(i, 0).store(n / 7);
      N(i, 1).store(n % 7);
      N(i, 2).store(n * n + 2147483000);
      N(i, 3).store(cast<int32_t>(a * 1e9f));
      N(i, 4).store(cast<int32_t>(a));
      N(i, 5).store(-n);
      N(i, 6).store(cast<int32_t>(a < b));
      N(i, 7).store(abs(n));
      N(i, 8).store(maximum(n, 3) - minimum(n, -3));
      Q(i, 0).store(!p);
      Q(i, 1).store(p & (a == b));
      Q(i, 2).store(p | (a != a));
    }
  });
}

TEST(TileCompileElementwise, SpecialValuesMatchTheInterpreter) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> as = {-0.0f, 0.0f, nan, 1.0f, -inf, 3.5f, -2.75f, 1e30f, -1e-30f, 2.0f, 0.0f, -0.0f};
  const std::vector<float> bs = {0.0f, -0.0f, 1.0f, nan, inf, 3.5f, 2.75f, -1e30f, 5.0f, -0.5f, 0.0f, -0.0f};
  const std::vector<int32_t> ns = {-7, -8, 7, 13, -13, 0, 1, -1, 2147483647, -2147483647 - 1, 46341, -6};
  const int64_t n = int64_t(as.size());
  GuardedTensor<float> a({n}, 0.0f), b({n}, 0.0f);
  GuardedTensor<int32_t> iv({n}, 0);
  // i1 memory is one byte per element; bytes 0x5A around the outputs catch
  // stray writes (GuardedTensor holds no bool: std::vector<bool> packs bits).
  const size_t bytes = size_t(n) * 3 + 4;
  std::vector<unsigned char> p(as.size()), q(bytes, 0x5A), qw(bytes, 0x5A);
  for (int64_t i = 0; i < n; ++i) a[i] = as[size_t(i)], b[i] = bs[size_t(i)], iv[i] = ns[size_t(i)], p[size_t(i)] = i % 3 == 0;
  auto bools = [](std::vector<unsigned char>& v, Shape s, int64_t offset) {
    HostTensor t = host_tensor(reinterpret_cast<bool*>(v.data()), s);
    t.offset = offset;
    return t;
  };
  GuardedTensor<float> f({n, kFloatOps}, nan), fw({n, kFloatOps}, nan);
  GuardedTensor<int32_t> m({n, kIntOps}, -99), mw({n, kIntOps}, -99);
  Kernel k = ops();
  compile("cpu", k)->launch({a.view(), b.view(), iv.view(), bools(p, {n}, 0), f.view(), m.view(), bools(q, {n, 3}, 2)});
  interpret(k, {a.view(), b.view(), iv.view(), bools(p, {n}, 0), fw.view(), mw.view(), bools(qw, {n, 3}, 2)});
  for (int64_t i = 0; i < f.size(); ++i)
    EXPECT_EQ(std::memcmp(&f[i], &fw[i], 4), 0) << "float op " << i % kFloatOps << ", row " << i / kFloatOps << ": "
                                                << f[i] << " compiled, " << fw[i] << " interpreted";
  for (int64_t i = 0; i < m.size(); ++i)
    EXPECT_EQ(m[i], mw[i]) << "int op " << i % kIntOps << ", row " << i / kIntOps;
  for (size_t i = 0; i < q.size(); ++i) EXPECT_EQ(int(q[i]), int(qw[i])) << "bool byte " << i;
  for (size_t i : {size_t(0), size_t(1), q.size() - 2, q.size() - 1}) EXPECT_EQ(q[i], 0x5A) << "byte " << i << " written";
  EXPECT_EQ(int(q[2 + 0]), 0);  // !p for p = 1 (row 0)
  EXPECT_EQ(int(q[2 + 3]), 1);  // !p for p = 0 (row 1)
  EXPECT_TRUE(f.margin_intact() && m.margin_intact());

  // The defining cases, written out.
  auto bits = [](float v) { uint32_t u; std::memcpy(&u, &v, 4); return u; };
  EXPECT_EQ(bits(f[0 * kFloatOps + 0]), bits(0.0f));   // maximum(-0, +0) = +0
  EXPECT_EQ(bits(f[0 * kFloatOps + 1]), bits(-0.0f));  // minimum(-0, +0) = -0
  EXPECT_EQ(bits(f[1 * kFloatOps + 0]), bits(0.0f));   // maximum(+0, -0) = +0
  EXPECT_TRUE(std::isnan(f[2 * kFloatOps + 0]) && std::isnan(f[3 * kFloatOps + 1]));  // NaN propagates
  EXPECT_EQ(m[0 * kIntOps + 0], -1);                   // -7 / 7 = -1
  EXPECT_EQ(m[1 * kIntOps + 0], -1);                   // -8 / 7 = -1 (truncating)
  EXPECT_EQ(m[1 * kIntOps + 1], -1);                   // -8 % 7 = -1
  EXPECT_EQ(m[4 * kIntOps + 1], -6);                   // -13 % 7 = -6
  EXPECT_EQ(m[7 * kIntOps + 3], std::numeric_limits<int32_t>::max());   // 1e30 * 1e9 saturates
  EXPECT_EQ(m[2 * kIntOps + 4], 0);                    // NaN casts to 0
  EXPECT_EQ(m[9 * kIntOps + 5], std::numeric_limits<int32_t>::min());   // -INT_MIN wraps
  EXPECT_EQ(m[8 * kIntOps + 2], int32_t(uint32_t(2147483647u) * uint32_t(2147483647u) + 2147483000u));  // wraps
}

// Chains of tile operations whose tiles the lowering computes where they
// are read (no array of their own): elementwise chains read once, selects,
// casts, index remaps of tiles in arrays (reshape, extract, broadcast, iota)
// and of computed tiles.
Kernel chains() {
  return tile_kernel("chains", [](TensorView<float, 2> X, TensorView<float, 2> F, TensorView<int32_t, 2> N) {
    for (auto i : parallel(X.shape(0))) {
      Tile<float> x = X(i, span(0, 16)).load(0.0f);
      Tile<float> y = x * x * 2.0f + abs(x) * 0.375f;
      Tile<float> w = select(x > 0.0f, y, -x);
      Tile<float> r = reshape(w, {4, 4});
      Tile<float> column = extract(r, 1, full<int64_t>({}, 2));
      Tile<float> b = broadcast_to(reshape(column, {4, 1}), {4, 4});
      Tile<float> t = reshape(r - b + cast<float>(iota({4, 4}, 0)), {16});
      F(i, span(0, 16)).store(t);
      N(i, span(0, 16)).store(cast<int32_t>(t * 1000.0f));
    }
  });
}

// %d = %a * 3 - 1 is computed where %e reads it, after %a's last reader
// (the mul) and after %c's load, which takes a dead tile's array of the
// same shape: %a's must not be that one. (Capture would place the pure
// operations just before their reader; the text keeps this order.)
constexpr const char* kLateRead = R"(kernel @late_read(%0: view<?x?xf32>, %1: view<?x?xf32>, %2: view<?x?xf32>) {
  %3 = dim %0 axis 0 : i64
  parallel %4 < %3 {
    %5 = const 0 : i64
    %6 = view %0[%4, %5:16] : view<16xf32>
    %7 = load %6 pad 0.0 : tile<16xf32>
    %8 = const 3.0 : f32
    %9 = broadcast %8 : tile<16xf32>
    %10 = mul %7, %9 : tile<16xf32>
    %11 = const 1.0 : f32
    %12 = broadcast %11 : tile<16xf32>
    %13 = sub %10, %12 : tile<16xf32>
    %14 = view %1[%4, %5:16] : view<16xf32>
    %15 = load %14 pad 0.0 : tile<16xf32>
    %16 = add %13, %15 : tile<16xf32>
    %17 = view %2[%4, %5:16] : view<16xf32>
    store %17, %16
  }
}
)";

#ifdef TACK_WITH_LLVM  // the CPU backend
void clear_element_marks(ir::Block& block) {
  for (auto& s : block) {
    if (auto* f = s->as<ir::For>()) f->over_elements = false;
    ir::for_each_child(*s, [](ir::ExprPtr&) {}, [](ir::Block& b) { clear_element_marks(b); });
  }
}

// The CPU's optimized LLVM for `kernel` run one iteration at a time (unit
// inner strides), as lowered and with its element loops unmarked.
std::pair<std::string, std::string> cpu_code_marked_and_not(const Kernel& kernel, backends::Backend& cpu) {
  lower::Lowered lowered = lower::lower(kernel, CompileOptions{}, LoweringTarget{});
  for (auto& p : lowered.kernel->params) p.unit_inner_stride = true;
  EXPECT_NE(ir::print(*lowered.kernel).find("# over elements"), std::string::npos) << ir::print(*lowered.kernel);
  backends::CompileOptions one_at_a_time;
  one_at_a_time.lanes = backends::CpuLanes::Never;
  std::string marked = cpu.inspect("llvm", *lowered.kernel, one_at_a_time);
  clear_element_marks(lowered.kernel->body);
  return {marked, cpu.inspect("llvm", *lowered.kernel, one_at_a_time)};
}

// The CPU's pipeline has no SLP vectorizer (docs/backends.md), so a
// constant-trip loop that LLVM unrolls before its loop vectorizer runs
// stays scalar, and a tile's array that a loop still indexes stays in
// memory. The lowering marks the innermost loops over a tile's elements;
// the CPU backend has LLVM vectorize those first and unroll them after.
TEST(TileCompileElementwise, ElementLoopsAreVectorizedThenUnrolledOnTheCpu) {
  std::string why;
  backends::Backend* cpu = backends::find_backend("cpu", &why);
  if (!cpu) GTEST_SKIP() << "no cpu backend here: " << why;
  // rms_norm's 32-column blocks: scalar when unrolled first.
  auto [norm, norm_unmarked] = cpu_code_marked_and_not(lib::rms_norm(1e-5f, 32), *cpu);
  EXPECT_NE(norm.find(" x float>"), std::string::npos) << "no vector of floats:\n" << norm;
  EXPECT_EQ(norm_unmarked.find(" x float>"), std::string::npos) << "the unmarked loops were vectorized too";
  // conv2d's 4x64 accumulator tile: no array left in memory once the
  // vectorized loops are unrolled, with vectors of 256 bits or more (with
  // SSE's 128-bit vectors, 64 of them, the array stayed).
  if (codegen::host_vector_bits() < 256) return;
  auto [conv, conv_unmarked] = cpu_code_marked_and_not(lib::conv2d({1, 64, 4}), *cpu);
  EXPECT_EQ(conv.find("alloca"), std::string::npos) << "a tile left in memory:\n" << conv;
  EXPECT_NE(conv_unmarked.find("alloca"), std::string::npos) << "the unmarked tiles were in registers too";
}

// How many blocks of LLVM text are named from `prefix` (for.head, for.body:
// one of each per loop that has one).
int count_blocks(const std::string& llvm, const std::string& prefix) {
  int n = 0;
  for (size_t at = llvm.find("\n" + prefix); at != std::string::npos; at = llvm.find("\n" + prefix, at + 1)) ++n;
  return n;
}

// A marked loop over a tile's elements tests its count at its bottom
// alone (LLVM's rotated form, which spares LoopRotate hundreds of loops in
// a tile kernel); an unmarked one tests at its top, as Python kernels'.
TEST(TileCompileElementwise, ElementLoopsTestAtTheirBottom) {
  std::string why;
  backends::Backend* cpu = backends::find_backend("cpu", &why);
  if (!cpu) GTEST_SKIP() << "no cpu backend here: " << why;
  lower::Lowered lowered = lower::lower(lib::rms_norm(1e-5f, 32), CompileOptions{}, LoweringTarget{});
  backends::CompileOptions one_at_a_time;
  one_at_a_time.lanes = backends::CpuLanes::Never;
  std::string marked = cpu->inspect("llvm-unoptimized", *lowered.kernel, one_at_a_time);
  clear_element_marks(lowered.kernel->body);
  std::string unmarked = cpu->inspect("llvm-unoptimized", *lowered.kernel, one_at_a_time);
  int loops = count_blocks(marked, "for.body");
  EXPECT_GT(loops, 0) << marked;
  EXPECT_EQ(count_blocks(unmarked, "for.body"), loops);
  EXPECT_EQ(count_blocks(unmarked, "for.head"), loops) << unmarked;
  EXPECT_LT(count_blocks(marked, "for.head"), loops) << marked;
}
#endif

class TileChains : public ::testing::TestWithParam<std::string> {};

TEST_P(TileChains, ComputedWhereReadMatchTheInterpreter) {
  if (auto why = missing_backend(GetParam())) GTEST_SKIP() << *why;
  const int64_t rows = 5;
  GuardedTensor<float> x = uniform_tensor({rows, 16}, 7, -2.0f, 2.0f);
  GuardedTensor<float> f({rows, 16}, NAN), fw({rows, 16}, NAN);
  GuardedTensor<int32_t> n({rows, 16}, -99), nw({rows, 16}, -99);
  Kernel k = chains();
  compile(GetParam(), k)->launch({x.view(), f.view(), n.view()});
  interpret(k, {x.view(), fw.view(), nw.view()});
  for (int64_t i = 0; i < f.size(); ++i)
    EXPECT_EQ(std::memcmp(&f[i], &fw[i], 4), 0) << "F element " << i << ": " << f[i] << " compiled, " << fw[i] << " interpreted";
  for (int64_t i = 0; i < n.size(); ++i) EXPECT_EQ(n[i], nw[i]) << "N element " << i;
  EXPECT_TRUE(f.margin_intact() && n.margin_intact());
}

TEST_P(TileChains, AComputedTileReadsItsOperandsArraysAfterTheirLastReader) {
  if (auto why = missing_backend(GetParam())) GTEST_SKIP() << *why;
  const int64_t rows = 5;
  GuardedTensor<float> a = uniform_tensor({rows, 16}, 8), c = uniform_tensor({rows, 16}, 9);
  GuardedTensor<float> e({rows, 16}, NAN);
  compile(GetParam(), parse(kLateRead))->launch({a.view(), c.view(), e.view()});
  for (int64_t i = 0; i < e.size(); ++i) {
    // Each step rounded in f32 (volatile: no contraction into a fused multiply-add).
    volatile float product = a[i] * 3.0f;
    volatile float difference = product - 1.0f;
    const float want = difference + c[i];
    EXPECT_EQ(std::memcmp(&e[i], &want, 4), 0) << "element " << i << ": " << e[i] << ", want " << want;
  }
  EXPECT_TRUE(e.margin_intact());
}

// Reshapes of every grouping of axes: a split (24 -> 2x3x4), a merge
// (-> 6x4), a regrouping (-> 4x6, of a computed tile), axes of extent 1
// (-> 1x4x1x6 -> 4x6x1) and back to 24, read through as remaps, so F is 2 X; and
// an extract of the 2x3x4 form, G[a * 4 + c] = X[(a * 3 + 2) * 4 + c];
// and a select of r (X's first 16 through a split, so its element keeps
// its flat position in a local) and of v, which reads r at another place:
// H[e] = X[e] > 0 ? X[e] : X[4 * (e / 4) + 2]. Each operand of the select
// is read before the next is, or v's read of r would move the position
// the select's r reads.
Kernel reshapes() {
  return tile_kernel("reshapes", [](TensorView<float, 2> X, TensorView<float, 2> F, TensorView<float, 2> G,
                                    TensorView<float, 2> H) {
    for (auto i : parallel(X.shape(0))) {
      Tile<float> x = X(i, span(0, 24)).load(0.0f);
      Tile<float> a = reshape(x, {2, 3, 4});
      Tile<float> c = reshape(reshape(a, {6, 4}) * 2.0f, {4, 6});
      F(i, span(0, 24)).store(reshape(reshape(reshape(c, {1, 4, 1, 6}), {4, 6, 1}), {24}));
      G(i, span(0, 8)).store(reshape(extract(a, 1, full<int64_t>({}, 2)), {8}));
      Tile<float> s = X(i, span(0, 16)).load(0.0f);
      Tile<float> r = reshape(reshape(s, {4, 4}), {16});
      Tile<float> column = extract(reshape(r, {4, 4}), 1, full<int64_t>({}, 2));
      Tile<float> v = reshape(broadcast_to(reshape(column, {4, 1}), {4, 4}), {16});
      H(i, span(0, 16)).store(select(s > 0.0f, r, v));
    }
  });
}

TEST_P(TileChains, ReshapesOfEveryGroupingKeepRowMajorOrder) {
  if (auto why = missing_backend(GetParam())) GTEST_SKIP() << *why;
  const int64_t rows = 3;
  GuardedTensor<float> x = uniform_tensor({rows, 24}, 11, -4.0f, 4.0f);
  GuardedTensor<float> f({rows, 24}, NAN), g({rows, 8}, NAN), h({rows, 16}, NAN);
  compile(GetParam(), reshapes())->launch({x.view(), f.view(), g.view(), h.view()});
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t e = 0; e < 16; ++e) {
      const float s = x[r * 24 + e];
      EXPECT_EQ(h[r * 16 + e], s > 0.0f ? s : x[r * 24 + 4 * (e / 4) + 2]) << "H[" << r << ", " << e << "]";
    }
    for (int64_t e = 0; e < 24; ++e) EXPECT_EQ(f[r * 24 + e], 2.0f * x[r * 24 + e]) << "F[" << r << ", " << e << "]";
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t c = 0; c < 4; ++c)
        EXPECT_EQ(g[r * 8 + a * 4 + c], x[r * 24 + (a * 3 + 2) * 4 + c]) << "G[" << r << ", " << a * 4 + c << "]";
  }
  EXPECT_TRUE(f.margin_intact() && g.margin_intact() && h.margin_intact());
}

INSTANTIATE_TEST_SUITE_P(Devices, TileChains, ::testing::Values("cpu", "opencl"));

// Twelve reshapes, each read through by the next: each reshape's source
// indices come from its flat position held once in a local, so the
// lowered kernel grows by a few statements per reshape (with the flat
// position written into every source index instead, each reshape's
// indices held three copies of the one before: 3^12 terms).
TEST(TileCompileElementwise, ReshapesReadThroughStayLinear) {
  Kernel k = tile_kernel("reshaped", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0))) {
      Tile<float> t = X(i, span(0, 16)).load(0.0f);
      for (int n = 0; n < 6; ++n) t = reshape(reshape(t, {2, 2, 4}), {16});
      Y(i, span(0, 16)).store(t);
    }
  });
  const std::string ir = lowered_kernel_ir(k);
  EXPECT_LT(ir.size(), 20000u) << ir.substr(0, 4000);
}

TEST(TileCompileElementwise, AChainReadOnceHasNoArraysOfItsOwn) {
  // Eight operations between a loaded tile and a store: the loaded tile
  // and the stored one, the division's, are arrays (a store has two loops,
  // inside the bounds and not, which would each compute the chain); the
  // seven before the division, and the constants' broadcasts, are computed
  // in the division's loop.
  Kernel k = tile_kernel("chain", [](TensorView<float, 2> X, TensorView<float, 2> Y) {
    for (auto i : parallel(X.shape(0))) {
      Tile<float> x = X(i, span(0, 16)).load(0.0f);
      Y(i, span(0, 16)).store(select(abs(x) < 1.0f, sqrt(x * x + 1.0f), -x) / 2.0f);
    }
  });
  const std::string ir = lowered_kernel_ir(k);
  size_t arrays = 0;
  for (size_t at = ir.find("local $"); at != std::string::npos; at = ir.find("local $", at + 1))
    if (ir.compare(ir.find(':', at), 8, ": array[") == 0) ++arrays;
  EXPECT_EQ(arrays, 2u) << ir;
}

// A constant operand (a rank-0 constant, a constant tile) is read as the
// constant itself, not through a local: the kernel IR divides by 7, which
// the backends' compilers divide by multiplying without first promoting a
// local. The values are SpecialValuesMatchTheInterpreter's.
TEST(TileCompileElementwise, ConstantOperandsAreReadAsConstants) {
  Kernel k = tile_kernel("by_constants", [](TensorView<int32_t, 2> X, TensorView<int32_t, 2> Y) {
    for (auto i : parallel(X.shape(0))) {
      Tile<int32_t> x = X(i, span(0, 16)).load(0);
      Y(i, span(0, 16)).store(x / 7 + x % full<int32_t>({16}, 5));
    }
  });
  const std::string ir = lowered_kernel_ir(k);
  EXPECT_NE(ir.find("// i32(7:i32)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("% i32(5:i32)"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tack::tile
