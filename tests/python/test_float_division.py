"""Floating floor division and remainder (CPython's algorithm).

The oracle is NumPy's typed floor_divide and remainder after converting
both operands to the promoted floating type, plus the contract's listed
exceptional cases written out by hand. Zeros and exceptional classes and
signs must match exactly; finite nonzero results lie within four ULP.
Every numerical case runs once per backend.
"""

import itertools
import random

import numpy as np
import pytest
import tack

ALL_NAMES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"]
NP = {name: np.dtype(getattr(tack, name).numpy) for name in ALL_NAMES}
NAME_OF = {d: name for name, d in NP.items()}
INF, NAN = float("inf"), float("nan")


def promoted_float(a, b):
    return "f64" if "f64" in (a, b) else "f32"


def ulp_distance(got, expected):
    itype = np.int32 if got.dtype == np.float32 else np.int64

    def ordered(x):
        i = x.view(itype).astype(np.int64)
        return np.where(i < 0, np.iinfo(itype).min - i, i)

    return np.abs(ordered(got) - ordered(expected))


def assert_float_results(got, expected, tolerance=4, context=""):
    """Classes, infinities and zeros (with sign) exact; finite nonzero values
    within `tolerance` ULP."""
    got = np.asarray(got)
    expected = np.asarray(expected).astype(got.dtype)
    for k, (g, e) in enumerate(zip(got, expected)):
        where = f"{context} element {k}: got {g!r}, expected {e!r}"
        if np.isnan(e):
            assert np.isnan(g), where
        elif np.isinf(e) or e == 0:
            assert g == e and np.signbit(g) == np.signbit(e), where
        else:
            assert np.isfinite(g) and np.signbit(g) == np.signbit(e), where
            assert ulp_distance(np.array([g]), np.array([e]))[0] <= tolerance, where


def numpy_divmod(a, b, t):
    a = np.asarray(a).astype(NP[t])
    b = np.asarray(b).astype(NP[t])
    with np.errstate(all="ignore"):
        return np.floor_divide(a, b), np.remainder(a, b)


@tack.kernel
def fdivmod(a, b, q, r):
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def run(a, b, out_name):
    q = tack.zeros(len(a), dtype=getattr(tack, out_name))
    r = tack.zeros(len(a), dtype=getattr(tack, out_name))
    fdivmod(tack.array(a), tack.array(b), q, r)
    return q.numpy(), r.numpy()


def check(a, b, context=""):
    t = promoted_float(NAME_OF[a.dtype], NAME_OF[b.dtype])
    q, r = run(a, b, t)
    eq, er = numpy_divmod(a, b, t)
    assert_float_results(q, eq, context=context + " //")
    assert_float_results(r, er, context=context + " %")


# ---------------------------------------------------------- contract cases


CONTRACT_CASES = [
    # a, b, a // b, a % b
    (7.0, 2.0, 3.0, 1.0),
    (-7.0, 2.0, -4.0, 1.0),
    (7.0, -2.0, -4.0, -1.0),
    (-7.0, -2.0, 3.0, -1.0),
    (6.0, -3.0, -2.0, -0.0),  # a zero remainder has the divisor's sign
    (-6.0, 3.0, -2.0, 0.0),
    (0.0, -3.0, -0.0, -0.0),  # a zero quotient has the true quotient's sign
    (-0.0, 3.0, -0.0, 0.0),
    (-0.0, -3.0, 0.0, -0.0),
    (1.0, 3.0, 0.0, 1.0),
    (-1.0, -3.0, 0.0, -1.0),
    (NAN, 3.0, NAN, NAN),
    (3.0, NAN, NAN, NAN),
    (INF, 3.0, NAN, NAN),
    (-INF, -INF, NAN, NAN),
    (0.0, INF, 0.0, 0.0),
    (-0.0, INF, -0.0, 0.0),
    (0.0, -INF, -0.0, -0.0),
    (-0.0, -INF, 0.0, -0.0),
    (5.0, INF, 0.0, 5.0),  # same signs: signed-zero quotient, the dividend
    (-5.0, -INF, 0.0, -5.0),
    (-5.0, INF, -1.0, INF),  # opposite signs: -1 and the infinite divisor
    (5.0, -INF, -1.0, -INF),
]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_contract_exceptional_cases(backend, t):
    a = np.array([c[0] for c in CONTRACT_CASES], dtype=NP[t])
    b = np.array([c[1] for c in CONTRACT_CASES], dtype=NP[t])
    q, r = run(a, b, t)
    assert_float_results(q, np.array([c[2] for c in CONTRACT_CASES]), tolerance=0, context="// by hand")
    assert_float_results(r, np.array([c[3] for c in CONTRACT_CASES]), tolerance=0, context="% by hand")
    eq, er = numpy_divmod(a, b, t)
    assert_float_results(q, eq, context="// numpy")
    assert_float_results(r, er, context="% numpy")


SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 5.5, -5.5, 1e-3, -3.0, 1e30, -1e30, 0.1]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_every_pair_of_special_values(backend, t):
    pairs = [(x, y) for x, y in itertools.product(SPECIALS, SPECIALS) if y != 0]
    check(np.array([p[0] for p in pairs], dtype=NP[t]), np.array([p[1] for p in pairs], dtype=NP[t]), t)


# --------------------------------------------------------- finite values


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_rounded_multiples_and_their_neighbours(backend, t):
    ft = NP[t].type
    divisors = [ft(0.1), ft(-0.1), ft(0.3), ft(1.0) / ft(3.0), ft(7.0), ft(-2.5), ft(1e-3)]
    a, b = [], []
    for d in divisors:
        for k in range(-25, 26):
            m = ft(k) * d
            for v in (m, np.nextafter(m, ft(np.inf)), np.nextafter(m, ft(-np.inf))):
                a.append(v)
                b.append(d)
    check(np.array(a, dtype=NP[t]), np.array(b, dtype=NP[t]), t)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_seeded_finite_inputs(backend, t):
    rng = np.random.default_rng(12)
    n = 3000
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    b = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    b[b == 0] = 1.0
    check(a.astype(NP[t]), b.astype(NP[t]), t)


@pytest.mark.parametrize(
    "t,a,b",
    [
        ("f64", 1e308, 1e-308),
        ("f64", -1e308, 1e-308),
        ("f64", 1.7e308, 0.5),
        ("f32", 3e38, 1e-30),
        ("f32", -3e38, 0.25),
        ("f64", 2.0**60 + 2.0**8, 3.0),
        ("f32", 2.0**30, 3.0),
    ],
)
def test_large_and_overflowing_quotients(backend, t, a, b):
    check(np.array([a, -a, a], dtype=NP[t]), np.array([b, b, -b], dtype=NP[t]), t)
    q, _ = run(np.array([a], dtype=NP[t]), np.array([b], dtype=NP[t]), t)
    if abs(a) / abs(b) > float(np.finfo(NP[t]).max):
        assert np.isinf(q[0])


PAIRS = [(x, y) for x in ALL_NAMES for y in ALL_NAMES if "f" in x[0] + y[0]]


def values_of(name, n, rng):
    if name.startswith("f"):
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        return v.astype(NP[name])
    info = np.iinfo(NP[name])
    low = max(int(info.min), -(10**6))
    v = [int(x) for x in rng.integers(low, min(int(info.max), 10**6), n - 2, endpoint=True)]
    return np.array(v + [int(info.min), int(info.max)], dtype=object).astype(NP[name])


@pytest.mark.parametrize("a_name,b_name", PAIRS)
def test_every_floating_and_integer_type_pair(backend, a_name, b_name):
    rng = np.random.default_rng(len(a_name + b_name) * 100 + ALL_NAMES.index(a_name) * 10 + ALL_NAMES.index(b_name))
    a = values_of(a_name, 60, rng)
    b = values_of(b_name, 60, rng)
    b[b == 0] = 3
    check(a, b, f"{a_name}, {b_name}")


# ----------------------------------------------- precision and structure


@tack.kernel
def precision_kinds(a, b, widened_out, explicit, explicit_mod):
    for i in range(len(a)):
        widened_out[i] = a[i] // b[i]
        explicit[i] = tack.f64(a[i]) // b[i]
        explicit_mod[i] = a[i] % tack.f64(b[i])


def test_explicit_casts_widen_and_an_output_alone_does_not(backend):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(200) * 1000).astype(np.float32)
    b = (rng.standard_normal(200) * 0.7).astype(np.float32)
    outs = [tack.zeros(200, dtype=tack.f64) for _ in range(3)]
    precision_kinds(tack.array(a), tack.array(b), *outs)
    q32, _ = numpy_divmod(a, b, "f32")
    q64, r64 = numpy_divmod(a, b, "f64")
    assert_float_results(outs[0].numpy(), q32.astype(np.float64), tolerance=0)
    assert_float_results(outs[1].numpy(), q64)
    assert_float_results(outs[2].numpy(), r64)


@tack.kernel
def nested(a, b, c, out1, out2, out3):
    for i in range(len(a)):
        out1[i] = (a[i] // b[i]) % c[i]
        q = a[i] // b[i]
        r = a[i] % b[i]
        out2[i] = q * b[i] + r
        out3[i] = -(a[i] % b[i]) // c[i]


def test_nested_expressions(backend):
    rng = np.random.default_rng(9)
    a = rng.uniform(-100, 100, 300)
    b = rng.uniform(0.5, 3, 300) * rng.choice([-1, 1], 300)
    c = rng.uniform(0.5, 7, 300) * rng.choice([-1, 1], 300)
    outs = [tack.zeros(300, dtype=tack.f64) for _ in range(3)]
    nested(tack.array(a), tack.array(b), tack.array(c), *outs)
    q, r = numpy_divmod(a, b, "f64")
    assert_float_results(outs[0].numpy(), np.remainder(q, c))
    np.testing.assert_allclose(outs[1].numpy(), a, rtol=1e-13, atol=1e-12)
    assert_float_results(outs[2].numpy(), np.floor_divide(-r, c))


@tack.func
def counted(counter, i, value):
    counter[i] = counter[i] + 1
    return value


@tack.kernel
def effects(a, b, counter, q, r):
    for i in range(len(a)):
        q[i] = counted(counter, i, a[i]) // counted(counter, i, b[i]) if b[i] != 0.0 else 42.0
        if b[i]:
            r[i] = a[i] % counted(counter, i, b[i])
        else:
            r[i] = -42.0


def test_single_evaluation_and_guarded_zero_divisors(backend):
    a = np.array([7.5, -7.5, 1.0, NAN, 3.0], dtype=np.float32)
    b = np.array([2.0, 0.0, -0.0, 2.0, NAN], dtype=np.float32)
    counter = tack.zeros(5, dtype=tack.i32)
    q, r = tack.zeros(5), tack.zeros(5)
    effects(tack.array(a), tack.array(b), counter, q, r)
    # A NaN divisor is nonzero: `b != 0` and `if b` both select the division.
    assert list(counter.numpy()) == [3, 0, 0, 3, 3]
    eq, er = numpy_divmod(a, b, "f32")
    eq = np.where(b != 0, eq, 42.0)
    er = np.where(b != 0, er, -42.0)
    assert_float_results(q.numpy(), eq)
    assert_float_results(r.numpy(), er)
