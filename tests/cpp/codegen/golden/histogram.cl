// Tack kernel 'histogram' for opencl
#pragma OPENCL FP_CONTRACT OFF

static inline long tk_s64(ulong u) {
    return u <= 9223372036854775807UL ? (long)u : (long)(u - 9223372036854775808UL) - 9223372036854775807L - 1L;
}
static inline long tk_mod_i64(long a, long b) {
    if ((ulong)b + (ulong)1 <= (ulong)1) return 0;
    long m = (long)a % (long)b;
    return (long)(m != 0 && (m < 0) != (b < 0) ? m + b : m);
}
static inline uint tk_atomic_add_u32(__global uint* p, uint v) {
    return atomic_fetch_add_explicit((volatile __global atomic_uint*)p, v, memory_order_relaxed, memory_scope_device);
}
static inline uint tk_atomic_max_u32(__global uint* p, uint v) {
    return atomic_fetch_max_explicit((volatile __global atomic_uint*)p, v, memory_order_relaxed, memory_scope_device);
}
static inline ulong tk_trip_s(long s, long e, long st) {
    if (st > 0 && e > s) return ((ulong)e - (ulong)s - 1) / (ulong)st + 1;
    if (st < 0 && s > e) return ((ulong)s - (ulong)e - 1) / ((ulong)0 - (ulong)st) + 1;
    return 0;
}

__kernel void tk_histogram_count(__global char* tk_b_v_bins,
        long tk_o_v_bins,
        long tk_n0_v_bins,
        __global char* tk_b_v_data,
        long tk_o_v_data,
        long tk_n0_v_data,
        __global char* tk_b_v_slots,
        long tk_o_v_slots,
        long tk_n0_v_slots,
        long tk_count,
        __global long* tk_out) {
    __global uint* v_data = (__global uint*)(tk_b_v_data + tk_o_v_data);
    const long tk_e0 = 0L;
    const long tk_e1 = tk_n0_v_data;
    const long tk_e2 = 2L;
    const ulong tk_c3 = tk_trip_s((long)tk_e0, (long)tk_e1, (long)tk_e2);
    if (tk_e2 <= 0) {
        tk_out[1] = 1;
        tk_out[2] = 0;
        tk_out[3] = (long)tk_e2;
        tk_out[0] = -1;
        return;
    }
    ulong tk_total = 1;
    int tk_big = 0, tk_empty = 0;
    if (tk_c3 == 0) tk_empty = 1;
    else if (tk_big || tk_total > 9223372036854775807UL / tk_c3) tk_big = 1;
    else tk_total *= tk_c3;
    if (tk_big && !tk_empty) {
        tk_out[1] = 2;
        tk_out[4] = 1;
        tk_out[5] = tk_s64(tk_c3);
        tk_out[6] = 0;
        tk_out[0] = -1;
        return;
    }
    tk_out[0] = tk_empty ? 0 : (long)tk_total;
}

__kernel void tk_histogram_body(__global char* tk_b_v_bins,
        long tk_o_v_bins,
        long tk_n0_v_bins,
        __global char* tk_b_v_data,
        long tk_o_v_data,
        long tk_n0_v_data,
        __global char* tk_b_v_slots,
        long tk_o_v_slots,
        long tk_n0_v_slots,
        long tk_count,
        __global long* tk_out) {
    const long tk_i = (long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0);
    if (tk_i >= tk_count) return;
    __global uint* v_bins = (__global uint*)(tk_b_v_bins + tk_o_v_bins);
    __global uint* v_data = (__global uint*)(tk_b_v_data + tk_o_v_data);
    __global uint* v_slots = (__global uint*)(tk_b_v_slots + tk_o_v_slots);
    long v_i = 0;
    const long tk_e0 = 0L;
    const long tk_e1 = tk_n0_v_data;
    const long tk_e2 = 2L;
    v_i = tk_s64((ulong)tk_e0 + (ulong)tk_s64((ulong)tk_i * (ulong)tk_e2));
    const uint tk_e3 = tk_atomic_add_u32(&v_bins[tk_mod_i64((long)v_data[v_i], tk_n0_v_bins)], 1u);
    v_slots[v_i] = tk_e3;
    const uint tk_e4 = v_data[v_i];
    tk_atomic_max_u32(&v_bins[0L], tk_e4);
}
