// Tack kernel 'transpose' for opencl
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
static inline long tk_floordiv_i64(long a, long b) {
    if ((ulong)b + (ulong)1 <= (ulong)1) return tk_s64((ulong)a * (ulong)b);
    long q = (long)a / (long)b, m = (long)a % (long)b;
    return (long)(m != 0 && (m < 0) != (b < 0) ? q - 1 : q);
}
static inline long tk_mod_i64(long a, long b) {
    if ((ulong)b + (ulong)1 <= (ulong)1) return 0;
    long m = (long)a % (long)b;
    return (long)(m != 0 && (m < 0) != (b < 0) ? m + b : m);
}
static inline ulong tk_trip_s(long s, long e, long st) {
    if (st > 0 && e > s) return ((ulong)e - (ulong)s - 1) / (ulong)st + 1;
    if (st < 0 && s > e) return ((ulong)s - (ulong)e - 1) / ((ulong)0 - (ulong)st) + 1;
    return 0;
}

__kernel void tk_transpose_count(__global char* tk_b_v_a,
        long tk_o_v_a,
        long tk_n0_v_a,
        __global char* tk_b_v_out,
        long tk_o_v_out,
        long tk_n0_v_out,
        long tk_arg_v_n,
        long tk_count,
        __global long* tk_out) {
    long v_n = tk_arg_v_n;
    const long tk_e0 = 0L;
    const long tk_e1 = tk_s64((ulong)v_n * (ulong)v_n);
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

__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void tk_transpose_body(__global char* tk_b_v_a,
        long tk_o_v_a,
        long tk_n0_v_a,
        __global char* tk_b_v_out,
        long tk_o_v_out,
        long tk_n0_v_out,
        long tk_arg_v_n,
        long tk_count,
        __global long* tk_out) {
    const long tk_i = (long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0);
    __global float* v_a = (__global float*)(tk_b_v_a + tk_o_v_a);
    __global float* v_out = (__global float*)(tk_b_v_out + tk_o_v_out);
    __local float v_tile[256];
    long v_n = tk_arg_v_n;
    long v_i = 0;
    int v_lane = 0;
    int tk_t3 = 0;
    int tk_t4 = 0;
    int v_ty = 0;
    int v_tx = 0;
    long v_t = 0;
    long tk_t8 = 0;
    long tk_t9 = 0;
    long v_by = 0;
    long v_bx = 0;
    const long tk_e0 = 0L;
    const long tk_e1 = tk_s64((ulong)v_n * (ulong)v_n);
    v_i = tk_s64((ulong)tk_e0 + (ulong)tk_i);
    v_lane = (int)get_local_id(0);
    tk_t3 = tk_floordiv_i32(v_lane, 16);
    tk_t4 = tk_mod_i32(v_lane, 16);
    v_ty = tk_t3;
    v_tx = tk_t4;
    v_t = tk_floordiv_i64(v_i, 256L);
    tk_t8 = tk_floordiv_i64(v_t, tk_floordiv_i64(v_n, 16L));
    tk_t9 = tk_mod_i64(v_t, tk_floordiv_i64(v_n, 16L));
    v_by = tk_t8;
    v_bx = tk_t9;
    v_tile[(long)tk_s32((uint)tk_s32((uint)v_ty * (uint)16) + (uint)v_tx)] = v_a[tk_s64((ulong)tk_s64((ulong)tk_s64((ulong)tk_s64((ulong)tk_s64((ulong)v_by * (ulong)16L) + (ulong)(long)v_ty) * (ulong)v_n) + (ulong)tk_s64((ulong)v_bx * (ulong)16L)) + (ulong)(long)v_tx)];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    (void)(0);
    v_out[tk_s64((ulong)tk_s64((ulong)tk_s64((ulong)tk_s64((ulong)tk_s64((ulong)v_bx * (ulong)16L) + (ulong)(long)v_ty) * (ulong)v_n) + (ulong)tk_s64((ulong)v_by * (ulong)16L)) + (ulong)(long)v_tx)] = v_tile[(long)tk_s32((uint)tk_s32((uint)v_tx * (uint)16) + (uint)v_ty)];
}
