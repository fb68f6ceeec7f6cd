"""Creating arrays and moving data between them and NumPy."""

import numpy as np

from . import _core, _dtypes, _element_types

Array = _core.Array


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(e) for e in shape)


def _element(dtype, layout):
    """(scalar dtype, element shape, layout) of a creation call's dtype."""
    if isinstance(dtype, _element_types.ElementType):
        if layout not in ("aos", "soa"):
            raise ValueError(f'layout must be "aos" (interleaved) or "soa" (a structure of arrays), not {layout!r}')
        return dtype.dtype, dtype.shape, layout
    if layout != "aos":
        raise ValueError(
            f"layout={layout!r} applies to arrays of vector or matrix elements (tack.vec3f, ...), not {dtype!r}"
        )
    return _dtypes.as_dtype(dtype), (), "aos"


def _device(device):
    return _core.default_device() if device is None else str(device)


def empty(shape, dtype=_dtypes.f32, layout="aos", device=None):
    """A new array with unspecified contents. `dtype` is a scalar type or a
    vector or matrix element type (tack.vec3f, tack.mat33d, tack.vector(n,
    dtype), ...), whose components are interleaved ("aos", one element after
    another) or, with layout="soa", stored as a structure of arrays. The
    array is on `device` ("cpu", "opencl"), by default the default device
    (tack.set_default_device)."""
    scalar, element_shape, layout = _element(dtype, layout)
    return Array._empty(_shape(shape), scalar.name, list(element_shape), layout, _device(device))


def full(shape, value, dtype=_dtypes.f32, layout="aos", device=None):
    """A new array with every element `value`: a number, or for vector and
    matrix elements also one element's components (a sequence or NumPy
    array of the element's shape)."""
    a = empty(shape, dtype, layout, device)
    if a.element_shape and not isinstance(value, (int, float, np.number)):
        np.copyto(a.numpy(), np.asarray(value, dtype=a.dtype.numpy), casting="same_kind")
    else:
        a.fill(value)
    return a


def zeros(shape, dtype=_dtypes.f32, layout="aos", device=None):
    return full(shape, 0, dtype, layout, device)


def ones(shape, dtype=_dtypes.f32, layout="aos", device=None):
    return full(shape, 1, dtype, layout, device)


def array(data, dtype=None, layout="aos", device=None):
    """A new array holding a copy of `data` (a NumPy array or anything
    numpy.asarray accepts). Without `dtype`, NumPy's dtype is kept; it must be
    one of Tack's ten. With a vector or matrix element type, the last
    dimensions of `data` are one element's: an (m, 3) array makes m vec3s."""
    src = np.asarray(data)
    if isinstance(dtype, _element_types.ElementType):
        k = len(dtype.shape)
        if src.shape[src.ndim - k:] != dtype.shape or src.ndim < k:
            raise ValueError(
                f"tack.array: data of shape {src.shape} does not end in the {dtype!r} element shape {dtype.shape}"
            )
        a = empty(src.shape[: src.ndim - k], dtype, layout, device)
        np.copyto(a.numpy(), src.astype(dtype.numpy, copy=False))
        return a
    _element(dtype if dtype is not None else _dtypes.f32, layout)
    if dtype is not None:
        src = src.astype(_dtypes.as_dtype(dtype).numpy, copy=False)
    else:
        _dtypes.as_dtype(src.dtype)
    return Array._copy_of(np.ascontiguousarray(src), _device(device))


def copyto(dst, src):
    """Copies src (a tack.Array or NumPy array of dst's shape) into dst.
    The dtypes must match: nothing is converted silently."""
    if dst.readonly:
        raise ValueError("copyto: the destination is read-only (an import of read-only memory)")
    s = src.numpy() if isinstance(src, Array) else np.asarray(src)
    d = dst._host_view()
    if s.dtype != d.dtype:
        raise TypeError(f"copyto: source dtype {s.dtype} differs from destination {d.dtype}; convert explicitly")
    if s.shape != d.shape:
        raise ValueError(f"copyto: source shape {s.shape} differs from destination {d.shape}")
    np.copyto(d, s)
    dst._host_written()


def sync():
    """Waits for queued launches on every device. CPU launches are
    synchronous; reading an array on another device waits for the launches
    queued before it."""
    _core.sync()


def array_from_ptr(address, shape, dtype, strides=None, readonly=True, owner=None, device="cpu", stream=None):
    """An array viewing external memory at the integer `address`; no copy is
    made. With device="cpu" the address is a host address; with "cuda" or
    "hip" it is a device address inside one allocation of that device's
    memory (the driver checks), and `stream`, a stream handle of the library
    that wrote it (1 and 2: the default streams), is waited for first.
    `strides` are in bytes, row-major when omitted. The caller keeps the
    memory alive for as long as the array (or any view of it) is used, or
    passes `owner`, an object the array keeps referenced. Read-only by
    default: a kernel that may store to it refuses it."""
    return _core.array_from_ptr(
        int(address), _shape(shape), _dtypes.as_dtype(dtype).name, strides, bool(readonly), owner, str(device),
        stream,
    )


def from_dlpack(obj):
    """An array sharing the memory of `obj`, any object with __dlpack__:
    host memory (NumPy >= 1.22 arrays, PyTorch CPU tensors, tack arrays) or
    the memory of a CUDA or ROCm device (CuPy arrays, PyTorch and JAX GPU
    tensors), which becomes an array on "cuda" or "hip"; no copy is made.
    The producer is asked to make its data ready for Tack's stream. The
    array is read-only when the producer marks its memory so."""
    return _core.from_dlpack(obj)


_TYPESTRS = {
    "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64",
    "u1": "u8", "u2": "u16", "u4": "u32", "u8": "u64",
    "f4": "f32", "f8": "f64",
}


def _from_cuda_array_interface(obj):
    cai = obj.__cuda_array_interface__
    version = cai.get("version", 0)
    if version > 3:
        raise ValueError(f"asarray: __cuda_array_interface__ version {version} is newer than the 3 Tack reads")
    if cai.get("mask") is not None:
        raise ValueError("asarray: __cuda_array_interface__ with a mask is not supported; Tack arrays have none")
    typestr = cai["typestr"]
    if typestr[0] == ">" or typestr[1:] not in _TYPESTRS:
        raise TypeError(
            f"asarray: element type {typestr!r} is not one of Tack's (little-endian i1..i8, u1..u8, f4, f8)"
        )
    address, readonly = cai["data"]
    # ROCm builds of CuPy and PyTorch export HIP memory through the same
    # protocol.
    device = "hip" if _core.device_unavailable_reason("cuda") and not _core.device_unavailable_reason("hip") else "cuda"
    # The producer's stream: None when its data is ready for every stream.
    return _core.array_from_ptr(
        int(address), tuple(cai["shape"]), _TYPESTRS[typestr[1:]], cai.get("strides"), bool(readonly), obj,
        device, cai.get("stream") if version >= 3 else None,
    )


def asarray(obj):
    """`obj` as a tack.Array, sharing its memory without a copy: a
    tack.Array as it is; an object with __cuda_array_interface__ (CuPy,
    PyTorch, Numba and JAX arrays on a CUDA device) as an array on "cuda";
    an object with __dlpack__ as from_dlpack does; anything NumPy can view
    without a copy (the buffer protocol, __array_interface__) as an array
    on "cpu"."""
    if isinstance(obj, Array):
        return obj
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_array_interface(obj)
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj)
    viewable = hasattr(obj, "__array_interface__") or hasattr(obj, "__array_struct__")
    if not viewable:
        try:
            memoryview(obj).release()
            viewable = True
        except TypeError:
            pass
    if not viewable:
        raise TypeError(
            f"asarray: a {type(obj).__name__} has no memory to share (no __cuda_array_interface__, __dlpack__, "
            "__array_interface__ or buffer); tack.array() copies sequences"
        )
    return from_dlpack(np.asarray(obj))


# Whole-array reductions (contract, "Array and parallel reductions"). Each
# dtype takes whichever of two implementations bench/reductions.py measured
# faster: NumPy over a zero-copy view, or the compiled parallel reduction in
# src/runtime/reduce.cpp. Both follow the same accumulator rules.

_SUM_DTYPE = {
    "i8": np.int64, "i16": np.int64, "i32": np.int64, "i64": np.int64,
    "u8": np.uint64, "u16": np.uint64, "u32": np.uint64, "u64": np.uint64,
    "f32": np.float32, "f64": np.float64,
}


def _scalar_name(a):
    """The component dtype's name; vector and matrix arrays reduce over
    every component."""
    t = a.dtype
    return t.dtype.name if isinstance(t, _element_types.ElementType) else t.name


def _numpy_sum(a):
    if a.size == 0:
        return 0.0
    # Integer sums wrap in 64 bits, as NumPy's integer arithmetic does;
    # inf + -inf is NaN by definition here, not an event to warn about.
    with np.errstate(invalid="ignore", over="ignore"):
        return float(np.sum(a.numpy(), dtype=_SUM_DTYPE[_scalar_name(a)]))


def _numpy_extremum(a, maximum):
    if a.size == 0:
        raise ValueError(f"{'max' if maximum else 'min'}() of an empty array; it has no elements to compare")
    v = a.numpy()
    r = np.max(v) if maximum else np.min(v)  # NumPy propagates NaN
    if _scalar_name(a) in ("f32", "f64") and r == 0:
        # A zero extremum ties every zero of either sign. No negative value
        # can be above a zero minimum, so any set sign bit is a -0.0; the
        # maximum likewise keeps -0.0 only if every element is -0.0.
        negative = np.signbit(v)
        return (-0.0 if negative.any() else 0.0) if not maximum else (-0.0 if negative.all() else 0.0)
    return float(r)


def _numpy_min(a):
    return _numpy_extremum(a, False)


def _numpy_max(a):
    return _numpy_extremum(a, True)


_NUMPY = {"sum": _numpy_sum, "min": _numpy_min, "max": _numpy_max}
_COMPILED = {"sum": _core._array_sum, "min": _core._array_min, "max": _core._array_max}

# Measured choice per (reduction, dtype); see docs/arrays.md.
_REDUCE_WITH = {(op, t.name): _COMPILED[op] for op in ("sum", "min", "max") for t in _dtypes.ALL}



def _sum(self):
    """The sum of every element as a Python float: f32 accumulates in f32,
    f64 in f64, signed integers in i64 and unsigned in u64, wrapping modulo
    2**64. An empty array sums to 0.0."""
    return _REDUCE_WITH["sum", _scalar_name(self)](self)


def _min(self):
    """The least element as a Python float. NaN if any element is NaN;
    -0.0 wins a tie with +0.0. Raises ValueError for an empty array."""
    return _REDUCE_WITH["min", _scalar_name(self)](self)


def _max(self):
    """The greatest element as a Python float. NaN if any element is NaN;
    +0.0 wins a tie with -0.0. Raises ValueError for an empty array."""
    return _REDUCE_WITH["max", _scalar_name(self)](self)


def _mean(self):
    """sum() divided by the element count in binary64 (integer means inherit
    the sum's wrapping); NaN for an empty array."""
    n = self.size
    return self.sum() / n if n else float("nan")


Array.sum = _sum
Array.min = _min
Array.max = _max
Array.mean = _mean
