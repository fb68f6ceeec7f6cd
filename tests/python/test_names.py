"""Issue 3, names: what a name in a kernel or device function refers to.

Kernels capture no numeric values from the enclosing scope; tack.constant
and math.pi/e/tau are the explicit exception. Loop variables end with their
loop. @tack.func calls resolve through the defining function's globals and
closure, module dictionaries only, with no process-wide registry.

The device-function binding tests build several modules in a temporary
package (tmp_path on sys.path), import them, and remove them from
sys.modules afterwards.
"""

import importlib
import itertools
import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY

SOURCE = Path(__file__).read_text().splitlines()
FILE = str(Path(__file__).resolve())

NOT_A_CONSTANT = 3  # a plain Python int: kernels must not capture it
HALF_WAY = tack.constant(0.5)
TEN = tack.constant(10)
SMALL = tack.constant(0.1)
SMALL_F32 = tack.constant(0.1, dtype=tack.f32)
BIG_U64 = tack.constant(2**64 - 1, dtype=tack.u64)
SHADOWED = tack.constant(1000)
TILT = tack.constant([0.1, 2, -0.5])  # a vector: weak floats and an int literal
SWAP = tack.constant(tack.mat2(0.0, 1.0, 1.0, 0.0), dtype=tack.f32)  # a typed matrix from the host's mat2


def i32(n=4):
    return tack.zeros(n, dtype=tack.i32)


def f64(n=4):
    return tack.zeros(n, dtype=tack.f64)


def marked_line(marker):
    hits = [n for n, text in enumerate(SOURCE, 1) if text.rstrip().endswith("# " + marker)]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    return hits[0], SOURCE[hits[0] - 1]


def check_position(e, marker, at, function, kind="kernel"):
    line, text = marked_line(marker)
    column = text.index(at) + 1
    assert (e.filename, e.line, e.column) == (FILE, line, column), str(e)
    assert (e.function, e.function_kind) == (function, kind), str(e)
    assert str(e).startswith(f"{FILE}:{line}:{column} in {kind} '{function}': "), str(e)


# ------------------------------------------------------------ unbound names


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unbound_name_raises_name_error_with_position():
    with pytest.raises(NameError) as error:

        @tack.kernel
        def reads_undefined(out):
            for i in range(len(out)):
                out[i] = undefined_value + i  # N-unbound

        reads_undefined(i32())
    assert isinstance(error.value, tack.KernelNameError)
    assert "undefined_value" in error.value.message
    check_position(error.value, "N-unbound", "undefined_value", "reads_undefined")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unbound_name_in_a_device_function_names_the_device_function():
    with pytest.raises(tack.KernelNameError) as error:

        @tack.func
        def reads_missing(v):
            return v + missing_offset  # N-unbound-func

        @tack.kernel
        def calls_reads_missing(out):
            for i in range(len(out)):
                out[i] = reads_missing(i)

        calls_reads_missing(i32())
    assert "missing_offset" in error.value.message
    check_position(error.value, "N-unbound-func", "missing_offset", "reads_missing",
                   kind="device function")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_module_level_python_number_is_not_captured():
    with pytest.raises(tack.KernelNameError) as error:

        @tack.kernel
        def reads_python_global(out):
            for i in range(len(out)):
                out[i] = NOT_A_CONSTANT  # N-python-global

        reads_python_global(i32())
    assert "NOT_A_CONSTANT" in error.value.message
    check_position(error.value, "N-python-global", "NOT_A_CONSTANT", "reads_python_global")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_closure_python_number_is_not_captured():
    scale = 2.5

    with pytest.raises(tack.KernelNameError) as error:

        @tack.kernel
        def reads_closure_float(out):
            for i in range(len(out)):
                out[i] = scale * i  # N-closure

        reads_closure_float(f64())
    assert "scale" in error.value.message
    check_position(error.value, "N-closure", "scale", "reads_closure_float")


@pytest.mark.parametrize("value", [np.arange(3), [1, 2], "text", np.float32(1.5), True])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_other_python_objects_are_not_captured(value):
    def build():
        captured = value

        @tack.kernel
        def reads_captured_object(out):
            for i in range(len(out)):
                out[i] = captured

        return reads_captured_object

    with pytest.raises(NameError, match="captured"):
        build()(i32())


def test_a_name_assigned_only_later_is_unbound_on_the_first_iteration_path(backend):
    # A local that the loop body assigns is a local everywhere in the
    # kernel, so the read is not an enclosing-scope capture.
    @tack.kernel
    def carries_a_local(out):
        for i in range(len(out)):
            total = 0
            for k in range(3):
                if k > 0:
                    total = total + previous
                previous = k
            out[i] = total

    out = i32()
    carries_a_local(out)
    np.testing.assert_array_equal(out.numpy(), [0 + 0 + 1] * 4)


# A read that an assignment reaches on some paths only: on a path where this
# iteration assigned nothing (where CPython raises UnboundLocalError) the
# local reads zero of its type, on every backend, never a value another
# iteration left (the CPU runs a chunk's iterations in one frame).
def test_a_local_this_iteration_has_not_assigned_reads_zero(backend):
    @tack.kernel
    def kept_where_positive(x, carried, out, count):
        for i in range(len(x)):
            if x[i] > 0:
                s = x[i]
                c = i
            for k in range(3):
                if k == 2 and x[i] < -1:
                    carried[i] = previous
                previous = tack.i64(k) * 0 + 7
            out[i] = s
            count[i] = c

    rng = np.random.default_rng(3)
    values = rng.integers(-4, 4, 20000).astype(np.int32)
    modes = [True, False] if backend == "cpu" else [None]
    for spmd in modes:
        was = tack.cpu_spmd_enabled()
        if spmd is not None:
            tack.set_cpu_spmd("always" if spmd else False)
        try:
            x = tack.array(values)
            carried, out, count = tack.full(len(values), -9, dtype=tack.i64), tack.zeros(len(values), dtype=tack.i32), \
                tack.full(len(values), -9, dtype=tack.i64)
            kept_where_positive(x, carried, out, count)
        finally:
            tack.set_cpu_spmd(was)
        positive = values > 0
        np.testing.assert_array_equal(out.numpy(), np.where(positive, values, 0))
        np.testing.assert_array_equal(count.numpy(), np.where(positive, np.arange(len(values)), 0))
        np.testing.assert_array_equal(carried.numpy(), np.where(values < -1, 7, -9))

# Where no assignment can run before a read (none earlier in the text, and
# no sequential loop around the read assigns the name), CPython raises
# UnboundLocalError, a NameError, whenever the read runs; each parallel
# iteration starts from the values bound before the parallel loop, so an
# assignment later in the body never reaches an earlier read.
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_read_no_assignment_reaches_is_refused():
    def before_the_loop(out):
        m = m + 1  # N-unassigned-1
        for i in range(len(out)):
            out[i] = m

    def later_in_the_parallel_body(out):
        for i in range(len(out)):
            out[i] = s  # N-unassigned-2
            s = 5

    def in_a_loop_that_does_not_assign_it(out):
        for i in range(len(out)):
            for k in range(3):
                if k > 0:
                    out[i] = s  # N-unassigned-3
            s = 5

    def in_a_while_condition(out):
        for i in range(len(out)):
            while w < 3:  # N-unassigned-4
                w = 4
            out[i] = 0

    cases = [(before_the_loop, "m + 1"), (later_in_the_parallel_body, "s"), (in_a_loop_that_does_not_assign_it, "s"),
             (in_a_while_condition, "w < 3")]
    for number, (fn, at) in enumerate(cases, 1):
        with pytest.raises(NameError) as error:
            tack.kernel(fn)(i32())
        assert isinstance(error.value, tack.KernelNameError), fn.__name__
        assert "is read before it is assigned" in error.value.message, fn.__name__
        check_position(error.value, f"N-unassigned-{number}", at, fn.__name__)
        plain = np.zeros(4, np.int32)
        with pytest.raises(UnboundLocalError):  # CPython agrees
            fn(plain)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_local_whose_every_assignment_reads_it_is_refused():
    # s = s + 1 in a loop: the loop carries s, but the first trip reads it
    # before any assignment has run.
    def only_increments(out):
        for i in range(len(out)):
            for k in range(3):
                s = s + 1  # N-circular
            out[i] = s

    with pytest.raises(tack.KernelNameError) as error:
        tack.kernel(only_increments)(i32())
    assert "'s' is read before any value is assigned to it" in error.value.message
    check_position(error.value, "N-circular", "s + 1", "only_increments")
    with pytest.raises(UnboundLocalError):
        only_increments(np.zeros(4, np.int32))


# A value carried round a loop from an earlier trip is a number: a name
# read before the statement that makes it a vector or a local array is
# refused at the read, and indexing it hints why. Bound before the loop, a
# vector is carried like any local.
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_vector_read_before_its_first_assignment_is_refused_at_the_read():
    def read_then_made_a_vector(x, out):
        for i in range(len(x)):
            s = 0.0
            for k in range(3):
                if k > 0:
                    w = v  # N-carried-1
                    s = s + w
                v = tack.vec3(1.0, 2.0, 3.0) * float(k)
            out[i] = s

    def read_then_made_a_local_array(x, out):
        for i in range(len(x)):
            s = 0.0
            for k in range(3):
                if k > 0:
                    s = s + a  # N-carried-2
                a = tack.local_array(3, tack.f32)
            out[i] = s

    for number, (fn, what) in enumerate([(read_then_made_a_vector, "a vec3"),
                                         (read_then_made_a_local_array, "a local array")], 1):
        with pytest.raises(tack.KernelTypeError) as error:
            tack.kernel(fn)(f64(), f64())
        assert f"is read before its first assignment, which makes it {what}" in error.value.message, fn.__name__
        check_position(error.value, f"N-carried-{number}", "v" if number == 1 else "a", fn.__name__)

    def indexed_before_its_first_assignment(x, out):
        for i in range(len(x)):
            s = 0.0
            for k in range(3):
                if k > 0:
                    s = s + v[0]  # N-carried-3
                v = tack.vec3(1.0, 2.0, 3.0) * float(k)
            out[i] = s

    with pytest.raises(tack.KernelTypeError) as error:
        tack.kernel(indexed_before_its_first_assignment)(f64(), f64())
    assert "only arrays, vectors and matrices can be indexed" in error.value.message
    assert "holds a number carried from an earlier trip" in error.value.hint
    check_position(error.value, "N-carried-3", "v[0]", "indexed_before_its_first_assignment")


def test_a_vector_bound_before_the_loop_is_carried(backend):
    @tack.kernel
    def carries_a_vector(x, out):
        for i in range(len(x)):
            s = x[i]
            v = tack.vec3(0.0, 0.0, 0.0)
            for k in range(4):
                if k > 0:
                    s = s + v[k % 3]
                v = tack.vec3(1.0, 2.0, 3.0) * float(k)
            out[i] = s

    values = np.arange(6, dtype=np.float64)
    out = tack.zeros(6, dtype=tack.f64)
    carries_a_vector(tack.array(values), out)
    expected = []
    for x in values:  # the same loop in Python floats
        s, v = float(x), [0.0, 0.0, 0.0]
        for k in range(4):
            if k > 0:
                s = s + v[k % 3]
            v = [1.0 * k, 2.0 * k, 3.0 * k]
        expected.append(s)
    np.testing.assert_array_equal(out.numpy(), expected)


# ------------------------------------------------------------ tack.constant


def test_untyped_integer_constant_reads_as_a_literal(backend):
    @tack.kernel
    def adds_ten(a, out):
        for i in range(len(out)):
            out[i] = a[i] + TEN

    out = i32()
    adds_ten(tack.array(np.arange(4, dtype=np.int32)), out)
    np.testing.assert_array_equal(out.numpy(), np.arange(4) + 10)


def test_untyped_float_constant_is_a_weak_literal(backend):
    # Like the literal 0.1: f64 where it meets an f64 operand or is stored to
    # f64, rounded once to f32 where it meets f32.
    @tack.kernel
    def scales_by_small(x, out, alone):
        for i in range(len(out)):
            out[i] = x[i] * SMALL
            alone[i] = SMALL

    x = np.arange(4, dtype=np.float64) + 0.5
    out, alone = f64(), f64()
    scales_by_small(tack.array(x), out, alone)
    np.testing.assert_array_equal(out.numpy(), x * 0.1)
    np.testing.assert_array_equal(alone.numpy(), np.full(4, 0.1))
    x32 = x.astype(np.float32)
    out32, alone32 = tack.zeros(4, dtype=tack.f32), tack.zeros(4, dtype=tack.f32)
    scales_by_small(tack.array(x32), out32, alone32)
    np.testing.assert_array_equal(out32.numpy(), x32 * np.float32(0.1))
    np.testing.assert_array_equal(alone32.numpy(), np.full(4, np.float32(0.1)))


def test_typed_constant_is_the_literal_under_its_cast(backend):
    @tack.kernel
    def stores_small_f32(out):
        for i in range(len(out)):
            out[i] = SMALL_F32

    out = f64()
    stores_small_f32(out)
    np.testing.assert_array_equal(out.numpy(), np.full(4, np.float64(np.float32(0.1))))


def test_vector_constant_reads_as_a_vector_of_literals(backend):
    # Each component follows the literal rules: 0.1 meets the f64 operand as
    # the f64 literal 0.1; the int component converts exactly.
    @tack.kernel
    def tilted(x, out):
        for i in range(len(x)):
            v = tack.vec3(x[i], x[i], x[i]) * TILT
            out[i, 0] = v.x
            out[i, 1] = v.y
            out[i, 2] = v.z

    x = np.arange(4, dtype=np.float64) + 0.25
    out = tack.zeros((4, 3), dtype=tack.f64)
    tilted(tack.array(x), out)
    np.testing.assert_array_equal(out.numpy(), x[:, None] * np.array([0.1, 2.0, -0.5]))


def test_typed_matrix_constant_is_its_literals_under_the_cast(backend):
    @tack.kernel
    def swapped(x, out):
        for i in range(len(x)):
            w = SWAP @ tack.vec2(x[i], x[i] * 3.0)
            out[i, 0] = w[0]
            out[i, 1] = w[1]

    x = np.arange(4, dtype=np.float32) + 1
    out = tack.zeros((4, 2), dtype=tack.f32)
    swapped(tack.array(x), out)
    np.testing.assert_array_equal(out.numpy(), np.stack([x * np.float32(3), x], axis=1))


@pytest.mark.parametrize(
    "value, error",
    [([1.0], ValueError), ([1, 2, 3, 4, 5], ValueError), ([[1, 2], [3]], ValueError), ([True, False], TypeError),
     (["a", "b"], TypeError), ([[1] * 5] * 2, ValueError)],
)
def test_constant_shapes_and_components_are_checked(value, error):
    with pytest.raises(error):
        tack.constant(value)


def test_typed_u64_constant_keeps_its_full_range(backend):
    @tack.kernel
    def stores_big(out):
        for i in range(len(out)):
            out[i] = BIG_U64

    out = tack.zeros(4, dtype=tack.u64)
    stores_big(out)
    np.testing.assert_array_equal(out.numpy(), np.full(4, 2**64 - 1, dtype=np.uint64))


def test_constant_edge_case_typed_constant_narrows_like_a_cast(backend):
    wraps = tack.constant(300, dtype=tack.u8)
    negative = tack.constant(-1, dtype=tack.u32)

    @tack.kernel
    def stores_narrowed(out):
        for i in range(len(out)):
            out[i] = wraps if i == 0 else negative

    out = tack.zeros(2, dtype=tack.i64)
    stores_narrowed(out)
    np.testing.assert_array_equal(out.numpy(), [300 % 256, 2**32 - 1])


def test_constant_edge_case_negative_and_huge_untyped_literals(backend):
    lowest = tack.constant(-(2**63))
    top = tack.constant(2**63)

    @tack.kernel
    def stores_extremes(low, high):
        for i in range(len(low)):
            low[i] = lowest
            high[i] = top

    low = tack.zeros(2, dtype=tack.i64)
    high = tack.zeros(2, dtype=tack.u64)
    stores_extremes(low, high)
    np.testing.assert_array_equal(low.numpy(), [-(2**63)] * 2)
    np.testing.assert_array_equal(high.numpy(), [2**63] * 2)


def test_constant_as_a_sequential_range_bound(backend):
    three = tack.constant(3)

    @tack.kernel
    def sums_below_three(out):
        for i in range(len(out)):
            for k in range(three):
                out[i] += k + 1

    out = i32(3)
    sums_below_three(out)
    np.testing.assert_array_equal(out.numpy(), [6, 6, 6])


def test_constant_as_the_parallel_range_step(backend):
    three = tack.constant(3)

    @tack.kernel
    def marks_every_third(out):
        for i in range(0, len(out), three):
            out[i] = 1

    out = i32(7)
    marks_every_third(out)
    np.testing.assert_array_equal(out.numpy(), [1, 0, 0, 1, 0, 0, 1])


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_constant_edge_case_zero_constant_step_is_rejected():
    zero = tack.constant(0)

    with pytest.raises(tack.KernelValueError, match="step"):

        @tack.kernel
        def zero_constant_step(out):
            for i in range(0, len(out), zero):
                out[i] = 1

        zero_constant_step(i32())


def test_constant_in_the_closure(backend):
    offset = tack.constant(7)

    @tack.kernel
    def adds_closure_constant(out):
        for i in range(len(out)):
            out[i] = i + offset

    out = i32()
    adds_closure_constant(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(4) + 7)


def test_constant_in_a_device_function_reads_its_own_globals(backend):
    @tack.func
    def plus_ten(v):
        return v + TEN

    @tack.kernel
    def calls_plus_ten(out):
        for i in range(len(out)):
            out[i] = plus_ten(i)

    out = i32()
    calls_plus_ten(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(4) + 10)


@pytest.mark.parametrize("name, value", [("pi", math.pi), ("e", math.e), ("tau", math.tau)])
def test_math_constants_read_as_literals(backend, name, value):
    if name == "pi":

        @tack.kernel
        def stores_math_constant(out):
            for i in range(len(out)):
                out[i] = math.pi

    elif name == "e":

        @tack.kernel
        def stores_math_constant(out):
            for i in range(len(out)):
                out[i] = math.e

    else:

        @tack.kernel
        def stores_math_constant(out):
            for i in range(len(out)):
                out[i] = math.tau

    out = f64()
    stores_math_constant(out)
    np.testing.assert_array_equal(out.numpy(), np.full(4, value))
    narrow = tack.zeros(4, dtype=tack.f32)
    stores_math_constant(narrow)
    np.testing.assert_array_equal(narrow.numpy(), np.full(4, np.float32(value)))


def test_parameter_shadows_a_constant(backend):
    @tack.kernel
    def parameter_named_like_constant(SHADOWED, out):
        for i in range(len(out)):
            out[i] = SHADOWED

    out = i32()
    parameter_named_like_constant(5, out)
    np.testing.assert_array_equal(out.numpy(), [5] * 4)


def test_local_shadows_a_constant(backend):
    @tack.kernel
    def local_named_like_constant(out):
        for i in range(len(out)):
            SHADOWED = i * 2
            out[i] = SHADOWED

    out = i32()
    local_named_like_constant(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(4) * 2)


def test_local_assigned_outside_the_loop_shadows_a_constant(backend):
    @tack.kernel
    def prologue_local_named_like_constant(out):
        TEN = 3
        for i in range(len(out)):
            out[i] = TEN

    out = i32()
    prologue_local_named_like_constant(out)
    np.testing.assert_array_equal(out.numpy(), [3] * 4)


# ------------------------------------------------------------ loop variables


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_sequential_loop_variable_ends_with_its_loop():
    with pytest.raises(tack.KernelNameError) as error:

        @tack.kernel
        def reads_ended_loop_variable(out):
            for i in range(len(out)):
                for k in range(3):
                    out[i] += k
                out[i] = k  # N-ended-loop-var

        reads_ended_loop_variable(i32())
    assert "'k'" in error.value.message
    check_position(error.value, "N-ended-loop-var", "k  #", "reads_ended_loop_variable")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_loop_variable_assigned_before_the_loop_still_ends_with_it():
    with pytest.raises(tack.KernelNameError) as error:

        @tack.kernel
        def reads_ended_reused_variable(out):
            for i in range(len(out)):
                k = 10
                for k in range(3):
                    out[i] += 1
                out[i] += k  # N-ended-reused

        reads_ended_reused_variable(i32())
    check_position(error.value, "N-ended-reused", "k  #", "reads_ended_reused_variable")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_parallel_loop_variable_ends_with_the_parallel_loop():
    with pytest.raises(tack.KernelNameError) as error:

        @tack.kernel
        def reads_parallel_variable_after_loop(out) -> int:
            for i in range(len(out)):
                out[i] = 1
            return i  # N-ended-parallel-var

        reads_parallel_variable_after_loop(i32())
    check_position(error.value, "N-ended-parallel-var", "i  #", "reads_parallel_variable_after_loop")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_loop_variable_in_a_device_function_ends_with_its_loop():
    with pytest.raises(tack.KernelNameError) as error:

        @tack.func
        def last_index(n):
            for k in range(n):
                pass
            return k  # N-ended-func-var

        @tack.kernel
        def calls_last_index(out):
            for i in range(len(out)):
                out[i] = last_index(3)

        calls_last_index(i32())
    check_position(error.value, "N-ended-func-var", "k  #", "last_index", kind="device function")


def test_sibling_loops_share_a_variable_and_it_can_be_reassigned_afterwards(backend):
    @tack.kernel
    def sibling_loops(out):
        for i in range(len(out)):
            total = 0
            for k in range(3):
                total += k
            for k in range(4):
                total += 10 * k
            k = 100
            out[i] = total + k

    out = i32()
    sibling_loops(out)
    np.testing.assert_array_equal(out.numpy(), [3 + 60 + 100] * 4)


def test_copy_of_a_loop_variable_survives_the_loop(backend):
    @tack.kernel
    def keeps_last_k(out):
        for i in range(len(out)):
            last = -1
            for k in range(i + 1):
                last = k
            out[i] = last

    out = i32()
    keeps_last_k(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(4))


def test_inner_loop_variable_is_readable_inside_its_loop_only(backend):
    @tack.kernel
    def nested_loops(out):
        for i in range(len(out)):
            for j in range(2):
                for k in range(3):
                    out[i] += j * 10 + k
                out[i] += j

    out = i32()
    nested_loops(out)
    expected = sum(j * 10 + k for j in range(2) for k in range(3)) + sum(range(2))
    np.testing.assert_array_equal(out.numpy(), [expected] * 4)


# ------------------------------------------------------ constants bind once


@pytest.fixture
def package(tmp_path):
    """A fresh importable package: write(module, source) then load(module)."""
    name = f"tack_names_pkg_{next(_package_ids)}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()

    class Package:
        pkg = name

        @staticmethod
        def write(module, source):
            (root / f"{module}.py").write_text(textwrap.dedent(source).replace("PKG", name))

        @staticmethod
        def load(module):
            return importlib.import_module(f"{name}.{module}")

    yield Package
    sys.path.remove(str(tmp_path))
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]


_package_ids = itertools.count()


def test_a_kernel_reads_the_constant_bound_when_first_lowered(backend, package):
    package.write(
        "consts",
        """
        import tack

        LIMIT = tack.constant(1)

        @tack.kernel
        def store_limit(out):
            for i in range(len(out)):
                out[i] = LIMIT

        @tack.kernel
        def store_limit_later(out):
            for i in range(len(out)):
                out[i] = LIMIT
        """,
    )
    consts = package.load("consts")
    out = i32()
    consts.store_limit(out)
    np.testing.assert_array_equal(out.numpy(), [1] * 4)

    consts.LIMIT = tack.constant(2)
    consts.store_limit(out)
    np.testing.assert_array_equal(out.numpy(), [1] * 4)  # cached IR keeps the old literal
    consts.store_limit_later(out)
    np.testing.assert_array_equal(out.numpy(), [2] * 4)  # first lowered after the rebinding


def test_constant_reached_as_a_module_attribute(backend, package):
    package.write(
        "settings",
        """
        import tack

        LIMIT = tack.constant(42)
        RATIO = tack.constant(0.25, dtype=tack.f32)
        """,
    )
    package.write(
        "user",
        """
        import tack
        from PKG import settings
        import PKG.settings

        @tack.kernel
        def reads_module_constants(out):
            for i in range(len(out)):
                out[i] = settings.LIMIT + PKG.settings.RATIO
        """,
    )
    user = package.load("user")
    out = f64()
    user.reads_module_constants(out)
    np.testing.assert_array_equal(out.numpy(), [42.25] * 4)


# ------------------------------------------------- device-function binding


HELPERS = """
    import tack

    OFFSET = tack.constant(100)

    @tack.func
    def inner(x):
        return x + 1

    @tack.func
    def outer(x):
        return inner(x) * 10

    @tack.func
    def clamp(x):
        return min(max(x, 0), 5)

    @tack.func
    def add_offset(x):
        return x + OFFSET
"""

OTHER = """
    import tack

    OFFSET = tack.constant(7)

    @tack.func
    def inner(x):
        return x + 2

    @tack.func
    def clamp(x):
        return -1
"""

KERNELS = """
    import tack
    import PKG.helpers
    import PKG.helpers as h
    from PKG import helpers
    from PKG.helpers import clamp as limit

    OFFSET = tack.constant(1000)

    @tack.func
    def inner(x):
        return x + 3

    @tack.kernel
    def through_alias(a, out):
        for i in range(len(out)):
            out[i] = limit(a[i])

    @tack.kernel
    def through_alias_cold(a, out):
        for i in range(len(out)):
            out[i] = limit(a[i])

    @tack.kernel
    def through_module_alias(a, out):
        for i in range(len(out)):
            out[i] = h.clamp(a[i])

    @tack.kernel
    def through_dotted_package(a, out):
        for i in range(len(out)):
            out[i] = PKG.helpers.clamp(a[i])

    @tack.kernel
    def nested_callee_uses_its_own_namespace(a, out):
        for i in range(len(out)):
            out[i] = helpers.outer(a[i]) + inner(0)

    @tack.kernel
    def arguments_use_the_callers_namespace(a, out):
        for i in range(len(out)):
            out[i] = helpers.add_offset(OFFSET) + a[i]
"""


@pytest.fixture
def modules(package):
    package.write("helpers", HELPERS)
    package.write("other", OTHER)
    package.write("kernels", KERNELS)
    return package


def run(kernel, values):
    a = tack.array(np.asarray(values, dtype=np.int32))
    out = tack.zeros(len(values), dtype=tack.i32)
    kernel(a, out)
    return out.numpy().tolist()


VALUES = [-3, 0, 2, 9]
CLAMPED = [0, 0, 2, 5]


def test_imported_alias_resolves(backend, modules):
    kernels = modules.load("kernels")
    assert run(kernels.through_alias, VALUES) == CLAMPED


def test_module_qualified_calls_resolve(backend, modules):
    kernels = modules.load("kernels")
    assert run(kernels.through_module_alias, VALUES) == CLAMPED
    assert run(kernels.through_dotted_package, VALUES) == CLAMPED


def test_nested_callee_resolves_in_its_own_defining_namespace(backend, modules):
    kernels = modules.load("kernels")
    # helpers.outer calls helpers.inner (x + 1); the kernel's own inner adds 3.
    assert run(kernels.nested_callee_uses_its_own_namespace, VALUES) == [(v + 1) * 10 + 3 for v in VALUES]


def test_arguments_resolve_in_the_callers_namespace(backend, modules):
    kernels = modules.load("kernels")
    # The argument OFFSET is the kernel module's (1000); add_offset's own is 100.
    assert run(kernels.arguments_use_the_callers_namespace, VALUES) == [1100 + v for v in VALUES]


def test_importing_a_module_with_same_named_functions_changes_nothing(backend, modules):
    kernels = modules.load("kernels")
    assert run(kernels.through_alias, VALUES) == CLAMPED  # compiled and cached
    other = modules.load("other")
    assert other.clamp is not kernels.limit
    assert run(kernels.through_alias, VALUES) == CLAMPED  # cached
    assert run(kernels.through_alias_cold, VALUES) == CLAMPED  # first compiled after the import
    assert run(kernels.nested_callee_uses_its_own_namespace, VALUES) == [(v + 1) * 10 + 3 for v in VALUES]


def test_identical_kernel_sources_in_two_modules_keep_their_own_bindings(backend, package):
    body = """
        import tack

        @tack.func
        def step(x):
            return x + {delta}

        @tack.kernel
        def apply_step(a, out):
            for i in range(len(out)):
                out[i] = step(a[i])
    """
    package.write("first", body.replace("{delta}", "1"))
    package.write("second", body.replace("{delta}", "2"))
    first, second = package.load("first"), package.load("second")
    assert run(first.apply_step, VALUES) == [v + 1 for v in VALUES]
    assert run(second.apply_step, VALUES) == [v + 2 for v in VALUES]
    assert run(first.apply_step, VALUES) == [v + 1 for v in VALUES]


def test_device_functions_in_closures_resolve_through_the_closure(backend):
    def make_applier(fn):
        @tack.func
        def apply(x):
            return fn(x) * 2

        @tack.kernel
        def applies(a, out):
            for i in range(len(out)):
                out[i] = apply(a[i])

        return applies

    @tack.func
    def plus_one(x):
        return x + 1

    @tack.func
    def minus_one(x):
        return x - 1

    up, down = make_applier(plus_one), make_applier(minus_one)
    assert run(up, VALUES) == [(v + 1) * 2 for v in VALUES]
    assert run(down, VALUES) == [(v - 1) * 2 for v in VALUES]


@tack.func
def triple(x):
    return 3 * x


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_parameter_shadows_a_device_function():
    with pytest.raises(tack.CompileError) as error:

        @tack.kernel
        def parameter_named_triple(triple, out):
            for i in range(len(out)):
                out[i] = triple(i)  # N-param-shadows-func

        parameter_named_triple(2, i32())
    assert isinstance(error.value, TypeError)
    check_position(error.value, "N-param-shadows-func", "triple(i)", "parameter_named_triple")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_local_shadows_a_device_function():
    with pytest.raises(tack.CompileError) as error:

        @tack.kernel
        def local_named_triple(out):
            for i in range(len(out)):
                triple = i
                out[i] = triple(i)  # N-local-shadows-func

        local_named_triple(i32())
    check_position(error.value, "N-local-shadows-func", "triple(i)", "local_named_triple")


def test_local_named_like_a_device_function_reads_as_a_number(backend):
    @tack.kernel
    def local_value_named_triple(out):
        for i in range(len(out)):
            triple = i + 1
            out[i] = triple

    out = i32()
    local_value_named_triple(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(4) + 1)


def plain_python_function(x):
    return x + 1


plain_lambda = lambda x: x + 1  # noqa: E731


class CallableObject:
    def __call__(self, x):
        return x + 1


callable_object = CallableObject()


@pytest.mark.parametrize(
    "which", ["plain_python_function", "plain_lambda", "callable_object", "sorted", "partial", "bound_method"]
)
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_ordinary_python_callables_are_rejected(which):
    import functools

    partial = functools.partial(triple.fn)
    bound_method = callable_object.__call__
    with pytest.raises(TypeError) as error:
        if which == "plain_python_function":

            @tack.kernel
            def calls_python(out):
                for i in range(len(out)):
                    out[i] = plain_python_function(i)

        elif which == "plain_lambda":

            @tack.kernel
            def calls_python(out):
                for i in range(len(out)):
                    out[i] = plain_lambda(i)

        elif which == "callable_object":

            @tack.kernel
            def calls_python(out):
                for i in range(len(out)):
                    out[i] = callable_object(i)

        elif which == "sorted":

            @tack.kernel
            def calls_python(out):
                for i in range(len(out)):
                    out[i] = sorted(i)

        elif which == "partial":

            @tack.kernel
            def calls_python(out):
                for i in range(len(out)):
                    out[i] = partial(i)

        else:

            @tack.kernel
            def calls_python(out):
                for i in range(len(out)):
                    out[i] = bound_method(i)

        calls_python(i32())
    assert isinstance(error.value, tack.CompileError)
    assert error.value.function == "calls_python"
    assert which in error.value.message


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_device_function_passed_as_an_argument_is_rejected():
    @tack.kernel
    def calls_its_argument(fn, out):
        for i in range(len(out)):
            out[i] = fn(i)

    with pytest.raises(TypeError):
        calls_its_argument(triple, i32())


class Recorder:
    def __init__(self):
        self.reads = []

    @property
    def helper(self):
        self.reads.append("helper")
        return triple


recorder = Recorder()


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_resolution_never_evaluates_properties():
    with pytest.raises(tack.CompileError) as error:

        @tack.kernel
        def calls_through_property(out):
            for i in range(len(out)):
                out[i] = recorder.helper(i)  # N-property

        calls_through_property(i32())
    assert recorder.reads == []
    check_position(error.value, "N-property", "recorder.helper", "calls_through_property")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_resolution_never_calls_module_getattr(package):
    package.write(
        "lazy",
        """
        import tack

        asked = []

        @tack.func
        def present(x):
            return x

        def __getattr__(name):
            asked.append(name)
            return present
        """,
    )
    package.write(
        "uses_lazy",
        """
        import tack
        from PKG import lazy

        @tack.kernel
        def calls_missing(out):
            for i in range(len(out)):
                out[i] = lazy.absent(i)
        """,
    )
    lazy, uses_lazy = package.load("lazy"), package.load("uses_lazy")
    lazy.asked.clear()
    with pytest.raises(tack.KernelNameError, match="absent"):
        uses_lazy.calls_missing(i32())
    assert lazy.asked == []


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_direct_recursion_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def countdown(n):
            if n > 0:
                return countdown(n - 1)  # N-direct-recursion
            return 0

        @tack.kernel
        def calls_countdown(out):
            for i in range(len(out)):
                out[i] = countdown(i)

        calls_countdown(i32())
    assert "recurs" in error.value.message
    check_position(error.value, "N-direct-recursion", "countdown(n - 1)", "countdown", kind="device function")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_mutual_recursion_is_rejected(package):
    package.write(
        "mutual",
        """
        import tack

        @tack.func
        def is_even(n):
            if n == 0:
                return 1
            return is_odd(n - 1)

        @tack.func
        def is_odd(n):
            if n == 0:
                return 0
            return is_even(n - 1)

        @tack.kernel
        def parity(out):
            for i in range(len(out)):
                out[i] = is_even(i)
        """,
    )
    mutual = package.load("mutual")
    with pytest.raises(tack.UnsupportedError) as error:
        mutual.parity(i32())
    e = error.value
    assert "recurs" in e.message and "is_even" in e.message
    assert e.function == "is_odd" and e.function_kind == "device function"
    assert e.filename.endswith("mutual.py")


def test_a_device_function_called_twice_is_not_recursion(backend):
    @tack.func
    def inc(x):
        return x + 1

    @tack.func
    def inc_twice(x):
        return inc(inc(x))

    @tack.kernel
    def calls_inc_twice(out):
        for i in range(len(out)):
            out[i] = inc_twice(inc(i))

    out = i32()
    calls_inc_twice(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(4) + 3)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_no_process_wide_registry_of_device_function_names(package):
    # A kernel whose name `helper` is unbound must not find another module's
    # @tack.func of that name.
    package.write(
        "defines_helper",
        """
        import tack

        @tack.func
        def helper(x):
            return x
        """,
    )
    package.write(
        "lacks_helper",
        """
        import tack

        @tack.kernel
        def calls_unbound_helper(out):
            for i in range(len(out)):
                out[i] = helper(i)
        """,
    )
    package.load("defines_helper")
    lacks = package.load("lacks_helper")
    with pytest.raises(tack.KernelNameError, match="helper"):
        lacks.calls_unbound_helper(i32())


# ------------------------------------------------- device-class methods


def test_device_class_method_keeps_its_defining_bindings(backend, package):
    # Template methods resolve their calls in the module that defines the
    # class, not in the module of the kernel that receives the instance.
    package.write(
        "shapes",
        """
        import tack

        @tack.func
        def scale(x):
            return x * 2

        @tack.device_class
        class Doubler:
            def __init__(self, data):
                self.data = data

            @tack.func
            def at(self, i):
                return scale(self.data[i])
        """,
    )
    package.write(
        "uses_shapes",
        """
        import tack
        from PKG.shapes import Doubler

        @tack.func
        def scale(x):
            return x * 100

        @tack.kernel
        def doubled(d, out):
            for i in range(len(out)):
                out[i] = d.at(i) + scale(0)

        def run(values, out):
            doubled(Doubler(values), out)
        """,
    )
    uses = package.load("uses_shapes")
    a = tack.array(np.asarray(VALUES, dtype=np.int32))
    out = i32()
    uses.run(a, out)
    assert out.numpy().tolist() == [2 * v for v in VALUES]


def test_device_class_method_arguments_use_the_callers_namespace(backend, package):
    # The argument expression `scale(i)` is the kernel's; the method body's
    # `scale` is the class module's.
    package.write(
        "cls",
        """
        import tack

        @tack.func
        def scale(x):
            return x * 2

        @tack.device_class
        class Scaler:
            @tack.func
            def apply(self, x):
                return scale(x)
        """,
    )
    package.write(
        "kern",
        """
        import tack
        from PKG.cls import Scaler

        @tack.func
        def scale(x):
            return x + 1000

        @tack.kernel
        def applied(s, out):
            for i in range(len(out)):
                out[i] = s.apply(scale(i))
        """,
    )
    cls = package.load("cls")
    kern = package.load("kern")
    out = i32()
    kern.applied(cls.Scaler(), out)
    assert out.numpy().tolist() == [2 * (i + 1000) for i in range(4)]


SPHERE = tack.constant(tack.vec4(1.0, 2.0, 3.0, 0.5), tack.f32)


@tack.kernel
def vector_constant_components(out):
    for i in range(len(out)):
        out[i] = SPHERE.w * 10.0 + SPHERE.x + SPHERE[2] + TILT.y


def test_vector_constant_components_by_name(backend):
    # As a vector value's components are read in a kernel: v.x .. v.w.
    out = tack.zeros(2)
    vector_constant_components(out)
    want = np.float32(0.5) * np.float32(10) + np.float32(1) + np.float32(3) + np.float32(2)
    np.testing.assert_array_equal(out.numpy(), np.full(2, want, np.float32))


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_component_a_vector_constant_lacks_is_refused():
    @tack.kernel
    def past_the_end(out):
        for i in range(len(out)):
            out[i] = TILT.w

    with pytest.raises(tack.KernelNameError, match="'TILT.w' is a component a 3-component vector constant does not"):
        past_the_end(tack.zeros(1))
