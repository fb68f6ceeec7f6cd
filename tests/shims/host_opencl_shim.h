// OpenCL C's scalar types, address spaces and overloaded math for compiling
// the printed prelude on the host (x86-64: char is signed, long 64 bits).
#pragma once

#include <cmath>
#include <cstring>

#define __global

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

using std::copysign;
using std::floor;
using std::fmax;
using std::fmin;
using std::fmod;

template <typename To, typename From>
inline To tack_bit_copy(From x) {
    To y;
    std::memcpy(&y, &x, sizeof y);
    return y;
}
inline uint as_uint(float x) { return tack_bit_copy<uint>(x); }
inline float as_float(uint x) { return tack_bit_copy<float>(x); }
inline ulong as_ulong(double x) { return tack_bit_copy<ulong>(x); }
inline double as_double(ulong x) { return tack_bit_copy<double>(x); }
