// Just enough of MSL for clang++ -std=c++17 -fsyntax-only to parse the
// Metal source Tack prints, and for the host to run its helper prelude:
// address-space and function qualifiers vanish, attributes like
// [[buffer(0)]] are ignored (silence -Wunknown-attributes), as_type is a
// bit copy, and the atomics are std::atomic's relaxed operations.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>

#define kernel
#define device
#define constant
#define thread
#define threadgroup

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

namespace metal {

template <typename To, typename From>
inline To as_type(From x) {
    static_assert(sizeof(To) == sizeof(From), "as_type keeps the size");
    To y;
    std::memcpy(&y, &x, sizeof y);
    return y;
}

using std::ceil;
using std::copysign;
using std::floor;
using std::fmax;
using std::fmin;
using std::fmod;
using std::fabs;
using std::sqrt;
using std::sin;
using std::cos;
using std::tan;
using std::asin;
using std::acos;
using std::atan;
using std::atan2;
using std::exp;
using std::log;
using std::pow;

enum memory_order { memory_order_relaxed };

struct atomic_int : std::atomic<int> {};
struct atomic_uint : std::atomic<unsigned> {};
struct atomic_float : std::atomic<float> {};

template <typename A, typename T = typename A::value_type>
inline T atomic_load_explicit(A* a, memory_order) {
    return a->load(std::memory_order_relaxed);
}
template <typename A, typename T>
inline T atomic_fetch_add_explicit(A* a, T v, memory_order) {
    T old = a->load(std::memory_order_relaxed);
    while (!a->compare_exchange_weak(old, old + v, std::memory_order_relaxed)) {
    }
    return old;
}
template <typename A, typename T>
inline T atomic_fetch_sub_explicit(A* a, T v, memory_order) {
    T old = a->load(std::memory_order_relaxed);
    while (!a->compare_exchange_weak(old, old - v, std::memory_order_relaxed)) {
    }
    return old;
}
template <typename A, typename T>
inline T atomic_exchange_explicit(A* a, T v, memory_order) {
    return a->exchange(v, std::memory_order_relaxed);
}
template <typename A, typename T>
inline T atomic_fetch_min_explicit(A* a, T v, memory_order) {
    T old = a->load(std::memory_order_relaxed);
    while (v < old && !a->compare_exchange_weak(old, v, std::memory_order_relaxed)) {
    }
    return old;
}
template <typename A, typename T>
inline T atomic_fetch_max_explicit(A* a, T v, memory_order) {
    T old = a->load(std::memory_order_relaxed);
    while (v > old && !a->compare_exchange_weak(old, v, std::memory_order_relaxed)) {
    }
    return old;
}
template <typename A, typename T>
inline bool atomic_compare_exchange_weak_explicit(A* a, T* expected, T desired, memory_order, memory_order) {
    return a->compare_exchange_weak(*expected, desired, std::memory_order_relaxed);
}

// Workgroups: threadgroup_barrier and its fence flags (no host meaning).
enum class mem_flags : unsigned { mem_none = 0, mem_device = 1, mem_threadgroup = 2 };
inline mem_flags operator|(mem_flags a, mem_flags b) {
    return static_cast<mem_flags>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
inline void threadgroup_barrier(mem_flags) {}
}  // namespace metal
