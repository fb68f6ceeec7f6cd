// Tack kernel 'total' for cuda

static __device__ __forceinline__ long long tk_s64(unsigned long long u) {
    return u <= 9223372036854775807ULL ? (long long)u : (long long)(u - 9223372036854775808ULL) - 9223372036854775807LL - 1LL;
}
static __device__ __forceinline__ unsigned long long tk_trip_s(long long s, long long e, long long st) {
    if (st > 0 && e > s) return ((unsigned long long)e - (unsigned long long)s - 1) / (unsigned long long)st + 1;
    if (st < 0 && s > e) return ((unsigned long long)s - (unsigned long long)e - 1) / ((unsigned long long)0 - (unsigned long long)st) + 1;
    return 0;
}
static __device__ __forceinline__ unsigned int tk_bits_f32(float x) { return __float_as_uint(x); }

extern "C" __global__ void tk_total_count(float* v_a,
        long long tk_n0_v_a,
        long long tk_count,
        long long* tk_out) {
    float v_first = 0.0f;
    v_first = v_a[0LL];
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_n0_v_a;
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

extern "C" __global__ void tk_total_body(float* v_a,
        long long tk_n0_v_a,
        long long tk_count,
        long long* tk_out) {
    const long long tk_i = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    if (tk_i >= tk_count) return;
    float v_first = 0.0f;
    long long v_i = 0;
    v_first = v_a[0LL];
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_n0_v_a;
    v_i = tk_s64((unsigned long long)tk_e0 + (unsigned long long)tk_i);
    v_a[v_i] = (v_a[v_i] - v_first);
}

extern "C" __global__ void tk_total_result(float* v_a,
        long long tk_n0_v_a,
        long long tk_count,
        long long* tk_out) {
    float v_first = 0.0f;
    v_first = v_a[0LL];
    const float tk_e0 = (v_first * 2.0f);
    tk_out[0] = (long long)tk_bits_f32(tk_e0);
}
