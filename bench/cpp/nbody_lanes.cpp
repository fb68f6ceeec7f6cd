// Hand-vectorized n-body kick for the benchmark, ISPC style: the parallel
// loop's iterations run in SIMD lanes, 16 consecutive bodies i in one group.
// The group is held in GCC vector extensions of the target's width (one
// 16-float vector with AVX-512, two of 8 with AVX, four of 4 otherwise; GCC
// lowers them to scalar code where there is no SIMD). Each lane performs
// nbody.cpp's operations in nbody.cpp's order (j = 0 .. n-1, the same
// groupings, a correctly rounded square root and division), so with
// -ffp-contract=off and no fast-math, as bench/native.py builds both, the
// velocities equal nbody.cpp's bit for bit. A last partial group loads zeros
// into its unused lanes and stores only its live ones.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "lanes.h"

namespace {

// IEEE square root of each lane (sqrtps rounds as sqrtss does).
inline vf vsqrt(vf x) {
#if defined(__AVX512F__)
  return reinterpret_cast<vf>(_mm512_sqrt_ps(reinterpret_cast<__m512>(x)));
#elif defined(__AVX__)
  return reinterpret_cast<vf>(_mm256_sqrt_ps(reinterpret_cast<__m256>(x)));
#elif defined(__SSE__)
  return reinterpret_cast<vf>(_mm_sqrt_ps(reinterpret_cast<__m128>(x)));
#else
  for (int k = 0; k < kWidth; ++k) x[k] = std::sqrt(x[k]);
  return x;
#endif
}

// The group's lanes of p[0 .. live-1] (zeros past them) into v.
inline void load(vf (&v)[kParts], const float* p, int64_t live) {
  if (live == kLanes) {
    std::memcpy(v, p, sizeof v);
  } else {
    float lanes[kLanes] = {};
    for (int64_t k = 0; k < live; ++k) lanes[k] = p[k];
    std::memcpy(v, lanes, sizeof v);
  }
}

inline void store(float* p, const vf (&v)[kParts], int64_t live) {
  if (live == kLanes) {
    std::memcpy(p, v, sizeof v);
  } else {
    float lanes[kLanes];
    std::memcpy(lanes, v, sizeof v);
    for (int64_t k = 0; k < live; ++k) p[k] = lanes[k];
  }
}

}  // namespace

extern "C" void nbody_kick_lanes(int64_t n, float dt, float eps2, const float* x,
                                 const float* y, const float* z, const float* m,
                                 float* vx, float* vy, float* vz) {
  const int64_t groups = (n + kLanes - 1) / kLanes;
#pragma omp parallel for schedule(static)
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t i0 = g * kLanes;
    const int64_t live = n - i0 < kLanes ? n - i0 : kLanes;
    vf xi[kParts], yi[kParts], zi[kParts];
    load(xi, x + i0, live);
    load(yi, y + i0, live);
    load(zi, z + i0, live);
    vf ax[kParts] = {}, ay[kParts] = {}, az[kParts] = {};
    for (int64_t j = 0; j < n; ++j) {
      for (int p = 0; p < kParts; ++p) {
        const vf dx = x[j] - xi[p];
        const vf dy = y[j] - yi[p];
        const vf dz = z[j] - zi[p];
        const vf r2 = dx * dx + dy * dy + dz * dz + eps2;
        const vf inv_r = 1.0f / vsqrt(r2);
        const vf s = m[j] * (inv_r * inv_r * inv_r);
        ax[p] += dx * s;
        ay[p] += dy * s;
        az[p] += dz * s;
      }
    }
    float* const velocities[3] = {vx + i0, vy + i0, vz + i0};
    const vf* const sums[3] = {ax, ay, az};
    for (int axis = 0; axis < 3; ++axis) {
      vf v[kParts];
      load(v, velocities[axis], live);
      for (int p = 0; p < kParts; ++p) v[p] += dt * sums[axis][p];
      store(velocities[axis], v, live);
    }
  }
}
