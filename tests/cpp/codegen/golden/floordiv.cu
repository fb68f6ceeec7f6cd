// Tack kernel 'floordiv' for cuda

static __device__ __forceinline__ long long tk_s64(unsigned long long u) {
    return u <= 9223372036854775807ULL ? (long long)u : (long long)(u - 9223372036854775808ULL) - 9223372036854775807LL - 1LL;
}
static __device__ __forceinline__ int tk_s32(unsigned int u) { return u <= 2147483647u ? (int)u : (int)(u - 2147483648u) - 2147483647 - 1; }
static __device__ __forceinline__ int tk_floordiv_i32(int a, int b) {
    if ((unsigned int)b + (unsigned int)1 <= (unsigned int)1) return tk_s32((unsigned int)a * (unsigned int)b);
    int q = (int)a / (int)b, m = (int)a % (int)b;
    return (int)(m != 0 && (m < 0) != (b < 0) ? q - 1 : q);
}
static __device__ __forceinline__ int tk_mod_i32(int a, int b) {
    if ((unsigned int)b + (unsigned int)1 <= (unsigned int)1) return 0;
    int m = (int)a % (int)b;
    return (int)(m != 0 && (m < 0) != (b < 0) ? m + b : m);
}
static __device__ __forceinline__ unsigned long long tk_trip_s(long long s, long long e, long long st) {
    if (st > 0 && e > s) return ((unsigned long long)e - (unsigned long long)s - 1) / (unsigned long long)st + 1;
    if (st < 0 && s > e) return ((unsigned long long)s - (unsigned long long)e - 1) / ((unsigned long long)0 - (unsigned long long)st) + 1;
    return 0;
}

extern "C" __global__ void tk_floordiv_count(int* v_q,
        long long tk_n0_v_q,
        int* v_r,
        long long tk_n0_v_r,
        int* v_a,
        long long tk_n0_v_a,
        int* v_b,
        long long tk_n0_v_b,
        long long tk_count,
        long long* tk_out) {
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_n0_v_q;
    const unsigned long long tk_c2 = tk_trip_s((long long)tk_e0, (long long)tk_e1, (long long)1LL);
    unsigned long long tk_total = 1;
    int tk_big = 0, tk_empty = 0;
    if (tk_c2 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807ULL / tk_c2) tk_big = 1;
    else tk_total *= tk_c2;
    if (tk_big && !tk_empty) {
        tk_out[1] = 2;
        tk_out[4] = 1;
        tk_out[5] = tk_s64(tk_c2);
        tk_out[6] = 0;
        tk_out[0] = -1;
        return;
    }
    tk_out[0] = tk_empty ? 0 : (long long)tk_total;
}

extern "C" __global__ void tk_floordiv_body(int* v_q,
        long long tk_n0_v_q,
        int* v_r,
        long long tk_n0_v_r,
        int* v_a,
        long long tk_n0_v_a,
        int* v_b,
        long long tk_n0_v_b,
        long long tk_count,
        long long* tk_out) {
    const long long tk_i = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    if (tk_i >= tk_count) return;
    long long v_i = 0;
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_n0_v_q;
    v_i = tk_s64((unsigned long long)tk_e0 + (unsigned long long)tk_i);
    v_q[v_i] = tk_floordiv_i32(v_a[v_i], v_b[v_i]);
    v_r[v_i] = tk_mod_i32(v_a[v_i], v_b[v_i]);
}
