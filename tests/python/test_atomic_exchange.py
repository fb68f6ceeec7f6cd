"""atomic_sub, atomic_exch and atomic_cas (contract "Atomic array updates"):
contended updates from every worker or workgroup against oracles that do
not involve Tack: Python integer sums, the permutation an exchange chain
must form, and a lock-free counter whose tickets must be exactly 0..n-1.
Floating compare-and-swap compares bit patterns."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tack
from backends import atomic_domain, atomics_cover

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ALL_TYPES = INT_TYPES + [np.float32, np.float64]


@tack.kernel
def take_away(counts, n_bins):
    for i in range(len(counts) * 1000):
        tack.atomic_sub(counts, i % n_bins, i % 5 + 1)


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_contended_subtractions_equal_the_integer_sum(backend, dtype):
    bins = 7
    start = np.array([3, 100, 0, 7, 50, 1, 2], dtype=dtype)
    counts = tack.array(start.copy())
    with atomic_domain(backend, dtype):
        take_away(counts, bins)
    if not atomics_cover(backend, dtype):
        return
    taken = [0] * bins
    for i in range(bins * 1000):
        taken[i % bins] += i % 5 + 1
    if np.issubdtype(dtype, np.integer):
        bits = np.dtype(dtype).itemsize * 8
        want = [(int(s) - t) % 2**bits for s, t in zip(start, taken)]
        np.testing.assert_array_equal(counts.numpy(), np.array(want, dtype=np.uint64).astype(dtype))
    else:  # small integers: every partial difference is exact
        np.testing.assert_array_equal(counts.numpy(), np.array([float(s) - t for s, t in zip(start, taken)], dtype=dtype))


@tack.kernel
def sub_old_values(cell, olds):
    for i in range(len(olds)):
        olds[i] = tack.atomic_sub(cell, 0, 1)


def test_subtraction_returns_distinct_old_values(backend):
    cell = tack.array(np.array([5000], dtype=np.int32))
    olds = tack.zeros(5000, dtype=tack.i32)
    sub_old_values(cell, olds)
    assert sorted(olds.numpy().tolist()) == list(range(1, 5001))
    assert cell.numpy()[0] == 0


@tack.kernel
def exchange_chain(cell, values, olds):
    for i in range(len(values)):
        olds[i] = tack.atomic_exch(cell, 0, values[i])


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_exchanges_form_a_permutation_of_the_written_values(backend, dtype):
    n = 120 if np.dtype(dtype).itemsize == 1 else 4000
    values = (np.arange(n) + 1).astype(dtype)
    initial = np.array([0], dtype=dtype)
    cell = tack.array(initial.copy())
    olds = tack.array(np.zeros(n, dtype=dtype))
    with atomic_domain(backend, dtype):
        exchange_chain(cell, tack.array(values), olds)
    if not atomics_cover(backend, dtype):
        return
    # Each exchange takes what one other (or the initial value) left: the
    # old values and the final value are the written values and the initial.
    seen = sorted(olds.numpy().tolist() + [cell.numpy()[0]])
    assert seen == sorted(values.tolist() + initial.tolist())


@tack.kernel
def lock_free_counter(counter, tickets, one):
    for i in range(len(tickets)):
        guess = tack.atomic_add(counter, 0, 0)
        done = 0
        while done == 0:
            seen = tack.atomic_cas(counter, 0, guess, guess + one)
            if seen == guess:
                done = 1
            else:
                guess = seen
        tickets[i] = guess


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_a_compare_and_swap_counter_gives_every_ticket_once(backend, dtype):
    n = 120 if np.dtype(dtype).itemsize == 1 else 3000
    counter = tack.array(np.zeros(1, dtype=dtype))
    tickets = tack.array(np.zeros(n, dtype=dtype))
    with atomic_domain(backend, dtype):
        lock_free_counter(counter, tickets, dtype(1))  # a NumPy scalar keeps the counter's type
    if not atomics_cover(backend, dtype):
        return
    assert counter.numpy()[0] == n
    assert sorted(tickets.numpy().tolist()) == list(range(n))


@tack.kernel
def cas_each(a, expected, desired, olds):
    for i in range(len(a)):
        olds[i] = tack.atomic_cas(a, i, expected[i], desired[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floating_compare_and_swap_compares_bit_patterns(backend, dtype):
    itype = np.uint32 if dtype == np.float32 else np.uint64
    nan = np.array([np.nan], dtype=dtype)
    other_nan = (nan.view(itype) | itype(1)).view(dtype)  # a NaN with other payload bits
    a = np.array([0.0, -0.0, nan[0], nan[0], 1.0, 1.0, -0.0], dtype=dtype)
    expected = np.array([-0.0, -0.0, nan[0], other_nan[0], 1.0, 2.0, 0.0], dtype=dtype)
    desired = np.arange(10, 17).astype(dtype)
    olds = tack.array(np.zeros(7, dtype=dtype))
    cell = tack.array(a.copy())
    with atomic_domain(backend, dtype):
        cas_each(cell, tack.array(expected), tack.array(desired), olds)
    if not atomics_cover(backend, dtype):
        return
    stored = a.view(itype) == expected.view(itype)
    assert stored.tolist() == [False, True, True, False, True, False, False]
    want = np.where(stored, desired, a)
    assert cell.numpy().view(itype).tolist() == want.view(itype).tolist()
    # The old value is returned either way, bit for bit.
    assert olds.numpy().view(itype).tolist() == a.view(itype).tolist()


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_integer_compare_and_swap_at_the_boundaries(backend, dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 0, info.max], dtype=dtype)
    expected = np.array([info.min, info.min, 0, info.max - 1], dtype=dtype)
    desired = np.array([info.max, 1, info.min, 0], dtype=dtype)
    cell, olds = tack.array(a.copy()), tack.array(np.zeros(4, dtype=dtype))
    with atomic_domain(backend, dtype):
        cas_each(cell, tack.array(expected), tack.array(desired), olds)
    if not atomics_cover(backend, dtype):
        return
    assert cell.numpy().tolist() == [info.max, info.max, info.min, info.max]
    assert olds.numpy().tolist() == a.tolist()


@tack.kernel
def operand_order(a, counter, out):
    for i in range(1):
        # index, expected, value: left to right, each once.
        out[0] = tack.atomic_cas(a, tack.atomic_add(counter, 0, 1), tack.atomic_add(counter, 0, 1),
                                 tack.atomic_add(counter, 0, 1))


def test_compare_and_swap_operands_evaluate_left_to_right(backend):
    a = tack.array(np.array([7, 1, 9], dtype=np.int32))
    counter = tack.zeros(1, dtype=tack.i32)
    out = tack.zeros(1, dtype=tack.i32)
    operand_order(a, counter, out)
    # index 0, expected 1, value 2: a[0] is 7, so nothing is stored.
    assert out.numpy()[0] == 7 and a.numpy().tolist() == [7, 1, 9]
    assert counter.numpy()[0] == 3


def test_vector_arrays_take_sub_and_exch_per_component(backend):
    @tack.kernel
    def k(v, olds):
        for i in range(len(v)):
            olds[i] = tack.atomic_exch(v, i, tack.atomic_sub(v, i, tack.vec3(1.0, 2.0, 3.0)) * 2)

    v = tack.array(np.array([[10.0, 20.0, 30.0], [1.0, 2.0, 3.0]], dtype=np.float32), dtype=tack.vec3f)
    olds = tack.zeros(2, dtype=tack.vec3f)
    k(v, olds)
    start = np.array([[10.0, 20.0, 30.0], [1.0, 2.0, 3.0]], dtype=np.float32)
    np.testing.assert_array_equal(olds.numpy(), start - [1, 2, 3])
    np.testing.assert_array_equal(v.numpy(), start * 2)


def test_refusals_name_the_construct():
    @tack.kernel
    def three(a):
        for i in range(len(a)):
            tack.atomic_cas(a, i, 1)

    with pytest.raises(tack.KernelTypeError, match=r"atomic_cas\(\) takes an array, an index, the expected value"):
        three(tack.zeros(2, dtype=tack.i32))

    @tack.kernel
    def vec(v):
        for i in range(len(v)):
            tack.atomic_cas(v, i, tack.vec3(0.0), tack.vec3(1.0))

    with pytest.raises(tack.KernelTypeError, match=r"atomic_cas target 'v' is an array of vector"):
        vec(tack.zeros(2, dtype=tack.vec3f))


def test_host_forms():
    a = np.array([1.0, -0.0], dtype=np.float32)
    assert tack.atomic_sub(a, 0, 0.5) == 1.0 and a[0] == 0.5
    assert tack.atomic_exch(a, 0, 3.0) == 0.5 and a[0] == 3.0
    assert tack.atomic_cas(a, 1, 0.0, 9.0) == 0.0 and np.signbit(a[1])  # -0.0 is not 0.0
    assert tack.atomic_cas(a, 1, -0.0, 9.0) == 0.0 and a[1] == 9.0


@tack.kernel
def every_new_atomic(ai, af, al, ad, e):
    for i in range(len(ai)):
        tack.atomic_sub(ai, i, 1)
        tack.atomic_sub(af, i, 1.5)
        e[i] = tack.atomic_exch(ai, i, 3) + tack.atomic_cas(ai, i, 3, 4)
        e[i] += tack.atomic_exch(af, i, 2.5) + tack.atomic_cas(af, i, 2.5, 0.5)
        tack.atomic_sub(al, i, 1)
        tack.atomic_sub(ad, i, 1.5)
        e[i] += tack.atomic_exch(al, i, 3) + tack.atomic_cas(al, i, 3, 4)
        e[i] += tack.atomic_exch(ad, i, 2.5) + tack.atomic_cas(ad, i, 2.5, 0.5)


@pytest.mark.parametrize("dialect", ["cuda", "hip"])
def test_cuda_and_hip_use_native_32_bit_operations_and_64_bit_cas(dialect):
    args = [tack.zeros(4, dtype=t) for t in (tack.i32, tack.f32, tack.i64, tack.f64, tack.f64)]
    src = every_new_atomic.inspect(dialect, *args)
    assert "atomicSub(p, v)" in src and "atomicExch(p, v)" in src
    assert "atomicCAS((unsigned int*)p" in src and "atomicCAS((unsigned long long*)p" in src
    # 64-bit subtraction and exchange go through the CAS loop, not atomicSub/atomicExch overloads.
    body = src.split("tk_atomic_sub_i64", 1)[1].split("}", 1)[0]
    assert "atomicCAS(a, old" in body


def test_opencl_and_metal_print_explicit_relaxed_operations():
    args = [tack.zeros(4, dtype=t) for t in (tack.i32, tack.f32)]

    @tack.kernel
    def k(ai, af):
        for i in range(len(ai)):
            tack.atomic_sub(ai, i, tack.atomic_cas(ai, i, 1, 2))
            tack.atomic_sub(af, i, tack.atomic_exch(af, i, tack.atomic_cas(af, i, 1.0, 2.0)))

    cl = k.inspect("opencl", *args)
    assert "atomic_fetch_sub_explicit" in cl and "atomic_compare_exchange_strong_explicit" in cl
    assert "atomic_exchange_explicit" in cl and "memory_scope_device" in cl
    metal = k.inspect("metal", *args)
    assert "atomic_compare_exchange_weak_explicit" in metal and "atomic_exchange_explicit" in metal
    with pytest.raises(tack.KernelTypeError, match=r"atomic_(sub|cas) on the i64 array 'ai' is not supported by the opencl"):
        k.inspect("opencl", tack.zeros(4, dtype=tack.i64), tack.zeros(4))
