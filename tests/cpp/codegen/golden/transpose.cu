// Tack kernel 'transpose' for cuda

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
static __device__ __forceinline__ long long tk_floordiv_i64(long long a, long long b) {
    if ((unsigned long long)b + (unsigned long long)1 <= (unsigned long long)1) return tk_s64((unsigned long long)a * (unsigned long long)b);
    long long q = (long long)a / (long long)b, m = (long long)a % (long long)b;
    return (long long)(m != 0 && (m < 0) != (b < 0) ? q - 1 : q);
}
static __device__ __forceinline__ long long tk_mod_i64(long long a, long long b) {
    if ((unsigned long long)b + (unsigned long long)1 <= (unsigned long long)1) return 0;
    long long m = (long long)a % (long long)b;
    return (long long)(m != 0 && (m < 0) != (b < 0) ? m + b : m);
}
static __device__ __forceinline__ unsigned long long tk_trip_s(long long s, long long e, long long st) {
    if (st > 0 && e > s) return ((unsigned long long)e - (unsigned long long)s - 1) / (unsigned long long)st + 1;
    if (st < 0 && s > e) return ((unsigned long long)s - (unsigned long long)e - 1) / ((unsigned long long)0 - (unsigned long long)st) + 1;
    return 0;
}

extern "C" __global__ void tk_transpose_count(float* v_a,
        long long tk_n0_v_a,
        float* v_out,
        long long tk_n0_v_out,
        long long tk_arg_v_n,
        long long tk_count,
        long long* tk_out) {
    long long v_n = tk_arg_v_n;
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_s64((unsigned long long)v_n * (unsigned long long)v_n);
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

extern "C" __global__ __launch_bounds__(256) void tk_transpose_body(float* v_a,
        long long tk_n0_v_a,
        float* v_out,
        long long tk_n0_v_out,
        long long tk_arg_v_n,
        long long tk_count,
        long long* tk_out) {
    const long long tk_i = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    __shared__ float v_tile[256];
    long long v_n = tk_arg_v_n;
    long long v_i = 0;
    int v_lane = 0;
    int tk_t3 = 0;
    int tk_t4 = 0;
    int v_ty = 0;
    int v_tx = 0;
    long long v_t = 0;
    long long tk_t8 = 0;
    long long tk_t9 = 0;
    long long v_by = 0;
    long long v_bx = 0;
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_s64((unsigned long long)v_n * (unsigned long long)v_n);
    v_i = tk_s64((unsigned long long)tk_e0 + (unsigned long long)tk_i);
    v_lane = (int)threadIdx.x;
    tk_t3 = tk_floordiv_i32(v_lane, 16);
    tk_t4 = tk_mod_i32(v_lane, 16);
    v_ty = tk_t3;
    v_tx = tk_t4;
    v_t = tk_floordiv_i64(v_i, 256LL);
    tk_t8 = tk_floordiv_i64(v_t, tk_floordiv_i64(v_n, 16LL));
    tk_t9 = tk_mod_i64(v_t, tk_floordiv_i64(v_n, 16LL));
    v_by = tk_t8;
    v_bx = tk_t9;
    v_tile[(long long)tk_s32((unsigned int)tk_s32((unsigned int)v_ty * (unsigned int)16) + (unsigned int)v_tx)] = v_a[tk_s64((unsigned long long)tk_s64((unsigned long long)tk_s64((unsigned long long)tk_s64((unsigned long long)tk_s64((unsigned long long)v_by * (unsigned long long)16LL) + (unsigned long long)(long long)v_ty) * (unsigned long long)v_n) + (unsigned long long)tk_s64((unsigned long long)v_bx * (unsigned long long)16LL)) + (unsigned long long)(long long)v_tx)];
    __syncthreads();
    (void)(0);
    v_out[tk_s64((unsigned long long)tk_s64((unsigned long long)tk_s64((unsigned long long)tk_s64((unsigned long long)tk_s64((unsigned long long)v_bx * (unsigned long long)16LL) + (unsigned long long)(long long)v_ty) * (unsigned long long)v_n) + (unsigned long long)tk_s64((unsigned long long)v_by * (unsigned long long)16LL)) + (unsigned long long)(long long)v_tx)] = v_tile[(long long)tk_s32((unsigned int)tk_s32((unsigned int)v_tx * (unsigned int)16) + (unsigned int)v_ty)];
}
