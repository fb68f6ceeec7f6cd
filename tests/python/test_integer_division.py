"""Integer floor division and remainder with Python's signs.

The oracle is Python's own // and % on big integers, with operands and
results read at the promoted type. Every numerical case runs once per
backend.
"""

import itertools
from pathlib import Path
import random

import numpy as np
import pytest
import tack

from integer_types import INT_NAMES, NP, bits, hi, lo, signed  # noqa: E402,F401


def arr(values, name):
    return tack.array(np.array([int(v) for v in values], dtype=object).astype(NP[name]))


def py(a):
    return [int(v) for v in a.numpy()]


def valid(a, b, name):
    """The caller's domain: a nonzero divisor, and no signed MIN // -1."""
    return b != 0 and not (signed(name) and a == lo(name) and b == -1)


@tack.kernel
def divmod_kernel(a, b, q, r):
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def check_pairs(name, pairs):
    pairs = [(a, b) for a, b in pairs if valid(a, b, name)]
    t = getattr(tack, name)
    q, r = tack.zeros(len(pairs), dtype=t), tack.zeros(len(pairs), dtype=t)
    divmod_kernel(arr([p[0] for p in pairs], name), arr([p[1] for p in pairs], name), q, r)
    assert py(q) == [a // b for a, b in pairs]
    assert py(r) == [a % b for a, b in pairs]


def test_examples_from_the_contract(backend):
    check_pairs("i32", [(-7, 3), (7, -3), (7, 3), (-7, -3)])
    q, r = tack.zeros(4, dtype=tack.i32), tack.zeros(4, dtype=tack.i32)
    divmod_kernel(arr([-7, 7, 7, -7], "i32"), arr([3, -3, 3, -3], "i32"), q, r)
    assert py(q) == [-3, -3, 2, 2]
    assert py(r) == [2, -2, 1, -1]


def test_exhaustive_valid_i8_pairs(backend):
    vals = range(-128, 128)
    pairs = [(a, b) for a in vals for b in vals if valid(a, b, "i8")]
    assert len(pairs) == 256 * 255 - 1
    check_pairs("i8", pairs)


def test_exhaustive_u8_pairs(backend):
    check_pairs("u8", [(a, b) for a in range(256) for b in range(1, 256)])


def boundary_and_random(name, count=40, seed=7):
    l, h = lo(name), hi(name)
    vals = {l, l + 1, l + 2, h, h - 1, h - 2, 0, 1, 2, 3, 7, h // 2, h // 2 + 1, h // 3}
    if signed(name):
        vals |= {-1, -2, -3, -7, l // 2, l // 3}
    rng = random.Random(seed + bits(name) * 2 + signed(name))
    vals |= {rng.randint(l, h) for _ in range(count)}
    small = [rng.randint(-50, 50) if signed(name) else rng.randint(0, 100) for _ in range(8)]
    return sorted(vals | set(small))


@pytest.mark.parametrize("name", INT_NAMES)
def test_all_widths_at_boundaries_and_seeded_random_values(backend, name):
    vals = boundary_and_random(name)
    check_pairs(name, itertools.product(vals, vals))


@pytest.mark.parametrize("name", ["u32", "u64"])
def test_unsigned_high_bits(backend, name):
    h = hi(name)
    top = 1 << (bits(name) - 1)
    vals = [h, h - 1, top, top + 1, top - 1, 3, 10, top + 12345]
    check_pairs(name, itertools.product(vals, vals))


def test_i64_and_u64_beyond_float_precision(backend):
    # Values where a floating detour would round away the low bits.
    big = [2**62 + 1, 2**63 - 1, -(2**63), -(2**62) - 3, 2**53 + 1, -(2**53) - 1]
    divisors = [3, -3, 7, 2**31 + 1, -(2**40) - 5, 2**53 + 2]
    check_pairs("i64", itertools.product(big, divisors))
    ubig = [2**64 - 1, 2**64 - 3, 2**63 + 2**11 + 1, 2**53 + 1]
    check_pairs("u64", itertools.product(ubig, [3, 7, 2**33 + 1, 2**63 + 1, 2**53 + 3]))


@tack.kernel
def mixed_divmod(a, b, q, r, q_lit, r_lit, lit_q, lit_r):
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        q_lit[i] = a[i] // -3
        r_lit[i] = a[i] % -3
        lit_q[i] = -7 // b[i]
        lit_r[i] = -7 % b[i]


@pytest.mark.parametrize(
    "a_name,b_name", [("i8", "u8"), ("u8", "i16"), ("i16", "u32"), ("u16", "i8"), ("i32", "u32"), ("u8", "i64")]
)
def test_lossless_mixed_type_promotion_and_literals(backend, a_name, b_name):
    xs = [lo(a_name), hi(a_name), 0, 5, hi(a_name) // 2, lo(a_name) + 1]
    ys = [hi(b_name), 3, lo(b_name) or 1, 255 if hi(b_name) >= 255 else hi(b_name), 7, hi(b_name) // 3]
    ys = [y if y != 0 else 1 for y in ys]
    n = len(xs)
    outs = [tack.zeros(n, dtype=tack.i64) for _ in range(6)]
    mixed_divmod(arr(xs, a_name), arr(ys, b_name), *outs)
    assert py(outs[0]) == [x // y for x, y in zip(xs, ys)]
    assert py(outs[1]) == [x % y for x, y in zip(xs, ys)]
    assert py(outs[2]) == [x // -3 for x in xs]
    assert py(outs[3]) == [x % -3 for x in xs]
    assert py(outs[4]) == [-7 // y for y in ys]
    assert py(outs[5]) == [-7 % y for y in ys]


@tack.kernel
def nested_divmod(a, b, c, identity, nested, via_locals):
    for i in range(len(a)):
        q = a[i] // b[i]
        r = a[i] % b[i]
        identity[i] = q * b[i] + r == a[i]
        nested[i] = (a[i] // b[i]) // c[i] + (a[i] % b[i]) % c[i]
        t = q % c[i]
        via_locals[i] = t - r // c[i]


def test_nested_and_local_expressions(backend):
    rng = random.Random(3)
    n = 200
    xs = [rng.randint(-(2**31), 2**31 - 1) for _ in range(n)]
    ys = [rng.choice([-1, 1]) * rng.randint(1, 1000) for _ in range(n)]
    zs = [rng.choice([-1, 1]) * rng.randint(1, 50) for _ in range(n)]
    outs = [tack.zeros(n, dtype=tack.i32) for _ in range(3)]
    nested_divmod(arr(xs, "i32"), arr(ys, "i32"), arr(zs, "i32"), *outs)
    assert py(outs[0]) == [1] * n
    assert py(outs[1]) == [(x // y) // z + (x % y) % z for x, y, z in zip(xs, ys, zs)]
    assert py(outs[2]) == [(x // y) % z - (x % y) // z for x, y, z in zip(xs, ys, zs)]


@tack.func
def bump(counter, i):
    counter[i] = counter[i] + 1
    return counter[i] + 2


@tack.kernel
def single_evaluation(a, counter, q, r):
    for i in range(len(a)):
        q[i] = bump(counter, i) // a[i]
        r[i] = a[i] % bump(counter, i)


def test_operands_are_evaluated_once(backend):
    xs = [5, -5, 7, -9]
    counter = tack.zeros(4, dtype=tack.i32)
    q, r = tack.zeros(4, dtype=tack.i32), tack.zeros(4, dtype=tack.i32)
    single_evaluation(arr(xs, "i32"), counter, q, r)
    assert py(counter) == [2] * 4
    assert py(q) == [3 // x for x in xs]
    assert py(r) == [x % 4 for x in xs]


@tack.kernel
def guarded(a, b, q, r, s):
    for i in range(len(a)):
        q[i] = a[i] // b[i] if b[i] != 0 else 111
        if b[i] != 0 and not (a[i] == -9223372036854775808 and b[i] == -1):
            r[i] = a[i] % b[i]
        else:
            r[i] = 222
        s[i] = 0
        if b[i]:
            s[i] = a[i] // b[i] + a[i] % b[i]


def test_guarded_zero_divisors_are_never_executed(backend):
    # x86 traps on a zero divisor (and on MIN // -1): a guard that leaked
    # would crash the process rather than return a wrong value.
    xs = [7, -7, 0, -(2**63), 2**63 - 1, -(2**63)]
    ys = [0, 2, 0, 0, -3, 5]
    n = len(xs)
    outs = [tack.zeros(n, dtype=tack.i64) for _ in range(3)]
    guarded(arr(xs, "i64"), arr(ys, "i64"), *outs)
    assert py(outs[0]) == [x // y if y else 111 for x, y in zip(xs, ys)]
    assert py(outs[1]) == [x % y if y else 222 for x, y in zip(xs, ys)]
    assert py(outs[2]) == [x // y + x % y if y else 0 for x, y in zip(xs, ys)]


@tack.kernel
def scalar_divisor(a, d, q, r):
    for i in range(len(a)):
        q[i] = a[i] // d
        r[i] = a[i] % d


@pytest.mark.parametrize("d", [3, -3, 2**40 + 1, -(2**63) + 5])
def test_scalar_divisors(backend, d):
    xs = [0, 1, -1, 2**62, -(2**62) - 1, 2**63 - 1, -(2**63) + 1]
    q, r = tack.zeros(len(xs), dtype=tack.i64), tack.zeros(len(xs), dtype=tack.i64)
    scalar_divisor(arr(xs, "i64"), d, q, r)
    assert py(q) == [x // d for x in xs]
    assert py(r) == [x % d for x in xs]


@tack.kernel
def unguarded(a, b, q, r):
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", ["i8", "i32", "i64", "u32", "u64"])
def test_broken_divisor_promises_do_not_crash(backend, dtype):
    # A zero divisor, or the signed minimum by -1, breaks the caller's
    # promise: no result is promised, but the process survives. Tack gives
    # what NumPy gives (0 for a zero divisor, the wrapped quotient for
    # MIN // -1); valid pairs beside them keep Python's results.
    info = np.iinfo(NP[dtype])
    is_signed = info.min < 0
    xs = [7, info.max, info.min, info.min, 5, info.max]
    ys = [0, 0, -1 if is_signed else 1, 0, 2, 3]
    q, r = tack.zeros(len(xs), dtype=getattr(tack, dtype)), tack.zeros(len(xs), dtype=getattr(tack, dtype))
    unguarded(arr(xs, dtype), arr(ys, dtype), q, r)
    a, b = arr(xs, dtype).numpy(), arr(ys, dtype).numpy()
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q.numpy(), a // b)
        np.testing.assert_array_equal(r.numpy(), a % b)
    assert py(q)[4:] == [5 // 2, info.max // 3]


def test_debug_mode_raises_zero_division_error_naming_kernel_and_line(backend):
    xs, ys = [1, 2, 3, 4], [1, 1, 0, 1]
    q, r = tack.zeros(4, dtype=tack.i32), tack.zeros(4, dtype=tack.i32)
    tack.set_debug(True)
    try:
        with pytest.raises(ZeroDivisionError) as e:
            unguarded(arr(xs, "i32"), arr(ys, "i32"), q, r)
    finally:
        tack.set_debug(False)
    source = Path(__file__).read_text().split("\n")
    line = source.index("def unguarded(a, b, q, r):") + 3  # the // line, 1-based
    assert "kernel 'unguarded'" in str(e.value)
    assert "by zero" in str(e.value)
    assert str(e.value).endswith(f"test_integer_division.py:{line}")
    # Without debug mode the same call returns.
    unguarded(arr(xs, "i32"), arr(ys, "i32"), q, r)
