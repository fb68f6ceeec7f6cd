"""NumPy's array creation and conversion functions in Tack: *_like, arange,
linspace, Array.copy, Array.astype and 0-d arrays. NumPy is the oracle for
every value, dtype and shape; each runs on every backend."""

import itertools
import warnings

import numpy as np
import pytest
import tack


DTYPES = [tack.i8, tack.i16, tack.i32, tack.i64, tack.u8, tack.u16, tack.u32, tack.u64, tack.f32, tack.f64]
IDS = [t.name for t in DTYPES]


@tack.kernel
def add_index(a):
    for i in range(len(a)):
        a[i] = a[i] + i


# --- zeros_like, empty_like, ones_like, full_like ---------------------------

LIKE = [
    (tack.zeros_like, np.zeros_like, ()),
    (tack.ones_like, np.ones_like, ()),
    (tack.full_like, np.full_like, (7,)),
]


@pytest.mark.parametrize("make,numpy_make,extra", LIKE, ids=["zeros", "ones", "full"])
@pytest.mark.parametrize("source_dtype", [np.int16, np.uint32, np.float32, np.float64])
def test_like_a_numpy_array_matches_numpy(backend, make, numpy_make, extra, source_dtype):
    src = np.arange(24, dtype=source_dtype).reshape(2, 3, 4)
    a = make(src, *extra)
    expected = numpy_make(src, *extra)
    assert a.device == backend  # a NumPy array is made on the default device
    assert a.shape == expected.shape and a.dtype == expected.dtype
    np.testing.assert_array_equal(a.numpy(), expected)


@pytest.mark.parametrize("make,numpy_make,extra", LIKE, ids=["zeros", "ones", "full"])
def test_like_a_tack_array_keeps_its_device_and_takes_overrides(backend, make, numpy_make, extra):
    src = tack.array(np.arange(6, dtype=np.float32).reshape(3, 2))
    a = make(src, *extra)
    assert a.device == backend
    np.testing.assert_array_equal(a.numpy(), numpy_make(src.numpy(), *extra))
    b = make(src, *extra, dtype=tack.i64, device="cpu")
    expected = numpy_make(src.numpy(), *extra, dtype=np.int64)
    assert (b.device, b.shape, b.dtype) == ("cpu", expected.shape, tack.i64)
    np.testing.assert_array_equal(b.numpy(), expected)
    c = make(np.zeros((2, 2), dtype=np.int8), *extra, device=backend, dtype="f64")
    assert (c.device, c.dtype) == (backend, tack.f64)


def test_empty_like_has_the_shape_dtype_and_device(backend):
    src = tack.zeros((4, 5), dtype=tack.u16)
    a = tack.empty_like(src)
    assert (a.shape, a.dtype, a.device) == ((4, 5), tack.u16, backend)
    assert a.ptr != src.ptr
    b = tack.empty_like(np.zeros(3, dtype=np.float64), dtype=tack.f32)
    assert (b.shape, b.dtype) == ((3,), tack.f32)


def test_like_keeps_vector_elements_and_layout(backend):
    src = tack.zeros(5, dtype=tack.vec3f, layout="soa")
    a = tack.full_like(src, [1.0, 2.0, 3.0])
    assert (a.dtype, a.layout, a.shape, a.device) == (tack.vec3f, "soa", (5,), backend)
    np.testing.assert_array_equal(a.numpy(), np.tile(np.float32([1, 2, 3]), (5, 1)))
    scalar = tack.zeros_like(src, dtype=tack.f64)
    assert (scalar.dtype, scalar.layout, scalar.shape) == (tack.f64, "aos", (5,))


def test_like_refuses_a_numpy_dtype_tack_lacks():
    with pytest.raises(TypeError, match="unsupported dtype"):
        tack.zeros_like(np.zeros(3, dtype=np.complex64))
    assert tack.zeros_like(np.zeros(3, dtype=np.complex64), dtype=tack.f32).dtype == tack.f32


# --- arange ---------------------------------------------------------------------

ARANGE = [
    (5,), (0,), (-3,), (2, 9), (9, 2), (2, 9, 3), (9, 2, -2), (-7, 7, 4),
    (0.5,), (0, 1, 0.1), (1.5, -2.25, -0.75), (0, 10, 1.5), (3, 4.5), (1e-3, 2e-3, 1e-4),
    (2**40, 2**40 + 5), (-(2**62), -(2**62) + 3),
]


@pytest.mark.parametrize("args", ARANGE, ids=[repr(a) for a in ARANGE])
def test_arange_matches_numpy(backend, args):
    a = tack.arange(*args)
    expected = np.arange(*args)
    assert a.device == backend
    assert a.shape == expected.shape
    assert a.dtype == expected.dtype
    np.testing.assert_array_equal(a.numpy(), expected)


def test_arange_default_dtypes_are_numpys():
    # The documented choice: Python ints give i64, any float gives f64.
    assert tack.arange(3).dtype == tack.i64
    assert tack.arange(0, 3, 1).dtype == tack.i64
    assert tack.arange(0, 3.0).dtype == tack.f64
    assert tack.arange(0.0, 3, 1).dtype == tack.f64


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_arange_with_a_dtype_matches_numpy(backend, dtype):
    for args in [(10,), (1, 11, 3), (0, 5, 0.5)]:
        expected = np.arange(*args, dtype=dtype.numpy)
        a = tack.arange(*args, dtype=dtype)
        assert a.dtype == dtype and a.shape == expected.shape
        np.testing.assert_array_equal(a.numpy(), expected)


def test_arange_results_feed_kernels(backend):
    a = tack.arange(100)
    add_index(a)
    np.testing.assert_array_equal(a.numpy(), 2 * np.arange(100))


def test_arange_refuses_what_numpy_refuses_and_element_types():
    with pytest.raises(ZeroDivisionError):
        tack.arange(0, 5, 0)
    with pytest.raises(TypeError, match="scalar type"):
        tack.arange(4, dtype=tack.vec3f)


# --- linspace -------------------------------------------------------------------

LINSPACE = [
    (0, 1, 5, True), (0, 1, 5, False), (-2.5, 7.25, 13, True), (1, 0, 4, True), (3, 3, 3, True),
    (0, 1, 1, True), (0, 1, 1, False), (0, 1, 0, True), (-1e10, 1e10, 7, True), (0.1, 0.7, 50, False),
]


@pytest.mark.parametrize("start,stop,num,endpoint", LINSPACE, ids=[repr(c) for c in LINSPACE])
@pytest.mark.parametrize("dtype", [None, tack.f32, tack.f64, tack.i32, tack.i8, tack.u16],
                         ids=["default", "f32", "f64", "i32", "i8", "u16"])
@pytest.mark.device_cases(6)
def test_linspace_matches_numpy(backend, start, stop, num, endpoint, dtype):
    want = None if dtype is None else dtype.numpy
    if dtype is not None and dtype.numpy.kind in "iu":
        lo, hi = np.iinfo(dtype.numpy).min, np.iinfo(dtype.numpy).max
        if min(start, stop) < lo or max(start, stop) > hi:
            # NumPy's conversion there is platform-defined: Tack refuses it.
            with pytest.raises(ValueError, match=rf"linspace: value \d+, .* has no {dtype.numpy} value"):
                tack.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
            return
    expected = np.linspace(start, stop, num, endpoint=endpoint, dtype=want)
    a = tack.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    assert a.dtype == expected.dtype and a.shape == expected.shape
    np.testing.assert_array_equal(a.numpy(), expected)


def test_linspace_defaults_to_fifty_f64_values():
    a = tack.linspace(0, 1)
    assert (a.shape, a.dtype) == ((50,), tack.f64)
    np.testing.assert_array_equal(a.numpy(), np.linspace(0, 1))


def test_linspace_f32_is_the_f64_values_rounded_once():
    a = tack.linspace(0.1, 0.9, 17, dtype=tack.f32)
    np.testing.assert_array_equal(a.numpy(), np.linspace(0.1, 0.9, 17, dtype=np.float64).astype(np.float32))


# --- copy -----------------------------------------------------------------------

def test_copy_is_new_storage_on_the_same_device(backend):
    src = tack.array(np.arange(12, dtype=np.int32).reshape(3, 4))
    c = src.copy()
    assert (c.shape, c.dtype, c.device) == (src.shape, src.dtype, backend)
    assert c.ptr != src.ptr
    add_index(c.reshape(12))
    np.testing.assert_array_equal(src.numpy(), np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(c.numpy(), 2 * np.arange(12).reshape(3, 4))


def test_copy_of_a_view_copies_what_it_views(backend):
    src = tack.array(np.arange(20, dtype=np.float64).reshape(4, 5))
    view = src[1:3, 2:5]
    c = view.copy()
    assert c.shape == (2, 3) and c.is_contiguous
    np.testing.assert_array_equal(c.numpy(), np.arange(20, dtype=np.float64).reshape(4, 5)[1:3, 2:5])


def test_copy_keeps_vector_elements_and_layout(backend):
    values = np.arange(12, dtype=np.float32).reshape(4, 3)
    src = tack.array(values, dtype=tack.vec3f, layout="soa")
    c = src.copy()
    assert (c.dtype, c.layout, c.device) == (tack.vec3f, "soa", backend)
    np.testing.assert_array_equal(c.numpy(), values)


# --- astype ---------------------------------------------------------------------

def values_for(dtype):
    """Each type's extremes and interior values."""
    if dtype.numpy.kind in "iu":
        info = np.iinfo(dtype.numpy)
        ints = sorted({int(info.min), int(info.min) + 1, -1, 0, 1, 2, 127, 128, 255, 256, 65535, 65536,
                       2**31 - 1, 2**31, 2**32 - 1, 2**63 - 1, int(info.max) - 1, int(info.max)})
        return np.array([v for v in ints if info.min <= v <= info.max], dtype=dtype.numpy)
    finfo = np.finfo(dtype.numpy)
    return np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.75, -2.75, 127.9, -128.9, 255.5, 1e6 + 0.25,
                     float(finfo.tiny), float(finfo.max), -float(finfo.max), np.inf, -np.inf, np.nan,
                     3e9, -3e9, 1.8e19, 1e30], dtype=dtype.numpy)


def in_range_for(values, target):
    """The values NumPy converts the same way everywhere."""
    if values.dtype.kind != "f" or target.numpy.kind not in "iu":
        return values
    info = np.iinfo(target.numpy)
    t = np.trunc(values.astype(np.float64))
    with np.errstate(invalid="ignore"):
        keep = (t >= float(info.min)) & (t < float(info.max) + 1.0)
    return values[keep]


@pytest.mark.parametrize("src,dst", list(itertools.product(DTYPES, DTYPES)),
                         ids=[f"{a.name}-{b.name}" for a, b in itertools.product(DTYPES, DTYPES)])
@pytest.mark.device_cases(10)
def test_astype_matches_numpy_for_every_pair(backend, src, dst):
    values = in_range_for(values_for(src), dst)
    a = tack.array(values)
    b = a.astype(dst)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # f64 -> f32 overflow to inf
        expected = values.astype(dst.numpy)
    assert (b.dtype, b.shape, b.device) == (dst, a.shape, backend)
    assert b.ptr != a.ptr
    np.testing.assert_array_equal(b.numpy(), expected)
    if dst.numpy.kind == "f":  # the sign of zero too
        np.testing.assert_array_equal(np.signbit(b.numpy()), np.signbit(expected))


@pytest.mark.parametrize("src", [tack.f32, tack.f64], ids=["f32", "f64"])
@pytest.mark.parametrize("dst", [t for t in DTYPES if t.numpy.kind in "iu"], ids=[t.name for t in DTYPES[:8]])
def test_astype_refuses_floats_with_no_integer_value(src, dst):
    info = np.iinfo(dst.numpy)
    ftype = src.numpy.type

    def first_beyond(start, direction, outside):
        v = ftype(start)
        while not outside(int(np.trunc(v))):  # Python ints: exact comparisons
            v = np.nextafter(v, ftype(direction))
        return v

    above = first_beyond(float(info.max) + 1.0, np.inf, lambda t: t > info.max)
    below = first_beyond(float(info.min) - 1.0, -np.inf, lambda t: t < info.min)
    for v in [np.nan, np.inf, -np.inf, above, below]:
        values = np.array([1.0, v], dtype=src.numpy)
        with pytest.raises(ValueError, match=rf"astype: element 1 .* has no tack.{dst.name} value"):
            tack.array(values).astype(dst)
    # Just inside both ends converts, as NumPy converts it.
    inside = np.array([np.nextafter(above, ftype(-np.inf)), np.nextafter(below, ftype(np.inf))], dtype=src.numpy)
    np.testing.assert_array_equal(tack.array(inside).astype(dst).numpy(), inside.astype(dst.numpy))
    # The truncation decides: -0.9 becomes 0, which every integer type holds.
    np.testing.assert_array_equal(tack.array(np.array([-0.9, 0.9], dtype=src.numpy)).astype(dst).numpy(), [0, 0])


@pytest.mark.parametrize("values", [np.zeros(1, np.float32), np.ones(1, np.int8), np.float64(0.0), np.uint8(3),
                                    np.array([np.nan]), np.zeros((1, 1), np.int32), np.zeros(0, np.float32),
                                    np.zeros(4, np.float32), np.zeros((2, 2), np.int64)],
                         ids=lambda v: f"{np.asarray(v).dtype}{np.shape(v)}")
def test_truth_is_numpys(backend, values):
    # Oracle: NumPy's bool(). `if a:` of a tack array was whether it had
    # elements (Python's len), so tack.zeros(1) was true.
    a = tack.array(values)
    try:
        want = bool(np.asarray(values))
    except ValueError:
        with pytest.raises(ValueError, match="The truth value of an"):
            bool(a)
    else:
        assert bool(a) is want
    with pytest.raises(ValueError, match="more than one element"):
        bool(tack.zeros(1, dtype=tack.vec3f))  # one element of three numbers, as NumPy's (1, 3)


def test_dtype_none_is_the_creation_functions_default():
    # Their default is f32 (docs/arrays.md); dtype=None passed on by a
    # caller's own default is that default, not NumPy's float64 (it was).
    for make in (lambda: tack.zeros(3, dtype=None), lambda: tack.ones(3, dtype=None), lambda: tack.empty(3, None),
                 lambda: tack.full(3, 2, dtype=None), lambda: tack.zeros(3)):
        assert make().dtype == tack.f32
    # tack.array's None keeps the data's own dtype, NumPy's reading of it.
    assert tack.array([1.5], dtype=None).dtype == tack.f64 and tack.array(np.float32([1])).dtype == tack.f32


@pytest.mark.parametrize("dst", [t for t in DTYPES if t.numpy.kind in "iu"], ids=[t.name for t in DTYPES[:8]])
def test_array_with_a_dtype_converts_as_astype_does(dst):
    # Oracle: NumPy. An array's values convert as its astype (integers wrap,
    # floats truncate), a float with no integer value of the type is a
    # ValueError, as astype's is (it gave the platform's integer indefinite,
    # -2**31 on x86); Python integers outside the type are NumPy 2's
    # OverflowError (they wrapped: 300 became 44 in a u8 array).
    info = np.iinfo(dst.numpy)
    wide = np.array([0, 1, 300, -1, 2**40 + 5, -(2**62) - 3], dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(tack.array(wide, dtype=dst).numpy(), wide.astype(dst.numpy))
    floats = np.array([-0.9, 2.5, 100.75], dtype=np.float64)
    np.testing.assert_array_equal(tack.array(floats, dtype=dst).numpy(), floats.astype(dst.numpy))
    for bad in (np.nan, np.inf, -np.inf, 2.0**70):
        with pytest.raises(ValueError, match=rf"tack.array: element 1 of the data, .* has no tack.{dst.name} value"):
            tack.array(np.array([1.0, bad]), dtype=dst)
        with pytest.raises(ValueError, match=rf"tack.array: element \(0, 1\) of the data"):
            tack.array([[1.0, bad]], dtype=dst)
    for python in ([info.max + 1], [0, info.min - 1], info.max + 1):
        with pytest.raises(OverflowError):
            np.array(python, dtype=dst.numpy)
        with pytest.raises(OverflowError, match=f"Python integer {np.ravel(python)[-1]} out of bounds for {dst.name}"):
            tack.array(python, dtype=dst)
    np.testing.assert_array_equal(tack.array([info.max, info.min], dtype=dst).numpy(), [info.max, info.min])


@pytest.mark.parametrize("data", [["1", "2"], [1 + 0j], np.array(["a"]), np.zeros(2, np.complex64),
                                  [np.datetime64("2020-01-01")]], ids=lambda d: type(np.ravel(d)[0]).__name__)
def test_array_refuses_data_that_are_not_numbers(data):
    # NumPy parses strings and drops a complex number's imaginary part (with
    # a warning); Tack refuses both, with or without a dtype.
    for dtype in (None, tack.f32, tack.i64, tack.vec2f):
        with pytest.raises(TypeError, match="tack.array: the data are .*, not numbers of one of Tack's ten types"):
            tack.array(data, dtype=dtype)


def test_array_reads_python_integers_exactly_for_an_integer_dtype():
    # NumPy reads [2**70] as objects and [-1, 2**64 - 1] as float64 (2**64 - 1
    # rounds to 2**64); with an integer dtype it raises OverflowError where
    # the dtype cannot hold them, as Tack does, and Tack reads the ones the
    # dtype holds exactly.
    with pytest.raises(TypeError, match="tack.array: the data hold integers beyond 64 bits"):
        tack.array([2**70])
    np.testing.assert_array_equal(tack.array([2**64 - 1, 0], dtype=tack.u64).numpy(),
                                  np.array([2**64 - 1, 0], dtype=np.uint64))
    np.testing.assert_array_equal(tack.array([[-2**63, 5], [2**63 - 1, 0]], dtype=tack.i64).numpy(),
                                  np.array([[-2**63, 5], [2**63 - 1, 0]], dtype=np.int64))
    for data in ([2**70], [-1, 2**64 - 1]):
        for dtype in (tack.i64, tack.u64, tack.i8):
            with pytest.raises(OverflowError):
                np.array(data, dtype=dtype.numpy)
            with pytest.raises(OverflowError, match=f"out of bounds for {dtype.name}"):
                tack.array(data, dtype=dtype)
        np.testing.assert_array_equal(tack.array(data, dtype=tack.f64).numpy(), np.array(data, dtype=np.float64))


def test_astype_of_vector_arrays_converts_components(backend):
    values = np.array([[1.5, -2.5, 3.0], [4.0, 5.75, -6.25]], dtype=np.float64)
    a = tack.array(values, dtype=tack.vec3d, layout="soa")
    b = a.astype(tack.i32)
    assert (b.dtype, b.layout, b.device) == (tack.vec3i, "soa", backend)
    np.testing.assert_array_equal(b.numpy(), values.astype(np.int32))
    assert a.astype(tack.vec3f).dtype == tack.vec3f
    with pytest.raises(ValueError, match="shape"):
        a.astype(tack.vec2f)


# --- 0-d arrays -----------------------------------------------------------------

@pytest.mark.parametrize("value", [np.float32(3.5), np.int64(-7), np.uint8(200), 2.25, 5],
                         ids=["f32", "i64", "u8", "float", "int"])
def test_zero_dimensional_arrays_keep_shape_and_value(backend, value):
    expected = np.array(value)
    a = tack.array(value)
    assert (a.shape, a.ndim, a.size, a.dtype) == ((), 0, 1, expected.dtype)
    assert a.numpy().shape == ()
    assert a[()] == expected[()]
    assert a.sum() == float(expected)
    c = a.copy()
    assert c.shape == () and c[()] == expected[()]
    assert a.astype(tack.f64)[()] == expected.astype(np.float64)[()]
    with pytest.raises(TypeError):
        len(a)


def test_zero_dimensional_creation_functions(backend):
    a = tack.zeros(())
    a.fill(4)
    assert a.shape == () and a[()] == 4.0
    b = tack.full_like(np.float64(1.0), 9)
    assert (b.shape, b.dtype, b[()]) == ((), tack.f64, 9.0)


@tack.kernel
def read_first(x, out):
    for i in range(len(out)):
        out[i] = x[0]


def test_kernels_refuse_zero_dimensional_arrays(backend):
    out = tack.zeros(3)
    for zero_d in (tack.array(np.float32(3)), tack.zeros(3)[0:1].reshape(())):
        with pytest.raises(TypeError, match=r"kernel 'read_first': parameter 'x' got a 0-d array"):
            read_first(zero_d, out)
    with pytest.raises(TypeError, match=r"kernel 'read_first': parameter 'x' got a 0-d array"):
        read_first(np.array(3.0, dtype=np.float32), tack.zeros(3, device="cpu"))  # NumPy memory is the CPU's
    read_first(tack.array(np.float32(3)).reshape(1), out)
    np.testing.assert_array_equal(out.numpy(), [3, 3, 3])


def test_shapes_take_integers_as_numpy_does():
    # NumPy's rules: integers (NumPy's too, and an integer array's
    # elements) are extents; a float, a string or a bool is a TypeError,
    # never truncated to an extent; an extent past 64 bits or an array
    # too large to allocate is refused with what it asked for.
    for shape in [(2, 3), [2, 3], (np.int64(2), np.int32(3)), np.array([2, 3])]:
        assert tack.zeros(shape).shape == np.zeros(shape).shape
    assert tack.empty(4).shape == (4,) and tack.empty(np.int8(4)).shape == (4,)
    for shape in [(3, 2.5), 2.0, (3, "4"), "34", True, (2, True), None]:
        with pytest.raises(TypeError):
            np.zeros(shape)
        with pytest.raises(TypeError, match="an array shape is an integer or a sequence of integers"):
            tack.zeros(shape)
    with pytest.raises(ValueError, match="an array extent must be an integer below 2\\*\\*63, not 9223372036854775808"):
        tack.empty((3, 2**63))
    with pytest.raises(ValueError, match="more elements or bytes than a 64-bit count can hold"):
        tack.empty((2**40, 2**40))
    # 2**60 bytes: past any address space, whatever the kernel's overcommit.
    with pytest.raises(MemoryError, match=r"unable to allocate 1\.0 EiB for an array"):
        tack.empty((2**29, 2**29))


def test_an_array_no_device_can_hold_is_a_memory_error(backend):
    # On every backend, as NumPy says it: Python's MemoryError with the
    # size asked for. The device stays usable.
    with pytest.raises(MemoryError, match=r"unable to allocate 1\.0 EiB for an array"):
        tack.empty((2**29, 2**29))
    with pytest.raises(MemoryError, match=r"unable to allocate 16\.0 TiB for an array"):
        tack.full((2**40,), 1.5, dtype=tack.vec4f)
    if backend == "opencl":
        # 16 GiB: past the largest buffer of PoCL's device on a host of
        # 24 GiB (a quarter to a half of its memory), which clCreateBuffer
        # answers with CL_INVALID_BUFFER_SIZE. A device that holds it
        # allocates it. CUDA and HIP: test_device_memory.py.
        try:
            big = tack.empty(2**32, dtype=tack.f32)
        except MemoryError as e:
            assert str(e).startswith("unable to allocate 16.0 GiB for an array"), str(e)
        else:
            del big
    np.testing.assert_array_equal(tack.arange(3).numpy(), [0, 1, 2])


@pytest.mark.parametrize("dtype", [tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32, tack.i64, tack.u64])
def test_an_integer_fill_takes_its_types_integers_as_numpy_does(dtype):
    # Oracle: NumPy 2's np.full with a Python integer, which refuses one
    # outside the type (OverflowError) rather than wrapping it. A float
    # with an integer value is that integer (NumPy would cast it unsafely).
    for value in (0, 1000, -1, 127, -128, 255, 2**15, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63,
                  -2**63 - 1, 3.0, -2.0):
        try:
            want = np.full(3, int(value), dtype=dtype.numpy)
        except OverflowError:
            with pytest.raises(OverflowError, match=f"Python integer {int(value)} out of bounds for {dtype.name}"):
                tack.full(3, value, dtype=dtype)
            with pytest.raises(OverflowError):
                tack.zeros(3, dtype=dtype).fill(value)
            continue
        assert np.array_equal(tack.full(3, value, dtype=dtype).numpy(), want), value
    with pytest.raises(TypeError, match="cannot fill an integer array"):
        tack.full(3, 2.5, dtype=dtype)
    with pytest.raises(TypeError, match="cannot fill an integer array"):
        tack.full(3, float("inf"), dtype=dtype)
