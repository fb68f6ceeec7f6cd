"""The math builtins beyond the first fifteen: hyperbolic and inverse
hyperbolic functions, log2/log10/exp2, expm1/log1p, cbrt, hypot, erf/erfc,
the exact functions (trunc, round, copysign, fmod), the class tests (isnan,
isinf, isfinite) and clamp.

Oracles: NumPy's float64 functions (math.erf/erfc, which NumPy lacks) rounded
once to the array's type, NumPy's exact functions (trunc, rint, copysign,
fmod, isnan, ...), and IEEE rules written out by hand. The transcendental
functions are held to the 8 ULP bound docs/numerics.md states for the math
builtins on bounded domains; the exact functions must match bit for bit.
Every numerical case runs once per backend, in f32 and f64.
"""

import math

import numpy as np
import pytest
import tack
from float_bits import identical, ulp_distance

NAN, INF = float("nan"), float("inf")
NP = {"f32": np.float32, "f64": np.float64}


def erf64(x):
    return np.array([math.erf(v) for v in np.asarray(x, dtype=np.float64)])


def erfc64(x):
    return np.array([math.erfc(v) for v in np.asarray(x, dtype=np.float64)])


# --------------------------------------------------- transcendental functions


@tack.kernel
def transcendental(a, b, c, d, e, f, g, h, k, o):
    for i in range(len(a)):
        o[0, i] = tack.tanh(a[i])
        o[1, i] = tack.sinh(a[i])
        o[2, i] = tack.cosh(a[i])
        o[3, i] = tack.asinh(b[i])
        o[4, i] = tack.acosh(c[i])
        o[5, i] = tack.atanh(d[i])
        o[6, i] = tack.log2(e[i])
        o[7, i] = tack.log10(e[i])
        o[8, i] = tack.exp2(f[i])
        o[9, i] = tack.expm1(g[i])
        o[10, i] = tack.log1p(h[i])
        o[11, i] = tack.cbrt(b[i])
        o[12, i] = tack.hypot(k[i], b[i])
        o[13, i] = tack.erf(d[i] * 3)
        o[14, i] = tack.erfc(d[i] * 3)


NAMES = ["tanh", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10", "exp2", "expm1", "log1p", "cbrt", "hypot",
         "erf", "erfc"]


def domains(t, n=600):
    """Bounded domains, each with a share of small magnitudes where expm1,
    log1p, sinh, tanh and asinh differ from their naive formulas."""
    rng = np.random.default_rng(31)
    small = rng.uniform(-1e-4, 1e-4, n // 6)

    def mix(wide):
        return np.concatenate([small, wide[: n - len(small)]]).astype(NP[t])

    big = 1e30 if t == "f32" else 1e300  # hypot must not overflow where x*x does
    return dict(
        a=mix(rng.uniform(-10, 10, n)),
        b=mix(rng.uniform(-1000, 1000, n)),
        c=rng.uniform(1, 1000, n).astype(NP[t]),
        d=mix(rng.uniform(-0.99, 0.99, n)),
        e=rng.uniform(1e-3, 1e4, n).astype(NP[t]),
        f=mix(rng.uniform(-30, 30, n)),
        g=mix(rng.uniform(-5, 5, n)),
        h=mix(rng.uniform(-0.5, 10, n)),
        k=np.concatenate([rng.uniform(-big, big, n // 6), rng.uniform(-1000, 1000, n - n // 6)]).astype(NP[t]),
    )


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_transcendental_functions_within_8_ulp_of_float64_rounded(backend, t):
    x = domains(t)
    n = len(x["a"])
    out = tack.zeros((len(NAMES), n), dtype=getattr(tack, t))
    transcendental(*[tack.array(x[name]) for name in "abcdefghk"], out)
    got = out.numpy()
    w = {name: v.astype(np.float64) for name, v in x.items()}
    # d * 3 is computed in the array's precision before erf sees it.
    d3 = (x["d"] * NP[t](3)).astype(np.float64)
    expected = [
        np.tanh(w["a"]), np.sinh(w["a"]), np.cosh(w["a"]), np.arcsinh(w["b"]), np.arccosh(w["c"]),
        np.arctanh(w["d"]), np.log2(w["e"]), np.log10(w["e"]), np.exp2(w["f"]), np.expm1(w["g"]),
        np.log1p(w["h"]), np.cbrt(w["b"]), np.hypot(w["k"], w["b"]), erf64(d3), erfc64(d3),
    ]
    for row, (name, e) in enumerate(zip(NAMES, expected)):
        reference = e.astype(NP[t])  # rounded once to the array's type
        assert np.all(np.isfinite(reference)), name
        distance = ulp_distance(got[row], reference)
        assert np.max(distance) <= 8, (name, np.max(distance), x)
    llvm = transcendental.inspect("llvm", *[tack.array(x[name]) for name in "abcdefghk"], out)
    suffix = "f" if t == "f32" else ""
    for name in NAMES:
        assert f"@{name}{suffix}(" in llvm, name


def test_exceptional_classes_of_transcendental_functions(backend):
    # The class rules the C library gives and NumPy shares: a few of them.
    x = np.array([0.0, -0.0, INF, -INF, NAN], dtype=np.float64)

    @tack.kernel
    def classes(x, o):
        for i in range(len(x)):
            o[0, i] = tack.tanh(x[i])
            o[1, i] = tack.expm1(x[i])
            o[2, i] = tack.cbrt(x[i])
            o[3, i] = tack.erf(x[i])
            o[4, i] = tack.hypot(x[i], math.nan)

    out = tack.zeros((5, len(x)), dtype=tack.f64)
    classes(tack.array(x), out)
    got = out.numpy()
    assert identical(got[0], np.tanh(x))
    assert identical(got[1], np.expm1(x))
    assert identical(got[2], np.cbrt(x))
    assert identical(got[3], [0.0, -0.0, 1.0, -1.0, NAN])
    # hypot of an infinity is infinite even beside a NaN (C99 F.9.4.3).
    assert identical(got[4], [NAN, NAN, INF, INF, NAN])


# ----------------------------------------------------------- exact functions


SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 0.49999997, 1.0000001, 2.0**23 + 1, -(2.0**23) - 1,
           2.0**52 + 0.5, 123456.75, -7.25, 1e30, INF, -INF, NAN]


@tack.kernel
def exact(x, y, o):
    for i in range(len(x)):
        o[0, i] = tack.trunc(x[i])
        o[1, i] = tack.round(x[i])
        o[2, i] = round(x[i])
        o[3, i] = math.trunc(x[i])
        o[4, i] = tack.copysign(x[i], y[i])
        o[5, i] = tack.fmod(x[i], y[i])
        o[6, i] = math.fmod(y[i], x[i])


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_trunc_round_copysign_fmod_match_numpy_bit_for_bit(backend, t):
    rng = np.random.default_rng(5)
    x = np.concatenate([np.array(SPECIAL), rng.uniform(-100, 100, 200), rng.integers(-50, 50, 40) + 0.5])
    y = np.concatenate([np.array([1.0, -1.0, 0.0, -0.0, 2.0, -3.0, INF, -INF, NAN, 0.75] * 2),
                        rng.uniform(-9, 9, 240)])
    x, y = x.astype(NP[t]), y.astype(NP[t])
    out = tack.zeros((7, len(x)), dtype=getattr(tack, t))
    with np.errstate(invalid="ignore"):
        exact(tack.array(x), tack.array(y), out)
        got = out.numpy()
        assert identical(got[0], np.trunc(x))
        # Ties to even, like Python's round and NumPy's rint.
        assert identical(got[1], np.rint(x))
        assert identical(got[2], np.rint(x))
        assert identical(got[3], np.trunc(x))
        assert identical(got[4], np.copysign(x, y))
        # fmod is exact and takes the dividend's sign, zero results included.
        assert identical(got[5], np.fmod(x, y))
        assert identical(got[6], np.fmod(y, x))
    assert list(got[1][2:9]) == [0.0, -0.0, 2.0, -2.0, 2.0, -2.0, 4.0]


@tack.kernel
def promoted(ints, longs, x64, o32, o64, oi):
    for i in range(len(ints)):
        o32[0, i] = tack.round(ints[i]) + 0.25
        o32[1, i] = tack.trunc(ints[i]) / 4
        o32[2, i] = tack.tanh(ints[i])
        o64[0, i] = tack.round(longs[i])
        o64[1, i] = tack.tanh(tack.f64(ints[i]) / 10)
        o64[2, i] = tack.fmod(ints[i], x64[i])
        o64[3, i] = tack.round(x64[i]) * 0.1
        oi[i] = tack.round(longs[i])


def test_integer_arguments_promote_as_the_other_math_builtins(backend):
    ints = np.array([1, -3, 7, 100, 12345], dtype=np.int32)
    longs = np.array([2**40 + 1, 3, -(2**30) - 1, 5, 2**24 + 1], dtype=np.int64)
    x64 = np.array([0.3, -2.5, 4.0, 33.3, 1e-3])
    o32 = tack.zeros((3, 5), dtype=tack.f32)
    o64 = tack.zeros((4, 5), dtype=tack.f64)
    oi = tack.zeros(5, dtype=tack.i64)
    promoted(tack.array(ints), tack.array(longs), tack.array(x64), o32, o64, oi)
    f32 = np.float32
    # round and trunc of an integer are f32 values, not integers.
    assert np.array_equal(o32.numpy()[0], ints.astype(f32) + f32(0.25))
    assert np.array_equal(o32.numpy()[1], ints.astype(f32) / f32(4))
    assert np.all(ulp_distance(o32.numpy()[2], np.tanh(ints.astype(np.float64)).astype(f32)) <= 8)
    # An i64 argument becomes f32 first (as sqrt's does): 2**40 + 1 rounds.
    assert np.array_equal(o64.numpy()[0], longs.astype(f32).astype(np.float64))
    assert np.array_equal(oi.numpy(), longs.astype(f32).astype(np.int64))
    assert np.all(ulp_distance(o64.numpy()[1], np.tanh(ints.astype(np.float64) / 10)) <= 8)
    # With an f64 argument the other converts to f64.
    assert identical(o64.numpy()[2], np.fmod(ints.astype(np.float64), x64))
    assert identical(o64.numpy()[3], np.rint(x64) * 0.1)
    llvm = promoted.inspect("llvm", tack.array(ints), tack.array(longs), tack.array(x64), o32, o64, oi)
    assert "@tanhf(" in llvm and "@tanh(" in llvm


# ---------------------------------------------------------- class tests, clamp


@tack.kernel
def classify(x, ints, o):
    for i in range(len(x)):
        o[0, i] = tack.isnan(x[i])
        o[1, i] = tack.isinf(x[i])
        o[2, i] = tack.isfinite(x[i])
        o[3, i] = math.isnan(x[i]) + math.isinf(x[i]) * 2 + math.isfinite(x[i]) * 4
        o[4, i] = tack.isnan(ints[i]) + tack.isinf(ints[i]) * 2 + tack.isfinite(ints[i]) * 4
        o[5, i] = 10 if tack.isfinite(x[i]) else 20


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_isnan_isinf_isfinite_are_zero_or_one(backend, t):
    big = np.finfo(NP[t]).max
    x = np.array([0.0, -0.0, 1.0, -2.5, big, -big, INF, -INF, NAN, -NAN, 1e-30], dtype=NP[t])
    ints = np.array([0, -1, 2**31 - 1, -(2**31), 5, 6, 7, 8, 9, 10, 11], dtype=np.int32)
    out = tack.zeros((6, len(x)), dtype=tack.i32)
    classify(tack.array(x), tack.array(ints), out)
    got = out.numpy()
    assert np.array_equal(got[0], np.isnan(x).astype(np.int32))
    assert np.array_equal(got[1], np.isinf(x).astype(np.int32))
    assert np.array_equal(got[2], np.isfinite(x).astype(np.int32))
    assert np.array_equal(got[3], np.isnan(x) + np.isinf(x) * 2 + np.isfinite(x) * 4)
    assert np.array_equal(got[4], np.full(len(x), 4))  # integers are finite numbers
    assert np.array_equal(got[5], np.where(np.isfinite(x), 10, 20))


@tack.kernel
def clamps(x, lo, hi, ints, o, oi):
    for i in range(len(x)):
        o[0, i] = tack.clamp(x[i], lo[i], hi[i])
        o[1, i] = tack.clamp(x[i], 0.0, 1.0)
        oi[0, i] = tack.clamp(ints[i], -5, 5)
        oi[1, i] = tack.clamp(ints[i], tack.i32(lo[i]), 3)


def clamp_oracle(x, lo, hi):
    """max then min by comparisons, written out element by element."""
    out = []
    for v, a, b in zip(x, lo, hi):
        t = a if v < a else v
        out.append(b if t > b else t)
    return np.array(out, dtype=np.asarray(x).dtype)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_clamp_keeps_nan_and_clamps_integers_as_integers(backend, t):
    rng = np.random.default_rng(9)
    n = 200
    x = rng.uniform(-3, 3, n).astype(NP[t])
    lo = rng.uniform(-2, 0, n).astype(NP[t])
    hi = rng.uniform(0, 2, n).astype(NP[t])
    x[:6] = [NAN, NAN, INF, -INF, 1.5, -1.5]
    lo[:6] = [0.0, NAN, 0.0, 0.0, NAN, -1.0]
    hi[:6] = [1.0, 1.0, 1.0, 1.0, 1.0, NAN]
    lo[6], hi[6] = 1.0, -1.0  # lo > hi: the result is hi
    ints = rng.integers(-2**31, 2**31, n).astype(np.int32)
    o = tack.zeros((2, n), dtype=getattr(tack, t))
    oi = tack.zeros((2, n), dtype=tack.i32)
    clamps(tack.array(x), tack.array(lo), tack.array(hi), tack.array(ints), o, oi)
    got = o.numpy()
    assert identical(got[0], clamp_oracle(x, lo, hi))
    finite = ~np.isnan(lo) & ~np.isnan(hi)
    with np.errstate(invalid="ignore"):
        assert identical(got[0][finite], np.clip(x, lo, hi)[finite])  # NumPy agrees where the bounds are numbers
    assert np.isnan(got[0][0]) and np.isnan(got[0][1])  # a NaN x stays NaN
    assert list(got[0][2:7]) == [1.0, 0.0, 1.0, -1.0, -1.0]
    assert identical(got[1], clamp_oracle(x, np.zeros(n), np.ones(n)))
    assert np.array_equal(oi.numpy()[0], np.clip(ints, -5, 5))
    lo_i = np.trunc(np.nan_to_num(lo, nan=0.0)).astype(np.int32)
    expected = np.array([min(max(int(v), int(a)), 3) for v, a in zip(ints, lo_i)], dtype=np.int32)
    assert np.array_equal(oi.numpy()[1][6:], expected[6:])  # NaN lo converts to no portable integer


def test_clamp_of_an_f64_value_with_literal_bounds_uses_f64(backend):
    @tack.kernel
    def k(x, o):
        for i in range(len(x)):
            o[i] = tack.clamp(x[i], 0.1, 0.7)

    x = np.array([0.05, 0.1000000000000001, 0.3, 0.69999999999999, 0.8])
    o = tack.zeros(5, dtype=tack.f64)
    k(tack.array(x), o)
    assert identical(o.numpy(), np.clip(x, 0.1, 0.7))


def test_vectors_apply_the_builtins_per_component(backend):
    @tack.kernel
    def k(v, o, flags):
        for i in range(len(v)):
            o[i] = tack.clamp(v[i], 0.0, 1.0) + tack.trunc(v[i] * 2)
            flags[i] = tack.isnan(v[i])

    v = np.array([[0.5, -1.5, NAN], [2.75, 0.25, -0.0]], dtype=np.float32)
    o = tack.zeros(2, dtype=tack.vec3f)
    flags = tack.zeros(2, dtype=tack.vec3i)
    k(tack.array(v, dtype=tack.vec3f), o, flags)
    with np.errstate(invalid="ignore"):
        expected = clamp_oracle(v.ravel(), np.zeros(6), np.ones(6)).reshape(2, 3) + np.trunc(v * 2)
    assert identical(o.numpy().ravel(), expected.ravel())
    assert np.array_equal(flags.numpy(), np.isnan(v).astype(np.int32))


def test_evaluation_happens_once_and_in_order(backend):
    @tack.kernel
    def k(counter, o):
        for i in range(1):
            o[0] = tack.clamp(tack.atomic_add(counter, 0, 1), tack.atomic_add(counter, 0, 10), 100)
            o[1] = tack.isnan(tack.atomic_add(counter, 0, 100))

    counter = tack.zeros(1, dtype=tack.i32)
    o = tack.zeros(2, dtype=tack.i32)
    k(counter, o)
    # x reads 0, then lo reads 1: clamp(0, 1, 100) is 1; the third update sees 11.
    assert list(o.numpy()) == [1, 0]
    assert counter.numpy()[0] == 111


# ------------------------------------------------------------------ the host


def test_host_forms_follow_the_kernel_semantics():
    assert tack.round(2.5) == 2.0 and tack.round(-0.5) == 0.0 and math.copysign(1, tack.round(-0.5)) == -1
    assert np.isnan(tack.clamp(NAN, 0.0, 1.0)) and tack.clamp(5.0, NAN, 1.0) == 1.0
    assert tack.clamp(0.0, 3.0, 1.0) == 1.0
    assert abs(tack.erf(0.5) - math.erf(0.5)) == 0 and tack.erfc(0.5) == math.erfc(0.5)
    assert bool(tack.isnan(NAN)) and not tack.isfinite(INF)


def test_wrong_argument_counts_name_the_builtin():
    @tack.kernel
    def k(x):
        for i in range(len(x)):
            x[i] = tack.hypot(x[i])

    with pytest.raises(tack.KernelTypeError, match=r"hypot\(\) takes 2 arguments, got 1"):
        k(tack.zeros(2))

    @tack.kernel
    def c(x):
        for i in range(len(x)):
            x[i] = tack.clamp(x[i], 0.0)

    with pytest.raises(tack.KernelTypeError, match=r"clamp\(\) takes 3 arguments, got 2"):
        c(tack.zeros(2))


def test_metal_refuses_what_its_library_lacks():
    @tack.kernel
    def k(x):
        for i in range(len(x)):
            x[i] = tack.log1p(x[i]) + tack.tanh(x[i])

    with pytest.raises(tack.KernelTypeError, match=r"log1p\(\) is not supported by the metal target"):
        k.inspect("metal", tack.zeros(4))
    @tack.kernel
    def ok(x):
        for i in range(len(x)):
            x[i] = tack.tanh(x[i]) + tack.round(x[i]) + tack.fmod(x[i], 2.0)

    src = ok.inspect("metal", tack.zeros(4))
    assert "tanh(" in src and "rint(" in src and "fmod(" in src


@pytest.mark.parametrize("dialect,name", [("cuda", "rintf("), ("hip", "rintf("), ("opencl", "rint(")])
def test_gpu_sources_call_rint_for_round(dialect, name):
    @tack.kernel
    def k(x):
        for i in range(len(x)):
            x[i] = tack.round(x[i]) + tack.erfc(x[i])

    src = k.inspect(dialect, tack.zeros(4))
    assert name in src and "erfc" in src
