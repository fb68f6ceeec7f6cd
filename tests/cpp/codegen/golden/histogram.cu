// Tack kernel 'histogram' for cuda

static __device__ __forceinline__ long long tk_s64(unsigned long long u) {
    return u <= 9223372036854775807ULL ? (long long)u : (long long)(u - 9223372036854775808ULL) - 9223372036854775807LL - 1LL;
}
static __device__ __forceinline__ long long tk_mod_i64(long long a, long long b) {
    if ((unsigned long long)b + (unsigned long long)1 <= (unsigned long long)1) return 0;
    long long m = (long long)a % (long long)b;
    return (long long)(m != 0 && (m < 0) != (b < 0) ? m + b : m);
}
static __device__ __forceinline__ unsigned int tk_atomic_add_u32(unsigned int* p, unsigned int v) {
    return atomicAdd(p, v);
}
static __device__ __forceinline__ unsigned int tk_atomic_max_u32(unsigned int* p, unsigned int v) {
    return atomicMax(p, v);
}
static __device__ __forceinline__ unsigned long long tk_trip_s(long long s, long long e, long long st) {
    if (st > 0 && e > s) return ((unsigned long long)e - (unsigned long long)s - 1) / (unsigned long long)st + 1;
    if (st < 0 && s > e) return ((unsigned long long)s - (unsigned long long)e - 1) / ((unsigned long long)0 - (unsigned long long)st) + 1;
    return 0;
}

extern "C" __global__ void tk_histogram_count(unsigned int* v_bins,
        long long tk_n0_v_bins,
        unsigned int* v_data,
        long long tk_n0_v_data,
        unsigned int* v_slots,
        long long tk_n0_v_slots,
        long long tk_count,
        long long* tk_out) {
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_n0_v_data;
    const long long tk_e2 = 2LL;
    const unsigned long long tk_c3 = tk_trip_s((long long)tk_e0, (long long)tk_e1, (long long)tk_e2);
    if (tk_e2 <= 0) {
        tk_out[1] = 1;
        tk_out[2] = 0;
        tk_out[3] = (long long)tk_e2;
        tk_out[0] = -1;
        return;
    }
    unsigned long long tk_total = 1;
    int tk_big = 0, tk_empty = 0;
    if (tk_c3 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807ULL / tk_c3) tk_big = 1;
    else tk_total *= tk_c3;
    if (tk_big && !tk_empty) {
        tk_out[1] = 2;
        tk_out[4] = 1;
        tk_out[5] = tk_s64(tk_c3);
        tk_out[6] = 0;
        tk_out[0] = -1;
        return;
    }
    tk_out[0] = tk_empty ? 0 : (long long)tk_total;
}

extern "C" __global__ void tk_histogram_body(unsigned int* v_bins,
        long long tk_n0_v_bins,
        unsigned int* v_data,
        long long tk_n0_v_data,
        unsigned int* v_slots,
        long long tk_n0_v_slots,
        long long tk_count,
        long long* tk_out) {
    const long long tk_i = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    if (tk_i >= tk_count) return;
    long long v_i = 0;
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_n0_v_data;
    const long long tk_e2 = 2LL;
    v_i = tk_s64((unsigned long long)tk_e0 + (unsigned long long)tk_s64((unsigned long long)tk_i * (unsigned long long)tk_e2));
    const unsigned int tk_e3 = tk_atomic_add_u32(&v_bins[tk_mod_i64((long long)v_data[v_i], tk_n0_v_bins)], 1u);
    v_slots[v_i] = tk_e3;
    const unsigned int tk_e4 = v_data[v_i];
    tk_atomic_max_u32(&v_bins[0LL], tk_e4);
}
