// Reference saxpy for the benchmark: y = alpha * x + y over all cores.
#include <cstdint>

extern "C" void saxpy(int64_t n, float alpha, const float* x, float* y) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    y[i] = alpha * x[i] + y[i];
  }
}
