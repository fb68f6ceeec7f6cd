// CUDA's helper qualifiers and bit casts for compiling the printed prelude
// on the host (prelude_host_tests), included after the system headers
// (glibc spells attributes __noinline__); __CUDA_ARCH__ stays undefined, so the
// inline-PTX negation takes its portable branch.
#pragma once

#include <cmath>
#include <cstring>

#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))

inline unsigned int __float_as_uint(float x) {
    unsigned int u;
    std::memcpy(&u, &x, 4);
    return u;
}
inline float __uint_as_float(unsigned int u) {
    float x;
    std::memcpy(&x, &u, 4);
    return x;
}
inline long long __double_as_longlong(double x) {
    long long u;
    std::memcpy(&u, &x, 8);
    return u;
}
inline double __longlong_as_double(long long u) {
    double x;
    std::memcpy(&x, &u, 8);
    return x;
}
