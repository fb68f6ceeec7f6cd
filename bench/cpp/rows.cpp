// Row-wise softmax and LayerNorm over a rows x cols f32 matrix, hand-written
// as one would in C++: OpenMP over rows, the compiler free to vectorize each
// row's loops (built with -O3 -march=native, GCC's default contraction). The
// baseline bench/tile.py times tack.tile.softmax and layer_norm against.
#include <cmath>
#include <cstdint>

extern "C" {

void softmax_rows(int64_t rows, int64_t cols, const float* x, float* out) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float* in = x + r * cols;
        float* o = out + r * cols;
        float m = -INFINITY;
        for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, in[c]);
        float sum = 0.0f;
        for (int64_t c = 0; c < cols; ++c) {
            o[c] = std::exp(in[c] - m);
            sum += o[c];
        }
        float inv = 1.0f / sum;
        for (int64_t c = 0; c < cols; ++c) o[c] *= inv;
    }
}

// (x - mean) / sqrt(var + eps) * g + b, the biased variance in two passes.
void layer_norm_rows(int64_t rows, int64_t cols, const float* x, const float* g, const float* b, float eps,
                     float* out) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float* in = x + r * cols;
        float* o = out + r * cols;
        float sum = 0.0f;
        for (int64_t c = 0; c < cols; ++c) sum += in[c];
        float mean = sum / static_cast<float>(cols);
        float squares = 0.0f;
        for (int64_t c = 0; c < cols; ++c) {
            float d = in[c] - mean;
            squares += d * d;
        }
        float scale = 1.0f / std::sqrt(squares / static_cast<float>(cols) + eps);
        for (int64_t c = 0; c < cols; ++c) o[c] = (in[c] - mean) * scale * g[c] + b[c];
    }
}
}
