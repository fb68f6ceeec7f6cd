// Compares the two candidate CPU parallel runtimes, OpenMP and oneTBB, on
// what a Tack launch needs from them: the fixed cost of starting a parallel
// loop, and how a memory-bound and a compute-bound loop scale with threads.
//
// Usage: parallel_runtime omp|tbb
// Each runtime is measured in its own process, so the other's worker
// threads are not spinning on the same cores. Output is one "key value"
// pair per line; bench/run.py --parallel-runtime lays the two side by side.
#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>
#include <tbb/version.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Launch overhead is measured on one loop of this many iterations, one per
// chunk: the smallest loop that still needs a second thread.
constexpr int64_t kLaunchChunks = 2;
constexpr int kLaunchSamples = 10000;
constexpr int kIdleSamples = 1000;
constexpr auto kIdleGap = std::chrono::milliseconds(1);
// Each chunk of the small loop evaluates this many compute elements (about
// 5 us on one core): enough work that a second thread pays for itself.
constexpr int kSmallLoopWork = 5;
constexpr int kSmallLoopSamples = 2000;

constexpr int64_t kMemoryElements = int64_t{1} << 25;  // 3 x 128 MiB
constexpr int64_t kComputeElements = int64_t{1} << 18;
constexpr int kComputeSteps = 256;
constexpr int kScalingSamples = 7;

// Written by the empty loops so that the compiler cannot remove them; the
// thread that ran each chunk tells whether a launch really used two threads
// or the caller ran both chunks itself before a worker arrived.
std::thread::id g_runner[kLaunchChunks];

// Left uninitialized by allocation so that the runtime under test touches
// every page first (see measure_scaling).
struct Buffers {
  std::unique_ptr<float[]> a{new float[kMemoryElements]};
  std::unique_ptr<float[]> b{new float[kMemoryElements]};
  std::unique_ptr<float[]> c{new float[kMemoryElements]};
};

// Polynomial steps with a loop-carried dependence: pure arithmetic, no
// memory traffic, and the same instructions whichever runtime calls it.
inline float compute_element(int64_t i) {
  float v = static_cast<float>(i & 1023) * 1e-3f;
  for (int k = 0; k < kComputeSteps; ++k) v = v * 0.999f + 0.5f * v * v - 0.25f;
  return v;
}

// The runtime under test, behind one small interface: run body(begin, end)
// over [0, n) split statically into one chunk per thread.
struct OpenMP {
  static const char* name() { return "omp"; }
  static void print_version() { std::printf("version OpenMP %d (libgomp)\n", _OPENMP); }
  template <class Body>
  static void for_static(int threads, int64_t n, const Body& body) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) body(i, i + 1);
  }
  static int max_threads() { return omp_get_max_threads(); }
};

struct OneTBB {
  static const char* name() { return "tbb"; }
  static void print_version() { std::printf("version oneTBB %s\n", TBB_runtime_version()); }
  template <class Body>
  static void for_static(int threads, int64_t n, const Body& body) {
    auto loop = [&] {
      tbb::parallel_for(
          tbb::blocked_range<int64_t>(0, n),
          [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); },
          tbb::static_partitioner());
    };
    if (threads == max_threads()) {
      loop();  // the implicit arena, as a launch would use it
    } else {
      // Set up per call; its cost is noise against the scaling loops.
      tbb::task_arena arena(threads);
      arena.execute(loop);
    }
  }
  static int max_threads() { return tbb::this_task_arena::max_concurrency(); }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}

template <class F>
double time_us(const F& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

template <class R>
void empty_loop(int threads) {
  R::for_static(threads, kLaunchChunks, [](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) g_runner[i] = std::this_thread::get_id();
  });
}

// Back to back launches: the workers are still awake from the last one.
template <class R>
void measure_launch() {
  const int threads = R::max_threads();
  for (int i = 0; i < 100; ++i) empty_loop<R>(threads);
  std::vector<double> us(kLaunchSamples);
  int spread = 0;
  for (double& t : us) {
    t = time_us([&] { empty_loop<R>(threads); });
    spread += g_runner[0] != g_runner[1];
  }
  std::printf("launch_median_us %.3f\n", median(us));
  std::printf("launch_p90_us %.3f\n", percentile(us, 0.9));
  std::printf("launch_two_threads_pct %.1f\n", 100.0 * spread / kLaunchSamples);
}

// Launches after the host spent a while elsewhere (as between Python calls
// that do other work): the workers may have gone to sleep and must be woken.
template <class R>
void measure_idle_launch() {
  const int threads = R::max_threads();
  std::vector<double> us(kIdleSamples);
  int spread = 0;
  for (double& t : us) {
    std::this_thread::sleep_for(kIdleGap);
    t = time_us([&] { empty_loop<R>(threads); });
    spread += g_runner[0] != g_runner[1];
  }
  std::printf("idle_launch_median_us %.3f\n", median(us));
  std::printf("idle_launch_two_threads_pct %.1f\n", 100.0 * spread / kIdleSamples);
}

float g_small_sink[kLaunchChunks];
// Read at run time so that the compiler cannot evaluate the chunks itself.
volatile int64_t g_small_base = 0;

void small_chunk(int64_t chunk) {
  const int64_t first = g_small_base + chunk * kSmallLoopWork;
  float acc = 0.0f;
  for (int k = 0; k < kSmallLoopWork; ++k) acc += compute_element(first + k);
  g_small_sink[chunk] = acc;
  g_runner[chunk] = std::this_thread::get_id();
}

// Two chunks of real work: the time a short kernel takes, against running
// both chunks on the calling thread. An empty loop cannot show this, since a
// runtime may finish both empty chunks before a worker takes one.
template <class R>
void measure_small_loop() {
  const int threads = R::max_threads();
  auto parallel = [&] {
    R::for_static(threads, kLaunchChunks, [](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) small_chunk(i);
    });
  };
  auto serial = [] {
    for (int64_t i = 0; i < kLaunchChunks; ++i) small_chunk(i);
  };
  for (int i = 0; i < 100; ++i) parallel();
  std::vector<double> par(kSmallLoopSamples), ser(kSmallLoopSamples);
  int spread = 0;
  for (int i = 0; i < kSmallLoopSamples; ++i) {
    par[i] = time_us(parallel);
    spread += g_runner[0] != g_runner[1];
    ser[i] = time_us(serial);
  }
  std::printf("small_loop_median_us %.3f\n", median(par));
  std::printf("small_loop_serial_us %.3f\n", median(ser));
  std::printf("small_loop_two_threads_pct %.1f\n", 100.0 * spread / kSmallLoopSamples);
  // Keeps the chunks' results observable.
  std::printf("small_loop_checksum %.6g\n", static_cast<double>(g_small_sink[0] + g_small_sink[1]));
}

template <class R>
double triad_ms(int threads, Buffers& buf) {
  float* a = buf.a.get();
  const float* b = buf.b.get();
  const float* c = buf.c.get();
  std::vector<double> us(kScalingSamples);
  for (double& t : us) {
    t = time_us([&] {
      R::for_static(threads, kMemoryElements, [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) a[i] = b[i] + 3.0f * c[i];
      });
    });
  }
  return median(us) / 1e3;
}

template <class R>
double compute_ms(int threads, std::vector<float>& out) {
  float* o = out.data();
  std::vector<double> us(kScalingSamples);
  for (double& t : us) {
    t = time_us([&] {
      R::for_static(threads, kComputeElements, [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = compute_element(i);
      });
    });
  }
  return median(us) / 1e3;
}

std::vector<int> thread_counts(int max_threads) {
  std::vector<int> counts;
  for (int t = 1; t < max_threads; t *= 2) counts.push_back(t);
  counts.push_back(max_threads);
  return counts;
}

template <class R>
void measure_scaling() {
  const int max_threads = R::max_threads();
  // First touch by the runtime itself, so that on a multi-socket machine
  // pages sit near the threads that later use them.
  Buffers buf;
  R::for_static(max_threads, kMemoryElements, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      buf.a[i] = 0.0f;
      buf.b[i] = 1.0f;
      buf.c[i] = 2.0f;
    }
  });
  std::vector<float> out(kComputeElements);
  for (int threads : thread_counts(max_threads)) {
    std::printf("memory_ms_%d %.3f\n", threads, triad_ms<R>(threads, buf));
    std::printf("compute_ms_%d %.3f\n", threads, compute_ms<R>(threads, out));
  }
  // Keeps the compute loop's results observable.
  std::printf("checksum %.6g\n", static_cast<double>(out[kComputeElements / 3]));
}

template <class R>
int run() {
  std::printf("runtime %s\n", R::name());
  R::print_version();
  std::printf("threads %d\n", R::max_threads());
  measure_launch<R>();
  measure_idle_launch<R>();
  measure_small_loop<R>();
  measure_scaling<R>();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "omp") == 0) return run<OpenMP>();
  if (argc == 2 && std::strcmp(argv[1], "tbb") == 0) return run<OneTBB>();
  std::fprintf(stderr, "usage: %s omp|tbb\n", argv[0]);
  return 2;
}
