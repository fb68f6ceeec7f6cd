"""Fixed-width integer semantics: wrapping arithmetic, promotion, casts,
stores, shifts, exact comparisons and builtins, literals, scalar arguments
and Boolean values.

The oracle is Python's big integers reduced modulo 2^N (`wrap`), never
Tack's own output. Every numerical case runs once per backend.
"""

import itertools
import random

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY

from integer_types import INT_NAMES, NP, bits, hi, lo, promoted, signed, wrap  # noqa: E402,F401


def interesting(name, count=12, seed=0):
    """Boundary values of a type and seeded random ones, as Python ints."""
    l, h = lo(name), hi(name)
    vals = {l, l + 1, h, h - 1, 0, 1, 2, h // 2, h // 2 + 1}
    if signed(name):
        vals |= {-1, -2, l // 2}
    rng = random.Random(seed * 1000 + bits(name) + signed(name))
    vals |= {rng.randint(l, h) for _ in range(count)}
    return sorted(vals)


def arr(values, name):
    return tack.array(np.array([int(v) for v in values], dtype=object).astype(NP[name]))


def py(a):
    return [int(v) for v in a.numpy()]


# --------------------------------------------------------------- wrapping


# One kernel per dtype checks every same-type rule, to keep compiles few.
@tack.kernel
def wrapping_ops(a, b, add, sub, mul, neg, band, bor, bxor, inv, same_abs, wide_abs, sum_negative, wide_div):
    for i in range(len(a)):
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        neg[i] = -a[i]
        band[i] = a[i] & b[i]
        bor[i] = a[i] | b[i]
        bxor[i] = a[i] ^ b[i]
        inv[i] = ~a[i]
        same_abs[i] = abs(a[i])
        wide_abs[i] = abs(a[i])
        sum_negative[i] = (a[i] + b[i]) < a[i] - a[i]
        wide_div[i] = (a[i] * b[i]) // tack.u8(3)


def wrapping_outputs(name, n):
    wide = "i64" if signed(name) else "u64"
    types = [name] * 9 + [wide, "i32", "i64"]
    return [tack.zeros(n, dtype=getattr(tack, t)) for t in types]


@pytest.mark.parametrize("name", INT_NAMES)
def test_wrapping_arithmetic_and_bitwise_ops(backend, name):
    vals = interesting(name)
    pairs = list(itertools.product(vals, vals))
    xs = [p[0] for p in pairs]
    ys = [p[1] for p in pairs]
    outs = wrapping_outputs(name, len(pairs))
    wrapping_ops(arr(xs, name), arr(ys, name), *outs)
    ops = [
        lambda x, y: x + y,
        lambda x, y: x - y,
        lambda x, y: x * y,
        lambda x, y: -x,
        lambda x, y: x & y,
        lambda x, y: x | y,
        lambda x, y: x ^ y,
        lambda x, y: ~x,
    ]
    for op, out in zip(ops, outs):
        assert py(out) == [wrap(op(x, y), name) for x, y in pairs]
    # Each nested operation wraps before its result is used.
    assert py(outs[10]) == [int(wrap(x + y, name) < 0) for x, y in pairs]
    assert py(outs[11]) == [wrap(x * y, name) // 3 for x, y in pairs]
    # abs keeps its type, so the signed minimum stays negative when it is
    # later widened; unsigned abs is the identity.
    expected_abs = [wrap(abs(x), name) for x, y in pairs]
    assert py(outs[8]) == expected_abs
    assert py(outs[9]) == expected_abs
    if signed(name):
        assert wrap(abs(lo(name)), name) == lo(name) and lo(name) in xs


def test_examples_from_the_contract(backend):
    outs = wrapping_outputs("i8", 1)
    wrapping_ops(arr([127], "i8"), arr([1], "i8"), *outs)
    assert py(outs[0]) == [-128]
    u = arr([65535], "u16")
    outs = wrapping_outputs("u16", 1)
    wrapping_ops(u, u, *outs)
    assert py(outs[2]) == [1]


# ---------------------------------------------------------------- promotion


@tack.kernel
def mixed_ops(a, b, k, flag, shifted, lt, eq, mn, mx, sel, joined):
    for i in range(len(a)):
        shifted[i] = (a[i] + b[i]) << k[i]
        lt[i] = a[i] < b[i]
        eq[i] = a[i] == b[i]
        mn[i] = min(a[i], b[i])
        mx[i] = max(a[i], b[i])
        sel[i] = a[i] if flag[i] else b[i]
        x = a[i]
        if flag[i] == 0:
            x = b[i]
        joined[i] = (x << k[i]) >> k[i]


# Promotion is symmetric: each unordered pair of distinct types once (same
# types are the wrapping cases above), plus the contract's examples with the
# unsigned operand first.
MIXED_PAIRS = [
    (a, b) for k, a in enumerate(INT_NAMES) for b in INT_NAMES[k + 1 :] if promoted(a, b) is not None
] + [("u16", "i8"), ("u32", "i16"), ("u32", "i32")]


def test_promotion_table():
    assert promoted("i8", "u16") == "i32"
    assert promoted("i16", "u32") == "i64"
    assert promoted("i32", "u32") == "i64"
    assert promoted("u8", "i8") == "i16"
    assert promoted("i64", "u64") is None
    assert len(MIXED_PAIRS) == 24 + 3


@pytest.mark.parametrize("a_name,b_name", MIXED_PAIRS)
def test_mixed_promotion_is_exact_and_wraps_at_the_promoted_width(backend, a_name, b_name):
    t = promoted(a_name, b_name)
    out_name = "i64" if signed(t) else "u64"
    xs = [lo(a_name), hi(a_name), 0, 1, hi(a_name), lo(a_name), hi(a_name) // 3]
    ys = [hi(b_name), lo(b_name), hi(b_name), lo(b_name), hi(b_name), 0, lo(b_name) // 5 + 7]
    ys = [wrap(y, b_name) for y in ys]
    n = len(xs)
    # A shift by N - 8 overflows the promoted type exactly when it is
    # narrower than the true sum, and distinguishes it from wider types.
    shift = bits(t) - 8
    flags = [i % 2 for i in range(n)]
    outs = {
        name: tack.zeros(n, dtype=getattr(tack, out_name))
        for name in ["shifted", "lt", "eq", "mn", "mx", "sel", "joined"]
    }
    mixed_ops(arr(xs, a_name), arr(ys, b_name), arr([shift] * n, "i32"), arr(flags, "i32"), *outs.values())
    assert py(outs["shifted"]) == [wrap(wrap(x + y, t) << shift, t) for x, y in zip(xs, ys)]
    assert py(outs["lt"]) == [int(x < y) for x, y in zip(xs, ys)]
    assert py(outs["eq"]) == [int(x == y) for x, y in zip(xs, ys)]
    assert py(outs["mn"]) == [min(x, y) for x, y in zip(xs, ys)]
    assert py(outs["mx"]) == [max(x, y) for x, y in zip(xs, ys)]
    assert py(outs["sel"]) == [x if f else y for x, y, f in zip(xs, ys, flags)]
    assert py(outs["joined"]) == [
        wrap(wrap((x if f else y) << shift, t) >> shift, t) for x, y, f in zip(xs, ys, flags)
    ]


@tack.kernel
def unsigned_high_bits(a, b, lt, ge, mn, mx):
    for i in range(len(a)):
        lt[i] = a[i] < b[i]
        ge[i] = a[i] >= b[i]
        mn[i] = min(a[i], b[i])
        mx[i] = max(a[i], b[i])


@pytest.mark.parametrize("name", ["u8", "u16", "u32", "u64"])
def test_unsigned_high_bit_comparisons_and_extrema(backend, name):
    h = hi(name)
    xs = [h, h >> 1, (h >> 1) + 1, 0, h, 1]
    ys = [1, (h >> 1) + 1, h >> 1, h, h - 1, h]
    n = len(xs)
    lt, ge = tack.zeros(n, dtype=tack.i32), tack.zeros(n, dtype=tack.i32)
    mn, mx = tack.zeros(n, dtype=tack.u64), tack.zeros(n, dtype=tack.u64)
    unsigned_high_bits(arr(xs, name), arr(ys, name), lt, ge, mn, mx)
    assert py(lt) == [int(x < y) for x, y in zip(xs, ys)]
    assert py(ge) == [int(x >= y) for x, y in zip(xs, ys)]
    assert py(mn) == [min(x, y) for x, y in zip(xs, ys)]
    assert py(mx) == [max(x, y) for x, y in zip(xs, ys)]


@tack.kernel
def add_rejected(a, b, out):
    for i in range(len(out)):
        out[i] = a[i] + b[i]


@tack.kernel
def compare_rejected(a, b, out):
    for i in range(len(out)):
        out[i] = a[i] < b[i]


@tack.kernel
def select_rejected(a, b, out):
    for i in range(len(out)):
        out[i] = a[i] if i > 0 else b[i]


@tack.kernel
def join_rejected(a, b, out):
    for i in range(len(out)):
        x = a[i]
        if i > 0:
            x = b[i]
        out[i] = 1


@tack.kernel
def min_rejected(a, b, out):
    for i in range(len(out)):
        out[i] = min(a[i], b[i])


@pytest.mark.parametrize("kernel", [add_rejected, compare_rejected, select_rejected, join_rejected, min_rejected])
@pytest.mark.parametrize("s_name", ["i8", "i16", "i32", "i64"])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_signed_with_u64_needs_an_explicit_cast(kernel, s_name, swap):
    a, b = arr([1], s_name), arr([1], "u64")
    if swap:
        a, b = b, a
    with pytest.raises(tack.KernelTypeError) as info:
        kernel(a, b, tack.zeros(1, dtype=tack.i64))
    assert isinstance(info.value, TypeError)
    assert "cast" in info.value.message
    assert info.value.line is not None


@tack.kernel
def explicit_cast_before_promotion(a, b, out):
    for i in range(len(out)):
        out[i] = tack.u64(a[i]) + b[i]


def test_an_explicit_cast_expresses_intentional_wrapping(backend):
    out = tack.zeros(2, dtype=tack.u64)
    explicit_cast_before_promotion(arr([-1, -3], "i32"), arr([1, 5], "u64"), out)
    assert py(out) == [0, 2]


# -------------------------------------------------------------------- casts


def _cast_kernel():
    @tack.kernel
    def casts(a, c_i8, c_i16, c_i32, c_i64, c_u8, c_u16, c_u32, c_u64, s_i8, s_i16, s_i32, s_i64, s_u8, s_u16, s_u32, s_u64):
        for i in range(len(a)):
            c_i8[i] = tack.i8(a[i])
            c_i16[i] = tack.i16(a[i])
            c_i32[i] = tack.i32(a[i])
            c_i64[i] = tack.i64(a[i])
            c_u8[i] = tack.u8(a[i])
            c_u16[i] = tack.u16(a[i])
            c_u32[i] = tack.u32(a[i])
            c_u64[i] = tack.u64(a[i])
            s_i8[i] = a[i]
            s_i16[i] = a[i]
            s_i32[i] = a[i]
            s_i64[i] = a[i]
            s_u8[i] = a[i]
            s_u16[i] = a[i]
            s_u32[i] = a[i]
            s_u64[i] = a[i]

    return casts


integer_casts = _cast_kernel()


@tack.kernel
def cast_then_widen(a, to_i64, to_u64):
    for i in range(len(a)):
        to_i64[i] = tack.i64(tack.i8(a[i])) + tack.i64(tack.u8(a[i]))
        to_u64[i] = tack.u64(tack.i16(a[i])) ^ tack.u64(tack.u16(a[i]))


@pytest.mark.parametrize("src", INT_NAMES)
def test_all_integer_cast_pairs_and_stores_reduce_modulo_2n(backend, src):
    vals = interesting(src, count=20)
    outs = [tack.zeros(len(vals), dtype=getattr(tack, d)) for d in INT_NAMES * 2]
    integer_casts(arr(vals, src), *outs)
    for k, dst in enumerate(INT_NAMES * 2):
        assert py(outs[k]) == [wrap(v, dst) for v in vals], (src, dst, "cast" if k < 8 else "store")


@pytest.mark.parametrize("src", ["i64", "u64", "i32"])
def test_casts_compose_by_source_signedness(backend, src):
    vals = interesting(src)
    a, b = tack.zeros(len(vals), dtype=tack.i64), tack.zeros(len(vals), dtype=tack.u64)
    cast_then_widen(arr(vals, src), a, b)
    assert py(a) == [wrap(v, "i8") + wrap(v, "u8") for v in vals]
    assert py(b) == [wrap(wrap(v, "i16"), "u64") ^ wrap(v, "u16") for v in vals]


def test_widening_examples_from_the_contract(backend):
    outs = [tack.zeros(1, dtype=getattr(tack, d)) for d in INT_NAMES * 2]
    integer_casts(arr([-1], "i8"), *outs)
    assert py(outs[INT_NAMES.index("u64")]) == [2**64 - 1]
    outs = [tack.zeros(1, dtype=getattr(tack, d)) for d in INT_NAMES * 2]
    integer_casts(arr([255], "u8"), *outs)
    assert py(outs[INT_NAMES.index("i64")]) == [255]


@tack.kernel
def float_to_int(x, o_i8, o_i16, o_i32, o_i64, o_u8, o_u16, o_u32, o_u64, o_int, local_u32):
    for i in range(len(x)):
        o_i8[i] = tack.i8(x[i])
        o_i16[i] = tack.i16(x[i])
        o_i32[i] = tack.i32(x[i])
        o_i64[i] = tack.i64(x[i])
        o_u8[i] = tack.u8(x[i] * x[i])
        o_u16[i] = tack.u16(x[i] * x[i])
        o_u32[i] = tack.u32(x[i] * x[i])
        o_u64[i] = tack.u64(x[i] * x[i])
        o_int[i] = int(x[i])
        v = tack.u32(x[i] * x[i])
        local_u32[i] = v > 100


@pytest.mark.parametrize("fname", ["f32", "f64"])
def test_float_to_int_truncates_toward_zero(backend, fname):
    xs = np.array([0.0, -0.0, 0.5, -0.5, 1.99, -1.99, 2.5, -2.5, 11.75, -11.75, 100.9, -100.9, 127.9, -128.5], dtype=fname.replace("f", "float"))
    sq = (xs * xs).astype(xs.dtype)
    outs = [tack.zeros(len(xs), dtype=getattr(tack, d)) for d in INT_NAMES] + [
        tack.zeros(len(xs), dtype=tack.i32),
        tack.zeros(len(xs), dtype=tack.i32),
    ]
    float_to_int(tack.array(xs), *outs)
    trunc = [int(v) for v in xs]
    trunc_sq = [int(v) for v in sq]
    for k, d in enumerate(INT_NAMES):
        expected = trunc if signed(d) else [t if t <= hi(d) else None for t in trunc_sq]
        got = py(outs[k])
        for g, e in zip(got, expected):
            if e is not None:
                assert g == e, d
    assert py(outs[8]) == trunc
    assert py(outs[9]) == [int(t > 100) for t in trunc_sq]


# ------------------------------------------------------------------- shifts


@tack.kernel
def shifts(a, k, left, right, left_wide, right_wide):
    for i in range(len(a)):
        left[i] = a[i] << k[i]
        right[i] = a[i] >> k[i]
        left_wide[i] = a[i] << k[i]
        right_wide[i] = a[i] >> k[i]


@pytest.mark.parametrize("name,count_name", [(n, "u64" if signed(n) else "i8") for n in INT_NAMES])
def test_shifts_keep_the_left_type_and_signedness(backend, name, count_name):
    vals = interesting(name, count=4)
    counts = [0, 1, bits(name) // 2, bits(name) - 1]
    pairs = list(itertools.product(vals, counts))
    xs, ks = [p[0] for p in pairs], [p[1] for p in pairs]
    wide = "i64" if signed(name) else "u64"
    outs = [tack.zeros(len(pairs), dtype=getattr(tack, t)) for t in [name, name, wide, wide]]
    shifts(arr(xs, name), arr(ks, count_name), *outs)
    expected_left = [wrap(x << k, name) for x, k in pairs]
    expected_right = [x >> k for x, k in pairs]  # Python's >> floors: arithmetic for signed
    assert py(outs[0]) == expected_left
    assert py(outs[1]) == expected_right
    assert py(outs[2]) == expected_left
    assert py(outs[3]) == expected_right


# --------------------------------------------------- literals and scalars


@tack.kernel
def literal_values(o_i64, o_u64, o_i32, o_sum):
    for i in range(len(o_i64)):
        o_i64[i] = -9223372036854775808
        o_u64[i] = 18446744073709551615
        o_i32[i] = -2147483648
        o_sum[i] = (9223372036854775807 + 1) < 0


def test_integer_literals_are_classified_by_their_complete_value(backend):
    outs = [tack.zeros(1, dtype=t) for t in (tack.i64, tack.u64, tack.i32, tack.i32)]
    literal_values(*outs)
    assert [py(o)[0] for o in outs] == [-(2**63), 2**64 - 1, -(2**31), 1]


@tack.kernel
def literal_types(a, o_a, o_b, o_c):
    for i in range(len(a)):
        # 2147483648 is i64, so the sum is i64 and does not wrap at 32 bits.
        o_a[i] = a[i] + 2147483648
        # 2147483647 is i32: i32 + i32 wraps at 32 bits.
        o_b[i] = a[i] + 2147483647
        # -2147483648 is i32 and 9223372036854775808 is u64.
        o_c[i] = 9223372036854775808 + tack.u64(a[i])


def test_literal_types_drive_promotion(backend):
    outs = [tack.zeros(1, dtype=t) for t in (tack.i64, tack.i64, tack.u64)]
    literal_types(arr([1], "i32"), *outs)
    assert [py(o)[0] for o in outs] == [2**31 + 1, -(2**31), 2**63 + 1]


@tack.kernel
def literal_too_wide(out):
    for i in range(len(out)):
        out[i] = 18446744073709551616


@tack.kernel
def negative_literal_too_wide(out):
    for i in range(len(out)):
        out[i] = -9223372036854775809


@pytest.mark.parametrize("kernel", [literal_too_wide, negative_literal_too_wide])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_literals_outside_64_bits_are_rejected(kernel):
    with pytest.raises(tack.CompileError) as info:
        kernel(tack.zeros(1, dtype=tack.i64))
    assert "64 bits" in info.value.message


@tack.kernel
def scalar_probe(s, top, wide):
    for i in range(len(top)):
        top[i] = s >> 31
        wide[i] = (s << 20) >> 20


@pytest.mark.parametrize(
    "value,kind",
    [
        (5, "i32"),
        (-(2**31), "i32"),
        (2**31 - 1, "i32"),
        (2**31, "i64"),
        (-(2**31) - 1, "i64"),
        (-(2**63), "i64"),
        (2**63 - 1, "i64"),
        (2**63, "u64"),
        (2**64 - 1, "u64"),
    ],
)
def test_integer_scalar_arguments_by_magnitude(backend, value, kind):
    out = "u64" if kind == "u64" else "i64"
    top = tack.zeros(1, dtype=getattr(tack, out))
    wide = tack.zeros(1, dtype=getattr(tack, out))
    scalar_probe(value, top, wide)
    # Shifts keep the scalar's type and wrap at its width: that reveals it.
    assert py(top) == [wrap(value >> 31, out)]
    assert py(wide) == [wrap(wrap(value << 20, kind) >> 20, out)]


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, 10**30])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_integer_scalars_outside_64_bits_are_rejected(value):
    with pytest.raises((TypeError, ValueError)):
        scalar_probe(value, tack.zeros(1, dtype=tack.i32), tack.zeros(1, dtype=tack.i64))


@tack.kernel
def numpy_scalar(s, out):
    for i in range(len(out)):
        out[i] = s + s


def test_numpy_scalars_keep_their_dtype(backend):
    out = tack.zeros(1, dtype=tack.i64)
    numpy_scalar(np.uint8(200), out)
    assert py(out) == [144]
    numpy_scalar(np.int8(-100), out)
    assert py(out) == [56]


# ----------------------------------------------------------------- Booleans


@tack.kernel
def booleans(a, b, f, o_lt, o_not, o_and, o_or, o_true, o_false, o_sum, o_neg, o_fnot, o_wide):
    for i in range(len(a)):
        o_lt[i] = a[i] < b[i]
        o_not[i] = not a[i]
        o_and[i] = a[i] and b[i]
        o_or[i] = a[i] or b[i]
        o_true[i] = True
        o_false[i] = False
        o_sum[i] = (a[i] < b[i]) + (a[i] != b[i]) + True
        o_neg[i] = -(a[i] < b[i])
        o_fnot[i] = not f[i]
        o_wide[i] = (f[i] == f[i]) and (a[i] >= b[i])


def test_booleans_are_i32_zero_or_one(backend):
    xs = [0, 3, -5, 7, 0, -1]
    ys = [0, 5, 0, 2, -9, -1]
    fs = np.array([0.0, -0.0, 1.5, np.nan, -2.0, 0.5], dtype=np.float32)
    n = len(xs)
    names = ["lt", "not", "and", "or", "true", "false", "sum", "neg", "fnot"]
    outs = [tack.zeros(n, dtype=tack.i64) for _ in names] + [tack.zeros(n, dtype=tack.f64)]
    booleans(arr(xs, "i64"), arr(ys, "i64"), tack.array(fs), *outs)
    got = dict(zip(names, [py(o) for o in outs[:-1]]))
    assert got["lt"] == [int(x < y) for x, y in zip(xs, ys)]
    assert got["not"] == [int(not x) for x in xs]
    assert got["and"] == [int(bool(x and y)) for x, y in zip(xs, ys)]
    assert got["or"] == [int(bool(x or y)) for x, y in zip(xs, ys)]
    assert got["true"] == [1] * n
    assert got["false"] == [0] * n
    assert got["sum"] == [int(x < y) + int(x != y) + 1 for x, y in zip(xs, ys)]
    assert got["neg"] == [-int(x < y) for x, y in zip(xs, ys)]
    assert got["fnot"] == [int(not bool(f)) for f in fs]  # NaN is true
    assert list(outs[-1].numpy()) == [float((f == f) and (x >= y)) for f, x, y in zip(fs, xs, ys)]
