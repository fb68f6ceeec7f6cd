"""The kernel language contract's regression baseline, LC1 to LC8, with its
empty, single-iteration and distinct-buffer controls.

Expected values come from arithmetic, Python's own range or a Python loop
over NumPy arrays that repeats the kernel's logic, never from Tack's output.
The numerical cases run once per backend (the `backend` fixture); the
rejection cases are frontend checks and run once.
"""

import re
from pathlib import Path

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY, counter_dtype

SOURCE_LINES = Path(__file__).read_text().splitlines()


def i32_array(values):
    return tack.array(np.asarray(values, dtype=np.int32))


def f32_array(values):
    return tack.array(np.asarray(values, dtype=np.float32))


# LC1: within one iteration, a load observes the iteration's earlier stores,
# across statements, sequential loops, branches and inlined functions.


@tack.kernel
def add_one_three_times(a):
    for i in range(len(a)):
        a[i] = a[i] + 1
        a[i] = a[i] + 1
        a[i] = a[i] + 1


@tack.kernel
def add_one_per_step(a, steps):
    for i in range(len(a)):
        for k in range(steps):
            a[i] = a[i] + 1


@tack.func
def add_one_at(a, i):
    a[i] = a[i] + 1


@tack.kernel
def add_scale_add(a, flags, seen):
    for i in range(len(a)):
        add_one_at(a, i)
        if flags[i] > 0:
            a[i] = a[i] * 10
        add_one_at(a, i)
        seen[i] = a[i]


def test_lc1_three_increments_observe_each_other(backend):
    start = np.arange(6, dtype=np.int32) * 10
    a = i32_array(start)
    add_one_three_times(a)
    np.testing.assert_array_equal(a.numpy(), start + 3)


@pytest.mark.parametrize("steps", [0, 1, 3])
def test_lc1_increments_in_a_sequential_loop(backend, steps):
    start = np.arange(5, dtype=np.int32)
    a = i32_array(start)
    add_one_per_step(a, steps)
    np.testing.assert_array_equal(a.numpy(), start + steps)


def test_lc1_stores_through_branches_and_inlined_functions(backend):
    start = np.array([0, 1, 2, 3, 4, 5], dtype=np.int32)
    flags = np.array([1, 0, 1, 0, 0, 1], dtype=np.int32)
    expected = np.where(flags > 0, (start + 1) * 10, start + 1) + 1
    a, seen = i32_array(start), tack.zeros(len(start), dtype=tack.i32)
    add_scale_add(a, i32_array(flags), seen)
    np.testing.assert_array_equal(a.numpy(), expected)
    np.testing.assert_array_equal(seen.numpy(), expected)


# LC2: arrays passed twice, or as views over one storage, keep program order
# within an iteration. Each case has a control over distinct storage.


@tack.kernel
def write_one_then_two(a, b, seen):
    for i in range(len(seen)):
        a[i] = 1
        b[i] = 2
        seen[i] = a[i]


@tack.kernel
def write_one_then_two_into_grid(a, b, seen):
    for i in range(len(seen)):
        a[i] = 1
        b[i // b.shape[1], i % b.shape[1]] = 2
        seen[i] = a[i]


@tack.kernel
def add_then_double(a, b, seen):
    for i in range(len(seen)):
        for k in range(3):
            a[i] = a[i] + 1
            b[i] = b[i] * 2
        seen[i] = a[i]


def reference_add_then_double(a, b, seen):
    """add_then_double over NumPy arrays that alias exactly as the Tack ones do."""
    for i in range(len(seen)):
        for _ in range(3):
            a[i] = a[i] + 1
            b[i] = b[i] * 2
        seen[i] = a[i]


def test_lc2_same_array_twice(backend):
    storage, seen = tack.zeros(8, dtype=tack.i32), tack.zeros(8, dtype=tack.i32)
    write_one_then_two(storage, storage, seen)
    np.testing.assert_array_equal(seen.numpy(), np.full(8, 2))
    np.testing.assert_array_equal(storage.numpy(), np.full(8, 2))


def test_lc2_distinct_arrays_control(backend):
    a, b, seen = (tack.zeros(8, dtype=tack.i32) for _ in range(3))
    write_one_then_two(a, b, seen)
    np.testing.assert_array_equal(seen.numpy(), np.full(8, 1))
    np.testing.assert_array_equal(a.numpy(), np.full(8, 1))
    np.testing.assert_array_equal(b.numpy(), np.full(8, 2))


def test_lc2_reshape_view_of_the_same_storage(backend):
    storage, seen = tack.zeros(8, dtype=tack.i32), tack.zeros(8, dtype=tack.i32)
    write_one_then_two_into_grid(storage, storage.reshape(2, 4), seen)
    np.testing.assert_array_equal(seen.numpy(), np.full(8, 2))
    np.testing.assert_array_equal(storage.numpy(), np.full(8, 2))


def test_lc2_reshape_distinct_storage_control(backend):
    a, grid, seen = tack.zeros(8, dtype=tack.i32), tack.zeros((2, 4), dtype=tack.i32), tack.zeros(8, dtype=tack.i32)
    write_one_then_two_into_grid(a, grid, seen)
    np.testing.assert_array_equal(seen.numpy(), np.full(8, 1))
    np.testing.assert_array_equal(grid.numpy(), np.full((2, 4), 2))


def test_lc2_two_slice_views_of_the_same_elements(backend):
    storage, seen = tack.zeros(10, dtype=tack.i32), tack.zeros(4, dtype=tack.i32)
    write_one_then_two(storage[2:6], storage[2:6], seen)
    np.testing.assert_array_equal(seen.numpy(), np.full(4, 2))
    np.testing.assert_array_equal(storage.numpy(), [0, 0, 2, 2, 2, 2, 0, 0, 0, 0])


def test_lc2_disjoint_slices_of_one_allocation_control(backend):
    storage, seen = tack.zeros(10, dtype=tack.i32), tack.zeros(4, dtype=tack.i32)
    write_one_then_two(storage[0:4], storage[4:8], seen)
    np.testing.assert_array_equal(seen.numpy(), np.full(4, 1))
    np.testing.assert_array_equal(storage.numpy(), [1, 1, 1, 1, 2, 2, 2, 2, 0, 0])


@pytest.mark.parametrize("aliased", [True, False], ids=["aliased", "distinct"])
def test_lc2_loop_mutation_through_an_alias(backend, aliased):
    start = np.arange(1, 6, dtype=np.int32)
    expected_a = start.copy()
    expected_b = expected_a if aliased else start.copy()
    expected_seen = np.zeros(5, dtype=np.int32)
    reference_add_then_double(expected_a, expected_b, expected_seen)

    a, seen = i32_array(start), tack.zeros(5, dtype=tack.i32)
    b = a if aliased else i32_array(start)
    add_then_double(a, b, seen)
    np.testing.assert_array_equal(seen.numpy(), expected_seen)
    np.testing.assert_array_equal(a.numpy(), expected_a)
    np.testing.assert_array_equal(b.numpy(), expected_b)


# LC3: vector widths, matrix shapes and layouts specialize independently. A
# cached variant for one element shape reused for another would index the
# wrong components; every input has room for 4 components per element, so
# even that wrong indexing would stay in bounds and give wrong numbers
# rather than a crash.


@tack.kernel
def squared_norms(v, out):
    for i in range(len(v)):
        out[i] = v[i].norm_sqr()


@tack.kernel
def self_dots(v, out):
    for i in range(len(v)):
        out[i] = v[i].dot(v[i])


def _vectors(width, layout="aos", n=6):
    data = (np.arange(n * 4, dtype=np.float32).reshape(n, 4) - 7)[:, :width]
    return data, tack.array(data, dtype=tack.vector(width, tack.f32), layout=layout)


def _check_squared_norms(kernel, width, layout="aos"):
    data, v = _vectors(width, layout)
    out = tack.zeros(len(data))
    kernel(v, out)
    np.testing.assert_array_equal(out.numpy(), (data * data).sum(axis=1, dtype=np.float32))


@pytest.mark.parametrize("kernel", [squared_norms, self_dots], ids=["norm_sqr", "dot"])
@pytest.mark.parametrize("widths", [(2, 3), (3, 2), (2, 3, 4, 2)])
def test_lc3_vector_widths_specialize_independently(backend, kernel, widths):
    for width in widths:
        _check_squared_norms(kernel, width)


@tack.kernel
def component_sums(v, out):
    for i in range(len(v)):
        out[i] = v[i].sum()


@pytest.mark.parametrize("order", ["matrix first", "vector first"])
def test_lc3_a_2x2_matrix_array_and_a_4_vector_array_compile_separately(backend, order):
    data = np.arange(24, dtype=np.float32).reshape(6, 4) * np.float32(1.5)
    m = tack.array(data.reshape(6, 2, 2), dtype=tack.mat22f)
    v = tack.array(data, dtype=tack.vec4f)
    for arg in ((m, v) if order == "matrix first" else (v, m)):
        out = tack.zeros(6)
        component_sums(arg, out)
        np.testing.assert_array_equal(out.numpy(), data.sum(axis=1, dtype=np.float32))
    both = component_sums.inspect("ir", m, tack.zeros(6)), component_sums.inspect("ir", v, tack.zeros(6))
    assert "v: array[mat2x2 of f32, 1]" in both[0] and "v: array[vec4 of f32, 1]" in both[1]


@pytest.mark.parametrize("layouts", [("aos", "soa"), ("soa", "aos")])
def test_lc3_interleaved_and_soa_layouts_compile_separately(backend, layouts):
    for layout in layouts:
        _check_squared_norms(squared_norms, 3, layout)
    seen = [squared_norms.inspect("ir", _vectors(3, layout)[1], tack.zeros(6)) for layout in layouts]
    assert ("soa]" in seen[0]) == (layouts[0] == "soa") and ("soa]" in seen[1]) == (layouts[1] == "soa")


# LC4 and the other rejections: the frontend refuses what it cannot
# translate, naming the construct, the function and where it is.


def _lines_pointing_at(marker):
    """Line numbers under which a diagnostic may report the `assert False`
    line tagged `marker`: counted in the decorated function's dedented
    source (from its decorator, or from `def` if the decorator is dropped),
    or in this file."""
    line = next(n for n, text in enumerate(SOURCE_LINES, 1) if text.strip() == f"assert False  # {marker}")
    above = SOURCE_LINES[:line]
    decorator = max(n for n, text in enumerate(above, 1) if text.strip().startswith("@tack."))
    definition = max(n for n, text in enumerate(above, 1) if text.strip().startswith("def "))
    return {line - decorator + 1, line - definition + 1, line}


def _assert_diagnostic(error, construct, function, marker):
    message = str(error.value)
    assert construct in message
    assert function in message
    reported = {int(line) for line, _ in re.findall(r"(\d+):(\d+)", message)}
    assert reported & _lines_pointing_at(marker), f"no line:col of the {construct} in: {message}"


# Definitions stay inside pytest.raises: a frontend may reject them when
# they are decorated or when they are first called.


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_lc4_assert_in_kernel_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_assert(a):
            for i in range(len(a)):
                assert False  # LC4-kernel
                a[i] = 1

        kernel_with_assert(tack.zeros(4, dtype=tack.i32))
    _assert_diagnostic(error, "assert", "kernel_with_assert", "LC4-kernel")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_lc4_assert_in_device_function_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def checked_value(v):
            assert False  # LC4-func
            return v

        @tack.kernel
        def kernel_calling_checked_value(a):
            for i in range(len(a)):
                a[i] = checked_value(a[i])

        kernel_calling_checked_value(tack.zeros(4, dtype=tack.i32))
    _assert_diagnostic(error, "assert", "checked_value", "LC4-func")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_lc4_unreachable_assert_in_device_function_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def returns_before_assert(v):
            return v
            assert False  # LC4-unreachable

        @tack.kernel
        def kernel_calling_returns_before_assert(a):
            for i in range(len(a)):
                a[i] = returns_before_assert(a[i])

        kernel_calling_returns_before_assert(tack.zeros(4, dtype=tack.i32))
    _assert_diagnostic(error, "assert", "returns_before_assert", "LC4-unreachable")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_return_inside_a_loop_of_a_device_function_is_rejected():
    with pytest.raises(tack.CompileError, match="return") as error:

        @tack.func
        def first_negative(a, n):
            for k in range(n):
                if a[k] < 0:
                    return k
            return -1

        @tack.kernel
        def kernel_calling_first_negative(a, found):
            for i in range(len(found)):
                found[i] = first_negative(a, len(a))

        kernel_calling_first_negative(tack.zeros(4, dtype=tack.i32), tack.zeros(1, dtype=tack.i32))
    assert "first_negative" in str(error.value)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_break_from_the_parallel_loop_is_rejected():
    with pytest.raises(tack.CompileError, match="break") as error:

        @tack.kernel
        def kernel_breaking_parallel_loop(a):
            for i in range(len(a)):
                if i > 2:
                    break
                a[i] = 1

        kernel_breaking_parallel_loop(tack.zeros(4, dtype=tack.i32))
    assert "kernel_breaking_parallel_loop" in str(error.value)


# LC5: the top-level range executes exactly [start, end), whatever its start.


@tack.kernel
def mark_three_to_seven(a):
    for i in range(3, 7):
        a[i] = i + 1


@tack.kernel
def mark_range(a, start, end):
    for i in range(start, end):
        a[i] = i + 1


@tack.kernel
def mark_stepped_range(a, start, end, step):
    for i in range(start, end, step):
        a[i] = i + 1


@tack.kernel
def mark_first(a, n):
    for i in range(n):
        a[i] = 7


@tack.kernel
def backward_difference(x, out):
    for i in range(1, len(x)):
        out[i] = x[i] - x[i - 1]


@tack.kernel
def sum_with_neighbours(x, out):
    for i in range(1, len(x) - 1):
        out[i] = x[i - 1] + x[i] + x[i + 1]


def marked(size, indices):
    """What the mark kernels leave: index + 1 at each index, zero elsewhere."""
    expected = np.zeros(size, dtype=np.int32)
    for i in indices:
        expected[i] = i + 1
    return expected


def test_lc5_literal_range_writes_only_its_interval(backend):
    a = tack.zeros(8, dtype=tack.i32)
    mark_three_to_seven(a)
    np.testing.assert_array_equal(a.numpy(), marked(8, range(3, 7)))


@pytest.mark.parametrize(
    "start, end",
    [(3, 7), (0, 8), (4, 5), (5, 5), (7, 3)],
    ids=["interior", "whole", "single", "empty", "reversed"],
)
def test_lc5_range_from_scalar_arguments(backend, start, end):
    a = tack.zeros(8, dtype=tack.i32)
    mark_range(a, start, end)
    np.testing.assert_array_equal(a.numpy(), marked(8, range(start, end)))


@pytest.mark.parametrize("start, end, step", [(1, 8, 3), (2, 3, 2), (6, 8, 5), (4, 4, 2)])
def test_lc5_stepped_range(backend, start, end, step):
    a = tack.zeros(8, dtype=tack.i32)
    mark_stepped_range(a, start, end, step)
    np.testing.assert_array_equal(a.numpy(), marked(8, range(start, end, step)))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_lc5_range_of_a_scalar_count(backend, n):
    a = tack.full(6, -1, dtype=tack.i32)
    mark_first(a, n)
    expected = np.full(6, -1, dtype=np.int32)
    expected[:n] = 7
    np.testing.assert_array_equal(a.numpy(), expected)


@tack.kernel
def record_indices(out, start, end, step):
    for i in range(start, end, step):
        out[(i - start) // step] = i


@pytest.mark.parametrize(
    "start, end, step",
    [(2**33, 2**33 + 5, 1), (2**31 - 2, 2**31 + 3, 1), (0, 2**31 + 10, 2**28), (-(2**40), 2**40, 2**38)],
    ids=["beyond-2^32", "across-2^31", "stepped-past-2^31", "negative-start"],
)
def test_every_index_of_a_wide_interval_executes(backend, start, end, step):
    # Bounds and indices beyond 32 bits: the iteration count and each index
    # are computed in 64 bits.
    expected = list(range(start, end, step))
    out = tack.full(len(expected) + 1, -7, dtype=tack.i64)
    record_indices(out, start, end, step)
    assert out.numpy().tolist() == expected + [-7]


def test_lc5_stencil_starting_at_one_never_reads_before_the_buffer(backend):
    x = np.arange(9, dtype=np.float32) ** 2
    out = tack.full(9, -1.0, dtype=tack.f32)
    backward_difference(f32_array(x), out)
    expected = np.concatenate([[-1.0], np.diff(x)]).astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_lc5_dimension_derived_bound_at_several_lengths(backend):
    # One kernel object, lengths in both orders, down to single and empty
    # intervals: a bound baked from an earlier call would show up here.
    for n in (6, 11, 6, 3, 2):
        x = np.arange(n, dtype=np.float32) * 3 + 1
        out = tack.full(n, -1.0, dtype=tack.f32)
        sum_with_neighbours(f32_array(x), out)
        expected = np.full(n, -1.0, dtype=np.float32)
        expected[1:-1] = x[:-2] + x[1:-1] + x[2:]
        np.testing.assert_array_equal(out.numpy(), expected, err_msg=f"length {n}")


# LC6: assigning to a scalar parameter makes a per-iteration local that every
# later read sees; each iteration starts again from the argument's value.


@tack.kernel
def add_one_where_flagged(flags, out, value):
    for i in range(len(out)):
        if flags[i] > 0:
            value = value + 1
        out[i] = value


@tack.kernel
def add_one_per_count(counts, out, value):
    for i in range(len(out)):
        for k in range(counts[i]):
            value = value + 1
        out[i] = value


@tack.kernel
def double_until_at_least(limits, out, value):
    for i in range(len(out)):
        while value < limits[i]:
            value = value * 2
        out[i] = value


@tack.kernel
def read_before_and_after(before, after, value):
    for i in range(len(before)):
        before[i] = value
        value = value * 2.0 + tack.f32(i)
        after[i] = value


@tack.kernel
def add_one_every_iteration(out, value):
    for i in range(len(out)):
        value = value + 1
        out[i] = value


@tack.kernel
def add_one_to_outer_local(out, value):
    base = value * 2
    for i in range(len(out)):
        base = base + 1
        out[i] = base


def test_lc6_assignment_inside_a_branch(backend):
    flags = np.array([1, 0, 1, 1, 0, 0, 1], dtype=np.int32)
    out = tack.zeros(len(flags), dtype=tack.i32)
    add_one_where_flagged(i32_array(flags), out, 10)
    expected = [10 + 1 if flag > 0 else 10 for flag in flags]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_lc6_assignment_inside_a_loop(backend):
    counts = np.array([0, 1, 2, 5, 3, 0], dtype=np.int32)
    out = tack.zeros(len(counts), dtype=tack.i32)
    add_one_per_count(i32_array(counts), out, 100)
    np.testing.assert_array_equal(out.numpy(), 100 + counts)


def test_lc6_assignment_inside_a_while_loop(backend):
    limits = np.array([0, 3, 4, 50, 7, 2], dtype=np.int32)
    out = tack.zeros(len(limits), dtype=tack.i32)
    double_until_at_least(i32_array(limits), out, 3)
    expected = []
    for limit in limits:
        value = 3
        while value < limit:
            value *= 2
        expected.append(value)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_lc6_reads_before_and_after_reassignment(backend):
    before, after = tack.zeros(5, dtype=tack.f32), tack.zeros(5, dtype=tack.f32)
    read_before_and_after(before, after, 1.5)
    np.testing.assert_array_equal(before.numpy(), np.full(5, 1.5, dtype=np.float32))
    np.testing.assert_array_equal(after.numpy(), 1.5 * 2.0 + np.arange(5, dtype=np.float32))


def test_lc6_every_iteration_starts_from_the_argument(backend):
    # Long enough to be split across every core and chunk.
    out = tack.zeros(4096, dtype=tack.i32)
    add_one_every_iteration(out, 5)
    np.testing.assert_array_equal(out.numpy(), np.full(4096, 6))


def test_lc6_every_iteration_starts_from_locals_bound_outside_the_loop(backend):
    out = tack.zeros(4096, dtype=tack.i32)
    add_one_to_outer_local(out, 5)
    np.testing.assert_array_equal(out.numpy(), np.full(4096, 5 * 2 + 1))


# LC7: a `return` in an inlined function ends that function on its path.


@tack.func
def clamp(a, limit):
    if a > limit:
        return limit
    return a


@tack.func
def clamp_between(a, low, high):
    if a < low:
        return low
    elif a > high:
        return high
    return a


@tack.func
def store_if_nonnegative(out, i, v):
    if v < 0.0:
        return 0
    out[i] = v
    return 1


@tack.kernel
def clamp_all(x, out, limit):
    for i in range(len(x)):
        out[i] = clamp(x[i], limit)


@tack.kernel
def clamp_all_between(x, out, low, high):
    for i in range(len(x)):
        out[i] = clamp_between(x[i], low, high)


@tack.kernel
def store_nonnegative(x, out, stored):
    for i in range(len(x)):
        stored[i] = store_if_nonnegative(out, i, x[i])


VALUES = np.array([-4.0, -0.5, 0.0, 1.5, 2.0, 2.5, 10.0], dtype=np.float32)


@pytest.mark.parametrize("limit", [2.0, -1.0])
def test_lc7_clamp_with_early_return(backend, limit):
    out = tack.zeros(len(VALUES), dtype=tack.f32)
    clamp_all(f32_array(VALUES), out, limit)
    np.testing.assert_array_equal(out.numpy(), np.minimum(VALUES, np.float32(limit)))


def test_lc7_two_early_returns(backend):
    out = tack.zeros(len(VALUES), dtype=tack.f32)
    clamp_all_between(f32_array(VALUES), out, -1.0, 2.0)
    np.testing.assert_array_equal(out.numpy(), np.clip(VALUES, -1.0, 2.0))


def test_lc7_early_return_skips_the_rest_of_the_function(backend):
    out = tack.full(len(VALUES), -9.0, dtype=tack.f32)
    stored = tack.full(len(VALUES), -1, dtype=tack.i32)
    store_nonnegative(f32_array(VALUES), out, stored)
    np.testing.assert_array_equal(out.numpy(), np.where(VALUES >= 0, VALUES, np.float32(-9.0)))
    np.testing.assert_array_equal(stored.numpy(), (VALUES >= 0).astype(np.int32))


# LC8: `continue` ends the current iteration of its nearest loop only.


@tack.kernel
def sum_skipping_multiples_of_three(counts, out):
    for i in range(len(out)):
        total = 0
        for k in range(counts[i]):
            if k % 3 == 0:
                continue
            total += k
        out[i] = total


@tack.kernel
def sum_odd_up_to(counts, out):
    for i in range(len(out)):
        total = 0
        k = 0
        while k < counts[i]:
            k += 1
            if k % 2 == 0:
                continue
            total += k
        out[i] = total


@tack.kernel
def double_odd_indices(x, out):
    for i in range(len(x)):
        if i % 2 == 0:
            continue
        out[i] = x[i] * 2.0


@tack.kernel
def mark_off_diagonal(m):
    for r, c in tack.ndindex(m.shape[0], m.shape[1]):
        if r == c:
            continue
        m[r, c] = 1


@tack.kernel
def sum_until_over(counts, limit, out):
    for i in range(len(out)):
        total = 0
        for k in range(counts[i]):
            if total > limit:
                break
            total += k
        out[i] = total


COUNTS = np.array([0, 1, 2, 3, 4, 7, 10], dtype=np.int32)


def test_lc8_continue_in_a_sequential_for_loop(backend):
    out = tack.full(len(COUNTS), -1, dtype=tack.i32)
    sum_skipping_multiples_of_three(i32_array(COUNTS), out)
    expected = [sum(k for k in range(n) if k % 3 != 0) for n in COUNTS]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_lc8_continue_in_a_while_loop(backend):
    out = tack.full(len(COUNTS), -1, dtype=tack.i32)
    sum_odd_up_to(i32_array(COUNTS), out)
    expected = [sum(k for k in range(1, n + 1) if k % 2 == 1) for n in COUNTS]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_lc8_continue_in_the_parallel_loop(backend):
    x = np.arange(11, dtype=np.float32) + 0.5
    out = tack.full(11, -1.0, dtype=tack.f32)
    double_odd_indices(f32_array(x), out)
    expected = np.where(np.arange(11) % 2 == 1, x * 2, np.float32(-1.0))
    np.testing.assert_array_equal(out.numpy(), expected)


def test_lc8_continue_in_a_two_dimensional_parallel_loop(backend):
    m = tack.zeros((4, 5), dtype=tack.i32)
    mark_off_diagonal(m)
    np.testing.assert_array_equal(m.numpy(), 1 - np.eye(4, 5, dtype=np.int32))


def test_break_in_a_sequential_loop_control(backend):
    out = tack.full(len(COUNTS), -1, dtype=tack.i32)
    sum_until_over(i32_array(COUNTS), 5, out)
    expected = []
    for n in COUNTS:
        total = 0
        for k in range(n):
            if total > 5:
                break
            total += k
        expected.append(total)
    np.testing.assert_array_equal(out.numpy(), expected)


# ------------------------------------------- launches too long to index


@tack.kernel
def count_ndindex(counter, n, m):
    for i, j in tack.ndindex(n, m):
        tack.atomic_add(counter, 0, 1)


@pytest.mark.parametrize("n,m", [(2**32, 2**32), (3, 2**62), (2**33 + 1, 2**31), (2**62, 2**62)])
def test_an_iteration_space_beyond_64_bits_is_refused(backend, n, m):
    counter = tack.zeros(1, dtype=counter_dtype(backend))
    with pytest.raises(ValueError) as e:
        count_ndindex(counter, n, m)
    text = str(e.value)
    assert "count_ndindex" in text
    assert str(n * m) in text  # the exact count, as Python's integers give it
    assert str(2**63 - 1) in text  # the limit
    assert counter.numpy()[0] == 0  # refused before anything ran


@pytest.mark.parametrize("n,m", [(0, 2**62), (2**62, 0), (3, 4)])
def test_empty_or_small_products_still_run_every_index(backend, n, m):
    counter = tack.zeros(1, dtype=counter_dtype(backend))
    count_ndindex(counter, n, m)
    assert counter.numpy()[0] == n * m


@tack.kernel
def count_u64_range(counter, lo, n, step):
    for i in range(lo, n, step):
        tack.atomic_add(counter, 0, 1)


def test_a_u64_range_longer_than_2_to_63_is_refused(backend):
    counter = tack.zeros(1, dtype=counter_dtype(backend))
    with pytest.raises(ValueError, match=str(2**64 - 1)):
        count_u64_range(counter, np.uint64(0), np.uint64(2**64 - 1), np.uint64(1))
    count_u64_range(counter, np.uint64(2**64 - 5), np.uint64(2**64 - 1), np.uint64(1))
    assert counter.numpy()[0] == 4


# ------------------------------------------------ runtime range steps


@tack.kernel
def stepped_parallel(a, s):
    for i in range(0, len(a), s):
        a[i] = 1


@pytest.mark.parametrize("step", [0, -1, -3])
def test_a_parallel_step_that_is_not_positive_is_refused(backend, step):
    a = tack.zeros(8, dtype=tack.i32)
    with pytest.raises(ValueError) as e:
        stepped_parallel(a, step)
    assert "stepped_parallel" in str(e.value) and f"step is {step}" in str(e.value)
    assert (a.numpy() == 0).all()
    stepped_parallel(a, 3)  # the kernel stays usable
    np.testing.assert_array_equal(a.numpy(), [1 if i in range(0, 8, 3) else 0 for i in range(8)])


# Range bounds through statements before the loop that compute more than
# the bounds: a float, a branch that sets other locals, a parameter
# reassigned, a local reassigned after a branch set it. A GPU backend works
# prologue_bounds' count out on the host (src/backends/gpu/host_count.h)
# and must launch exactly Python's range; branch_bound's bound, assigned
# under a branch, is left to the count entry on the device.
@tack.kernel
def prologue_bounds(a, x, lo, s):
    scale = 1.0 / len(a)
    flag = 0
    if lo > 2:
        flag = 1
    lo = lo * 2 - lo
    first = lo
    if s > 100:
        first = 0
    first = lo * 1
    last = len(a) - 1
    for i in range(first, last, s):
        a[i] = i + 1 + tack.i32(scale * 0.0) + tack.i32(x[0] * 0.0)


@tack.kernel
def branch_bound(a, lo):
    first = 0
    if lo > 2:
        first = lo
    for i in range(first, len(a)):
        a[i] = i + 1


@pytest.mark.parametrize("lo, s", [(0, 1), (1, 2), (3, 3), (7, 1), (9, 1), (2, 4)])
def test_bounds_through_statements_before_the_loop(backend, lo, s):
    a = tack.zeros(8, dtype=tack.i32)
    prologue_bounds(a, tack.zeros(1), lo, s)
    np.testing.assert_array_equal(a.numpy(), marked(8, range(lo, 7, s)))
    b = tack.zeros(8, dtype=tack.i32)
    branch_bound(b, lo)
    np.testing.assert_array_equal(b.numpy(), marked(8, range(lo if lo > 2 else 0, 8)))


@tack.kernel
def stepped_sequential(a, s):
    for i in range(1):
        for j in range(0, len(a), s):
            a[j] += 1
        for j in range(len(a) - 1, -1, s):
            a[j] += 10


@pytest.mark.parametrize("step", [0, 2, -2])
def test_a_sequential_zero_step_runs_nothing_and_others_follow_python(backend, step):
    a = tack.zeros(6, dtype=tack.i32)
    stepped_sequential(a, step)
    expected = [0] * 6
    if step != 0:  # Python raises for a zero step; Tack's loop is empty
        for j in range(0, 6, step):
            expected[j] += 1
        for j in range(5, -1, step):
            expected[j] += 10
    assert a.numpy().tolist() == expected
