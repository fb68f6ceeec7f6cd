// Hand-vectorized Mandelbrot for the benchmark, ISPC style: the parallel
// loop's iterations run in SIMD lanes, 16 consecutive pixels of a row in one
// group. The group is held in GCC vector extensions of the target's width
// (one 16-lane vector with AVX-512, two of 8 with AVX, four of 4 otherwise;
// GCC lowers them to scalar code where there is no SIMD).
//
// The while loop diverges: a lane leaves the group's mask for good the first
// time mandelbrot.cpp's condition fails for it, and its count stops there;
// the group iterates until no lane is active. The last group of a row whose
// width is not a multiple of 16 starts with its lanes past the row masked
// off and stores only its live lanes. Every lane performs mandelbrot.cpp's
// operations in its order, so with -ffp-contract=off and no fast-math, as
// bench/native.py builds both, the counts equal mandelbrot.cpp's exactly.
#include <cstdint>
#include <cstring>

#include "lanes.h"

namespace {
typedef int32_t vi __attribute__((vector_size(kWidth * sizeof(int32_t))));

// Whether any lane of a mask (each lane 0 or -1) is set.
inline bool any(vi mask) {
#if defined(__AVX512F__)
  const __m512i m = reinterpret_cast<__m512i>(mask);
  return _mm512_test_epi32_mask(m, m) != 0;
#elif defined(__AVX__)
  return _mm256_movemask_ps(reinterpret_cast<__m256>(mask)) != 0;
#elif defined(__SSE__)
  return _mm_movemask_ps(reinterpret_cast<__m128>(mask)) != 0;
#else
  int32_t bits = 0;
  for (int k = 0; k < kWidth; ++k) bits |= mask[k];
  return bits != 0;
#endif
}

}  // namespace

extern "C" void mandelbrot_lanes(int64_t h, int64_t w, float x0, float y0, float step,
                                 int32_t max_iter, int32_t* counts) {
  const vi limit = vi{} + max_iter;
  const vf four = vf{} + 4.0f;
  // Rows are handed out dynamically, as in mandelbrot.cpp.
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t r = 0; r < h; ++r) {
    const float ci = y0 + static_cast<float>(r) * step;
    for (int64_t c0 = 0; c0 < w; c0 += kLanes) {
      const int64_t live = w - c0 < kLanes ? w - c0 : kLanes;
      float column[kLanes];
      int32_t mask[kLanes];
      for (int k = 0; k < kLanes; ++k) {
        column[k] = static_cast<float>(c0 + k);
        mask[k] = k < live ? -1 : 0;
      }
      vf cr[kParts], zr[kParts] = {}, zi[kParts] = {};
      vi active[kParts], n[kParts] = {};
      std::memcpy(cr, column, sizeof cr);
      std::memcpy(active, mask, sizeof active);
      for (int p = 0; p < kParts; ++p) cr[p] = x0 + cr[p] * step;
      // Each pass: the lanes still running take one more step of
      // mandelbrot.cpp's loop. Stepping z in lanes already out is harmless:
      // their count no longer changes and they never rejoin.
      for (;;) {
        vi running = {};
        for (int p = 0; p < kParts; ++p) {
          active[p] &= (n[p] < limit) & (zr[p] * zr[p] + zi[p] * zi[p] <= four);
          running |= active[p];
          const vf t = zr[p] * zr[p] - zi[p] * zi[p] + cr[p];
          zi[p] = 2.0f * zr[p] * zi[p] + ci;
          zr[p] = t;
          n[p] -= active[p];  // + 1 where active (-1 there, 0 elsewhere)
        }
        if (!any(running)) break;
      }
      int32_t* const out = counts + r * w + c0;
      if (live == kLanes) {
        std::memcpy(out, n, sizeof n);
      } else {
        int32_t lanes[kLanes];
        std::memcpy(lanes, n, sizeof n);
        for (int64_t k = 0; k < live; ++k) out[k] = lanes[k];
      }
    }
  }
}

// Lanes per vector in this build (16, 8 or 4); a group of 16 is 16 / this
// many vectors. Printed by bench/run.py with the machine.
extern "C" int32_t mandelbrot_lanes_vector_width() { return kWidth; }
