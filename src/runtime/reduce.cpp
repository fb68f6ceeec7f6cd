#include "runtime/reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "runtime/parallel.h"

namespace tack::runtime {

namespace {

// Imported storage may place an element at any byte address.
template <typename T>
inline T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// A view's elements in row-major order, as rows of `cols` elements `step`
// bytes apart. Extents of 1 are dropped and dimensions that step evenly into
// each other merge, so a contiguous view is a single row.
struct Rows {
    const char* base = nullptr;
    int64_t cols = 1, step = 0;
    std::vector<int64_t> outer_shape, outer_strides;  // strides in bytes

    const char* row(int64_t r) const {
        int64_t off = 0;
        for (size_t d = outer_shape.size(); d-- > 0;) {
            off += (r % outer_shape[d]) * outer_strides[d];
            r /= outer_shape[d];
        }
        return base + off;
    }
};

Rows rows_of(const Array& a) {
    int64_t es = size_of(a.dtype());
    std::vector<int64_t> shape, strides;
    for (int d = 0; d < a.ndim(); ++d) {
        int64_t extent = a.shape()[d], stride = a.strides()[d] * es;
        if (extent == 1) continue;
        if (!shape.empty() && strides.back() == stride * extent) {
            shape.back() *= extent;
            strides.back() = stride;
        } else {
            shape.push_back(extent);
            strides.push_back(stride);
        }
    }
    Rows r;
    r.base = a.data();
    r.step = es;
    if (shape.empty()) return r;
    r.cols = shape.back();
    r.step = strides.back();
    shape.pop_back();
    strides.pop_back();
    r.outer_shape = std::move(shape);
    r.outer_strides = std::move(strides);
    return r;
}

// Calls visit(first, count) for each row segment of elements [lo, hi).
template <typename Visit>
void walk(const Rows& r, int64_t lo, int64_t hi, Visit&& visit) {
    int64_t row = lo / r.cols, col = lo % r.cols;
    while (lo < hi) {
        int64_t take = std::min(r.cols - col, hi - lo);
        visit(r.row(row) + col * r.step, take);
        lo += take;
        ++row;
        col = 0;
    }
}

// Fewer elements than this per chunk cost more in scheduling than they save
// (bench/reductions.py).
constexpr int64_t kMinElementsPerChunk = int64_t{1} << 15;

// At most this many chunks: enough to keep many cores busy, and fixed, so
// that the grouping, and with it a floating sum's rounding, does not depend
// on the thread count (tack.set_num_threads).
constexpr int64_t kMaxChunks = 256;

// Reduces every element of `a` into one Op::Partial. The element order is
// cut into contiguous chunks, each with its own partial; partials combine in
// chunk order, so an array's size alone decides the grouping.
template <typename Op>
typename Op::Partial reduce_all(const Array& a) {
    struct alignas(64) Slot {
        typename Op::Partial p;
    };
    struct Context {
        Rows rows;
        int64_t n, chunks;
        std::vector<Slot> slots;
    } ctx{rows_of(a), a.size(), 1, {}};
    ctx.chunks = std::clamp<int64_t>(ctx.n / kMinElementsPerChunk, 1, kMaxChunks);
    ctx.slots.resize(static_cast<size_t>(ctx.chunks));
    parallel_for(
        ctx.chunks,
        [](void* raw, int64_t begin, int64_t end) {
            auto& c = *static_cast<Context*>(raw);
            int64_t per = c.n / c.chunks, extra = c.n % c.chunks;
            for (int64_t k = begin; k < end; ++k) {
                int64_t lo = k * per + std::min(k, extra);
                int64_t hi = lo + per + (k < extra ? 1 : 0);
                walk(c.rows, lo, hi, [&](const char* p, int64_t count) {
                    Op::add(c.slots[k].p, p, count, c.rows.step);
                });
            }
        },
        &ctx);
    for (int64_t k = 1; k < ctx.chunks; ++k) Op::combine(ctx.slots[0].p, ctx.slots[k].p);
    return ctx.slots[0].p;
}

// Contiguous segments run vector kernels written with GCC/Clang vector
// extensions, so the selection and NaN rules are spelled out rather than
// left to -ffast-math-style pattern matching. kBytes is the vector width:
// 16 (SSE2, every x86-64) or 32 where the CPU has AVX2, chosen at run time.
// Floating sums give the same result at either width: lane L always holds
// the elements at L modulo kGroup.
constexpr int kGroupBytes = 128;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TACK_REDUCE_AVX2 1
// Everything the wrapper calls is inlined into it and compiled for AVX2.
#define TACK_AVX2_FUNCTION __attribute__((target("avx2"), flatten))
bool cpu_has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}
#else
#define TACK_REDUCE_AVX2 0
bool cpu_has_avx2() { return false; }
#endif

// The sum of n contiguous floating elements: kGroup lanes, pairwise at the end.
template <typename T, int kBytes>
T contiguous_block_sum(const char* p, int64_t n) {
    constexpr int kVec = kBytes / sizeof(T), kUnroll = kGroupBytes / kBytes, kGroup = kVec * kUnroll;
    typedef T V __attribute__((vector_size(kBytes)));
    V acc[kUnroll];
    for (int u = 0; u < kUnroll; ++u) acc[u] = V{};
    int64_t i = 0;
    for (; i + kGroup <= n; i += kGroup)
        for (int u = 0; u < kUnroll; ++u) {
            V x;
            std::memcpy(&x, p + (i + u * kVec) * sizeof(T), sizeof x);
            acc[u] += x;
        }
    T lane[kGroup];
    std::memcpy(lane, acc, sizeof lane);
    for (int j = 0; i < n; ++i, ++j) lane[j] += load<T>(p + i * sizeof(T));
    for (int w = kGroup / 2; w > 0; w /= 2)
        for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
    return lane[0];
}

// Extremum of n contiguous elements. A floating lane never selects a NaN
// (x < m is false for it), so NaNs are flagged apart.
template <typename T, bool kMax, int kBytes>
T contiguous_extremum(const char* p, int64_t n, T start, bool* nan) {
    constexpr int kVec = kBytes / sizeof(T), kUnroll = kGroupBytes / kBytes, kGroup = kVec * kUnroll;
    typedef T V __attribute__((vector_size(kBytes)));
    using Bits = std::conditional_t<sizeof(T) == 8, int64_t,
                                    std::conditional_t<sizeof(T) == 4, int32_t,
                                                       std::conditional_t<sizeof(T) == 2, int16_t, int8_t>>>;
    typedef Bits M __attribute__((vector_size(kBytes)));
    V m[kUnroll];
    M bad[kUnroll];
    for (int u = 0; u < kUnroll; ++u) {
        m[u] = start - V{};  // a splat; x - 0 keeps every value, -0.0 included
        bad[u] = M{};
    }
    int64_t i = 0;
    for (; i + kGroup <= n; i += kGroup)
        for (int u = 0; u < kUnroll; ++u) {
            V x;
            std::memcpy(&x, p + (i + u * kVec) * sizeof(T), sizeof x);
            if constexpr (kMax) m[u] = x > m[u] ? x : m[u];
            else m[u] = x < m[u] ? x : m[u];
            if constexpr (std::is_floating_point_v<T>) bad[u] |= x != x;
        }
    T r = start;
    bool any_nan = false;
    for (int u = 0; u < kUnroll; ++u)
        for (int j = 0; j < kVec; ++j) {
            T v = m[u][j];
            r = kMax ? (v > r ? v : r) : (v < r ? v : r);
            any_nan = any_nan || bad[u][j] != 0;
        }
    for (; i < n; ++i) {
        T x = load<T>(p + i * sizeof(T));
        r = kMax ? (x > r ? x : r) : (x < r ? x : r);
        any_nan = any_nan || x != x;
    }
    *nan = any_nan;
    return r;
}

// Integer sums widen each element to 64 bits and wrap modulo 2^64 in an
// unsigned accumulator; addition is associative there, so the compiler may
// vectorize freely and any split is exact.
template <typename T>
uint64_t widened_sum(const char* p, int64_t n, int64_t step) {
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; ++i) {
        T x = load<T>(p + i * step);
        if constexpr (std::is_signed_v<T>) acc += static_cast<uint64_t>(static_cast<int64_t>(x));
        else acc += static_cast<uint64_t>(x);
    }
    return acc;
}

template <typename T>
uint64_t contiguous_widened_sum(const char* p, int64_t n) {
    return widened_sum<T>(p, n, sizeof(T));
}

#if TACK_REDUCE_AVX2
template <typename T>
TACK_AVX2_FUNCTION T contiguous_block_sum_avx2(const char* p, int64_t n) {
    return contiguous_block_sum<T, 32>(p, n);
}
template <typename T, bool kMax>
TACK_AVX2_FUNCTION T contiguous_extremum_avx2(const char* p, int64_t n, T start, bool* nan) {
    return contiguous_extremum<T, kMax, 32>(p, n, start, nan);
}
template <typename T>
TACK_AVX2_FUNCTION uint64_t contiguous_widened_sum_avx2(const char* p, int64_t n) {
    return widened_sum<T>(p, n, sizeof(T));
}
#endif

// Floating sums: blocks of kBlock elements summed in lanes, block sums
// combined pairwise through a binary counter.
template <typename T>
struct FloatSum {
    static constexpr int kLanes = kGroupBytes / sizeof(T);
    static constexpr int64_t kBlock = 4096;

    struct Partial {
        T level[64];
        uint64_t count = 0;
        void push(T v) {
            int k = 0;
            for (; count >> k & 1; ++k) v = level[k] + v;
            level[k] = v;
            ++count;
        }
        T total() const {
            T t = 0;
            for (int k = 63; k >= 0; --k)
                if (count >> k & 1) t += level[k];
            return t;
        }
    };

    static T strided_block(const char* p, int64_t n, int64_t step) {
        T lane[kLanes] = {};
        int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes)
            for (int j = 0; j < kLanes; ++j) lane[j] += load<T>(p + (i + j) * step);
        for (int j = 0; i < n; ++i, ++j) lane[j] += load<T>(p + i * step);
        for (int w = kLanes / 2; w > 0; w /= 2)
            for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
        return lane[0];
    }

    static T block(const char* p, int64_t n, int64_t step) {
        if (step != sizeof(T)) return strided_block(p, n, step);
#if TACK_REDUCE_AVX2
        if (cpu_has_avx2()) return contiguous_block_sum_avx2<T>(p, n);
#endif
        return contiguous_block_sum<T, 16>(p, n);
    }

    static void add(Partial& s, const char* p, int64_t n, int64_t step) {
        for (int64_t i = 0; i < n; i += kBlock) s.push(block(p + i * step, std::min(kBlock, n - i), step));
    }
    static void combine(Partial& into, const Partial& other) {
        T a = into.total(), b = other.total();
        into.count = 1;
        into.level[0] = a + b;
    }
    static double result(const Partial& s) { return static_cast<double>(s.total()); }
};

template <typename T>
struct IntSum {
    struct Partial {
        uint64_t acc = 0;
    };
    static void add(Partial& s, const char* p, int64_t n, int64_t step) {
        if (step != sizeof(T)) {
            s.acc += widened_sum<T>(p, n, step);
            return;
        }
#if TACK_REDUCE_AVX2
        if (cpu_has_avx2()) {
            s.acc += contiguous_widened_sum_avx2<T>(p, n);
            return;
        }
#endif
        s.acc += contiguous_widened_sum<T>(p, n);
    }
    static void combine(Partial& into, const Partial& other) { into.acc += other.acc; }
    static double result(const Partial& s) {
        if constexpr (std::is_signed_v<T>) return static_cast<double>(static_cast<int64_t>(s.acc));
        else return static_cast<double>(s.acc);
    }
};

// Extrema; zero ties are settled afterwards by ZeroSearch.
template <typename T, bool kMax>
struct Extremum {
    static constexpr T identity() {
        if constexpr (std::is_floating_point_v<T>)
            return kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        else
            return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
    struct Partial {
        T m = identity();
        bool nan = false;
    };
    static T pick(T x, T m) {
        if constexpr (kMax) return x > m ? x : m;
        else return x < m ? x : m;
    }
    static void add(Partial& s, const char* p, int64_t n, int64_t step) {
        bool nan = false;
        if (step != sizeof(T)) {
            T m = s.m;
            for (int64_t i = 0; i < n; ++i) {
                T x = load<T>(p + i * step);
                m = pick(x, m);
                nan = nan || x != x;
            }
            s.m = m;
        } else {
#if TACK_REDUCE_AVX2
            if (cpu_has_avx2()) s.m = contiguous_extremum_avx2<T, kMax>(p, n, s.m, &nan);
            else
#endif
                s.m = contiguous_extremum<T, kMax, 16>(p, n, s.m, &nan);
        }
        s.nan = s.nan || nan;
    }
    static void combine(Partial& into, const Partial& other) {
        into.m = pick(other.m, into.m);
        into.nan = into.nan || other.nan;
    }
};

// Whether any element has exactly the bits of a zero of sign kNegative.
template <typename T, bool kNegative>
struct ZeroSearch {
    struct Partial {
        bool found = false;
    };
    static void add(Partial& s, const char* p, int64_t n, int64_t step) {
        for (int64_t i = 0; i < n && !s.found; ++i) {
            T x = load<T>(p + i * step);
            s.found = x == T(0) && std::signbit(x) == kNegative;
        }
    }
    static void combine(Partial& into, const Partial& other) { into.found = into.found || other.found; }
};

template <typename T, bool kMax>
double extremum(const Array& a) {
    auto s = reduce_all<Extremum<T, kMax>>(a);
    if constexpr (std::is_floating_point_v<T>) {
        if (s.nan) return std::numeric_limits<double>::quiet_NaN();
        if (s.m == T(0)) {
            // Minimum prefers -0.0 and maximum +0.0, whatever the order.
            bool preferred = reduce_all<ZeroSearch<T, !kMax>>(a).found;
            return (preferred != kMax) ? -0.0 : 0.0;
        }
    }
    return static_cast<double>(s.m);
}

template <typename F>
double by_dtype(DType t, F&& f) {
    switch (t) {
#define X(E, name, ctype, size) \
    case DType::E:              \
        return f(ctype{});
        TACK_DTYPES(X)
#undef X
    }
    return 0;
}

}  // namespace

double array_sum(const Array& a) {
    if (a.size() == 0) return 0.0;
    return by_dtype(a.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_floating_point_v<T>) return FloatSum<T>::result(reduce_all<FloatSum<T>>(a));
        else return IntSum<T>::result(reduce_all<IntSum<T>>(a));
    });
}

double array_min(const Array& a) {
    if (a.size() == 0) throw std::invalid_argument("min() of an empty array; it has no elements to compare");
    return by_dtype(a.dtype(), [&](auto zero) { return extremum<decltype(zero), false>(a); });
}

double array_max(const Array& a) {
    if (a.size() == 0) throw std::invalid_argument("max() of an empty array; it has no elements to compare");
    return by_dtype(a.dtype(), [&](auto zero) { return extremum<decltype(zero), true>(a); });
}

}  // namespace tack::runtime
