// Tack kernel 'blur' for opencl
#pragma OPENCL FP_CONTRACT OFF

static inline long tk_s64(ulong u) {
    return u <= 9223372036854775807UL ? (long)u : (long)(u - 9223372036854775808UL) - 9223372036854775807L - 1L;
}
static inline ulong tk_trip_s(long s, long e, long st) {
    if (st > 0 && e > s) return ((ulong)e - (ulong)s - 1) / (ulong)st + 1;
    if (st < 0 && s > e) return ((ulong)s - (ulong)e - 1) / ((ulong)0 - (ulong)st) + 1;
    return 0;
}

__kernel void tk_blur_count(__global char* tk_b_v_out,
        long tk_o_v_out,
        long tk_n0_v_out,
        long tk_n1_v_out,
        __global char* tk_b_v_img,
        long tk_o_v_img,
        long tk_n0_v_img,
        long tk_n1_v_img,
        long tk_count,
        __global long* tk_out) {
    __global float* v_img = (__global float*)(tk_b_v_img + tk_o_v_img);
    const long tk_e0 = 1L;
    const long tk_e1 = tk_s64((ulong)tk_n0_v_img - (ulong)1L);
    const ulong tk_c2 = tk_trip_s((long)tk_e0, (long)tk_e1, (long)1L);
    const long tk_e3 = 1L;
    const long tk_e4 = tk_s64((ulong)tk_n1_v_img - (ulong)1L);
    const ulong tk_c5 = tk_trip_s((long)tk_e3, (long)tk_e4, (long)1L);
    ulong tk_total = 1;
    int tk_big = 0, tk_empty = 0;
    if (tk_c2 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807UL / tk_c2) tk_big = 1;
    else tk_total *= tk_c2;
    if (tk_c5 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807UL / tk_c5) tk_big = 1;
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
    tk_out[0] = tk_empty ? 0 : (long)tk_total;
}

__kernel void tk_blur_body(__global char* tk_b_v_out,
        long tk_o_v_out,
        long tk_n0_v_out,
        long tk_n1_v_out,
        __global char* tk_b_v_img,
        long tk_o_v_img,
        long tk_n0_v_img,
        long tk_n1_v_img,
        long tk_count,
        __global long* tk_out) {
    const long tk_i = (long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0);
    if (tk_i >= tk_count) return;
    __global float* v_out = (__global float*)(tk_b_v_out + tk_o_v_out);
    __global float* v_img = (__global float*)(tk_b_v_img + tk_o_v_img);
    long v_y = 0;
    long v_x = 0;
    const long tk_e0 = 1L;
    const long tk_e1 = tk_s64((ulong)tk_n0_v_img - (ulong)1L);
    const ulong tk_c2 = tk_trip_s((long)tk_e0, (long)tk_e1, (long)1L);
    const long tk_e3 = 1L;
    const long tk_e4 = tk_s64((ulong)tk_n1_v_img - (ulong)1L);
    const ulong tk_c5 = tk_trip_s((long)tk_e3, (long)tk_e4, (long)1L);
    const ulong tk_e6 = (ulong)tk_i % tk_c5;
    const ulong tk_e7 = (ulong)tk_i / tk_c5;
    v_y = tk_s64((ulong)tk_e0 + (ulong)tk_s64((ulong)tk_e7));
    v_x = tk_s64((ulong)tk_e3 + (ulong)tk_s64((ulong)tk_e6));
    v_out[(v_y * tk_n1_v_out + v_x)] = ((((v_img[(tk_s64((ulong)v_y - (ulong)1L) * tk_n1_v_img + v_x)] + v_img[(tk_s64((ulong)v_y + (ulong)1L) * tk_n1_v_img + v_x)]) + v_img[(v_y * tk_n1_v_img + tk_s64((ulong)v_x - (ulong)1L))]) + v_img[(v_y * tk_n1_v_img + tk_s64((ulong)v_x + (ulong)1L))]) * 0.25f);
}
