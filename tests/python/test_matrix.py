"""Matrices (contract "Vectors and matrices"): products in index order,
transpose, trace, determinant and inverse, against NumPy and fractions."""

from fractions import Fraction

import numpy as np
import pytest
import tack


@tack.kernel
def matrix_ops(x, out):
    for i in range(len(x)):
        m = tack.mat3([x[i], 2.0, 0.0], [1.0, 3.0, 4.0], [5.0, 6.0, 1.0])
        v = tack.vec3(1.0, -1.0, 2.0)
        mv = m @ v
        vm = v @ m
        mm = m @ m.transpose()
        inv = m.inverse()
        out[i, 0] = mv[0]
        out[i, 1] = vm[2]
        out[i, 2] = mm[1, 2]
        out[i, 3] = m.trace()
        out[i, 4] = m.determinant()
        out[i, 5] = inv[0, 1]
        out[i, 6] = tack.mat2(1.0, 2.0, 3.0, 4.0).determinant()
        out[i, 7] = (tack.identity(3) @ v).z


def test_matrix_operations_follow_the_definitions(backend):
    xs = [2.0, -1.0]
    out = tack.zeros((2, 8), dtype=tack.f64)
    matrix_ops(tack.array(np.array(xs, dtype=np.float64)), out)
    for i, x in enumerate(xs):
        m = [[Fraction(x), Fraction(2), Fraction(0)], [Fraction(1), Fraction(3), Fraction(4)], [Fraction(5), Fraction(6), Fraction(1)]]
        v = [Fraction(1), Fraction(-1), Fraction(2)]
        mv0 = sum(m[0][k] * v[k] for k in range(3))
        vm2 = sum(v[k] * m[k][2] for k in range(3))
        mm12 = sum(m[1][k] * m[2][k] for k in range(3))
        trace = m[0][0] + m[1][1] + m[2][2]
        det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
               + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
        inv01 = -(m[0][1] * m[2][2] - m[0][2] * m[2][1]) / det
        want = [mv0, vm2, mm12, trace, det, inv01, Fraction(-2), v[2]]
        got = out.numpy()[i]
        for g, w in zip(got, want):
            assert abs(Fraction(float(g)) - w) <= abs(w) * Fraction(1, 2**50) + Fraction(1, 2**60), (got, want)


@tack.kernel
def store_entry_at_runtime_indices(out, r, c):
    for i in range(1):
        m = tack.mat3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
        m[r, c] = -1.0
        m[r, 2] = m[r, 2] + 100.0
        for k in range(9):
            out[k] = m[k // 3, k % 3]


@pytest.mark.parametrize("r,c", [(0, 0), (1, 2), (2, 1), (2, 2), (3, 0), (0, 3), (-1, 1)])
def test_runtime_row_and_column_stores(backend, r, c):
    out = tack.zeros(9, dtype=tack.f32)
    store_entry_at_runtime_indices(out, r, c)
    m = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    # In range: the entry is set (NumPy's assignment); outside: nothing is
    # stored, the contract's rule for runtime component stores.
    if 0 <= r < 3 and 0 <= c < 3:
        m[r, c] = -1.0
    if 0 <= r < 3:
        m[r, 2] += 100.0
    np.testing.assert_array_equal(out.numpy(), m.reshape(-1))


@tack.kernel
def store_rows(m, out):
    for i in range(len(out)):
        a = tack.mat([[1.0, 2.0], [3.0, 4.0]])
        a[1] = tack.vec2(a[1, 1], a[1, 0])  # both entries read before either is assigned
        a[0] = 7.0
        m[i][1] = m[i][0]
        m[i][0] = tack.vec2(a[0, 0] + tack.f32(i), a[1, 0])
        out[i] = a[1, 0] * 10.0 + a[0, 1]


@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_a_row_is_stored_as_numpy_stores_one(backend, layout):
    # m[r] = w stores the row as NumPy's row assignment does: a vector of
    # the row's length entry by entry (all of them evaluated first), a
    # number in every entry; on matrix locals and matrix array elements.
    start = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    m, out = tack.array(start, dtype=tack.mat22f, layout=layout), tack.zeros(3)
    store_rows(m, out)
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    a[1] = a[1, ::-1].copy()
    a[0] = 7.0
    want = start.copy()
    want[:, 1] = start[:, 0]
    want[:, 0] = np.stack([a[0, 0] + np.arange(3, dtype=np.float32), np.full(3, a[1, 0])], axis=1)
    np.testing.assert_array_equal(m.numpy(), want)
    np.testing.assert_array_equal(out.numpy(), np.full(3, a[1, 0] * np.float32(10) + a[0, 1]))


@tack.kernel
def store_a_longer_row(out):
    for i in range(len(out)):
        a = tack.mat([[1.0, 2.0], [3.0, 4.0]])
        a[1] = tack.vec3(1.0, 2.0, 3.0)
        out[i] = a[0, 0]


@tack.kernel
def store_a_row_at_a_runtime_index(m, k):
    for i in range(len(m)):
        m[i][k] = tack.vec2(1.0, 2.0)


def test_a_row_takes_its_length_at_a_literal_row():
    with pytest.raises(tack.KernelTypeError, match=r"a row of a mat2x2 takes a vec2 or a number, not a vec3"):
        store_a_longer_row(tack.zeros(2))
    with pytest.raises(tack.KernelTypeError, match=r"a matrix row is selected by a literal index"):
        store_a_row_at_a_runtime_index(tack.zeros(2, dtype=tack.mat22f), 1)
