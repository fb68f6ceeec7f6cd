// The lane groups of the hand-vectorized benchmark kernels (*_lanes.cpp):
// 16 lanes per group, held in GCC vectors of the target's width (one of 16
// floats with AVX-512, two of 8 with AVX, four of 4 otherwise).
#pragma once

#if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE__)
#include <immintrin.h>
#endif

constexpr int kLanes = 16;
#if defined(__AVX512F__)
constexpr int kWidth = 16;
#elif defined(__AVX__)
constexpr int kWidth = 8;
#else
constexpr int kWidth = 4;
#endif
constexpr int kParts = kLanes / kWidth;
typedef float vf __attribute__((vector_size(kWidth * sizeof(float))));
