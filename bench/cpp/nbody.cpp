// Reference n-body kick for the benchmark: every body's velocity changes by
// dt times its softened gravitational acceleration from all n bodies (the
// O(n^2) part of a step). A body's own term is zero: its offset is zero.
#include <cmath>
#include <cstdint>

extern "C" void nbody_kick(int64_t n, float dt, float eps2, const float* x,
                           const float* y, const float* z, const float* m,
                           float* vx, float* vy, float* vz) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float ax = 0.0f;
    float ay = 0.0f;
    float az = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float dx = x[j] - x[i];
      const float dy = y[j] - y[i];
      const float dz = z[j] - z[i];
      const float r2 = dx * dx + dy * dy + dz * dz + eps2;
      const float inv_r = 1.0f / std::sqrt(r2);
      const float s = m[j] * (inv_r * inv_r * inv_r);
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    vx[i] += dt * ax;
    vy[i] += dt * ay;
    vz[i] += dt * az;
  }
}
