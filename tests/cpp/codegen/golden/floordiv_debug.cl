// Tack kernel 'floordiv' for opencl
#pragma OPENCL FP_CONTRACT OFF

static inline long tk_s64(ulong u) {
    return u <= 9223372036854775807UL ? (long)u : (long)(u - 9223372036854775808UL) - 9223372036854775807L - 1L;
}
static inline int tk_debug_claim(__global long* d, int id) {
    int zero = 0;
    if (!atomic_compare_exchange_strong_explicit((volatile __global atomic_int*)d, &zero, 1, memory_order_relaxed, memory_order_relaxed, memory_scope_device)) return 0;
    d[1] = id;
    return 1;
}
static inline short tk_s16(uint u) {
    u &= 65535u;
    return (short)(u <= 32767u ? (int)u : (int)u - 65536);
}
static inline short tk_floordiv_i16(short a, short b) {
    if ((uint)b + (uint)1 <= (uint)1) return tk_s16((uint)a * (uint)b);
    int q = (int)a / (int)b, m = (int)a % (int)b;
    return (short)(m != 0 && (m < 0) != (b < 0) ? q - 1 : q);
}
static inline ulong tk_trip_s(long s, long e, long st) {
    if (st > 0 && e > s) return ((ulong)e - (ulong)s - 1) / (ulong)st + 1;
    if (st < 0 && s > e) return ((ulong)s - (ulong)e - 1) / ((ulong)0 - (ulong)st) + 1;
    return 0;
}

__kernel void tk_floordiv_count(__global char* tk_b_v_q,
        long tk_o_v_q,
        long tk_n0_v_q,
        __global char* tk_b_v_a,
        long tk_o_v_a,
        long tk_n0_v_a,
        __global char* tk_b_v_b,
        long tk_o_v_b,
        long tk_n0_v_b,
        long tk_count,
        __global long* tk_out,
        __global long* tk_debug) {
    __global short* v_q = (__global short*)(tk_b_v_q + tk_o_v_q);
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
        __global char* tk_b_v_a,
        long tk_o_v_a,
        long tk_n0_v_a,
        __global char* tk_b_v_b,
        long tk_o_v_b,
        long tk_n0_v_b,
        long tk_count,
        __global long* tk_out,
        __global long* tk_debug) {
    const long tk_i = (long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0);
    if (tk_i >= tk_count) return;
    __global short* v_q = (__global short*)(tk_b_v_q + tk_o_v_q);
    __global short* v_a = (__global short*)(tk_b_v_a + tk_o_v_a);
    __global short* v_b = (__global short*)(tk_b_v_b + tk_o_v_b);
    long v_i = 0;
    const long tk_e0 = 0L;
    const long tk_e1 = tk_n0_v_q;
    v_i = tk_s64((ulong)tk_e0 + (ulong)tk_i);
    const long tk_e2 = v_i;
    const int tk_ok3 = (ulong)tk_e2 < (ulong)tk_n0_v_a;
    if (!tk_ok3 && tk_debug_claim(tk_debug, 0)) {
        tk_debug[2] = tk_e2;
        tk_debug[10] = tk_n0_v_a;
    }
    short tk_e4 = 0;
    if (tk_ok3) tk_e4 = v_a[tk_e2];
    const long tk_e5 = v_i;
    const int tk_ok6 = (ulong)tk_e5 < (ulong)tk_n0_v_b;
    if (!tk_ok6 && tk_debug_claim(tk_debug, 1)) {
        tk_debug[2] = tk_e5;
        tk_debug[10] = tk_n0_v_b;
    }
    short tk_e7 = 0;
    if (tk_ok6) tk_e7 = v_b[tk_e5];
    if (tk_e7 == 0) (void)tk_debug_claim(tk_debug, 2);
    const long tk_e8 = v_i;
    const int tk_ok9 = (ulong)tk_e8 < (ulong)tk_n0_v_q;
    if (!tk_ok9 && tk_debug_claim(tk_debug, 3)) {
        tk_debug[2] = tk_e8;
        tk_debug[10] = tk_n0_v_q;
    }
    if (tk_ok9) {
        v_q[tk_e8] = tk_floordiv_i16(tk_e4, tk_e7);
    }
}
