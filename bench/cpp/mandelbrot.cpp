// Reference Mandelbrot for the benchmark: counts[r, c] is the number of
// iterations z = z^2 + c performed before |z| > 2, at most max_iter.
#include <cstdint>

extern "C" void mandelbrot(int64_t h, int64_t w, float x0, float y0, float step,
                           int32_t max_iter, int32_t* counts) {
  // Rows near the set take far longer than rows outside it, so rows are
  // handed out dynamically; a static split would leave cores idle.
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t r = 0; r < h; ++r) {
    const float ci = y0 + static_cast<float>(r) * step;
    for (int64_t c = 0; c < w; ++c) {
      const float cr = x0 + static_cast<float>(c) * step;
      float zr = 0.0f;
      float zi = 0.0f;
      int32_t n = 0;
      while (n < max_iter && zr * zr + zi * zi <= 4.0f) {
        const float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++n;
      }
      counts[r * w + c] = n;
    }
  }
}
