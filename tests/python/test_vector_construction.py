"""Constructing and taking apart vectors and matrices the way NumPy, Taichi
and Warp users write it: tack.vec3() is the zero vector, `u, v = p`
unpacks components (and `r0, r1 = m` a matrix's rows), tack.mat takes one
list of rows (lists or vectors), and int(v) / float(v) convert
componentwise as tack.i32(v) / tack.f32(v) do. Oracles: NumPy arrays built
from the same numbers, and NumPy's astype."""

import numpy as np
import pytest
import tack


@tack.kernel
def zero_vectors(out3, out2):
    for i in range(len(out3)):
        out3[i] = tack.vec3() + tack.f32(i)
        out2[i] = tack.vec2()


def test_a_vector_of_no_arguments_is_the_zero_vector(backend):
    out3 = tack.full(4, 7.0, dtype=tack.vec3f)
    out2 = tack.full(4, -1.0, dtype=tack.vec2f)
    zero_vectors(out3, out2)
    np.testing.assert_array_equal(out3.numpy(), np.repeat(np.arange(4, dtype=np.float32)[:, None], 3, axis=1))
    np.testing.assert_array_equal(out2.numpy(), np.zeros((4, 2), np.float32))


@tack.kernel
def zero_in_f64(out, scale):
    for i in range(len(out)):
        z = tack.vec2()
        out[i] = z.x + scale[i]


def test_the_zero_vector_takes_f64_where_it_meets_f64(backend):
    # A float literal's rule: 0.0 meets the f64 array and stays exact.
    scale = np.array([1e-300, 2.0 ** -1074], np.float64)
    out = tack.zeros(2, dtype=tack.f64)
    zero_in_f64(out, tack.array(scale))
    np.testing.assert_array_equal(out.numpy(), scale)


@tack.kernel
def unpack(points, out):
    for i in range(len(points)):
        x, y, z = points[i]
        u, v = tack.vec2(z, x)
        out[i] = tack.vec3(v, u, y)


def test_unpacking_a_vector_gives_its_components(backend):
    pts = np.arange(15, dtype=np.float32).reshape(5, 3) - 4.5
    out = tack.zeros(5, dtype=tack.vec3f)
    unpack(tack.array(pts, dtype=tack.vec3f), out)
    np.testing.assert_array_equal(out.numpy(), pts[:, [0, 2, 1]])


@tack.kernel
def unpack_rows(out):
    for i in range(len(out)):
        m = tack.mat([[1.0, 2.0], [3.0, 4.0]]) * tack.f32(i + 1)
        r0, r1 = m
        a, b = r1
        out[i] = tack.vec4(r0.x, r0.y, a, b)


def test_unpacking_a_matrix_gives_its_rows(backend):
    out = tack.zeros(3, dtype=tack.vec4f)
    unpack_rows(out)
    want = np.array([[1, 2, 3, 4]], np.float32) * np.arange(1, 4, dtype=np.float32)[:, None]
    np.testing.assert_array_equal(out.numpy(), want)


def test_unpacking_into_the_wrong_number_of_targets_is_refused():
    with pytest.raises(tack.KernelTypeError, match="cannot unpack a vec3 into 2 targets") as e:

        @tack.kernel
        def too_few(out):
            for i in range(len(out)):
                u, v = tack.vec3(1.0, 2.0, 3.0)
                out[i] = u + v

        too_few(tack.zeros(2))
    assert e.value.function == "too_few"
    assert "unpacks into 3 targets" in str(e.value)


@tack.kernel
def matrices_from_lists(x, out):
    for i in range(len(x)):
        w0 = tack.vec2(x[i], 2.0)
        w1 = tack.vec2(3.0, -x[i])
        a = tack.mat([w0, w1])
        b = tack.mat([[x[i], 1.0], [0.5, 4.0]])
        c = tack.mat2([[1.0, 0.0], [x[i], 1.0]])
        d = tack.mat((w1, w0))
        out[i] = a @ b + c - d


def test_a_matrix_takes_one_list_of_rows(backend):
    xs = np.array([1.5, -2.0, 0.25], np.float32)
    out = tack.zeros(3, dtype=tack.mat22f)
    matrices_from_lists(tack.array(xs), out)
    for i, x in enumerate(xs):
        a = np.array([[x, 2], [3, -x]], np.float32)
        b = np.array([[x, 1], [0.5, 4]], np.float32)
        c = np.array([[1, 0], [x, 1]], np.float32)
        d = np.array([[3, -x], [x, 2]], np.float32)
        np.testing.assert_array_equal(out.numpy()[i], a @ b + c - d)


def test_a_ragged_list_of_rows_is_refused():
    with pytest.raises(tack.KernelTypeError, match="matrix rows have different lengths"):

        @tack.kernel
        def ragged(out):
            for i in range(len(out)):
                m = tack.mat([[1.0, 2.0], [3.0, 4.0, 5.0]])
                out[i] = m[0, 0]

        ragged(tack.zeros(2))


@tack.kernel
def python_casts(v, as_int, as_float):
    for i in range(len(v)):
        as_int[i] = int(v[i])
        as_float[i] = float(int(v[i]) * 3)


def test_int_and_float_of_a_vector_convert_componentwise(backend):
    v = np.array([[1.5, -2.5, 7.99], [-0.5, 100.25, -3.0]], np.float32)
    as_int = tack.zeros(2, dtype=tack.vec3i)
    as_float = tack.zeros(2, dtype=tack.vec3f)
    python_casts(tack.array(v, dtype=tack.vec3f), as_int, as_float)
    np.testing.assert_array_equal(as_int.numpy(), v.astype(np.int32))
    np.testing.assert_array_equal(as_float.numpy(), (v.astype(np.int32) * 3).astype(np.float32))


def test_a_host_vector_argument_is_an_array_and_the_message_says_so():
    # tack.vec2(...) outside a kernel is a NumPy array; a call binds it to
    # an array parameter, so using it as a vector value is refused with a
    # message naming the parameter and what to pass instead.
    @tack.kernel
    def scaled(out, v):
        for i in range(len(out)):
            out[i] = v * 2.0

    with pytest.raises(tack.KernelTypeError, match="array parameter 'v' is used where a number is expected") as e:
        scaled(tack.zeros(3, dtype=tack.vec2f), tack.vec2(1.0, 2.0))
    assert "host vectors such as tack.vec3(...)" in str(e.value)
