"""External memory: array_from_ptr, DLPack import and export,
__array_interface__, and kernels over imported buffers at a one-byte offset
(contract, "Memory and aliasing" and "Types and numerical behavior").

Expected values come from NumPy over the same memory, never from Tack.
"""

import gc
import re
import sys

import numpy as np
import pytest
import tack
from backends import IMPORTED_HOST_MEMORY, LLVM_INSPECTION

# Exports hand NumPy and DLPack consumers the CPU backend's host memory.
HOST_EXPORT = "DLPack and __array_interface__ export the CPU backend's host memory"

ALL_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64]
DTYPE_IDS = [np.dtype(t).name for t in ALL_DTYPES]


def sample(dtype, n, seed=0):
    """Values spread over the dtype's whole range, both signs, both ends."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        v = rng.standard_normal(n) * 1e3
        v[:4] = [0.0, -0.0, 1.5, -2.25][: min(4, n)]
        return v.astype(dtype)
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    v[:2] = [info.min, info.max][: min(2, n)]
    return v


def unaligned(dtype, n, fill=None):
    """A NumPy view of n elements of `dtype` starting one byte into a uint8
    buffer, so no element is naturally aligned."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(n * itemsize + 1, dtype=np.uint8)
    view = raw[1:].view(dtype)
    assert view.ctypes.data % max(itemsize, 2) != 0 or itemsize == 1
    if fill is not None:
        view[...] = fill
    return raw, view


# array_from_ptr


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_views_without_copy():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = tack.array_from_ptr(src.ctypes.data, (3, 4), tack.f32)
    assert a.shape == (3, 4) and a.dtype == tack.f32
    assert a.ptr == src.ctypes.data
    assert a.readonly
    np.testing.assert_array_equal(a.numpy(), src)
    src[1, 2] = 99.0
    assert a[1, 2] == 99.0


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_defaults_to_row_major_and_takes_byte_strides():
    src = np.arange(20, dtype=np.int64).reshape(4, 5)
    column = src[:, 3]
    a = tack.array_from_ptr(column.ctypes.data, (4,), np.int64, strides=column.strides)
    np.testing.assert_array_equal(a.numpy(), column)
    assert a.strides == (40,)
    b = tack.array_from_ptr(src.ctypes.data, (5, 4), "i64")
    assert b.strides == (32, 8)
    np.testing.assert_array_equal(b.numpy(), src.reshape(5, 4))


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_negative_strides_cover_the_right_bytes():
    src = np.arange(6, dtype=np.int16)
    rev = src[::-1]
    a = tack.array_from_ptr(rev.ctypes.data, 6, tack.i16, strides=(-2,))
    np.testing.assert_array_equal(a.numpy(), rev)
    assert a.sum() == float(src.sum())


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_readonly_flag():
    src = np.zeros(4, dtype=np.float64)
    ro = tack.array_from_ptr(src.ctypes.data, 4, tack.f64)
    rw = tack.array_from_ptr(src.ctypes.data, 4, tack.f64, readonly=False)
    assert ro.readonly and not rw.readonly
    assert not ro.numpy().flags.writeable
    assert rw.numpy().flags.writeable
    assert not np.asarray(ro).flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        tack.copyto(ro, np.ones(4))
    tack.copyto(rw, np.ones(4))
    np.testing.assert_array_equal(src, np.ones(4))


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_owner_keeps_memory_alive():
    src = np.arange(1000, dtype=np.float64)
    expected = src.copy()
    a = tack.array_from_ptr(src.ctypes.data, 1000, tack.f64, owner=src)
    before = sys.getrefcount(src)
    del src
    gc.collect()
    np.testing.assert_array_equal(a.numpy(), expected)
    assert before >= 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(shape=(4,), dtype=tack.f32, strides=(3,)), "not a multiple"),
        (dict(shape=(2, 2), dtype=tack.f32, strides=(8,)), "one stride per dimension"),
        (dict(shape=(-1,), dtype=tack.f32), "nonnegative"),
    ],
)
@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_rejects_bad_layouts(kwargs, message):
    src = np.zeros(8, dtype=np.float32)
    with pytest.raises(ValueError, match=message):
        tack.array_from_ptr(src.ctypes.data, **kwargs)


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_takes_an_integer_address():
    # An address is an integer (NumPy's too): 2.5 or its text is refused,
    # never truncated or parsed.
    src = np.arange(4, dtype=np.float32)
    for address in (src.ctypes.data + 0.5, float(src.ctypes.data), str(src.ctypes.data), None):
        with pytest.raises(TypeError, match="array_from_ptr: the address must be an integer"):
            tack.array_from_ptr(address, 4, tack.f32, owner=src)
    a = tack.array_from_ptr(np.uint64(src.ctypes.data), 4, tack.f32, owner=src)
    np.testing.assert_array_equal(a.numpy(), src)


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_array_from_ptr_rejects_null_with_elements_and_unknown_dtypes():
    with pytest.raises(ValueError, match="non-null"):
        tack.array_from_ptr(0, (3,), tack.f32)
    assert tack.array_from_ptr(0, (0,), tack.f32).size == 0
    with pytest.raises(TypeError, match="unsupported dtype"):
        tack.array_from_ptr(np.zeros(2).ctypes.data, (2,), np.float16)


# DLPack import


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_from_dlpack_numpy_shares_memory(dtype):
    src = sample(dtype, 24).reshape(4, 6)
    a = tack.from_dlpack(src)
    assert a.dtype.numpy == np.dtype(dtype)
    assert a.shape == (4, 6)
    assert a.ptr == src.ctypes.data
    assert not a.readonly
    np.testing.assert_array_equal(a.numpy(), src)
    src[0, 0] = src[3, 5]
    assert a[0, 0] == src[3, 5]


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_from_dlpack_honors_numpy_readonly():
    src = np.arange(5, dtype=np.int32)
    src.flags.writeable = False
    a = tack.from_dlpack(src)
    assert a.readonly
    assert a.ptr == src.ctypes.data
    assert not a.numpy().flags.writeable


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_from_dlpack_keeps_producer_alive():
    src = np.arange(4096, dtype=np.float32)
    a = tack.from_dlpack(src)
    del src
    gc.collect()
    np.testing.assert_array_equal(a.numpy(), np.arange(4096, dtype=np.float32))


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_from_dlpack_strided_and_reversed_views():
    base = np.arange(60, dtype=np.float64).reshape(6, 10)
    for view in (base[1:5, 2:9], base[:, 3], base[::2, ::3], base[::-1], base.T):
        a = tack.from_dlpack(view)
        np.testing.assert_array_equal(a.numpy(), view)
        assert a.strides == view.strides
        assert a.sum() == float(view.sum())


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_from_dlpack_rejects_unsupported_inputs():
    for bad in (np.zeros(3, dtype=np.float16), np.zeros(3, dtype=np.complex64), np.zeros(3, dtype=bool)):
        with pytest.raises(TypeError, match="from_dlpack"):
            tack.from_dlpack(bad)
    with pytest.raises(TypeError, match="__dlpack__"):
        tack.from_dlpack([1.0, 2.0])


def test_from_dlpack_refuses_a_device_that_is_no_pair():
    # A producer whose __dlpack_device__ gives no (type, id) pair of
    # integers is refused by name (a string raised std::bad_cast).
    class Producer:
        def __init__(self, device):
            self.data, self.device = np.arange(3, dtype=np.float32), device

        def __dlpack__(self, **kwargs):
            return self.data.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.device

    for device in ("cpu", None, (1,), (1, 0, 0), (1.5, 0), ("1", 0)):
        with pytest.raises(TypeError, match=r"from_dlpack: __dlpack_device__\(\) returned .*, not a \(device type, "
                                            r"device id\) pair of integers"):
            tack.from_dlpack(Producer(device))
    np.testing.assert_array_equal(tack.from_dlpack(Producer((1, 0))).numpy(), [0, 1, 2])


# DLPack export and __array_interface__


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.cpu_only(HOST_EXPORT)
def test_numpy_from_dlpack_of_tack_array_is_zero_copy(dtype):
    src = sample(dtype, 30)
    a = tack.array(src)
    n = np.from_dlpack(a)
    assert n.dtype == np.dtype(dtype)
    assert n.ctypes.data == a.ptr
    np.testing.assert_array_equal(n, src)
    assert n.flags.writeable


@pytest.mark.cpu_only(HOST_EXPORT)
def test_dlpack_device_is_host():
    a = tack.zeros(3)
    assert a.__dlpack_device__() == (1, 0)


@pytest.mark.cpu_only(HOST_EXPORT)
def test_dlpack_export_of_a_view_and_of_readonly_arrays():
    m = tack.array(np.arange(24, dtype=np.int32).reshape(4, 6))
    v = m[1:3, 2:5]
    n = np.from_dlpack(v)
    np.testing.assert_array_equal(n, np.arange(24, dtype=np.int32).reshape(4, 6)[1:3, 2:5])
    assert n.ctypes.data == v.ptr

    src = np.arange(5, dtype=np.float32)
    ro = tack.array_from_ptr(src.ctypes.data, 5, tack.f32)
    n = np.from_dlpack(ro)
    assert not n.flags.writeable
    np.testing.assert_array_equal(n, src)
    # A legacy (unversioned) consumer could not see the flag.
    with pytest.raises(BufferError, match="read-only"):
        ro.__dlpack__()


@pytest.mark.cpu_only(HOST_EXPORT)
def test_dlpack_export_keywords():
    a = tack.zeros(4)
    assert type(a.__dlpack__(stream=None)).__name__ == "PyCapsule"
    assert type(a.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)).__name__ == "PyCapsule"
    with pytest.raises(BufferError, match="copy"):
        a.__dlpack__(copy=True)
    with pytest.raises(ValueError, match="stream"):
        a.__dlpack__(stream=7)


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_dlpack_round_trip_through_tack():
    src = np.arange(10, dtype=np.uint16)
    a = tack.from_dlpack(src)
    b = tack.from_dlpack(a)
    assert b.ptr == src.ctypes.data
    np.testing.assert_array_equal(np.from_dlpack(b), src)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.cpu_only(HOST_EXPORT)
def test_array_interface(dtype):
    m = tack.array(sample(dtype, 12).reshape(3, 4))
    face = m.__array_interface__
    assert face["version"] == 3
    assert face["shape"] == (3, 4)
    assert face["typestr"] == np.dtype(dtype).str
    assert face["strides"] == (4 * np.dtype(dtype).itemsize, np.dtype(dtype).itemsize)
    assert face["data"] == (m.ptr, False)
    n = np.asarray(m)
    assert n.ctypes.data == m.ptr
    np.testing.assert_array_equal(n, m.numpy())
    col = m[:, 1:3]
    np.testing.assert_array_equal(np.asarray(col), m.numpy()[:, 1:3])


# PyTorch, where its CPU build is installed


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_torch_dlpack_interop():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (package 'torch'); its DLPack interop is untested")
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    a = tack.from_dlpack(t)
    assert a.ptr == t.data_ptr() and a.shape == (3, 4) and not a.readonly
    t[2, 3] = -5.0
    assert a[2, 3] == -5.0
    b = tack.array(np.arange(6, dtype=np.int64))
    tb = torch.from_dlpack(b)
    assert tb.data_ptr() == b.ptr
    assert tb.tolist() == list(range(6))
    ts = t[:, 1]
    s = tack.from_dlpack(ts)
    np.testing.assert_array_equal(s.numpy(), ts.numpy())


# Kernels over imported storage at a one-byte offset


@tack.kernel
def twice_plus_one(a, out):
    for i in range(len(a)):
        out[i] = a[i] * 2 + 1


# Integer literals are i32, which no integer type shares with u64.
@tack.kernel
def twice_plus_one_u64(a, out):
    for i in range(len(a)):
        out[i] = a[i] * tack.u64(2) + tack.u64(1)


def kernel_for(dtype):
    return twice_plus_one_u64 if np.dtype(dtype) == np.uint64 else twice_plus_one


def expected_twice_plus_one(values):
    v = np.asarray(values)
    if v.dtype.kind == "f":
        return v * v.dtype.type(2) + v.dtype.type(1)
    # Wrapping at the element width, from Python integers.
    bits = v.dtype.itemsize * 8
    wrapped = [(int(x) * 2 + 1) % (1 << bits) for x in v]
    if v.dtype.kind == "i":
        wrapped = [w - (1 << bits) if w >> (bits - 1) else w for w in wrapped]
    return np.array(wrapped, dtype=v.dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("importer", ["array_from_ptr", "from_dlpack"])
@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_kernel_on_buffers_at_one_byte_offset(dtype, importer):
    n = 1000
    values = sample(dtype, n, seed=3)
    keep_in, src = unaligned(dtype, n, fill=values)
    keep_out, dst = unaligned(dtype, n, fill=0)
    if importer == "array_from_ptr":
        a = tack.array_from_ptr(src.ctypes.data, n, dtype, readonly=False)
        out = tack.array_from_ptr(dst.ctypes.data, n, dtype, readonly=False)
    else:
        a = tack.from_dlpack(src)
        out = tack.from_dlpack(dst)
    assert a.ptr == src.ctypes.data and out.ptr == dst.ctypes.data
    kernel_for(dtype)(a, out)
    np.testing.assert_array_equal(dst, expected_twice_plus_one(values))
    np.testing.assert_array_equal(src, values)


ARRAY_POINTER_BASE = re.compile(r"^\s*(%[\w.]+) = load ptr, ptr %arg\.\d+,")


def array_accesses(llvm):
    """(kind, line, alignment) of every load and store whose address derives from
    an array's data pointer (the first field of its argument record) through
    getelementptr, phi or select, SIMD lanes' masked loads, stores, gathers
    and scatters included (their alignment is an i32 operand)."""
    pointers = set()
    accesses = []
    for line in llvm.splitlines():
        m = ARRAY_POINTER_BASE.match(line)
        if m:
            pointers.add(m.group(1))
            continue
        m = re.match(r"^\s*(%[\w.]+) = (getelementptr|phi|select)\b(.*)$", line)
        if m and any(name in pointers for name in re.findall(r"%[\w.]+", m.group(3))):
            pointers.add(m.group(1))
            continue
        m = re.search(r"\b(load|store)\b.*?, ptr (%[\w.]+), align (\d+)", line)
        if m and m.group(2) in pointers:
            accesses.append((m.group(1), line.strip(), int(m.group(3))))
            continue
        m = re.search(r"@llvm\.masked\.(load|store|gather|scatter)\.[\w.]+\((.*)\)", line)
        if m:
            operands = m.group(2)
            align = re.search(r"\bi32 (\d+)", operands)
            if any(name in pointers for name in re.findall(r"%[\w.]+", operands)) and align:
                kind = "store" if m.group(1) in ("store", "scatter") else "load"
                accesses.append((kind, line.strip(), int(align.group(1))))
    return accesses


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("what", ["llvm", "llvm-unoptimized"])
@pytest.mark.cpu_only(LLVM_INSPECTION)
def test_emitted_llvm_claims_only_byte_alignment(dtype, what):
    keep_in, src = unaligned(dtype, 64, fill=1)
    keep_out, dst = unaligned(dtype, 64, fill=0)
    a = tack.array_from_ptr(src.ctypes.data, 64, dtype, readonly=False)
    out = tack.array_from_ptr(dst.ctypes.data, 64, dtype, readonly=False)
    accesses = array_accesses(kernel_for(dtype).inspect(what, a, out))
    assert any(kind == "load" for kind, _, _ in accesses)
    assert any(kind == "store" for kind, _, _ in accesses)
    stronger = [line for _, line, align in accesses if align != 1]
    assert not stronger, "array accesses claiming more than byte alignment:\n" + "\n".join(stronger)


# Read-only storage at dispatch


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_readonly_import_bound_to_a_stored_parameter_is_refused():
    src = np.arange(8, dtype=np.float32)
    dst = np.zeros(8, dtype=np.float32)
    a = tack.array_from_ptr(src.ctypes.data, 8, tack.f32)
    ro_out = tack.array_from_ptr(dst.ctypes.data, 8, tack.f32)
    with pytest.raises(ValueError, match="read-only"):
        twice_plus_one(a, ro_out)
    np.testing.assert_array_equal(dst, np.zeros(8, dtype=np.float32))
    frozen = np.zeros(8, dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        twice_plus_one(a, tack.from_dlpack(frozen))
    # Reading read-only storage is fine.
    out = tack.zeros(8)
    twice_plus_one(a, out)
    np.testing.assert_array_equal(out.numpy(), src * 2 + 1)


def test_host_reads_one_element_and_may_not_write_one(backend):
    # Contract, Memory and aliasing: f[i, j] on the host is a Python number
    # (a NumPy array for a vector or matrix element); writing one is refused.
    grid = np.arange(12, dtype=np.int16).reshape(3, 4)
    a = tack.array(grid)
    assert a[2, 1] == int(grid[2, 1]) and type(a[2, 1]) is int
    f = tack.array(np.array([0.1, -2.5], dtype=np.float64))
    assert f[0] == 0.1 and type(f[0]) is float
    v = tack.array(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32), dtype=tack.vec3f)
    np.testing.assert_array_equal(v[1], np.array([4, 5, 6], dtype=np.float32))
    with pytest.raises(TypeError, match="may not write array elements"):
        a[0, 0] = 1
    assert a.numpy()[0, 0] == 0


@pytest.mark.parametrize("make", [tack.empty, tack.zeros])
@pytest.mark.parametrize("shape,dtype", [((2**32, 2**32), tack.f32), ((2**62, 4), tack.u8), ((2**61,), tack.vec4f),
                                         ((2**31, 2**31, 4), tack.f64)])
def test_shapes_whose_counts_overflow_are_refused(backend, make, shape, dtype):
    with pytest.raises(ValueError) as e:
        make(shape, dtype=dtype)
    assert str(shape[0]) in str(e.value)


def test_reshape_to_an_overflowing_shape_is_refused(backend):
    a = tack.zeros(0, dtype=tack.f32)
    with pytest.raises(ValueError):
        a.reshape((2**32, 2**32, 0, 2**40))
    with pytest.raises(ValueError, match="an array extent must be an integer below 2\\*\\*63"):
        a.reshape(2**64)


def test_reshape_takes_integers_as_numpy_does(backend):
    # Extents as NumPy's reshape takes them (separate, a sequence, an
    # integer array, NumPy integers); a float is a TypeError, not an
    # extent truncated from it.
    a, n = tack.zeros((3, 4)), np.zeros((3, 4))
    for args in [(2, 6), ((2, 6),), ([6, 2],), (np.array([4, 3]),), (np.int64(12),), (-1,), (2, -1)]:
        assert a.reshape(*args).shape == n.reshape(*args).shape, args
    for args in [(2.0, 6), ((2, 6.0),), ("ab",)]:
        with pytest.raises(TypeError):
            n.reshape(*args)
        with pytest.raises(TypeError, match="an array extent is an integer, not"):
            a.reshape(*args)
    with pytest.raises(TypeError, match="a shape is an integer or a sequence of integers, not None"):
        a.reshape(None)


@tack.kernel
def _axpy_into(a, x, y):
    for i in range(len(x)):
        y[i] = a * x[i] + y[i]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64], ids=["f32", "i32", "f64"])
def test_kernel_arguments_share_numpy_arrays_and_buffers(dtype):
    """A NumPy array (or any buffer) passed to a kernel is shared, not
    copied: the kernel's stores are in the caller's array."""
    x = sample(dtype, 300, seed=4) // 4 if np.dtype(dtype).kind == "i" else sample(dtype, 300, seed=4)
    y0 = sample(dtype, 300, seed=5) // 4 if np.dtype(dtype).kind == "i" else sample(dtype, 300, seed=5)
    y = y0.copy()
    a = dtype(3)
    _axpy_into(a, x, y)
    with np.errstate(over="ignore"):
        want = (a * x + y0).astype(dtype)
    np.testing.assert_array_equal(y, want)
    # A strided view and an array.array buffer.
    z = np.zeros(600, dtype)
    _axpy_into(a, x, z[::2])
    np.testing.assert_array_equal(z[::2], (a * x).astype(dtype))
    np.testing.assert_array_equal(z[1::2], 0)


def test_kernel_arguments_that_cannot_be_shared_are_refused():
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(TypeError, match=r"kernel '_axpy_into': parameter 'y' got list: expected a tack.Array, an "
                                        r"array of another library"):
        _axpy_into(1.0, x, [0.0] * 4)
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"parameter 'y' is bound to a read-only array"):
        _axpy_into(1.0, x, ro)
    np.testing.assert_array_equal(ro, 0)
    with pytest.raises(TypeError, match=r"parameter 'y' got ndarray: its memory cannot be shared: from_dlpack: "
                                        r"unsupported element type") as refused:
        _axpy_into(1.0, x, np.zeros(4, np.complex64))
    assert "Traceback" not in str(refused.value)  # the reason alone
