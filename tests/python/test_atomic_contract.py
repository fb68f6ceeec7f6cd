"""Atomic array updates on the CPU (contract "Atomic array updates"):
contended updates from every worker, old values, the CPU dtype domain with
wrapping and unsigned extrema, alignment and target checks."""

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY, IMPORTED_HOST_MEMORY, atomic_domain, atomics_cover

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@tack.kernel
def count_into(counts, n_bins):
    for i in range(len(counts) * 1000):
        tack.atomic_add(counts, i % n_bins, 1)


@pytest.mark.parametrize("dtype", INT_TYPES + [np.float32, np.float64])
def test_contended_adds_from_all_workers(backend, dtype):
    counts = tack.array(np.zeros(7, dtype=dtype))
    with atomic_domain(backend, dtype):
        count_into(counts, 7)
    if not atomics_cover(backend, dtype):
        return
    total = 7 * 1000
    want = np.array([total // 7] * 7, dtype=np.int64)
    # 1000 additions of 1 per bin wrap modulo 2^N for narrow integers.
    np.testing.assert_array_equal(counts.numpy(), want.astype(dtype))


@tack.kernel
def extrema(values, out):
    for i in range(len(values)):
        tack.atomic_min(out, 0, values[i])
        tack.atomic_max(out, 1, values[i])


@pytest.mark.parametrize("dtype", INT_TYPES + [np.float32, np.float64])
def test_extrema_use_the_target_signedness(backend, dtype):
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else np.finfo(dtype)
    rng = np.random.default_rng(7)
    if np.issubdtype(dtype, np.integer):
        values = rng.integers(info.min, info.max, size=5000, dtype=dtype, endpoint=True)
    else:
        values = rng.standard_normal(5000).astype(dtype) * 1000
    out = tack.array(np.array([info.max, info.min], dtype=dtype))
    with atomic_domain(backend, dtype):
        extrema(tack.array(values), out)
    if not atomics_cover(backend, dtype):
        return
    np.testing.assert_array_equal(out.numpy(), np.array([values.min(), values.max()], dtype=dtype))


@tack.kernel
def slots(flags, slot_of, counter):
    for i in range(len(flags)):
        if flags[i] != 0:
            slot_of[i] = tack.atomic_add(counter, 0, 1)


def test_the_expression_value_is_the_old_value(backend):
    flags = np.array([1, 0, 1, 1, 0, 1, 1] * 50, dtype=np.int32)
    slot_of = tack.full(len(flags), -1, dtype=tack.i32)
    counter = tack.zeros(1, dtype=tack.i32)
    slots(tack.array(flags), slot_of, counter)
    got = slot_of.numpy()
    taken = got[flags != 0]
    assert sorted(taken.tolist()) == list(range(int(flags.sum())))
    assert (got[flags == 0] == -1).all()
    assert counter[0] == flags.sum()


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_misaligned_imported_targets_are_refused_before_any_update():
    raw = np.zeros(17, dtype=np.uint8)
    misaligned = raw[1:].view(np.int32)  # 4 elements at an odd address
    target = tack.array_from_ptr(misaligned.ctypes.data, (4,), tack.i32, readonly=False)
    with pytest.raises(ValueError, match="aligned"):
        count_into(target, 4)
    assert not raw.any()


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_atomics_on_local_arrays_are_refused():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def local_atomic(x):
            for i in range(len(x)):
                tmp = tack.local_array(4, tack.i32)
                tack.atomic_add(tmp, 0, 1)

        local_atomic(tack.zeros(2))
    assert "local array" in e.value.message and e.value.function == "local_atomic"
    assert e.value.construct == "atomic_add"


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_atomics_on_scalars_are_refused():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def scalar_atomic(x, s):
            for i in range(len(x)):
                tack.atomic_add(s, 0, 1)

        scalar_atomic(tack.zeros(2), 3)
    assert "not an array" in e.value.message


# Arrays of vector and matrix elements: a value of the element's shape
# updates every component with its own atomic; a number updates the one
# component its flat index addresses, except in a structure of arrays.


@tack.kernel
def accumulate_points(points, bins):
    for i in range(len(points)):
        tack.atomic_add(bins, i % len(bins), points[i])


@pytest.mark.parametrize("layout", ["aos", "soa"])
@pytest.mark.parametrize("dtype", [tack.vec3f, tack.vec2d, tack.vec4i])
def test_vector_values_update_every_component(backend, layout, dtype):
    n = dtype.shape[0]
    points = np.arange(4000 * n).reshape(4000, n).astype(dtype.numpy) % 97
    bins = tack.zeros(5, dtype, layout=layout)
    with atomic_domain(backend, dtype.dtype.numpy):
        accumulate_points(tack.array(points, dtype=dtype), bins)
    if not atomics_cover(backend, dtype.dtype.numpy):
        return
    want = np.zeros((5, n), dtype.numpy)
    np.add.at(want, np.arange(4000) % 5, points)  # integers below 2^24: exact in every type
    np.testing.assert_array_equal(bins.numpy(), want)


@tack.kernel
def matrix_extrema(values, low, high):
    for i in range(len(values)):
        tack.atomic_min(low, 0, values[i])
        tack.atomic_max(high, 0, values[i])


@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_matrix_extrema_per_component(backend, layout):
    values = np.random.default_rng(5).integers(-1000, 1000, size=(3000, 2, 2)).astype(np.float32)
    low = tack.full(1, 1e9, tack.mat22f, layout=layout)
    high = tack.full(1, -1e9, tack.mat22f, layout=layout)
    matrix_extrema(tack.array(values, dtype=tack.mat22f), low, high)
    np.testing.assert_array_equal(low.numpy()[0], values.min(axis=0))
    np.testing.assert_array_equal(high.numpy()[0], values.max(axis=0))


@tack.kernel
def old_vectors(bins, adds, olds):
    for i in range(len(bins)):
        olds[i] = tack.atomic_add(bins, i, adds[i])


@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_the_expression_value_is_the_vector_of_old_values(backend, layout):
    start = np.arange(18, dtype=np.float32).reshape(6, 3)
    adds = np.full((6, 3), 0.5, np.float32)
    bins = tack.array(start, dtype=tack.vec3f, layout=layout)
    olds = tack.zeros(6, tack.vec3f)
    old_vectors(bins, tack.array(adds, dtype=tack.vec3f), olds)
    np.testing.assert_array_equal(olds.numpy(), start)
    np.testing.assert_array_equal(bins.numpy(), start + adds)


@tack.kernel
def count_components(bins, n, olds):
    for i in range(n):
        tack.atomic_add(bins, i % (len(bins) * 3), 1)
        if i < len(olds):
            olds[i] = tack.atomic_max(bins, 3 * len(bins) - 1, 0)


def test_a_number_updates_the_component_its_flat_index_addresses(backend):
    bins = tack.zeros(4, tack.vec3i)
    olds = tack.zeros(2, tack.i32)
    count_components(bins, 12 * 500, olds)
    np.testing.assert_array_equal(bins.numpy(), np.full((4, 3), 500, np.int32))
    assert 0 <= olds[0] <= 500 and 0 <= olds[1] <= 500


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_number_on_a_structure_of_arrays_is_refused():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def soa_component(bins):
            for i in range(6):
                tack.atomic_add(bins, i, 1.0)

        soa_component(tack.zeros(2, tack.vec3f, layout="soa"))
    assert isinstance(e.value, TypeError)
    assert e.value.function == "soa_component" and e.value.construct == "atomic_add"
    assert "'bins'" in e.value.message and "layout='soa'" in e.value.message
    assert "no common flat index" in e.value.message


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_value_of_another_shape_is_refused():
    with pytest.raises(tack.KernelTypeError, match="takes a vec3 or a number, not a vec2") as e:

        @tack.kernel
        def wrong_shape_atomic(bins):
            for i in range(6):
                tack.atomic_add(bins, 0, tack.vec2(1.0, 2.0))

        wrong_shape_atomic(tack.zeros(2, tack.vec3f))
    assert e.value.function == "wrong_shape_atomic" and e.value.construct == "atomic_add"


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_number_with_one_index_per_dimension_is_refused():
    with pytest.raises(tack.KernelTypeError, match="one flat index"):

        @tack.kernel
        def tuple_index_atomic(bins):
            for i in range(2):
                tack.atomic_add(bins, (i, 0), 1.0)

        tuple_index_atomic(tack.zeros((2, 2), tack.vec3f))


@tack.kernel
def bin_points(xs, ys, grid, planes):
    for i in range(len(xs)):
        cell = tack.vec2(ys[i], xs[i])
        tack.atomic_add(grid, cell, 1)  # a vector of integers: one index per dimension
        tack.atomic_add(planes, (i % 2, cell), 1)  # a tuple whose vector supplies two of them
        tack.atomic_add(grid, ys[i] * 4 + xs[i], 10)  # one flat, row-major index


def test_index_forms_flat_per_dimension_and_vectors_of_integers(backend):
    rng = np.random.default_rng(5)
    n = 5000
    xs = rng.integers(0, 4, n).astype(np.int32)
    ys = rng.integers(0, 3, n).astype(np.int32)
    grid = tack.zeros((3, 4), dtype=tack.i32)
    planes = tack.zeros((2, 3, 4), dtype=tack.i32)
    bin_points(tack.array(xs), tack.array(ys), grid, planes)
    expected = np.zeros((3, 4), dtype=np.int64)
    np.add.at(expected, (ys, xs), 11)
    expected_planes = np.zeros((2, 3, 4), dtype=np.int64)
    np.add.at(expected_planes, (np.arange(n) % 2, ys, xs), 1)
    np.testing.assert_array_equal(grid.numpy(), expected)
    np.testing.assert_array_equal(planes.numpy(), expected_planes)


@tack.kernel
def atomic_between_reads(a, out):
    for i in range(len(a)):
        out[i] = a[i] * 100 + tack.atomic_add(a, i, 5) * 10 + a[i]


def test_an_atomic_takes_effect_in_source_order_among_operands(backend):
    # The read on its left sees the old element, the atomic's value is the
    # old element, the read on its right sees the updated one.
    start = np.arange(1, 9, dtype=np.int32)
    a = tack.array(start)
    out = tack.zeros(8, dtype=tack.i32)
    atomic_between_reads(a, out)
    np.testing.assert_array_equal(out.numpy(), start * 100 + start * 10 + (start + 5))
    np.testing.assert_array_equal(a.numpy(), start + 5)
