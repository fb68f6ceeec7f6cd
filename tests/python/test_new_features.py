"""Vectors and matrices as values (contract "Vectors and matrices"): every
operation is the scalar operation on each component, checked against NumPy
doing the same arithmetic in the same precision."""

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY


def f32(values):
    return tack.array(np.asarray(values, dtype=np.float32))


@tack.func
def swap_xy(v):
    return tack.vec3(v.y, v.x, v.z)


@tack.kernel
def vector_ops(x, out):
    for i in range(len(x)):
        a = tack.vec3(x[i], 2.0, -1.0)
        b = [0.5, x[i], 4.0]
        c = a * b + 1.0
        d = a.cross(b)
        out[i, 0] = c.x
        out[i, 1] = c[2]
        out[i, 2] = d[0]
        out[i, 3] = d.y
        out[i, 4] = d[-1]
        out[i, 5] = a.dot(b)
        out[i, 6] = a.norm_sqr()
        out[i, 7] = swap_xy(a).x
        out[i, 8] = tack.vec3(x[i]).sum()
        out[i, 9] = (a - b).max()


def test_componentwise_arithmetic_and_methods(backend):
    xs = np.array([0.5, -3.0, 7.25], dtype=np.float32)
    out = tack.zeros((3, 10))
    vector_ops(f32(xs), out)
    got = out.numpy()
    for i, x in enumerate(xs):
        a = np.array([x, 2.0, -1.0], dtype=np.float32)
        b = np.array([0.5, x, 4.0], dtype=np.float32)
        c = a * b + np.float32(1.0)
        d = np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], dtype=np.float32)
        dot = (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]
        nsq = (a[0] * a[0] + a[1] * a[1]) + a[2] * a[2]
        want = [c[0], c[2], d[0], d[1], d[2], dot, nsq, a[1], np.float32(3 * x), (a - b).max()]
        np.testing.assert_array_equal(got[i], np.array(want, dtype=np.float32))


@tack.kernel
def masks(x, out):
    for i in range(len(x)):
        v = tack.vec4(x[i], 1.0, -2.0, 0.0)
        inside = (0.0 <= v) and (v < 1.5)
        out[i, 0] = tack.f32(any(inside))
        out[i, 1] = tack.f32(all(inside))
        out[i, 2] = tack.select(inside, v, 9.0).sum()
        out[i, 3] = tack.f32((v > 0.0)[0])


def test_masks_act_per_component(backend):
    xs = np.array([0.25, 3.0, -1.0], dtype=np.float32)
    out = tack.zeros((3, 4))
    masks(f32(xs), out)
    for i, x in enumerate(xs):
        v = np.array([x, 1.0, -2.0, 0.0], dtype=np.float32)
        inside = (v >= 0) & (v < 1.5)
        want = [float(inside.any()), float(inside.all()), np.where(inside, v, np.float32(9)).sum(dtype=np.float32),
                float(v[0] > 0)]
        np.testing.assert_array_equal(out.numpy()[i], np.array(want, dtype=np.float32))


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_mask_as_a_condition_is_rejected_with_the_remedy():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def mask_if(x):
            for i in range(len(x)):
                if tack.vec2(x[i], 1.0) > 0.0:
                    x[i] = 0.0

        mask_if(tack.zeros(2))
    assert "mask" in e.value.message and "any(" in e.value.hint
    assert e.value.function == "mask_if"


@tack.kernel
def assign_order(x, out):
    for i in range(len(x)):
        v = tack.vec3(1.0, x[i], 3.0)
        w = tack.vec3(0.0, 1.0, 2.0)
        v = v.cross(w)  # reads the old components
        v[1] = v[1] + 10.0
        v.z += 1.0
        k = i % 4
        out[i, 0] = v.x
        out[i, 1] = v.y
        out[i, 2] = v.z
        out[i, 3] = v[k]  # a runtime index past the end reads the last component


def test_vector_assignment_reads_every_old_component_first(backend):
    xs = np.arange(5, dtype=np.float32)
    out = tack.zeros((5, 4))
    assign_order(f32(xs), out)
    for i, x in enumerate(xs):
        v = np.cross(np.array([1.0, x, 3.0]), np.array([0.0, 1.0, 2.0])).astype(np.float32)
        v[1] += 10
        v[2] += 1
        k = i % 4
        want = [v[0], v[1], v[2], v[min(k, 2)]]
        np.testing.assert_array_equal(out.numpy()[i], np.array(want, dtype=np.float32))


# The numbers the front end adds beside a user's integer (range()'s implicit
# start and step, a component's position compared with a runtime index, a
# matrix's row length, the 0 a mask's truth compares with) take that
# integer's type where theirs cannot be mixed with it: a u64 needs none of
# the casts a u64 written beside an i32 literal does.
@tack.kernel
def beside_u64(u, out, chosen):
    for i in range(len(u)):
        v = tack.vec3(tack.i64(i) * 10, tack.i64(i) * 10 + 1, tack.i64(i) * 10 + 2)
        m = tack.mat2(1, 2, 3, 4)
        k = u[i]
        w = tack.vec2(k, k & tack.u64(1))
        out[i, 0] = v[k]  # at or past the width: the last component
        out[i, 1] = m[k & tack.u64(1), tack.i64(1) - tack.i64(k & tack.u64(1))]  # a u64 row, an i64 column
        out[i, 2] = 1 if any(w) else 0
        out[i, 3] = 1 if all(w) else 0
        total = tack.u64(0)
        for q in range(k % tack.u64(6)):
            total += q
        out[i, 4] = tack.i64(total)
        # An i16, a u64 and an f32: the choice is an f32 (no integer type
        # holds an i16 and a u64; the float takes them both).
        chosen[i] = tack.vec3(tack.i16(-7), k, tack.f32(0.5))[k & tack.u64(3)]


@tack.kernel
def counts_to_u64(n, seen):
    for i in range(n):
        seen[i] = tack.i32(i) + 1


def test_u64_integers_beside_the_front_ends_own_numbers(backend):
    values = [0, 1, 2, 3, 5, 2**63 - 1, 2**63, 2**64 - 1]
    u = tack.array(np.array(values, dtype=np.uint64))
    out, chosen = tack.zeros((len(values), 5), dtype=tack.i64), tack.zeros(len(values), dtype=tack.f64)
    beside_u64(u, out, chosen)
    m = [[1, 2], [3, 4]]
    for i, k in enumerate(values):  # Python integers
        want = [i * 10 + min(k, 2), m[k & 1][1 - (k & 1)], int(k != 0 or (k & 1) != 0),
                int(k != 0 and (k & 1) != 0), sum(range(k % 6))]
        assert out.numpy()[i].tolist() == want, (i, k)
        parts = [np.float32(-7), np.array(k, np.uint64).astype(np.float32), np.float32(0.5)]  # NumPy's conversions
        assert chosen.numpy()[i] == parts[min(k & 3, 2)], (i, k)
    seen = tack.zeros(9, dtype=tack.i32)
    counts_to_u64(np.uint64(7), seen)
    assert seen.numpy().tolist() == [1, 2, 3, 4, 5, 6, 7, 0, 0]


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_storing_a_vector_into_scalar_storage_is_rejected():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def store_vec(x):
            for i in range(len(x)):
                x[i] = tack.vec2(1.0, 2.0)

        store_vec(tack.zeros(2))
    assert "vec2" in e.value.message


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_shapes_must_agree():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def mixed(x):
            for i in range(len(x)):
                x[i] = (tack.vec2(1.0, 2.0) + tack.vec3(1.0, 2.0, 3.0)).x

        mixed(tack.zeros(2))
    assert "shapes" in e.value.message


# ------------------------------------------------ vectors returned by calls


@tack.func
def doubled_row(a, i):
    return tack.vec3(a[i, 0], a[i, 1], a[i, 2]) * 2.0


@tack.kernel
def vector_results_in_builtins_and_masks(a, out):
    for i in range(len(out)):
        v = abs(doubled_row(a, i)) + max(doubled_row(a, i), 1.0)
        mask = (doubled_row(a, i) > 0.0) and (doubled_row(a, i) < 5.0)
        w = tack.select(mask, v, -v)
        out[i, 0] = w[0]
        out[i, 1] = w[1]
        out[i, 2] = w[2]


def test_device_function_vector_results_in_builtins_comparisons_and_masks(backend):
    # Whether a call gives a vector is known from its value, not its spelling.
    a = np.array([[1.0, -2.0, 3.0], [-4.0, 2.0, 0.5]], dtype=np.float32)
    out = tack.zeros((2, 3))
    vector_results_in_builtins_and_masks(tack.array(a), out)
    d = a * np.float32(2)
    v = np.abs(d) + np.maximum(d, np.float32(1))
    expected = np.where((d > 0) & (d < 5), v, -v)
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.kernel
def mixed_shape_mask(out):
    for i in range(len(out)):
        m = (tack.vec3(1.0, 2.0, 3.0) > 0.0) and (tack.vec2(1.0, 2.0) > 0.0)
        out[i] = m.x


@tack.kernel
def mixed_shape_select(out):
    for i in range(len(out)):
        out[i] = tack.select(tack.vec2(1.0, 0.0) > 0.5, tack.vec3(1.0, 2.0, 3.0), 0.0).x


@tack.kernel
def mixed_shape_compare(out):
    for i in range(len(out)):
        out[i] = tack.select(tack.vec2(1.0, 0.0) < tack.vec3(1.0, 2.0, 3.0), 1.0, 0.0).x


@tack.kernel
def mixed_shape_arms(out):
    for i in range(len(out)):
        out[i] = (tack.vec2(1.0, 0.0) if i > 0 else tack.vec3(1.0, 2.0, 3.0)).x


@tack.kernel
def mixed_shape_arguments(out):
    for i in range(len(out)):
        out[i] = max(tack.vec2(1.0, 0.0), tack.vec3(1.0, 2.0, 3.0)).x


@pytest.mark.parametrize(
    "kernel, what",
    [
        (mixed_shape_mask, "masks"),
        (mixed_shape_select, "tack.select()'s mask and values"),
        (mixed_shape_compare, "compared values"),
        (mixed_shape_arms, "the arms"),
        (mixed_shape_arguments, "arguments"),
    ],
)
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_values_of_different_shapes_are_rejected_wherever_they_meet(kernel, what):
    with pytest.raises(tack.KernelTypeError) as e:
        kernel(tack.zeros(2))
    assert f"{what} have different shapes: vec" in str(e.value)
    assert "vec2" in str(e.value) and "vec3" in str(e.value)
