// Reference floor division and remainder for bench/integer_division.py:
// the plain operators, which trap on a zero divisor, with the sign
// correction that makes them round toward negative infinity.
#include <cstdint>
#include <type_traits>

namespace {

template <typename T>
void floor_divmod(int64_t n, const T* a, const T* b, T* q, T* r) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    T x = a[i], y = b[i];
    T qq = x / y, rr = x % y;
    if constexpr (std::is_signed_v<T>) {
      bool adjust = rr != 0 && ((rr ^ y) < 0);
      qq -= adjust;
      rr += adjust ? y : T(0);
    }
    q[i] = qq;
    r[i] = rr;
  }
}

}  // namespace

#define TACK_BENCH_DIVMOD(T, name) \
  extern "C" void name(int64_t n, const T* a, const T* b, T* q, T* r) { floor_divmod<T>(n, a, b, q, r); }

TACK_BENCH_DIVMOD(int32_t, divmod_i32)
TACK_BENCH_DIVMOD(int64_t, divmod_i64)
TACK_BENCH_DIVMOD(uint32_t, divmod_u32)
TACK_BENCH_DIVMOD(uint64_t, divmod_u64)
