"""Weak float literals (NEP 50): a literal takes the floating type of what it
meets, and literal-only subexpressions are evaluated in that type.

The oracle is NumPy's typed arithmetic on np.float64 / np.float32 scalars
built from the same Python literals. Every numerical case runs once per
backend.
"""

import math

import numpy as np
import pytest
import tack
from backends import atomic_domain, atomics_cover

F64, F32 = np.float64, np.float32
XS = np.array([1.0, 3.0, -7.25, 0.1, 1e10, 2.0 / 3.0, 0.1000000001, 0.10000000149011612], dtype=np.float64)


def f64_array(values=XS):
    return tack.array(np.asarray(values, dtype=np.float64))


def f32_array(values=XS):
    return tack.array(np.asarray(values, dtype=np.float32))


def outs(n, count, dtype=tack.f64):
    return [tack.zeros(n, dtype=dtype) for _ in range(count)]


# ------------------------------------------------- literals meeting f64


@tack.kernel
def meets_f64(x, mul, neg, sum_, third, lt, plus_int, int_div, power):
    for i in range(len(x)):
        mul[i] = x[i] * 0.1
        neg[i] = x[i] * -0.1
        sum_[i] = x[i] * (0.1 + 0.2)
        third[i] = x[i] * (1.0 / 3.0)
        lt[i] = x[i] < 0.1
        plus_int[i] = x[i] * (1 + 0.7) - (3 / 0.7)
        int_div[i] = x[i] * (1 / 3)
        power[i] = x[i] ** 0.5 + pow(x[i], 0.1)


def test_contract_examples_equal_numpy_f64(backend):
    x = XS
    o = outs(len(x), 8)
    meets_f64(f64_array(), *o)
    got = [a.numpy() for a in o]
    assert np.array_equal(got[0], x * F64(0.1))
    assert np.array_equal(got[1], x * F64(-0.1))
    assert np.array_equal(got[2], x * (F64(0.1) + F64(0.2)))
    assert np.array_equal(got[3], x * (F64(1.0) / F64(3.0)))
    assert np.array_equal(got[4], (x < F64(0.1)).astype(np.float64))
    assert np.array_equal(got[5], x * (F64(1) + F64(0.7)) - F64(3) / F64(0.7))
    # Integer / between integer literals is the f32 quotient of the
    # division rule, not a weak literal.
    assert np.array_equal(got[6], x * F64(F32(1) / F32(3)))
    with np.errstate(invalid="ignore"):
        expected_power = x ** F64(0.5) + np.power(x, F64(0.1))
    finite = np.isfinite(expected_power)
    assert np.array_equal(np.isnan(got[7]), np.isnan(expected_power))
    assert np.allclose(got[7][finite], expected_power[finite], rtol=4e-16, atol=0)


def test_comparison_uses_the_f64_nearest_literal(backend):
    # 0.1000000001 lies between the f64 and the f32 roundings of 0.1.
    x = np.array([0.1000000001, 0.1, np.nextafter(0.1, 0.0)])
    o = outs(3, 8)
    meets_f64(f64_array(x), *o)
    assert list(o[4].numpy()) == [0.0, 0.0, 1.0]


@tack.kernel
def stores_and_casts(x, store, store_sum, store_third, cast64, cast32, sel, mn, sqrt_lit, atan2_lit):
    for i in range(len(x)):
        store[i] = 0.1
        store_sum[i] = 0.1 + 0.2
        store_third[i] = 1.0 / 3.0
        cast64[i] = tack.f64(0.1)
        cast32[i] = tack.f32(0.1)
        sel[i] = x[i] if x[i] > 2.0 else 0.1
        mn[i] = min(x[i], 0.1)
        sqrt_lit[i] = math.sqrt(2.0)
        atan2_lit[i] = math.atan2(1, 0.1)


def test_stores_casts_selects_and_math_take_f64(backend):
    x = XS
    o = outs(len(x), 9)
    stores_and_casts(f64_array(), *o)
    got = [a.numpy() for a in o]
    assert np.all(got[0] == F64(0.1))
    assert np.all(got[1] == F64(0.1) + F64(0.2))
    assert np.all(got[2] == F64(1.0) / F64(3.0))
    assert np.all(got[3] == F64(0.1))
    assert np.all(got[4] == F64(F32(0.1)))
    assert np.array_equal(got[5], np.where(x > 2.0, x, F64(0.1)))
    assert np.array_equal(got[6], np.minimum(x, F64(0.1)))
    assert np.all(got[7] == np.sqrt(F64(2.0)))
    assert np.all(np.abs(got[8] - np.arctan2(F64(1), F64(0.1))) <= 2 * np.spacing(np.arctan2(F64(1), F64(0.1))))


def test_f32_kernels_round_each_literal_once_to_f32(backend):
    x = XS.astype(np.float32)
    o = outs(len(x), 8, tack.f32)
    meets_f64(f32_array(), *o)
    got = [a.numpy() for a in o]
    assert np.array_equal(got[0], x * F32(0.1))
    assert np.array_equal(got[1], x * F32(-0.1))
    assert np.array_equal(got[2], x * (F32(0.1) + F32(0.2)))
    assert np.array_equal(got[3], x * (F32(1.0) / F32(3.0)))
    assert np.array_equal(got[4], (x < F32(0.1)).astype(np.float32))
    o = outs(len(x), 9, tack.f32)
    stores_and_casts(f32_array(), *o)
    got = [a.numpy() for a in o]
    assert np.all(got[0] == F32(0.1))
    assert np.all(got[1] == F32(0.1) + F32(0.2))
    assert np.all(got[3] == F32(0.1))


# ---------------------------------------- f64 meeting literals in f32 kernels


@tack.kernel
def widened_in_f32_kernel(x, i32s, cast, int_mixed):
    for i in range(len(x)):
        cast[i] = tack.f64(x[i]) * 0.1
        # An integer value with a literal is f32, not weak, even where the
        # result later meets f64.
        int_mixed[i] = tack.f64(x[i]) * (i32s[i] * 0.1)


@tack.kernel
def single_assignment(x, wide, narrow, chained, cond):
    for i in range(len(x)):
        a = 0.1
        wide[i] = tack.f64(x[i]) * a
        narrow[i] = x[i] * a
        b = a + 0.2
        chained[i] = tack.f64(x[i]) * b
        cond[i] = tack.f64(x[i]) * (0.1 if x[i] > 1.0 else 0.2)


def test_single_assignment_local_is_its_literal_expression(backend):
    x32 = XS.astype(np.float32)
    x = x32.astype(np.float64)
    wide, chained, cond = outs(len(x), 3)
    narrow = tack.zeros(len(x), dtype=tack.f32)
    single_assignment(tack.array(x32), wide, narrow, chained, cond)
    assert np.array_equal(wide.numpy(), x * F64(0.1))
    assert np.array_equal(narrow.numpy(), x32 * F32(0.1))
    assert np.array_equal(chained.numpy(), x * (F64(0.1) + F64(0.2)))
    assert np.array_equal(cond.numpy(), x * np.where(x32 > 1.0, F64(0.1), F64(0.2)))


def test_integer_values_with_literals_are_f32(backend):
    x32 = XS.astype(np.float32)
    x = x32.astype(np.float64)
    ints = np.arange(len(x), dtype=np.int32) - 3
    o = outs(len(x), 2)
    widened_in_f32_kernel(tack.array(x32), tack.array(ints), *o)
    assert np.array_equal(o[0].numpy(), x * F64(0.1))
    assert np.array_equal(o[1].numpy(), x * (ints.astype(np.float32) * F32(0.1)).astype(np.float64))


@tack.func
def center():
    return 0.1, 0.2


@tack.func
def branchy(flag):
    if flag > 0:
        return 0.1
    return 0.2


# The probes below compare a value, widened explicitly, with the double
# nearest a literal: 1 when the value holds that double, 0 when it holds the
# f32 rounding. Their arrays are f32 and i32, so the kernel's float
# precision is f32.


@tack.kernel
def device_literals(x, flags, center_exact, branchy_exact, product):
    for i in range(len(x)):
        cx, cy = center()
        center_exact[i] = (tack.f64(cx) == 0.1) + 2 * (tack.f64(cy) == 0.2)
        v = branchy(flags[i])
        branchy_exact[i] = tack.f64(v) == (0.1 if flags[i] > 0 else 0.2)
        product[i] = (tack.f64(x[i]) * cx - tack.f64(x[i]) * 0.1) == 0.0


def test_device_function_literal_results(backend):
    n = 4
    flags = np.array([1, 0, 1, 0], dtype=np.int32)
    o = [tack.zeros(n, dtype=tack.i32) for _ in range(3)]
    device_literals(f32_array(XS[:n]), tack.array(flags), *o)
    # Literal results bound to the caller's names are those literals.
    assert list(o[0].numpy()) == [3] * n
    assert list(o[2].numpy()) == [1] * n
    # Returned from several branches, the result is a local with several
    # weak assignments: it takes the kernel's precision, f32 here.
    assert list(o[1].numpy()) == [0] * n


@tack.kernel
def joins(x, flags, joined_strong, joined_weak, cond_local):
    for i in range(len(x)):
        a = 0.1
        if flags[i] > 0:
            a = tack.f64(x[i])
        joined_strong[i] = a == 0.1
        b = 0.1
        if flags[i] > 0:
            b = 0.2
        joined_weak[i] = tack.f64(b) == (0.2 if flags[i] > 0 else 0.1)
        # The condition reads an array, not only constants, so the local is
        # not replaced by its expression and takes the kernel's precision.
        c = 0.1 if flags[i] > 0 else 0.2
        cond_local[i] = tack.f64(c) == (0.1 if flags[i] > 0 else 0.2)


def test_joins_of_several_assignments(backend):
    flags = np.array([1, 0, 1, 0], dtype=np.int32)
    x = np.array([0.5, 0.5, 0.1, 0.1])
    o = [tack.zeros(4, dtype=tack.i32) for _ in range(3)]
    joins(f32_array(x), tack.array(flags), *o)
    # Another assignment makes `a` f64: the literal converts exactly, and
    # the comparison's literal is the double too.
    assert list(o[0].numpy()) == [0, 1, 0, 1]
    # Every assignment weak: the kernel's float precision, f32 here.
    assert list(o[1].numpy()) == [0] * 4
    assert list(o[2].numpy()) == [0] * 4


def test_weak_joins_take_f64_when_an_array_argument_is_f64(backend):
    flags = np.array([1, 0, 1, 0], dtype=np.int32)
    x = np.array([0.5, 0.5, 0.1, 0.1])
    o = [tack.zeros(4, dtype=tack.i32) for _ in range(3)]
    joins(f64_array(x), tack.array(flags), *o)
    assert list(o[0].numpy()) == [0, 1, 1, 1]
    assert list(o[1].numpy()) == [1] * 4
    assert list(o[2].numpy()) == [1] * 4


@tack.kernel
def to_integer(x, out, out_int):
    for i in range(len(x)):
        out[i] = tack.i64(16777217.0) + tack.i64(x[i]) * 0
        out_int[i] = int(2.5) + int(16777219.0)


@pytest.mark.parametrize("make", [f64_array, f32_array])
def test_conversion_to_integer_evaluates_the_literal_in_f32(backend, make):
    out, out_int = tack.zeros(2, dtype=tack.i64), tack.zeros(2, dtype=tack.i32)
    to_integer(make(XS[:2]), out, out_int)
    assert list(out.numpy()) == [int(F32(16777217.0))] * 2
    assert list(out_int.numpy()) == [2 + int(F32(16777219.0))] * 2


@tack.kernel
def scalar_meets(s, x, out):
    for i in range(len(x)):
        out[i] = x[i] * s


def test_python_float_scalars_follow_the_kernel_precision(backend):
    out = tack.zeros(len(XS), dtype=tack.f64)
    scalar_meets(0.1, f64_array(), out)
    assert np.array_equal(out.numpy(), XS * F64(0.1))
    out32 = tack.zeros(len(XS), dtype=tack.f32)
    scalar_meets(0.1, f32_array(), out32)
    assert np.array_equal(out32.numpy(), XS.astype(np.float32) * F32(0.1))


# ---------------------------------------------------------- emitted constants


@tack.kernel
def one_literal(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 0.1


def test_f64_literals_are_emitted_with_full_precision(backend):
    x, out = f64_array(), tack.zeros(len(XS), dtype=tack.f64)
    llvm = one_literal.inspect("llvm", x, out)
    # LLVM prints a double in decimal when the decimal round-trips: the
    # double nearest 0.1 is 1.000000e-01; a widened f32 would be hex.
    assert "double 1.000000e-01" in llvm
    assert "0x3FB99999A0000000" not in llvm
    x32, out32 = f32_array(), tack.zeros(len(XS), dtype=tack.f32)
    llvm32 = one_literal.inspect("llvm", x32, out32)
    assert "0x3FB99999A0000000" in llvm32


@tack.kernel
def atomic_literals(acc, acc_sum):
    for i in range(len(acc)):
        tack.atomic_add(acc, i, 0.1)
        tack.atomic_add(acc_sum, i, 0.1 + 0.2)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_floating_atomics_take_the_array_type(backend, t):
    ft = F32 if t == "f32" else F64
    acc, acc_sum = tack.zeros(4, dtype=getattr(tack, t)), tack.zeros(4, dtype=getattr(tack, t))
    with atomic_domain(backend, ft):
        atomic_literals(acc, acc_sum)
    if not atomics_cover(backend, ft):
        return
    assert np.all(acc.numpy() == ft(0.1))
    assert np.all(acc_sum.numpy() == ft(0.1) + ft(0.2))
