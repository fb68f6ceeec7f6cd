// Tack kernel 'floordiv' for opencl
#pragma OPENCL FP_CONTRACT OFF

static inline long tk_s64(ulong u) {
    return u <= 9223372036854775807UL ? (long)u : (long)(u - 9223372036854775808UL) - 9223372036854775807L - 1L;
}
static inline int tk_s32(uint u) { return u <= 2147483647u ? (int)u : (int)(u - 2147483648u) - 2147483647 - 1; }
static inline int tk_floordiv_i32(int a, int b) {
    if ((uint)b + (uint)1 <= (uint)1) return tk_s32((uint)a * (uint)b);
    int q = (int)a / (int)b, m = (int)a % (int)b;
    return (int)(m != 0 && (m < 0) != (b < 0) ? q - 1 : q);
}
static inline int tk_mod_i32(int a, int b) {
    if ((uint)b + (uint)1 <= (uint)1) return 0;
    int m = (int)a % (int)b;
    return (int)(m != 0 && (m < 0) != (b < 0) ? m + b : m);
}
static inline ulong tk_trip_s(long s, long e, long st) {
    if (st > 0 && e > s) return ((ulong)e - (ulong)s - 1) / (ulong)st + 1;
    if (st < 0 && s > e) return ((ulong)s - (ulong)e - 1) / ((ulong)0 - (ulong)st) + 1;
    return 0;
}

__kernel void tk_floordiv_count(__global char* tk_b_v_q,
        long tk_o_v_q,
        long tk_n0_v_q,
        __global char* tk_b_v_r,
        long tk_o_v_r,
        long tk_n0_v_r,
        __global char* tk_b_v_a,
        long tk_o_v_a,
        long tk_n0_v_a,
        __global char* tk_b_v_b,
        long tk_o_v_b,
        long tk_n0_v_b,
        long tk_count,
        __global long* tk_out) {
    __global int* v_q = (__global int*)(tk_b_v_q + tk_o_v_q);
    const long tk_e0 = 0L;
    const long tk_e1 = tk_n0_v_q;
    const ulong tk_c2 = tk_trip_s((long)tk_e0, (long)tk_e1, (long)1L);
    ulong tk_total = 1;
    int tk_big = 0, tk_empty = 0;
    if (tk_c2 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807UL / tk_c2) tk_big = 1;
    else tk_total *= tk_c2;
    if (tk_big && !tk_empty) {
        tk_out[1] = 2;
        tk_out[4] = 1;
        tk_out[5] = tk_s64(tk_c2);
        tk_out[6] = 0;
        tk_out[0] = -1;
        return;
    }
    tk_out[0] = tk_empty ? 0 : (long)tk_total;
}

__kernel void tk_floordiv_body(__global char* tk_b_v_q,
        long tk_o_v_q,
        long tk_n0_v_q,
        __global char* tk_b_v_r,
        long tk_o_v_r,
        long tk_n0_v_r,
        __global char* tk_b_v_a,
        long tk_o_v_a,
        long tk_n0_v_a,
        __global char* tk_b_v_b,
        long tk_o_v_b,
        long tk_n0_v_b,
        long tk_count,
        __global long* tk_out) {
    const long tk_i = (long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0);
    if (tk_i >= tk_count) return;
    __global int* v_q = (__global int*)(tk_b_v_q + tk_o_v_q);
    __global int* v_r = (__global int*)(tk_b_v_r + tk_o_v_r);
    __global int* v_a = (__global int*)(tk_b_v_a + tk_o_v_a);
    __global int* v_b = (__global int*)(tk_b_v_b + tk_o_v_b);
    long v_i = 0;
    const long tk_e0 = 0L;
    const long tk_e1 = tk_n0_v_q;
    v_i = tk_s64((ulong)tk_e0 + (ulong)tk_i);
    v_q[v_i] = tk_floordiv_i32(v_a[v_i], v_b[v_i]);
    v_r[v_i] = tk_mod_i32(v_a[v_i], v_b[v_i]);
}
