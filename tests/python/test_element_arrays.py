"""Arrays with vector and matrix elements (contract "Vectors and matrices",
"Memory and aliasing"): element types, creation in both layouts, host reads,
and kernels that load, store and update elements and their components.

Expected values come from NumPy arithmetic on the same data in the same
precision, never from Tack's output.
"""

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY, IMPORTED_HOST_MEMORY

LAYOUTS = ["aos", "soa"]


def grid(shape, dtype=np.float32, start=0):
    n = int(np.prod(shape))
    return (np.arange(n) + start).astype(dtype).reshape(shape)


# ------------------------------------------------------------- element types


def test_named_types_are_the_general_constructors():
    assert tack.vec3f is tack.vector(3, tack.f32)
    assert tack.vec2d is tack.vector(2, tack.f64)
    assert tack.vec4i is tack.vector(4, tack.i32)
    assert tack.mat33f is tack.matrix(3, 3, tack.f32)
    assert tack.mat44d is tack.matrix(4, 4, np.float64)
    assert tack.vec3f.shape == (3,) and tack.vec3f.dtype == tack.f32
    assert tack.mat22d.shape == (2, 2) and tack.mat22d.itemsize == 32
    assert repr(tack.vector(3, tack.u8)) == "tack.vector(3, tack.u8)"
    assert repr(tack.matrix(2, 3, tack.f32)) == "tack.mat23f"


def test_element_and_scalar_types_compare_unequal():
    # A scalar dtype compared with an element type (or anything NumPy cannot
    # read as a dtype) is unequal, as Python's == is; it raised ValueError.
    for scalar in (tack.f32, tack.i64):
        for other in (tack.vec3f, tack.vector(2, scalar), "no dtype", object()):
            assert not scalar == other and scalar != other and not other == scalar
    assert tack.f32 in [tack.vec3f, tack.f32] and tack.vec3f not in [tack.f32, tack.f64]
    assert tack.f32 == np.float32 and tack.f32 == "float32" and tack.f32 != np.float64


@pytest.mark.parametrize("bad", [0, 5, 2.0, True])
def test_element_extents_are_one_to_four(bad):
    with pytest.raises(ValueError, match="1 to 4"):
        tack.vector(bad, tack.f32)
    with pytest.raises(ValueError, match="1 to 4"):
        tack.matrix(2, bad, tack.f32)


# ------------------------------------------------------------------ creation


@pytest.mark.parametrize("layout", LAYOUTS)
def test_creation_functions_take_element_types_and_layouts(backend, layout):
    z = tack.zeros((2, 3), tack.vec3f, layout=layout)
    assert z.shape == (2, 3) and len(z) == 2 and z.size == 6
    assert z.dtype is tack.vec3f and z.element_shape == (3,) and z.layout == layout
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3, 3), np.float32))
    o = tack.ones(4, tack.mat22d, layout=layout)
    np.testing.assert_array_equal(o.numpy(), np.ones((4, 2, 2)))
    f = tack.full(3, [1, 2, 3, 4], tack.vec4i, layout=layout)
    np.testing.assert_array_equal(f.numpy(), np.array([[1, 2, 3, 4]] * 3, np.int32))
    e = tack.empty(5, tack.vec2d, layout=layout)
    assert e.numpy().shape == (5, 2) and e.numpy().dtype == np.float64


@pytest.mark.parametrize("layout", LAYOUTS)
def test_array_from_numpy_and_back(backend, layout):
    data = grid((4, 3))
    a = tack.array(data, dtype=tack.vec3f, layout=layout)
    assert a.shape == (4,)
    np.testing.assert_array_equal(a.numpy(), data)
    m = grid((2, 3, 3, 3), np.float64)
    b = tack.array(m, dtype=tack.mat33d, layout=layout)
    assert b.shape == (2, 3)
    np.testing.assert_array_equal(b.numpy(), m)
    np.testing.assert_array_equal(np.asarray(b), m)


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_soa_storage_keeps_each_component_together():
    a = tack.array(grid((4, 3)), dtype=tack.vec3f, layout="soa")
    storage = tack.array_from_ptr(a.ptr, (12,), tack.f32, owner=a)
    np.testing.assert_array_equal(storage.numpy(), grid((4, 3)).T.reshape(-1))


def test_array_checks_the_element_shape():
    with pytest.raises(ValueError, match="element shape"):
        tack.array(np.zeros((4, 2), np.float32), dtype=tack.vec3f)
    with pytest.raises(ValueError, match="layout"):
        tack.zeros(3, tack.f32, layout="soa")
    with pytest.raises(ValueError, match="layout"):
        tack.zeros(3, tack.vec3f, layout="columns")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_host_reads_of_one_element_are_numpy_arrays(backend, layout):
    data = grid((2, 3, 2, 2))
    a = tack.array(data, dtype=tack.mat22f, layout=layout)
    got = a[1, 2]
    assert isinstance(got, np.ndarray) and got.shape == (2, 2)
    np.testing.assert_array_equal(got, data[1, 2])
    got[0, 0] = 99  # a copy: the array is unchanged
    assert a[1, 2][0, 0] == data[1, 2, 0, 0]
    np.testing.assert_array_equal(a[1].numpy(), data[1])  # a view of one row of elements
    with pytest.raises(TypeError):
        a[0, 0] = np.zeros((2, 2))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_views_and_reductions_cover_every_component(backend, layout):
    data = grid((6, 2))
    a = tack.array(data, dtype=tack.vec2f, layout=layout)
    np.testing.assert_array_equal(a[2:5].numpy(), data[2:5])
    np.testing.assert_array_equal(a.reshape(3, 2).numpy(), data.reshape(3, 2, 2))
    assert a.sum() == float(data.sum()) and a.max() == 11.0
    a.fill(2.5)
    np.testing.assert_array_equal(a.numpy(), np.full((6, 2), 2.5, np.float32))


def test_copyto_between_layouts(backend):
    src = tack.array(grid((5, 3)), dtype=tack.vec3f)
    dst = tack.zeros(5, tack.vec3f, layout="soa")
    tack.copyto(dst, src)
    np.testing.assert_array_equal(dst.numpy(), grid((5, 3)))


# ------------------------------------------------------------------ kernels


@tack.kernel
def scale_and_shift(a, b, s):
    for i in range(len(a)):
        a[i] = a[i] * s + b[i]


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_element_loads_and_stores(backend, la, lb):
    x, y = grid((7, 3)), grid((7, 3), start=100)
    a = tack.array(x, dtype=tack.vec3f, layout=la)
    scale_and_shift(a, tack.array(y, dtype=tack.vec3f, layout=lb), 2.0)
    np.testing.assert_array_equal(a.numpy(), x * np.float32(2) + y)


@tack.kernel
def components(v, out):
    for i in range(len(v)):
        out[i, 0] = v[i].x
        out[i, 1] = v[i][1]
        out[i, 2] = v[i][-1]
        out[i, 3] = v[i].dot(v[i])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_component_reads(backend, layout):
    x = grid((5, 3), np.float64)
    out = tack.zeros((5, 4), tack.f64)
    components(tack.array(x, dtype=tack.vec3d, layout=layout), out)
    want = np.stack([x[:, 0], x[:, 1], x[:, 2], (x * x).sum(1)], axis=1)
    np.testing.assert_array_equal(out.numpy(), want)


@tack.kernel
def component_writes(v, k):
    for i in range(len(v)):
        v[i].x = -1.0
        v[i][2] = v[i][2] * 10.0
        v[i][1] += 0.5
        v[i][k] = 7.0


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("k", [1, 3, 4])
def test_component_writes(backend, layout, k):
    x = grid((6, 4))
    v = tack.array(x, dtype=tack.vec4f, layout=layout)
    component_writes(v, k)
    want = x.copy()
    want[:, 0] = -1
    want[:, 2] *= 10
    want[:, 1] += 0.5
    if k < 4:  # a runtime component outside [0, n) stores nothing
        want[:, k] = 7
    np.testing.assert_array_equal(v.numpy(), want)


@tack.kernel
def matrix_ops(m, v, out):
    for i in range(len(m)):
        out[i] = m[i] @ v[i]
        m[i][0, 1] = m[i].determinant()
        m[i] += 1.0


@pytest.mark.parametrize("layout", LAYOUTS)
def test_matrix_elements(backend, layout):
    rng = np.random.default_rng(3)
    m = rng.integers(-4, 5, size=(9, 3, 3)).astype(np.float32)
    v = rng.integers(-4, 5, size=(9, 3)).astype(np.float32)
    ma = tack.array(m, dtype=tack.mat33f, layout=layout)
    out = tack.zeros(9, tack.vec3f)
    matrix_ops(ma, tack.array(v, dtype=tack.vec3f), out)
    np.testing.assert_array_equal(out.numpy(), np.einsum("nij,nj->ni", m, v))
    want = m.copy()
    want[:, 0, 1] = np.round(np.linalg.det(m.astype(np.float64)))  # small integers: exact in f32
    np.testing.assert_array_equal(ma.numpy(), want + 1)


@tack.kernel
def fill_with_number(v, value):
    for i in range(len(v)):
        v[i] = value


def test_a_number_is_stored_to_every_component(backend):
    v = tack.zeros(4, tack.mat22f, layout="soa")
    fill_with_number(v, 3.5)
    np.testing.assert_array_equal(v.numpy(), np.full((4, 2, 2), 3.5, np.float32))


@tack.kernel
def grid_of_vectors(v, flat):
    for i, j in tack.ndindex(v.shape[0], v.shape[1]):
        flat[i * v.shape[1] + j] = v[i, j] + v[i * v.shape[1] + j]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_two_dimensional_and_flat_indices(backend, layout):
    x = grid((3, 4, 2))
    out = tack.zeros(12, tack.vec2f)
    grid_of_vectors(tack.array(x, dtype=tack.vec2f, layout=layout), out)
    np.testing.assert_array_equal(out.numpy(), 2 * x.reshape(12, 2))


@tack.kernel
def copy_view(src, dst):
    for i in range(len(src)):
        dst[i] = src[i]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_strided_views_of_element_arrays(backend, layout):
    x = grid((4, 6, 3))
    a = tack.array(x, dtype=tack.vec3f, layout=layout)
    column = a[1:4, 2]  # a strided view of three elements
    assert not column.is_contiguous
    out = tack.zeros(3, tack.vec3f)
    copy_view(column, out)
    np.testing.assert_array_equal(out.numpy(), x[1:4, 2])


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_storing_the_wrong_shape_is_refused():
    with pytest.raises(tack.KernelTypeError, match="vec2 cannot be stored into array 'v', whose elements are vec3s"):

        @tack.kernel
        def wrong_shape(v):
            for i in range(len(v)):
                v[i] = tack.vec2(1.0, 2.0)

        wrong_shape(tack.zeros(2, tack.vec3f))


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_components_out_of_range_are_refused():
    with pytest.raises(tack.KernelTypeError, match="out of range") as e:

        @tack.kernel
        def past_the_end(v):
            for i in range(len(v)):
                v[i][3] = 1.0

        past_the_end(tack.zeros(2, tack.vec3f))
    assert e.value.function == "past_the_end"


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_vector_into_a_scalar_array_is_refused():
    with pytest.raises(tack.KernelTypeError, match="whose elements are numbers"):

        @tack.kernel
        def into_numbers(v, out):
            for i in range(len(v)):
                out[i] = v[i]

        into_numbers(tack.zeros(2, tack.vec3f), tack.zeros(2))


@tack.kernel
def gather_by_vector_index(table, cells, out):
    for i in range(len(cells)):
        out[i] = table[cells[i]] + table[cells[i].x, 0]
        tack.atomic_add(table, (cells[i].y, cells[i].x), 0)


def test_a_vector_of_integers_is_one_index_per_component(backend):
    table = grid((5, 4), np.int32)
    cells = np.array([[0, 3], [4, 0], [2, 2], [1, 1]], np.int32)
    out = tack.zeros(4, tack.i32)
    gather_by_vector_index(tack.array(table), tack.array(cells, dtype=tack.vec2i), out)
    np.testing.assert_array_equal(out.numpy(), table[cells[:, 0], cells[:, 1]] + table[cells[:, 0], 0])


def test_debug_mode_checks_element_indices(backend):
    @tack.kernel
    def one_past_the_end(a):
        for i in range(len(a) + 1):
            a[i].y = 1.0

    was = tack.debug_enabled()
    tack.set_debug(True)
    try:
        a = tack.zeros(3, tack.vec3f, layout="soa")
        with pytest.raises(IndexError, match=r"index \(3,\) is out of bounds for array 'a' with shape \(3,\)"):
            one_past_the_end(a)
        np.testing.assert_array_equal(a.numpy(), [[0, 1, 0]] * 3)  # the in-bounds stores ran
    finally:
        tack.set_debug(was)


@tack.kernel
def cross_into(a, b):
    for i in range(len(a)):
        a[i] = b[i].cross(tack.vec3(1.0, 2.0, 3.0))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("alias", ["same-array", "view"])
def test_vector_store_evaluates_every_component_before_writing_aliased_storage(backend, layout, alias):
    # b[i] is a[i]'s storage: the cross product must read b's old components
    # for all three results before the first is stored.
    x = grid((6, 3), start=1) * np.float32(0.5)
    a = tack.array(x, dtype=tack.vec3f, layout=layout)
    b = a if alias == "same-array" else a[0:6]
    cross_into(a, b)
    np.testing.assert_array_equal(a.numpy(), np.cross(x, np.array([1, 2, 3], dtype=np.float32)))


@tack.kernel
def swap_components(a):
    for i in range(len(a)):
        a[i].x, a[i].z = a[i].z, a[i].x


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tuple_assignment_to_element_components(backend, layout):
    # The whole right side first, then the targets from the left.
    x = grid((4, 3), start=1)
    a = tack.array(x, dtype=tack.vec3f, layout=layout)
    swap_components(a)
    np.testing.assert_array_equal(a.numpy(), x[:, [2, 1, 0]])


@tack.kernel
def store_element_entry(m, r, c, v):
    for i in range(len(m)):
        m[i][r, c] = v + i


@pytest.mark.parametrize("layout", ["aos", "soa"])
@pytest.mark.parametrize("r,c", [(0, 1), (1, 0), (2, 0), (0, 2)])
def test_runtime_entry_stores_into_matrix_elements(backend, layout, r, c):
    m = tack.zeros(3, dtype=tack.mat22f, layout=layout)
    store_element_entry(m, r, c, 5.0)
    expected = np.zeros((3, 2, 2), dtype=np.float32)
    if r < 2 and c < 2:
        expected[:, r, c] = 5.0 + np.arange(3)
    np.testing.assert_array_equal(m.numpy(), expected)


@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_fill_takes_one_element_value(backend, layout):
    v = tack.empty(5, dtype=tack.vec2f, layout=layout)
    v.fill([0, -1])
    np.testing.assert_array_equal(v.numpy(), np.tile(np.float32([0, -1]), (5, 1)))
    m = tack.empty((2, 3), dtype=tack.matrix(2, 2, tack.i32), layout=layout)
    m.fill(np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(m.numpy(), np.broadcast_to(np.int32([[1, 2], [3, 4]]), (2, 3, 2, 2)))
    m.fill(7)
    assert (m.numpy() == 7).all()
    view = v[1:3]
    view.fill((4.5, 2.5))
    np.testing.assert_array_equal(v.numpy()[1:3], np.float32([[4.5, 2.5]] * 2))
    np.testing.assert_array_equal(v.numpy()[[0, 3, 4]], np.float32([[0, -1]] * 3))


def test_fill_refuses_values_of_another_shape_or_kind(backend):
    v = tack.zeros(3, dtype=tack.vec2f)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        v.fill([1, 2, 3])
    with pytest.raises(TypeError, match="numbers"):
        v.fill(["a", "b"])
    with pytest.raises(TypeError, match="takes a number"):
        tack.zeros(3, dtype=tack.f32).fill([1.0])
    with pytest.raises(TypeError):
        tack.zeros(3, dtype=tack.i32).fill([1, 2])
    with pytest.raises(TypeError):
        tack.zeros(3, dtype=tack.vec2i).fill([0.5, 1])
    np.testing.assert_array_equal(v.numpy(), np.zeros((3, 2), dtype=np.float32))


@pytest.mark.parametrize("value", [np.complex64(1), np.complex128(1 + 2j), 1 + 2j, np.str_("1"),
                                   np.datetime64("2020-01-01"), np.bytes_(b"1")],
                         ids=lambda v: type(v).__name__)
def test_fill_refuses_numbers_that_are_not_real(backend, value):
    # A complex number would lose its imaginary part (NumPy warns and drops
    # it), a string or a date is no number: each is a TypeError naming the
    # array, and the array keeps its elements.
    for dtype in (tack.f32, tack.i8, tack.u64, tack.vec3f):
        a = tack.zeros(3, dtype=dtype)
        with pytest.raises(TypeError, match=r"fill\(\) of array\["):
            a.fill(value)
        with pytest.raises(TypeError):
            tack.full(3, value, dtype=dtype)
        with pytest.raises(TypeError):
            tack.full_like(a, value)
        assert not a.numpy().any()
    # NumPy's bools, integers and floats are numbers.
    for value, want in ((np.bool_(True), 1), (np.int8(-3), -3), (np.float16(2.5), 2.5)):
        np.testing.assert_array_equal(tack.full(2, value, dtype=tack.f32).numpy(), np.full(2, want, np.float32))
