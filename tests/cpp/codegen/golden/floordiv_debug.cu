// Tack kernel 'floordiv' for cuda

static __device__ __forceinline__ long long tk_s64(unsigned long long u) {
    return u <= 9223372036854775807ULL ? (long long)u : (long long)(u - 9223372036854775808ULL) - 9223372036854775807LL - 1LL;
}
static __device__ __forceinline__ int tk_debug_claim(long long* d, int id) {
    if (atomicCAS((int*)d, 0, 1) != 0) return 0;
    d[1] = id;
    return 1;
}
static __device__ __forceinline__ short tk_s16(unsigned int u) {
    u &= 65535u;
    return (short)(u <= 32767u ? (int)u : (int)u - 65536);
}
static __device__ __forceinline__ short tk_floordiv_i16(short a, short b) {
    if ((unsigned int)b + (unsigned int)1 <= (unsigned int)1) return tk_s16((unsigned int)a * (unsigned int)b);
    int q = (int)a / (int)b, m = (int)a % (int)b;
    return (short)(m != 0 && (m < 0) != (b < 0) ? q - 1 : q);
}
static __device__ __forceinline__ unsigned long long tk_trip_s(long long s, long long e, long long st) {
    if (st > 0 && e > s) return ((unsigned long long)e - (unsigned long long)s - 1) / (unsigned long long)st + 1;
    if (st < 0 && s > e) return ((unsigned long long)s - (unsigned long long)e - 1) / ((unsigned long long)0 - (unsigned long long)st) + 1;
    return 0;
}

extern "C" __global__ void tk_floordiv_count(short* v_q,
        long long tk_n0_v_q,
        short* v_a,
        long long tk_n0_v_a,
        short* v_b,
        long long tk_n0_v_b,
        long long tk_count,
        long long* tk_out,
        long long* tk_debug) {
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

extern "C" __global__ void tk_floordiv_body(short* v_q,
        long long tk_n0_v_q,
        short* v_a,
        long long tk_n0_v_a,
        short* v_b,
        long long tk_n0_v_b,
        long long tk_count,
        long long* tk_out,
        long long* tk_debug) {
    const long long tk_i = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    if (tk_i >= tk_count) return;
    long long v_i = 0;
    const long long tk_e0 = 0LL;
    const long long tk_e1 = tk_n0_v_q;
    v_i = tk_s64((unsigned long long)tk_e0 + (unsigned long long)tk_i);
    const long long tk_e2 = v_i;
    const int tk_ok3 = (unsigned long long)tk_e2 < (unsigned long long)tk_n0_v_a;
    if (!tk_ok3 && tk_debug_claim(tk_debug, 0)) {
        tk_debug[2] = tk_e2;
        tk_debug[10] = tk_n0_v_a;
    }
    short tk_e4 = 0;
    if (tk_ok3) tk_e4 = v_a[tk_e2];
    const long long tk_e5 = v_i;
    const int tk_ok6 = (unsigned long long)tk_e5 < (unsigned long long)tk_n0_v_b;
    if (!tk_ok6 && tk_debug_claim(tk_debug, 1)) {
        tk_debug[2] = tk_e5;
        tk_debug[10] = tk_n0_v_b;
    }
    short tk_e7 = 0;
    if (tk_ok6) tk_e7 = v_b[tk_e5];
    if (tk_e7 == 0) (void)tk_debug_claim(tk_debug, 2);
    const long long tk_e8 = v_i;
    const int tk_ok9 = (unsigned long long)tk_e8 < (unsigned long long)tk_n0_v_q;
    if (!tk_ok9 && tk_debug_claim(tk_debug, 3)) {
        tk_debug[2] = tk_e8;
        tk_debug[10] = tk_n0_v_q;
    }
    if (tk_ok9) {
        v_q[tk_e8] = tk_floordiv_i16(tk_e4, tk_e7);
    }
}
