"""Safe floating-point execution: precision, exceptional values, signed
zeros, comparisons and truth, min/max with NaN, grouping and permitted
contraction, sqrt/floor/ceil edge cases and the math builtins.

Oracles: NumPy's typed arithmetic and math functions, IEEE rules written
out by hand, and exact rational arithmetic (fractions) rounded once or
twice for contraction. Nothing here uses // or %. Every numerical case runs
once per backend.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import tack
from float_bits import round_to, ulp_distance

NAN, INF = float("nan"), float("inf")
NP = {"f32": np.float32, "f64": np.float64}


def same_class(got, expected):
    """NaN where NaN is expected; otherwise equal with the same sign bit."""
    got, expected = np.asarray(got), np.asarray(expected, dtype=np.asarray(got).dtype)
    return [
        (bool(np.isnan(g)) if np.isnan(e) else (g == e and np.signbit(g) == np.signbit(e)))
        for g, e in zip(got, expected)
    ]


# ----------------------------------------------------- ordinary arithmetic


@tack.kernel
def basic(a, b, add, sub, mul, div, root, neg):
    for i in range(len(a)):
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]
        root[i] = math.sqrt(abs(a[i]))
        neg[i] = -a[i]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_seeded_normal_inputs_use_their_precision(backend, t):
    rng = np.random.default_rng(21)
    n = 2000
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-5, 6, n)).astype(NP[t])
    b = (rng.standard_normal(n) * 10.0 ** rng.integers(-5, 6, n)).astype(NP[t])
    outs = [tack.zeros(n, dtype=getattr(tack, t)) for _ in range(6)]
    basic(tack.array(a), tack.array(b), *outs)
    add, sub, mul, div, root, neg = (o.numpy() for o in outs)
    assert np.array_equal(add, a + b)
    assert np.array_equal(sub, a - b)
    assert np.array_equal(mul, a * b)
    assert np.all(ulp_distance(div, a / b) <= 4)
    assert np.all(ulp_distance(root, np.sqrt(np.abs(a))) <= 4)
    assert np.array_equal(neg, -a)


@tack.kernel
def mixed_precision(a32, b64, out64, out32):
    for i in range(len(a32)):
        out64[i] = a32[i] * b64[i]
        out32[i] = a32[i] * a32[i]


def test_f32_with_f64_promotes_and_an_output_alone_does_not(backend):
    a = np.array([0.1, 1 / 3, 7.7], dtype=np.float32)
    b = np.array([0.1, 3.0, 1e-3])
    o64, o32 = tack.zeros(3, dtype=tack.f64), tack.zeros(3, dtype=tack.f64)
    mixed_precision(tack.array(a), tack.array(b), o64, o32)
    assert np.array_equal(o64.numpy(), a.astype(np.float64) * b)
    assert np.array_equal(o32.numpy(), (a * a).astype(np.float64))


# ----------------------------------------------------- exceptional values


@tack.kernel
def identities(x, y, sub_self, mul_zero, add_zero, div_self, inf_times, neg, absval, div_y):
    for i in range(len(x)):
        sub_self[i] = x[i] - x[i]
        mul_zero[i] = x[i] * 0.0
        add_zero[i] = x[i] + 0.0
        div_self[i] = x[i] / x[i]
        inf_times[i] = x[i] * y[i]
        neg[i] = -x[i]
        absval[i] = abs(x[i])
        div_y[i] = y[i] / x[i]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_unsafe_identity_folds_do_not_happen(backend, t):
    x = np.array([INF, -INF, NAN, -0.0, 0.0, -1.0, 2.5, 0.0, -0.0], dtype=NP[t])
    y = np.array([0.0, 0.0, 1.0, 5.0, -5.0, INF, -INF, 1.0, -1.0], dtype=NP[t])
    outs = [tack.zeros(len(x), dtype=getattr(tack, t)) for _ in range(8)]
    identities(tack.array(x), tack.array(y), *outs)
    with np.errstate(all="ignore"):
        expected = [x - x, x * NP[t](0.0), x + NP[t](0.0), x / x, x * y, -x, np.abs(x), y / x]
    for name, o, e in zip(
        ["x-x", "x*0", "x+0", "x/x", "x*y", "-x", "abs", "y/x"], outs, expected
    ):
        assert all(same_class(o.numpy(), e)), (name, o.numpy(), e)
    got = outs[0].numpy()
    assert np.isnan(got[0]) and np.isnan(got[1])  # inf - inf
    assert np.isnan(outs[4].numpy()[0])  # inf * 0
    assert np.signbit(outs[1].numpy()[5])  # -1 * 0 is -0
    assert not np.signbit(outs[2].numpy()[3])  # -0 + 0 is +0
    assert list(outs[7].numpy()[3:5]) == [-INF, -INF]  # 5 / -0 and -5 / 0
    assert list(outs[7].numpy()[7:9]) == [INF, INF]  # 1 / 0 and -1 / -0
    assert np.signbit(outs[5].numpy()[4]) and not np.signbit(outs[6].numpy()[3])


@tack.kernel
def overflow(x, out):
    for i in range(len(x)):
        out[i] = x[i] * x[i] * 10.0


def test_overflow_stays_infinite(backend):
    for t in ("f32", "f64"):
        big = np.array([np.finfo(NP[t]).max / 2, -np.finfo(NP[t]).max], dtype=NP[t])
        out = tack.zeros(2, dtype=getattr(tack, t))
        overflow(tack.array(big), out)
        assert list(out.numpy()) == [INF, INF]


@tack.kernel
def comparisons(x, y, eq, ne, lt, le, gt, ge, truth, negated, self_ne, branch):
    for i in range(len(x)):
        eq[i] = x[i] == y[i]
        ne[i] = x[i] != y[i]
        lt[i] = x[i] < y[i]
        le[i] = x[i] <= y[i]
        gt[i] = x[i] > y[i]
        ge[i] = x[i] >= y[i]
        truth[i] = 1 if x[i] else 0
        negated[i] = not x[i]
        self_ne[i] = x[i] != x[i]
        branch[i] = 0
        if x[i]:
            branch[i] = 1
        while x[i] and branch[i] < 3:
            branch[i] = branch[i] + 1


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_comparisons_and_truth_with_nan_and_signed_zero(backend, t):
    x = np.array([NAN, NAN, 1.0, -0.0, 0.0, INF, -INF, 2.0], dtype=NP[t])
    y = np.array([NAN, 1.0, NAN, 0.0, -0.0, INF, 0.0, 3.0], dtype=NP[t])
    outs = [tack.zeros(len(x), dtype=tack.i32) for _ in range(10)]
    comparisons(tack.array(x), tack.array(y), *outs)
    got = [list(o.numpy()) for o in outs]
    assert got[0] == [int(a == b) for a, b in zip(x, y)]
    assert got[1] == [int(a != b) for a, b in zip(x, y)]
    assert got[2] == [int(a < b) for a, b in zip(x, y)]
    assert got[3] == [int(a <= b) for a, b in zip(x, y)]
    assert got[4] == [int(a > b) for a, b in zip(x, y)]
    assert got[5] == [int(a >= b) for a, b in zip(x, y)]
    assert got[6] == [int(bool(a)) for a in x]  # NaN is true, -0.0 false
    assert got[7] == [int(not a) for a in x]
    assert got[8] == [1, 1, 0, 0, 0, 0, 0, 0]
    assert got[9] == [3 if a else 0 for a in x]


@tack.kernel
def extrema(x, y, mn, mx, mn_lit, mx_lit):
    for i in range(len(x)):
        mn[i] = min(x[i], y[i])
        mx[i] = max(x[i], y[i])
        mn_lit[i] = min(x[i], 0.5)
        mx_lit[i] = max(0.5, x[i])


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_min_max_prefer_the_numeric_operand(backend, t):
    x = np.array([NAN, 1.0, NAN, -INF, 2.0, -3.0, INF, 0.0], dtype=NP[t])
    y = np.array([1.0, NAN, NAN, NAN, -2.0, 7.0, NAN, -0.0], dtype=NP[t])
    outs = [tack.zeros(len(x), dtype=getattr(tack, t)) for _ in range(4)]
    extrema(tack.array(x), tack.array(y), *outs)
    mn, mx, mn_lit, mx_lit = (o.numpy() for o in outs)
    assert all(same_class(mn[:7], np.fmin(x, y)[:7]))
    assert all(same_class(mx[:7], np.fmax(x, y)[:7]))
    assert mn[7] == 0 and mx[7] == 0  # either zero sign is allowed
    assert all(same_class(mn_lit, np.fmin(x, NP[t](0.5))))
    assert all(same_class(mx_lit, np.fmax(x, NP[t](0.5))))


# ------------------------------------------- grouping and contraction


@tack.kernel
def grouping(a, b, c, left, right, shifted):
    for i in range(len(a)):
        left[i] = (a[i] + b[i]) + c[i]
        right[i] = a[i] + (b[i] + c[i])
        shifted[i] = (c[i] + 1e20) - 1e20


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_parenthesized_cancellation_keeps_its_grouping(backend, t):
    a = np.array([1e20, 1e20, 1.0], dtype=NP[t])
    b = np.array([-1e20, -1e20, 1e20], dtype=NP[t])
    c = np.array([1.0, -3.5, -1e20], dtype=NP[t])
    outs = [tack.zeros(3, dtype=getattr(tack, t)) for _ in range(3)]
    grouping(tack.array(a), tack.array(b), tack.array(c), *outs)
    assert list(outs[0].numpy()) == [1.0, -3.5, 0.0]
    assert list(outs[1].numpy()) == list((a + (b + c)))
    assert list(outs[1].numpy())[:2] == [0.0, 0.0]
    assert list(outs[2].numpy()) == list((c + NP[t](1e20)) - NP[t](1e20))
    assert outs[2].numpy()[0] == 0.0


@tack.kernel
def contraction(a, b, c, fused_or_not, named, self_diff):
    for i in range(len(a)):
        fused_or_not[i] = a[i] * b[i] + c[i]
        p = a[i] * b[i]
        named[i] = p + c[i]
        q = p
        self_diff[i] = p - q


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_contraction_stays_inside_one_expression(backend, t):
    rng = np.random.default_rng(4)
    n = 400
    a = rng.standard_normal(n).astype(NP[t])
    b = rng.standard_normal(n).astype(NP[t])
    c = rng.standard_normal(n).astype(NP[t])
    outs = [tack.zeros(n, dtype=getattr(tack, t)) for _ in range(3)]
    contraction(tack.array(a), tack.array(b), tack.array(c), *outs)
    differ = 0
    for k in range(n):
        fa, fb, fc = (Fraction(float(v)) for v in (a[k], b[k], c[k]))
        separate = round_to(Fraction(float(round_to(fa * fb, t))) + fc, t)
        fused = round_to(fa * fb + fc, t)
        differ += separate != fused
        assert outs[0].numpy()[k] in (separate, fused), k
        # A value bound to a name is rounded once, whatever reads it.
        assert outs[1].numpy()[k] == separate, k
        assert outs[2].numpy()[k] == 0.0
    assert differ > 10  # the inputs do tell the two results apart


# ------------------------------------------------ sqrt, floor, ceil


@tack.kernel
def edges(x, root, fl, ce, fabs_):
    for i in range(len(x)):
        root[i] = math.sqrt(x[i])
        fl[i] = math.floor(x[i])
        ce[i] = tack.ceil(x[i])
        fabs_[i] = math.fabs(x[i])


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_sqrt_floor_ceil_edge_cases(backend, t):
    x = np.array([0.0, -0.0, INF, -INF, NAN, -1.0, 4.0, -0.5, 0.5, 2.5, -2.5, 1e-3], dtype=NP[t])
    outs = [tack.zeros(len(x), dtype=getattr(tack, t)) for _ in range(4)]
    edges(tack.array(x), *outs)
    with np.errstate(invalid="ignore"):
        expected = [np.sqrt(x), np.floor(x), np.ceil(x), np.abs(x)]
    for o, e in zip(outs, expected):
        assert all(same_class(o.numpy(), e)), (o.numpy(), e)
    root, fl, ce, fa = (o.numpy() for o in outs)
    assert np.signbit(root[1]) and root[1] == 0  # sqrt(-0) is -0
    assert root[2] == INF and np.isnan(root[3]) and np.isnan(root[5])
    assert np.signbit(fl[1]) and np.signbit(ce[1]) and np.signbit(ce[7])  # ceil(-0.5) is -0
    assert fl[3] == -INF and ce[2] == INF and np.isnan(fl[4])
    assert not np.signbit(fa[1])


# ------------------------------------------------------ math builtins


@tack.kernel
def fifteen(pos, trig, unit, wide, expo, o_sqrt, o_sin, o_cos, o_tan, o_asin, o_acos, o_atan, o_atan2, o_exp, o_log, o_floor, o_ceil, o_fabs, o_pow, o_power):
    for i in range(len(pos)):
        o_sqrt[i] = math.sqrt(pos[i])
        o_sin[i] = math.sin(trig[i])
        o_cos[i] = math.cos(trig[i])
        o_tan[i] = math.tan(unit[i])
        o_asin[i] = math.asin(unit[i])
        o_acos[i] = math.acos(unit[i])
        o_atan[i] = math.atan(wide[i])
        o_atan2[i] = math.atan2(wide[i], trig[i])
        o_exp[i] = math.exp(wide[i])
        o_log[i] = math.log(pos[i])
        o_floor[i] = math.floor(wide[i])
        o_ceil[i] = math.ceil(wide[i])
        o_fabs[i] = math.fabs(wide[i])
        o_pow[i] = pow(pos[i], expo[i])
        o_power[i] = pos[i] ** expo[i]


def fifteen_inputs(t, n=500):
    rng = np.random.default_rng(8)
    pos = rng.uniform(0.01, 100, n).astype(NP[t])
    trig = rng.uniform(-3, 3, n).astype(NP[t])
    unit = rng.uniform(-1, 1, n).astype(NP[t])
    wide = rng.uniform(-10, 10, n).astype(NP[t])
    expo = rng.uniform(-3, 3, n).astype(NP[t])
    return pos, trig, unit, wide, expo


LIBM = ["sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "log", "pow"]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_all_fifteen_math_forms_within_8_ulp(backend, t):
    pos, trig, unit, wide, expo = fifteen_inputs(t)
    n = len(pos)
    outs = [tack.zeros(n, dtype=getattr(tack, t)) for _ in range(15)]
    args = [tack.array(v) for v in (pos, trig, unit, wide, expo)]
    fifteen(*args, *outs)
    expected = [
        np.sqrt(pos), np.sin(trig), np.cos(trig), np.tan(unit), np.arcsin(unit), np.arccos(unit),
        np.arctan(wide), np.arctan2(wide, trig), np.exp(wide), np.log(pos), np.floor(wide),
        np.ceil(wide), np.abs(wide), np.power(pos, expo), pos ** expo,
    ]
    names = ["sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "log", "floor", "ceil", "fabs", "pow", "**"]
    for name, o, e in zip(names, outs, expected):
        assert o.numpy().dtype == NP[t]
        assert e.dtype == NP[t]
        assert np.max(ulp_distance(o.numpy(), e)) <= 8, name
    llvm = fifteen.inspect("llvm", *args, *outs)
    suffix = "f" if t == "f32" else ""
    for fn in LIBM:
        assert f"@{fn}{suffix}(" in llvm, fn
    if t == "f64":
        assert "@sinf(" not in llvm and "@powf(" not in llvm


@tack.kernel
def mixed_math(i32s, i64s, x64, sq, sq64, at2, pw, mn, root_lit, sin32, sin64):
    for i in range(len(i32s)):
        sq[i] = math.sqrt(i64s[i])
        sq64[i] = math.sqrt(tack.f64(i64s[i]))
        at2[i] = math.atan2(i32s[i], x64[i])
        pw[i] = pow(i32s[i], 0.5)
        mn[i] = min(i32s[i], x64[i])
        root_lit[i] = math.sqrt(i32s[i]) + 0.1
        sin32[i] = math.sin(tack.f32(x64[i]))
        sin64[i] = math.sin(x64[i])


def test_integer_and_mixed_math_arguments(backend):
    ints = np.array([2, 3, 5, 10, 12345], dtype=np.int32)
    longs = np.array([2, 3, 2**40 + 1, 7, 99], dtype=np.int64)
    x = np.array([0.1, -2.0, 3.0, 0.7, 1e-3])
    outs = [tack.zeros(5, dtype=tack.f64) for _ in range(8)]
    mixed_math(tack.array(ints), tack.array(longs), tack.array(x), *outs)
    got = [o.numpy() for o in outs]
    f32 = np.float32
    # Integer arguments convert to f32 unless another argument is f64.
    assert np.all(ulp_distance(got[0].astype(f32), np.sqrt(longs.astype(f32))) <= 4)
    assert np.array_equal(got[0].astype(f32).astype(np.float64), got[0])
    assert np.all(ulp_distance(got[1], np.sqrt(longs.astype(np.float64))) <= 4)
    assert np.all(ulp_distance(got[2], np.arctan2(ints.astype(np.float64), x)) <= 8)
    assert np.array_equal(got[3].astype(f32).astype(np.float64), got[3])
    assert np.all(ulp_distance(got[3].astype(f32), np.power(ints.astype(f32), f32(0.5))) <= 8)
    assert np.array_equal(got[4], np.minimum(ints.astype(np.float64), x))
    assert np.array_equal(got[5].astype(f32).astype(np.float64), got[5])
    assert np.all(ulp_distance(got[6].astype(f32), np.sin(x.astype(f32))) <= 8)
    # f32 libm results are rounded to f32 before they are widened.
    assert np.array_equal(got[6].astype(f32).astype(np.float64), got[6])
    # An explicit f64 operand requests f64.
    assert np.all(ulp_distance(got[7], np.sin(x)) <= 8)
    assert not np.array_equal(got[7].astype(f32).astype(np.float64), got[7])
