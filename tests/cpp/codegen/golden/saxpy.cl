// Tack kernel 'saxpy' for opencl
#pragma OPENCL FP_CONTRACT OFF

static inline long tk_s64(ulong u) {
    return u <= 9223372036854775807UL ? (long)u : (long)(u - 9223372036854775808UL) - 9223372036854775807L - 1L;
}
static inline ulong tk_trip_s(long s, long e, long st) {
    if (st > 0 && e > s) return ((ulong)e - (ulong)s - 1) / (ulong)st + 1;
    if (st < 0 && s > e) return ((ulong)s - (ulong)e - 1) / ((ulong)0 - (ulong)st) + 1;
    return 0;
}

__kernel void tk_saxpy_count(__global char* tk_b_v_y,
        long tk_o_v_y,
        long tk_n0_v_y,
        __global char* tk_b_v_x,
        long tk_o_v_x,
        long tk_n0_v_x,
        float tk_arg_v_alpha,
        long tk_count,
        __global long* tk_out) {
    __global float* v_y = (__global float*)(tk_b_v_y + tk_o_v_y);
    const long tk_e0 = 0L;
    const long tk_e1 = tk_n0_v_y;
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

__kernel void tk_saxpy_body(__global char* tk_b_v_y,
        long tk_o_v_y,
        long tk_n0_v_y,
        __global char* tk_b_v_x,
        long tk_o_v_x,
        long tk_n0_v_x,
        float tk_arg_v_alpha,
        long tk_count,
        __global long* tk_out) {
    const long tk_i = (long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0);
    if (tk_i >= tk_count) return;
    __global float* v_y = (__global float*)(tk_b_v_y + tk_o_v_y);
    __global float* v_x = (__global float*)(tk_b_v_x + tk_o_v_x);
    float v_alpha = tk_arg_v_alpha;
    long v_i = 0;
    const long tk_e0 = 0L;
    const long tk_e1 = tk_n0_v_y;
    v_i = tk_s64((ulong)tk_e0 + (ulong)tk_i);
    v_y[v_i] = ((v_alpha * v_x[v_i]) + v_y[v_i]);
}
