// Random tile programs compiled for each device against the interpreter.
//
// Each program is a chain of tile operations over one row of X, generated
// from a seed: elementwise arithmetic (IEEE operations only, correctly
// rounded on every backend: no exp or log), comparisons and selects,
// reshapes between the shapes of 16 elements, reductions along an axis
// broadcast back, a sum carried through a reduce region, integer
// arithmetic, windows past the row's start, mma, a serial loop, slices
// (extract) broadcast back, scalars broadcast to a tile, iotas, constants,
// a pipeline, a window of two rows and a reduce of two tile states by a
// custom merge; several of its values are stored. The
// operations and shapes are the ones whose lowering has the most moving
// parts: tiles computed where they are read, reshapes by axis groups, lane
// registers and barriers in workgroups. The interpreter is the oracle, bit
// for bit (NaN against NaN of any payload: an operation may take either
// operand's), on the CPU (one iteration at a time and in SIMD lanes) and
// on OpenCL (PoCL here) as tack.tile compiles there and with every program
// in workgroups.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tack/tile/compile.h"
#include "tack/tile/oracle.h"
#include "tack/tile/printer.h"
#include "devices.h"

namespace tack::tile {
namespace {

constexpr int kStored = 3;  // values of the chain stored per program
constexpr int kExtras = 5;  // values of the extras (below) stored per program
constexpr int kStructures = 3;  // values of the structures (below) stored per program
constexpr int kOutputs = kStored + kExtras + kStructures;

// The shapes a value of n elements takes (n = 16 or 512): the vector first,
// then shapes of rank 2 and 3 with an extent of 1 among them.
std::vector<Shape> shapes_of(int64_t n) {
  if (n == 16)
    return {Shape{16}, Shape{4, 4}, Shape{2, 8}, Shape{8, 2}, Shape{1, 16}, Shape{16, 1}, Shape{2, 2, 4}, Shape{4, 2, 2}, Shape{2, 4, 2}};
  return {Shape{n}, Shape{16, n / 16}, Shape{n / 16, 16}, Shape{2, n / 2}, Shape{1, n}, Shape{n / 2, 2, 1}, Shape{2, 16, n / 32},
          Shape{8, 8, n / 64}};
}

class Generator {
 public:
  Generator(uint32_t seed, int64_t n) : n_(n), shapes_(shapes_of(n)), gen_(seed) {}

  int below(int n) { return int(gen_() % uint32_t(n)); }
  const Shape& any_shape() { return shapes_[size_t(below(int(shapes_.size())))]; }
  const Shape& shape_of_rank_2_or_3() { return shapes_[size_t(1 + below(int(shapes_.size()) - 1))]; }
  float constant() {
    static const float kConstants[] = {0.5f, -2.0f, 3.0f, 0.0f, -0.0f, 1.0f / 3.0f, 1e-3f, 7.25f};
    return kConstants[below(int(std::size(kConstants)))];
  }
  ReductionPolicy policy() {
    static const ReductionPolicy kPolicies[] = {ReductionPolicy::unordered_tree, ReductionPolicy::ordered_tree,
                                                ReductionPolicy::left_fold, ReductionPolicy::right_fold};
    return kPolicies[below(4)];
  }

  // One operation on values drawn from `pool`; the result joins it.
  Tile<float> step(const std::vector<Tile<float>>& pool) {
    const Tile<float>& a = pool[size_t(below(int(pool.size())))];
    const Tile<float>& b = pool[size_t(below(int(pool.size())))];
    const Shape& shape = a.shape();
    auto like_a = [&](const Tile<float>& t) { return reshape(t, shape); };
    switch (below(11)) {
      case 0: return a + like_a(b);
      case 1: return a - like_a(b);
      case 2: return a * like_a(b);
      case 3: return a / like_a(b);
      case 4: return below(2) ? maximum(a, like_a(b)) : minimum(a, like_a(b));
      case 5: {
        const Tile<float>& c = pool[size_t(below(int(pool.size())))];
        Tile<bool> test = below(2) ? a > like_a(b) : a == like_a(c);
        return select(test, like_a(c), below(2) ? like_a(b) : Tile<float>(full<float>(shape, constant())));
      }
      case 6: return reshape(a, any_shape());
      case 7: {  // a reduction along an axis of a shape of rank 2 or 3, broadcast back
        Shape s = shape_of_rank_2_or_3();
        const int axis = below(s.rank());
        Tile<float> t = reshape(a, s);
        const int kind = below(3);
        Tile<float> r = kind == 0 ? sum(t, axis, policy()) : kind == 1 ? max(t, axis) : min(t, axis);
        std::vector<int64_t> kept(s.dims().begin(), s.dims().end());
        kept[size_t(axis)] = 1;
        return broadcast_to(reshape(r, Shape(kept)), s);
      }
      case 8: {  // one slice along an axis, broadcast back
        Shape s = shape_of_rank_2_or_3();
        const int axis = below(s.rank());
        std::vector<int64_t> kept(s.dims().begin(), s.dims().end());
        Tile<float> slice = extract(reshape(a, s), axis, full<int64_t>({}, below(int(kept[size_t(axis)]))));
        kept[size_t(axis)] = 1;
        return broadcast_to(reshape(slice, Shape(kept)), s);
      }
      case 9: {  // a scalar (the sum of everything, or a constant) broadcast to a tile
        Tile<float> scalar = below(2) ? sum(reshape(a, {n_}), 0, policy()) : Tile<float>(full<float>({}, constant()));
        Tile<float> tile = broadcast_to(scalar, shape);
        return below(2) ? tile : a * tile + full<float>(shape, constant());
      }
      default: {  // unary operations, and an iota along an axis
        switch (below(4)) {
          case 0: return -a;
          case 1: return abs(a);
          case 2: return sqrt(abs(a));
          default: return a + cast<float>(iota(shape, below(shape.rank())));
        }
      }
    }
  }

 private:
  int64_t n_;
  std::vector<Shape> shapes_;
  std::mt19937 gen_;
};

// Five more values from the chain's, each by constructs the chain does not
// use, drawn from a second generator (so that a seed's chain stays the
// same): integer arithmetic (truncating division and remainder by
// constants, saturating casts from f32), loads through windows that start
// before the row and at an origin that moves with the parallel index, a
// product of 4x4 tiles by mma (16 elements) or a serial loop carrying a
// tile (512), a select between two of them, and (16 elements) a product of
// two 4x4 windows of X around the parallel index's row, loaded for the mma
// alone: it reads them in place where they are whole, and loads the
// ragged ones, padded, into tiles.
std::array<Tile<float>, kExtras> extras(uint32_t seed, int64_t n, const std::vector<Tile<float>>& pool,
                                        const TensorView<float, 2>& X, const Index& i) {
  Generator g(seed ^ 0x9e3779b9u, n);
  auto any = [&] { return reshape(pool[size_t(g.below(int(pool.size())))], {n}); };
  Tile<int64_t> t = cast<int64_t>(any() * 8.0f);
  t = (t % int64_t(7)) * int64_t(3) - t / int64_t(5) + iota({n}, 0);
  Tile<float> integers = cast<float>(t);
  const int64_t before = 1 + g.below(5);
  Tile<float> windows = X(i, span(-before, n)).load(g.constant()) * any() + X(i, span(i - 2, n)).load(0.25f);
  Tile<float> carried = any();
  if (n == 16) {
    carried = reshape(mma(reshape(carried, {4, 4}), reshape(any(), {4, 4}), reshape(any(), {4, 4})), {n});
  } else {
    Tile<float> b = any();
    for (auto k : serial(3)) carried = carried * 0.5f + b * cast<float>(broadcast_to(Tile<int64_t>(k), {n}));
  }
  Tile<float> chosen = select(integers > windows, carried, any());
  Tile<float> product = any();
  if (n == 16) {
    const Index top = i - int64_t(g.below(3)), left = int64_t(g.below(7)) - 2;
    const float pad = g.constant();
    product = reshape(mma(X(span(top, 4), span(left, 4)).load(pad), X(span(i - 1, 4), span(left + 2, 4)).load(0.0f),
                          reshape(any(), {4, 4})),
                      {n});
  }
  // The product first: capture places the mma before the store that first
  // reads it, and a store between its loads and it would keep its tiles.
  return {product, integers, windows, carried, chosen};
}

// Three more values, each through a loop or view the chain and the extras
// do not use, from a third generator: a two-stage pipeline over the row's
// blocks (the load and a product in the first stage, the carried update
// in the second), a window of two rows (the one before the parallel index,
// padded at the first row, and its own) at a column origin before or
// after the row's start, and a reduce region over the row's blocks whose
// state is two tiles (a sum and a maximum) merged by a custom reducer
// under a drawn policy. For workgroups an ordered tree there becomes a right
// fold: PoCL builds the work-group code of its stack of two tiles (merges
// in a loop, a barrier between each operation) in about 2 minutes a
// program; the chain's own reduce keeps ordered trees of one tile state.
std::array<Tile<float>, kStructures> structures(uint32_t seed, int64_t n, bool groups, const std::vector<Tile<float>>& pool,
                                                const TensorView<float, 2>& X, const Index& i) {
  Generator g(seed ^ 0x85ebca6bu, n);
  auto any = [&] { return reshape(pool[size_t(g.below(int(pool.size())))], {n}); };
  const Index blocks = (X.shape(1) + (n - 1)) / n;

  Tile<float> acc = full<float>({n}, g.constant());
  const Tile<float> weight = any();
  const float pad = g.constant(), decay = g.constant();
  const bool maxing = g.below(2) == 1;
  for (auto k : pipeline(blocks)) {
    Tile<float> product = X(i, span(k * n, n)).load(pad) * weight;
    k.stage("update");
    acc = maxing ? maximum(acc * decay, product) : acc * decay + product;
  }

  const int64_t origin = int64_t(g.below(5)) - 2;
  Tile<float> rows = reshape(X(span(i - 1, 2), span(origin, n / 2)).load(g.constant()), {n});
  rows = rows + any();

  using Pair = std::tuple<Tile<float>, Tile<float>>;
  Reducer<float, float> both(
      [](const Pair& a, const Pair& b) {
        return Pair{std::get<0>(a) + std::get<0>(b), maximum(std::get<1>(a), std::get<1>(b))};
      },
      Laws{.associative = true, .commutative = true});
  // An ordered tree of two tiles of 512 elements over a run-time domain
  // would need a stack past the private scratch.
  ReductionPolicy policy = g.policy();
  if (policy == ReductionPolicy::ordered_tree && (n > 16 || groups)) policy = ReductionPolicy::right_fold;
  const Tile<float> scale = any();
  Pair state{full<float>({n}, -0.0f), full<float>({n}, -INFINITY)};
  for (auto b : reduce(blocks, policy)) {
    Tile<float> block = X(i, span(b * n, n)).load(0.5f) * scale;
    state = both(state, Pair{block, block});
  }
  Tile<float> reduced = std::get<0>(state) - std::get<1>(state);
  return {acc, rows, reduced};
}

// The program of `seed`: `steps` operations on values of n elements, from
// X's row (two loads of n, the second with a pad past the row, and a sum
// of the row's blocks of n carried through a reduce region), the last
// kStored values stored into Y's row, n columns each, then the extras' and
// the structures' values; `groups` builds it for workgroups (structures()).
Kernel random_program(uint32_t seed, int steps, int64_t n, bool groups) {
  return tile_kernel("random_" + std::to_string(seed), [seed, steps, n, groups](TensorView<float, 2> X, TensorView<float, 2> Y) {
    Generator g(seed, n);
    for (auto i : parallel(X.shape(0))) {
      std::vector<Tile<float>> pool{X(i, span(0, n)).load(0.0f), X(i, span(n, n)).load(-1.5f)};
      Tile<float> carried = full<float>({n}, -0.0f);
      // An ordered tree of tiles of 512 elements would need a stack past
      // the private scratch, which the compiler refuses.
      ReductionPolicy policy = g.policy();
      if (policy == ReductionPolicy::ordered_tree && n > 16) policy = ReductionPolicy::left_fold;
      for (auto b : reduce((X.shape(1) + (n - 1)) / n, policy)) carried = carried + X(i, span(b * n, n)).load(0.0f);
      pool.push_back(carried);
      for (int s = 0; s < steps; ++s) pool.push_back(g.step(pool));
      for (int j = 0; j < kStored; ++j) Y(i, span(j * n, n)).store(reshape(pool[pool.size() - 1 - size_t(j)], {n}));
      std::array<Tile<float>, kExtras> more = extras(seed, n, pool, X, i);
      for (int j = 0; j < kExtras; ++j) Y(i, span((kStored + j) * n, n)).store(more[size_t(j)]);
      std::array<Tile<float>, kStructures> built = structures(seed, n, groups, pool, X, i);
      for (int j = 0; j < kStructures; ++j) Y(i, span((kStored + kExtras + j) * n, n)).store(built[size_t(j)]);
    }
  });
}

// Where the programs run: a device, "cpu_lanes" (the CPU with SIMD lanes
// wherever they can run), or a GPU backend's "_groups" variant
// ("opencl_groups", "cuda_groups", "hip_groups": every program in
// workgroups). A backend that is missing skips.
class TileRandomPrograms : public ::testing::TestWithParam<std::string> {
 protected:
  std::string device() const { return variant_device(GetParam()); }
  bool groups() const { return variant_in_groups(GetParam()); }
};

bool same(float want, float got) { return std::memcmp(&want, &got, 4) == 0 || (std::isnan(want) && std::isnan(got)); }

TEST_P(TileRandomPrograms, MatchTheInterpreterBitForBit) {
  if (auto why = missing_backend(device())) GTEST_SKIP() << *why;
  CompileOptions options;
  options.simd_lanes = GetParam() == "cpu_lanes";
  if (groups()) options.workgroups = CompileOptions::Workgroups::always;
  // Seeds 1 to 24; 74, whose program gave wrong values on PoCL in
  // workgroups with a scalar's broadcast assigned on some lanes only; 4134
  // and 3063, wrong on PoCL in workgroups while the kernel returned early
  // before its first barrier; and 4134 with its rows split in two, so that
  // in workgroups a branch skips the points past the rows around every
  // barrier, wrong on PoCL unless built unoptimized (docs/tile/compile.md,
  // "Workgroups"); 235, whose two 4x4 products of one 16-element tile
  // LLVM 19's SLP vectorizer miscompiled on AVX-512 (docs/backends.md, "The
  // CPU's LLVM pipeline"); and 7538 with 26 steps, whose work-group code,
  // with its 110 barriers in branches as the emitter leaves them, PoCL
  // took more than 5 minutes to build (docs/tile/compile.md, "Barriers out
  // of branches").
  struct Program {
    uint32_t seed;
    int steps;
    int64_t split = 0;  // CompileOptions::nest_split of the row level
  };
  std::vector<Program> programs;
  // A GPU backend runs half the numbered seeds, the odd ones one at a time
  // and the even ones in workgroups, so that every numbered program still
  // reaches its dialect's printer: a device program's build is most of its
  // time (on PoCL the 18 programs take 36-47 s one at a time and 23-28 s in
  // workgroups on a 2-core AMD EPYC), and the CPU runs them all.
  const bool cpu = device() == "cpu";
  for (uint32_t seed = 1; seed <= 24; ++seed)
    if (cpu || seed % 2 == (groups() ? 0u : 1u)) programs.push_back({seed, 6 + int(seed % 7)});
  programs.push_back({74, 6 + 74 % 7});
  programs.push_back({4134, 17});
  programs.push_back({3063, 10});
  programs.push_back({4134, 17, 2});
  programs.push_back({235, 6 + 235 % 7});
  programs.push_back({7538, 26});
  // TACK_TILE_RANDOM_PROGRAMS=seed:steps[/split],... runs those programs instead
  // (exploring more seeds, or reproducing one: docs/tile/compile.md).
  if (const char* chosen = std::getenv("TACK_TILE_RANDOM_PROGRAMS")) {
    programs.clear();
    for (const char* p = chosen; *p;) {
      char* end = nullptr;
      const uint32_t seed = uint32_t(std::strtoul(p, &end, 10));
      if (end == p) break;  // not a seed
      int steps = 6 + int(seed % 7);
      int64_t split = 0;
      if (*end == ':') steps = int(std::strtol(end + 1, &end, 10));
      if (*end == '/') split = std::strtoll(end + 1, &end, 10);
      programs.push_back({seed, steps, split});
      p = *end == ',' ? end + 1 : end;
    }
  }
  for (auto [seed, steps, split] : programs) {
    CompileOptions chosen = options;
    if (split > 0) chosen.nest_split = {split};
    // One program in four over tiles of 512 elements: more than a
    // workgroup's 256 lanes.
    const int64_t n = seed % 4 == 0 ? 512 : 16, rows = 5, cols = 2 * n - 5;  // the second load's last 5 are its pad
    const Kernel kernel = random_program(seed, steps, n, groups());
    GuardedTensor<float> x = uniform_tensor({rows, cols}, seed, -3.0f, 3.0f);
    GuardedTensor<float> want({rows, kOutputs * n}, NAN), got({rows, kOutputs * n}, NAN);
    // In workgroups an unordered reduction of scalars is merged by the
    // group's lanes as the ordered tree, one of the groupings the
    // interpreter offers (as in compile_lib_test.cpp).
    RunOptions grouping;
    if (device() != "cpu") {
      const std::string plan = lowered_kernel_ir(kernel, chosen, workgroup_target());
      grouping.scalar_trees = plan.rfind("; in workgroups", 0) == 0;
      // Tiles of 512 elements may not all fit a group's shared memory.
      if (groups() && n == 16) {
        ASSERT_TRUE(grouping.scalar_trees) << kernel.name() << ": " << plan.substr(0, plan.find('\n'));
      }
    }
    interpret(kernel, {x.view(), want.view()}, grouping);
    compile(device(), kernel, chosen)->launch({x.view(), got.view()});
    for (int64_t e = 0; e < want.size(); ++e)
      ASSERT_TRUE(same(want[e], got[e])) << kernel.name() << " (" << steps << " steps on " << n << " elements, rows split by " << split << "), element " << e << ": "
                                         << got[e] << " compiled, " << want[e] << " interpreted\n"
                                         << print(kernel);
    EXPECT_TRUE(got.margin_intact()) << kernel.name();
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, TileRandomPrograms,
                         ::testing::Values("cpu", "cpu_lanes", "opencl", "opencl_groups", "cuda", "cuda_groups", "hip",
                                           "hip_groups"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace tack::tile
