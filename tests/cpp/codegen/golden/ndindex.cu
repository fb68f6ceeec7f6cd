// Tack kernel 'blur' for cuda

static __device__ __forceinline__ long long tk_s64(unsigned long long u) {
    return u <= 9223372036854775807ULL ? (long long)u : (long long)(u - 9223372036854775808ULL) - 9223372036854775807LL - 1LL;
}
static __device__ __forceinline__ unsigned long long tk_trip_s(long long s, long long e, long long st) {
    if (st > 0 && e > s) return ((unsigned long long)e - (unsigned long long)s - 1) / (unsigned long long)st + 1;
    if (st < 0 && s > e) return ((unsigned long long)s - (unsigned long long)e - 1) / ((unsigned long long)0 - (unsigned long long)st) + 1;
    return 0;
}

extern "C" __global__ void tk_blur_count(float* v_out,
        long long tk_n0_v_out,
        long long tk_n1_v_out,
        float* v_img,
        long long tk_n0_v_img,
        long long tk_n1_v_img,
        long long tk_count,
        long long* tk_out) {
    const long long tk_e0 = 1LL;
    const long long tk_e1 = tk_s64((unsigned long long)tk_n0_v_img - (unsigned long long)1LL);
    const unsigned long long tk_c2 = tk_trip_s((long long)tk_e0, (long long)tk_e1, (long long)1LL);
    const long long tk_e3 = 1LL;
    const long long tk_e4 = tk_s64((unsigned long long)tk_n1_v_img - (unsigned long long)1LL);
    const unsigned long long tk_c5 = tk_trip_s((long long)tk_e3, (long long)tk_e4, (long long)1LL);
    unsigned long long tk_total = 1;
    int tk_big = 0, tk_empty = 0;
    if (tk_c2 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807ULL / tk_c2) tk_big = 1;
    else tk_total *= tk_c2;
    if (tk_c5 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807ULL / tk_c5) tk_big = 1;
    else tk_total *= tk_c5;
    if (tk_big && !tk_empty) {
        tk_out[1] = 2;
        tk_out[4] = 2;
        tk_out[5] = tk_s64(tk_c2);
        tk_out[6] = 0;
        tk_out[7] = tk_s64(tk_c5);
        tk_out[8] = 0;
        tk_out[0] = -1;
        return;
    }
    tk_out[0] = tk_empty ? 0 : (long long)tk_total;
}

extern "C" __global__ void tk_blur_body(float* v_out,
        long long tk_n0_v_out,
        long long tk_n1_v_out,
        float* v_img,
        long long tk_n0_v_img,
        long long tk_n1_v_img,
        long long tk_count,
        long long* tk_out) {
    const long long tk_i = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    if (tk_i >= tk_count) return;
    long long v_y = 0;
    long long v_x = 0;
    const long long tk_e0 = 1LL;
    const long long tk_e1 = tk_s64((unsigned long long)tk_n0_v_img - (unsigned long long)1LL);
    const unsigned long long tk_c2 = tk_trip_s((long long)tk_e0, (long long)tk_e1, (long long)1LL);
    const long long tk_e3 = 1LL;
    const long long tk_e4 = tk_s64((unsigned long long)tk_n1_v_img - (unsigned long long)1LL);
    const unsigned long long tk_c5 = tk_trip_s((long long)tk_e3, (long long)tk_e4, (long long)1LL);
    const unsigned long long tk_e6 = (unsigned long long)tk_i % tk_c5;
    const unsigned long long tk_e7 = (unsigned long long)tk_i / tk_c5;
    v_y = tk_s64((unsigned long long)tk_e0 + (unsigned long long)tk_s64((unsigned long long)tk_e7));
    v_x = tk_s64((unsigned long long)tk_e3 + (unsigned long long)tk_s64((unsigned long long)tk_e6));
    v_out[(v_y * tk_n1_v_out + v_x)] = ((((v_img[(tk_s64((unsigned long long)v_y - (unsigned long long)1LL) * tk_n1_v_img + v_x)] + v_img[(tk_s64((unsigned long long)v_y + (unsigned long long)1LL) * tk_n1_v_img + v_x)]) + v_img[(v_y * tk_n1_v_img + tk_s64((unsigned long long)v_x - (unsigned long long)1LL))]) + v_img[(v_y * tk_n1_v_img + tk_s64((unsigned long long)v_x + (unsigned long long)1LL))]) * 0.25f);
}
