"""True division and integer power.

Integer `/` gives an f32 quotient of the operands converted to f32 (the
oracle is NumPy's typed f32 arithmetic after the same conversion, within
four ULP); explicit f64 casts give f64. Integer `**` and pow keep the base's
type and wrap: the oracle is Python's pow(a, e, 2**N) read with the base's
signedness. Every numerical case runs once per backend.
"""

import itertools
import random

import numpy as np
import pytest
import tack
from float_bits import ulp_distance
from backends import FRONTEND_ONLY

from integer_types import INT_NAMES, NP, bits, hi, lo, signed, wrap  # noqa: E402,F401


def arr(values, name):
    return tack.array(np.array([int(v) for v in values], dtype=object).astype(NP[name]))


def py(a):
    return [int(v) for v in a.numpy()]


# ------------------------------------------------------------ true division


@tack.kernel
def true_div(a, b, q, q2, q64):
    for i in range(len(a)):
        q[i] = a[i] / b[i]
        q2[i] = (a[i] / b[i]) * 2
        q64[i] = a[i] / b[i]


def test_contract_examples(backend):
    q, q2, q64 = tack.zeros(1), tack.zeros(1), tack.zeros(1, dtype=tack.f64)
    true_div(arr([7], "i32"), arr([2], "i32"), q, q2, q64)
    assert q.numpy()[0] == 3.5 and q.numpy().dtype == np.float32
    assert q2.numpy()[0] == 7.0


@pytest.mark.parametrize(
    "a_name,b_name",
    [(n, n) for n in INT_NAMES] + [("i32", "u64"), ("u64", "i8"), ("i8", "u16"), ("i64", "u32")],
)
def test_integer_true_division_is_f32(backend, a_name, b_name):
    rng = random.Random(bits(a_name) + bits(b_name))
    xs = [hi(a_name), lo(a_name), 7, 1, 0] + [rng.randint(lo(a_name), hi(a_name)) for _ in range(20)]
    ys = [3, hi(b_name), 2, 3, 5] + [rng.randint(lo(b_name), hi(b_name)) or 1 for _ in range(20)]
    n = len(xs)
    q, q2, q64 = tack.zeros(n), tack.zeros(n), tack.zeros(n, dtype=tack.f64)
    true_div(arr(xs, a_name), arr(ys, b_name), q, q2, q64)
    fa = np.array(xs, dtype=object).astype(NP[a_name]).astype(np.float32)
    fb = np.array(ys, dtype=object).astype(NP[b_name]).astype(np.float32)
    expected = fa / fb
    assert np.all(ulp_distance(q.numpy(), expected) <= 4)
    # An f64 destination alone does not widen the division.
    assert np.array_equal(q64.numpy(), q.numpy().astype(np.float64))
    assert np.all(ulp_distance(q2.numpy(), expected * np.float32(2)) <= 4)


@tack.kernel
def explicit_f64_div(a, b, q, mixed):
    for i in range(len(a)):
        q[i] = tack.f64(a[i]) / tack.f64(b[i])
        mixed[i] = a[i] / tack.f64(b[i])


def test_explicit_f64_casts_give_f64(backend):
    xs = [1, 2**53 + 1, -(2**62) - 1, 10**15 + 7, 7]
    ys = [3, 3, 7, 11, 2]
    q, m = tack.zeros(5, dtype=tack.f64), tack.zeros(5, dtype=tack.f64)
    explicit_f64_div(arr(xs, "i64"), arr(ys, "i64"), q, m)
    expected = np.array(xs, dtype=np.int64).astype(np.float64) / np.array(ys, dtype=np.int64).astype(np.float64)
    assert np.array_equal(q.numpy(), expected)
    assert np.array_equal(m.numpy(), expected)
    assert q.numpy()[0] != float(np.float32(1) / np.float32(3))


@tack.kernel
def float_operand_div(a, x, out):
    for i in range(len(a)):
        out[i] = a[i] / x[i]


def test_a_floating_operand_sets_the_precision(backend):
    xs = np.array([3.0, 7.0, 0.1], dtype=np.float64)
    out = tack.zeros(3, dtype=tack.f64)
    float_operand_div(arr([1, 2, 1], "i32"), tack.array(xs), out)
    assert np.array_equal(out.numpy(), np.array([1, 2, 1], dtype=np.float64) / xs)


@tack.func
def counted(counter, i, value):
    counter[i] = counter[i] + 1
    return value


@tack.kernel
def division_effects(a, b, counter, q, p):
    for i in range(len(a)):
        q[i] = counted(counter, i, a[i]) / b[i] if b[i] != 0 else -1.0
        p[i] = counted(counter, i, a[i]) ** counted(counter, i, 3) if a[i] > 0 else 0


def test_single_evaluation_and_guards(backend):
    xs, ys = [7, 1, -4, 9], [2, 0, 8, 0]
    counter = tack.zeros(4, dtype=tack.i32)
    q, p = tack.zeros(4), tack.zeros(4, dtype=tack.i32)
    division_effects(arr(xs, "i32"), arr(ys, "i32"), counter, q, p)
    assert list(q.numpy()) == [3.5, -1.0, -0.5, -1.0]
    assert py(p) == [343, 1, 0, 729]
    assert py(counter) == [3, 2, 1, 2]


# ------------------------------------------------------------- integer power


@tack.kernel
def int_pow(a, e, op, fn, wide):
    for i in range(len(a)):
        op[i] = a[i] ** e[i]
        fn[i] = pow(a[i], e[i])
        wide[i] = a[i] ** e[i]


def bases(name):
    vals = {0, 1, 2, 3, 5, 7, hi(name), hi(name) - 1, lo(name), lo(name) + 1}
    if signed(name):
        vals |= {-1, -2, -3}
    rng = random.Random(bits(name) * 3 + signed(name))
    vals |= {rng.randint(lo(name), hi(name)) for _ in range(3)}
    return sorted(vals)


def exponents(name):
    vals = {0, 1, 2, 3, 5, 8, 15, 31, 63, 64, hi(name), hi(name) - 1}
    vals = {v for v in vals if lo(name) <= v <= hi(name)}
    if bits(name) >= 32:
        rng = random.Random(bits(name) * 5 + signed(name))
        vals |= {rng.randint(0, hi(name)) for _ in range(3)}
    if name == "u64":
        vals |= {2**63, 2**63 + 1, 2**64 - 2}
    return sorted(vals)


@pytest.mark.parametrize("base_name,exp_name", list(itertools.product(INT_NAMES, INT_NAMES)))
def test_all_64_base_exponent_type_pairs(backend, base_name, exp_name):
    pairs = list(itertools.product(bases(base_name), exponents(exp_name)))
    n = len(pairs)
    wide_name = "i64" if signed(base_name) else "u64"
    op = tack.zeros(n, dtype=getattr(tack, base_name))
    fn = tack.zeros(n, dtype=getattr(tack, base_name))
    # The result's type is the base's: read in a 64-bit destination, it
    # still shows the base's width and signedness.
    wide = tack.zeros(n, dtype=getattr(tack, wide_name))
    int_pow(arr([p[0] for p in pairs], base_name), arr([p[1] for p in pairs], exp_name), op, fn, wide)
    m = 1 << bits(base_name)
    expected = [wrap(pow(a, e, m), base_name) for a, e in pairs]
    assert py(op) == expected
    assert py(fn) == expected
    assert py(wide) == expected


def test_contract_power_examples(backend):
    op, fn, wide = tack.zeros(3, dtype=tack.i8), tack.zeros(3, dtype=tack.i8), tack.zeros(3, dtype=tack.i64)
    int_pow(arr([3, 0, 2], "i8"), arr([5, 0, 2**64 - 1], "u64"), op, fn, wide)
    assert py(wide) == [-13, 1, 0]


def test_exhaustive_small_domain(backend):
    pairs = [(a, e) for a in range(-128, 128) for e in range(0, 20)]
    n = len(pairs)
    op, fn, wide = tack.zeros(n, dtype=tack.i8), tack.zeros(n, dtype=tack.i8), tack.zeros(n, dtype=tack.i64)
    int_pow(arr([p[0] for p in pairs], "i8"), arr([p[1] for p in pairs], "i8"), op, fn, wide)
    assert py(wide) == [wrap(pow(a, e, 256), "i8") for a, e in pairs]


@tack.kernel
def nested_pow(a, e, out, out2, lit):
    for i in range(len(a)):
        out[i] = (a[i] ** 2) ** e[i] + a[i] ** (e[i] + 1)
        t = a[i] ** e[i]
        out2[i] = t * t - pow(t, 2)
        lit[i] = 0 ** 0 + a[i] ** 0 + 2 ** 10


def test_nested_power_expressions(backend):
    xs, es = [3, -5, 7, 2**20 + 3, -1], [0, 3, 10, 5, 63]
    outs = [tack.zeros(5, dtype=tack.i32) for _ in range(3)]
    nested_pow(arr(xs, "i32"), arr(es, "u16"), *outs)
    assert py(outs[0]) == [wrap(pow(a * a, e, 2**32) + pow(a, e + 1, 2**32), "i32") for a, e in zip(xs, es)]
    assert py(outs[1]) == [0] * 5
    assert py(outs[2]) == [1 + 1 + 1024] * 5


@tack.kernel
def negative_literal_exponent(a, out):
    for i in range(len(a)):
        out[i] = a[i] ** -2


@tack.kernel
def negative_literal_exponent_pow(a, out):
    for i in range(len(a)):
        out[i] = pow(a[i], -1)


@pytest.mark.parametrize("kernel", [negative_literal_exponent, negative_literal_exponent_pow])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_negative_integer_literal_exponents_are_rejected(kernel):
    with pytest.raises(tack.CompileError) as info:
        kernel(arr([2], "i32"), tack.zeros(1, dtype=tack.i32))
    assert "exponent" in info.value.message
    assert "f32" in info.value.hint


@tack.kernel
def float_pow(a, x, cast_base, float_exp, float_base, neg):
    for i in range(len(a)):
        cast_base[i] = tack.f32(a[i]) ** 3
        float_exp[i] = a[i] ** 0.5
        float_base[i] = x[i] ** a[i]
        neg[i] = tack.f32(a[i]) ** -2


def test_floating_operands_use_floating_pow(backend):
    xs = np.array([1.5, 2.0, 0.5, 3.0], dtype=np.float64)
    ints = [3, 4, 7, 2**24 + 1]
    outs = [tack.zeros(4), tack.zeros(4), tack.zeros(4, dtype=tack.f64), tack.zeros(4)]
    float_pow(arr(ints, "i32"), tack.array(xs), *outs)
    f = np.array(ints, dtype=np.int32).astype(np.float32)
    assert np.all(ulp_distance(outs[0].numpy(), f ** np.float32(3)) <= 8)
    assert np.all(ulp_distance(outs[1].numpy(), np.power(f, np.float32(0.5))) <= 8)
    with np.errstate(over="ignore"):
        expected = np.power(xs, np.array(ints, dtype=np.float64))
    assert np.all(ulp_distance(outs[2].numpy(), expected) <= 8)
    assert np.all(ulp_distance(outs[3].numpy(), np.power(f, np.float32(-2))) <= 8)
