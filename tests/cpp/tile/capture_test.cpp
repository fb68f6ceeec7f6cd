// C++ capture: range-for scopes, direct assignment as Tile SSA, carried
// values, reduce recognition, pipelines and memory references.
#include <gtest/gtest.h>

#include <cmath>
#include <type_traits>

#include "tack/tile/capture.h"
#include "tack/tile/interpreter.h"
#include "tack/tile/printer.h"
#include "occurrences.h"

namespace tack::tile {
namespace {

template <class Fn>
void expect_capture_error(Fn&& fn, std::initializer_list<std::string> fragments) {
  try {
    tile_kernel("rejected", std::forward<Fn>(fn));
    ADD_FAILURE() << "capture succeeded";
  } catch (const Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << "missing '" << f << "' in: " << e.what();
  }
}

// Runs a kernel from a 1-D f32 input to a 1-D f32 output of `n` elements.
std::vector<float> run(const Kernel& k, std::vector<float> x, size_t n = 1) {
  std::vector<float> y(n, NAN);
  interpret(k, {host_tensor(x.data(), {int64_t(x.size())}), host_tensor(y.data(), {int64_t(n)})});
  return y;
}

TEST(TileCapture, EachRangeForBindingRecordsItsBodyOnce) {
  int parallel_bodies = 0, serial_bodies = 0, reduce_bodies = 0, pipeline_bodies = 0;
  Kernel k = tile_kernel("once", [&](TensorView<float, 1> X, TensorView<float, 1> Y) {
    for (auto i : parallel(X.shape(0))) {
      ++parallel_bodies;
      Tile<float> acc = 0.0f;
      for (auto j : serial(i)) {
        ++serial_bodies;
        for (auto s : pipeline(2)) {
          ++pipeline_bodies;
          s.stage();
        }
        Tile<float> part = 0.0f;
        for (auto r : reduce(j)) {
          ++reduce_bodies;
          part = part + X[{r}];
        }
        acc = acc + part;
      }
      Y(i).store(acc);
    }
  });
  EXPECT_EQ(parallel_bodies, 1);
  EXPECT_EQ(serial_bodies, 1);
  EXPECT_EQ(pipeline_bodies, 1);
  EXPECT_EQ(reduce_bodies, 1);
  // Y[i] = sum over j < i of sum over r < j of X[r].
  std::vector<float> y = run(k, {1, 2, 4, 8}, 4);
  EXPECT_EQ(y, (std::vector<float>{0, 0, 1, 4}));
}

TEST(TileCapture, SerialCarriesExactlyTheAssignedTiles) {
  Kernel k = tile_kernel("horner", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> acc = 0.0f;
    Tile<float> scale = 0.5f;
    for (auto i : serial(X.shape(0))) acc = acc * scale + X[{i}];
    Y(0).store(acc);
  });
  std::string text = print(k);
  EXPECT_EQ(occurrences(text, "iter("), 1u) << text;
  EXPECT_NE(text.find("%5 = serial %6 < %2 iter(%7 = %4)"), std::string::npos) << text;
  std::vector<float> x{3, -1, 4, 1, -5, 9};
  float want = 0;
  for (float v : x) want = want * 0.5f + v;
  EXPECT_EQ(run(k, x)[0], want);
}

TEST(TileCapture, NestedSerialRegionsCarryThroughEveryLevel) {
  Kernel k = tile_kernel("pairs", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> acc = 0.0f;
    for (auto i : serial(X.shape(0)))
      for (auto j : serial(X.shape(0))) acc = acc + X[{i}] * X[{j}] * cast<float>(i - j);
    Y(0).store(acc);
  });
  EXPECT_EQ(occurrences(print(k), "iter("), 2u);
  std::vector<float> x{1, 2, 3, 4, 5};
  float want = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) want = want + x[size_t(i)] * x[size_t(j)] * float(i - j);
  EXPECT_EQ(run(k, x)[0], want);
}

TEST(TileCapture, AssignmentRebindsOnlyTheAssignedVariable) {
  Kernel k = tile_kernel("copies", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> total = 0.0f;
    for (auto i : serial(X.shape(0))) {
      Tile<float> before = total;  // a copy is a new name for the current value
      total = total + X[{i}];
      Y(i).store(before);
    }
  });
  EXPECT_EQ(run(k, {1, 2, 3, 4}, 4), (std::vector<float>{0, 1, 3, 6}));
}

TEST(TileCapture, ReduceRecordsContributionsAndBuiltInMerges) {
  Kernel k = tile_kernel("stats", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> total = 0.0f, largest = -INFINITY, product = 1.0f;
    for (auto i : reduce(X.shape(0))) {
      Tile<float> x = X[{i}];
      total = total + x;
      largest = maximum(x, largest);  // commutative merges take the state on either side
      product *= x;
    }
    Y(0).store(total);
    Y(1).store(largest);
    Y(2).store(product);
  });
  std::string text = print(k);
  EXPECT_NE(text.find("%6, %7, %8 = reduce %9 < %2 unordered_tree init(%3, %4, %5) merge(add, max, mul) {"), std::string::npos) << text;
  EXPECT_NE(text.find("yield %11, %11, %11"), std::string::npos) << text;
  EXPECT_EQ(run(k, {2, -3, 5, 0.5f}, 3), (std::vector<float>{4.5f, 5, -15}));
}

TEST(TileCapture, ReduceRejectsUpdatesThatAreNotMerges) {
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> acc = 0.0f;
        for (auto i : reduce(X.shape(0))) acc = acc * 0.5f + X[{i}];
      },
      {"capture_test.cpp:", "state #0 (f32) must be updated as `state = state (+) contribution`"});
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> acc = 0.0f;
        for (auto i : reduce(X.shape(0), ReductionPolicy::left_fold)) acc = X[{i}] - acc;
      },
      {"must be updated as `state = state (+) contribution`"});
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> acc = 0.0f;
        for (auto i : reduce(X.shape(0))) {
          acc = acc + X[{i}];
          acc = acc + X[{i}];
        }
      },
      {"must be updated as"});
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> acc = 0.0f, other = 0.0f;
        for (auto i : reduce(X.shape(0))) {
          other = other + acc;
          acc = acc + X[{i}];
        }
      },
      {"is read outside its update; a reduction has no running value"});
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> acc = 0.0f;
        for (auto i : reduce(X.shape(0))) Tile<float> x = X[{i}] + acc;
      },
      {"nothing to reduce"});
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> acc = 0.0f;
        for (auto i : reduce(X.shape(0))) acc = acc + X[{span(i, 4)}];
      },
      {"changes type from f32 to tile<4xf32>"});
  expect_capture_error(
      [](TensorView<float, 1> X, TensorView<float, 1> Y) {
        Tile<float> acc = 0.0f;
        for (auto i : reduce(X.shape(0))) {
          acc = acc + X[{i}];
          Y(i).store(acc);
        }
      },
      {"stored inside a reduce body"});
}

TEST(TileCapture, ParallelIterationsCannotAssignEnclosingTiles) {
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> acc = 0.0f;
        for (auto i : parallel(X.shape(0))) acc = acc + X[{i}];
      },
      {"capture_test.cpp:", "assigned inside it; parallel iterations cannot update an enclosing Tile"});
}

TEST(TileCapture, PipelineStagesAreCutsOfItsBody) {
  Kernel k = tile_kernel("staged", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> acc = 0.0f;
    for (auto s : pipeline(X.shape(0))) {
      Tile<float> x = X[{s}];
      s.stage("accumulate");
      acc = acc + x * x;
    }
    Y(0).store(acc);
  });
  std::string text = print(k);
  EXPECT_NE(text.find("pipeline %5 < %2 iter(%6 = %3) {"), std::string::npos) << text;
  EXPECT_LT(text.find("load"), text.find("stage \"accumulate\""));
  EXPECT_LT(text.find("stage \"accumulate\""), text.find("mul"));
  EXPECT_EQ(run(k, {1, 2, 3})[0], 14.0f);

  expect_capture_error(
      [](TensorView<float, 1> X) {
        for (auto s : pipeline(X.shape(0)))
          for (auto j : serial(2)) s.stage();
      },
      {"capture_test.cpp:", "stage() must be called directly in the body of its pipeline"});
}

TEST(TileCapture, MemoryIsWrittenOnlyThroughStore) {
  static_assert(!std::is_assignable_v<MemoryRef<float>&, Tile<float>>, "Memory = Tile is ill-formed");
  static_assert(!std::is_assignable_v<MemoryRef<float>&, MemoryRef<float>>, "Memory = View is ill-formed");
  static_assert(!std::is_constructible_v<Tile<float>, MemoryRef<float>>, "a view is never loaded implicitly");
  // Loads outside the view give the pad; stores outside it write nothing.
  Kernel k = tile_kernel("masked", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Tile<float> a = X(span(-2, 8)).load(-1.0f);
    Tile<float> b = X[{span(-2, 8)}];
    Y(span(-1, 8)).store(a + b * 100.0f);
  });
  std::vector<float> y = run(k, {1, 2, 3, 4}, 5);
  EXPECT_EQ(y, (std::vector<float>{-1, 101, 202, 303, 404}));
}

TEST(TileCapture, ViewsNeedOneCoordinatePerAxis) {
  expect_capture_error([](TensorView<float, 2> X) { Tile<float> x = X[{0}]; }, {"accessed with 1 coordinates"});
}

TEST(TileCapture, CustomReducersBecomeCombinerRegions) {
  Kernel k = tile_kernel("ordered_product", [](TensorView<float, 1> X, TensorView<float, 1> Y) {
    Reducer<float> times([](const Tile<float>& a, const Tile<float>& b) { return a * b; }, Laws{.associative = true});
    Tile<float> p = 1.0f;
    for (auto i : reduce(X.shape(0), ReductionPolicy::ordered_tree)) p = times(p, X[{i}]);
    Y(0).store(p);
  });
  std::string text = print(k);
  EXPECT_NE(text.find("ordered_tree init(%3) merge(#1) {"), std::string::npos) << text;
  EXPECT_NE(text.find("} combiner #1 associative (%8: f32, %9: f32) {"), std::string::npos) << text;
  EXPECT_EQ(run(k, {2, 3, 4})[0], 24.0f);

  expect_capture_error(
      [](TensorView<float, 1> X) {
        Reducer<float> times([](const Tile<float>& a, const Tile<float>& b) { return a * b; }, Laws{.associative = true});
        Tile<float> p = 1.0f;
        for (auto i : reduce(X.shape(0))) p = times(p, X[{i}]);
      },
      {"capture_test.cpp:", "this Reducer is declared associative but not commutative",
       "unordered_tree needs an associative and commutative merge"});
  expect_capture_error(
      [](TensorView<float, 1> X) {
        Tile<float> outside = 2.0f;
        Reducer<float> scaled([&](const Tile<float>& a, const Tile<float>& b) { return a + b * outside; },
                              Laws{.associative = true, .commutative = true});
        Tile<float> p = 0.0f;
        for (auto i : reduce(X.shape(0))) p = scaled(p, X[{i}]);
      },
      {"a Reducer's merge reads a Tile of the enclosing kernel"});
}

TEST(TileCapture, TilesExistOnlyDuringCapture) {
  EXPECT_THROW(Tile<float>(1.0f), Error);
  // A body that throws abandons its capture; the next capture is unaffected.
  EXPECT_THROW(tile_kernel("throws",
                           [](TensorView<float, 1> X) {
                             for (auto i : serial(X.shape(0))) {
                               Tile<float> x = X[{i}];
                               throw std::runtime_error("stop");
                             }
                           }),
               std::runtime_error);
  Kernel k = tile_kernel("after", [](TensorView<float, 1> X, TensorView<float, 1> Y) { Y(0).store(X[{1}]); });
  EXPECT_EQ(run(k, {5, 6})[0], 6.0f);
}

TEST(TileCapture, BodiesLeftEarlyFailTheCapture) {
  expect_capture_error(
      [](TensorView<float, 1> X, TensorView<float, 1> Y) {
        for (auto i : parallel(X.shape(0))) {
          Y(i).store(X[{i}]);
          break;
        }
      },
      {"capture_test.cpp:", "the body of this parallel region was left early (break or return)"});
}

}  // namespace
}  // namespace tack::tile
