"""Creating arrays and moving data between them and NumPy."""

from __future__ import annotations

import inspect
import operator
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

if TYPE_CHECKING:
    import numpy as np
else:
    from ._numpy import np

from . import _core, _dtypes, _element_types

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ._dtypes import DTypeLike
    from ._element_types import ElementTypeLike

Array = _core.Array

# An array's extents: one for a 1-D array, or a sequence of them.
ShapeLike = Union[int, Sequence[int]]


def _shape(shape):
    """A shape's extents as ints: integers only, as NumPy takes them (2.5,
    "3" or True is a TypeError, not an extent of 2, 3 or 1)."""
    if type(shape) is tuple and all(type(e) is int for e in shape):
        return shape  # (the common case, without the exceptions below)

    def extent(e):
        if isinstance(e, bool):
            raise TypeError
        return operator.index(e)

    try:
        return (extent(shape),)  # an int or a NumPy integer
    except TypeError:
        pass
    try:
        return tuple(extent(e) for e in shape)
    except TypeError:
        raise TypeError(f"an array shape is an integer or a sequence of integers, not {shape!r}") from None


def _element(dtype, layout):
    """(scalar dtype, element shape, layout) of a creation call's dtype;
    None is the creation functions' default, f32 (NumPy's None is f64)."""
    if dtype is None:
        dtype = _dtypes.f32
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
    """The device named by `device`, the default device for None."""
    return _core.default_device() if device is None else _device_name(device)


def _device_name(device, who="a device"):
    """`device`, a device's name; anything but a string is a TypeError
    (str() would make None or 3 a name that no backend has)."""
    if not isinstance(device, str):
        raise TypeError(f"{who} is named by a string ('cpu', 'opencl', 'cuda', 'hip'), not {device!r} "
                        f"({type(device).__name__})")
    return device


def empty(shape: ShapeLike, dtype: ElementTypeLike = _dtypes.f32, layout: str = "aos", device: Optional[str] = None) -> Array:
    """A new array with unspecified contents. `dtype` is a scalar type or a
    vector or matrix element type (tack.vec3f, tack.mat33d, tack.vector(n,
    dtype), ...), whose components are interleaved ("aos", one element after
    another) or, with layout="soa", stored as a structure of arrays. The
    array is on `device` ("cpu", "opencl"), by default the default device
    (tack.set_default_device)."""
    scalar, element_shape, layout = _element(dtype, layout)
    return Array._empty(_shape(shape), scalar.name, list(element_shape), layout, _device(device))


def full(
    shape: ShapeLike, value: Any, dtype: ElementTypeLike = _dtypes.f32, layout: str = "aos", device: Optional[str] = None
) -> Array:
    """A new array with every element `value`: a number, or for vector and
    matrix elements also one element's components (a sequence or NumPy
    array of the element's shape)."""
    a = empty(shape, dtype, layout, device)
    a.fill(value)
    return a


def zeros(shape: ShapeLike, dtype: ElementTypeLike = _dtypes.f32, layout: str = "aos", device: Optional[str] = None) -> Array:
    """A new array of zeros (see empty for dtype, layout and device)."""
    return full(shape, 0, dtype, layout, device)


def ones(shape: ShapeLike, dtype: ElementTypeLike = _dtypes.f32, layout: str = "aos", device: Optional[str] = None) -> Array:
    """A new array of ones (see empty for dtype, layout and device)."""
    return full(shape, 1, dtype, layout, device)


def array(
    data: ArrayLike, dtype: Optional[ElementTypeLike] = None, layout: str = "aos", device: Optional[str] = None
) -> Array:
    """A new array holding a copy of `data` (a NumPy array or anything
    numpy.asarray accepts). Without `dtype`, NumPy's dtype is kept; it must be
    one of Tack's ten. With a vector or matrix element type, the last
    dimensions of `data` are one element's: an (m, 3) array makes m vec3s."""
    element = dtype if isinstance(dtype, _element_types.ElementType) else None
    component = None if dtype is None else (element.dtype if element else _dtypes.as_dtype(dtype))
    src = _numbers(data, component, "tack.array")
    if element:
        k = len(element.shape)
        if src.shape[src.ndim - k:] != element.shape or src.ndim < k:
            raise ValueError(
                f"tack.array: data of shape {src.shape} does not end in the {element!r} element shape {element.shape}"
            )
        a = empty(src.shape[: src.ndim - k], element, layout, device)
        np.copyto(a.numpy(), _converted(src, component, "tack.array", " of the data"))
        return a
    _element(dtype, layout)
    if component is not None:
        src = _converted(src, component, "tack.array", " of the data")
    else:
        _dtypes.as_dtype(src.dtype)
    # asarray keeps a 0-d array 0-d; ascontiguousarray would make it (1,).
    return Array._copy_of(np.asarray(src, order="C"), _device(device))


def _like(a, dtype, device):
    """(shape, dtype, layout, device) of a new array like `a`, a tack.Array
    or anything numpy.asarray accepts: its shape, element type, layout and
    (a tack.Array's) device unless dtype= or device= say otherwise."""
    if isinstance(a, Array):
        shape, kind, layout, home = a.shape, a.dtype, a.layout, a.device
    else:
        src = np.asarray(a)
        shape, kind, layout, home = src.shape, None, "aos", None
        if dtype is None:
            kind = _dtypes.as_dtype(src.dtype)
    if dtype is not None:
        kind = dtype if isinstance(dtype, _element_types.ElementType) else _dtypes.as_dtype(dtype)
    if not isinstance(kind, _element_types.ElementType):
        layout = "aos"
    return shape, kind, layout, home if device is None else device


def empty_like(a: Union[Array, ArrayLike], dtype: Optional[ElementTypeLike] = None, device: Optional[str] = None) -> Array:
    """A new array of `a`'s shape and dtype with unspecified contents. `a`
    is a tack.Array (whose element type, layout and device are kept) or a
    NumPy array or anything numpy.asarray accepts (made on the default
    device). `dtype` and `device` replace what `a` has."""
    shape, kind, layout, home = _like(a, dtype, device)
    return empty(shape, kind, layout, home)


def zeros_like(a: Union[Array, ArrayLike], dtype: Optional[ElementTypeLike] = None, device: Optional[str] = None) -> Array:
    """A new array like `a` (see empty_like) holding zeros."""
    shape, kind, layout, home = _like(a, dtype, device)
    return zeros(shape, kind, layout, home)


def ones_like(a: Union[Array, ArrayLike], dtype: Optional[ElementTypeLike] = None, device: Optional[str] = None) -> Array:
    """A new array like `a` (see empty_like) holding ones."""
    shape, kind, layout, home = _like(a, dtype, device)
    return ones(shape, kind, layout, home)


def full_like(
    a: Union[Array, ArrayLike], fill_value: Any, dtype: Optional[ElementTypeLike] = None, device: Optional[str] = None
) -> Array:
    """A new array like `a` (see empty_like) with every element
    `fill_value`, converted as tack.full converts it."""
    shape, kind, layout, home = _like(a, dtype, device)
    return full(shape, fill_value, kind, layout, home)


def _scalar_dtype(dtype, who):
    if isinstance(dtype, _element_types.ElementType):
        raise TypeError(f"{who}: dtype must be a scalar type (tack.i32, tack.f64, ...), not {dtype!r}")
    return _dtypes.as_dtype(dtype)


def arange(
    start: float,
    stop: Optional[float] = None,
    step: Optional[float] = None,
    dtype: Optional[DTypeLike] = None,
    device: Optional[str] = None,
) -> Array:
    """Evenly spaced values in [start, stop), NumPy's arange: arange(stop),
    arange(start, stop) or arange(start, stop, step), with NumPy's values and
    length. Without `dtype`, NumPy's choice: i64 when every argument is an
    integer, f64 when any is a float. (Tack's f32 default applies to zeros,
    ones and full, which have no values to infer a type from.)"""
    want = None if dtype is None else _scalar_dtype(dtype, "arange").numpy
    values = np.arange(start, stop, step, dtype=want)
    _dtypes.as_dtype(values.dtype)
    return Array._copy_of(values, _device(device))


def linspace(
    start: float,
    stop: float,
    num: int = 50,
    endpoint: bool = True,
    dtype: Optional[DTypeLike] = None,
    device: Optional[str] = None,
) -> Array:
    """`num` evenly spaced values from start to stop (included unless
    endpoint=False), equal to NumPy's linspace: computed in f64 and then
    converted to `dtype` (integer dtypes round toward minus infinity, as
    NumPy does). Without `dtype`, f64, as NumPy chooses for Python numbers.
    A value with no integer of `dtype` (outside its range after rounding,
    where NumPy's result depends on the platform) raises ValueError, as
    astype does."""
    want = None if dtype is None else _scalar_dtype(dtype, "linspace").numpy
    if want is not None and want.kind in "iu":
        rounded = np.floor(np.linspace(start, stop, num, endpoint=endpoint))
        bad = _unrepresentable(rounded, want)
        if bad.any():
            info = np.iinfo(want)
            raise ValueError(
                f"linspace: value {int(np.argmax(bad))}, {float(rounded[bad][0])!r}, has no {want} value (outside "
                f"[{info.min}, {info.max}]); NumPy's result there depends on the platform"
            )
    values = np.linspace(start, stop, num, endpoint=endpoint, dtype=want)
    _dtypes.as_dtype(values.dtype)
    return Array._copy_of(np.asarray(values, order="C"), _device(device))


def copyto(dst: Array, src: Union[Array, ArrayLike]) -> None:
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


def sync() -> None:
    """Waits for queued launches on every device. CPU launches are
    synchronous; reading an array on another device waits for the launches
    queued before it."""
    _core.sync()


def array_from_ptr(
    address: int,
    shape: ShapeLike,
    dtype: DTypeLike,
    strides: Optional[Sequence[int]] = None,
    readonly: bool = True,
    owner: Any = None,
    device: str = "cpu",
    stream: Optional[int] = None,
) -> Array:
    """An array viewing external memory at the integer `address`; no copy is
    made. With device="cpu" the address is a host address; with "cuda" or
    "hip" it is a device address inside one allocation of that device's
    memory (the driver checks), and `stream`, a stream handle of the library
    that wrote it (1 and 2: the default streams), is waited for first.
    `strides` are in bytes, row-major when omitted. The caller keeps the
    memory alive for as long as the array (or any view of it) is used, or
    passes `owner`, an object the array keeps referenced. Read-only by
    default: a kernel that may store to it refuses it."""
    try:
        address = operator.index(address)  # an integer: 2.5 or "0x10" is no address
    except TypeError:
        raise TypeError(f"array_from_ptr: the address must be an integer, not {address!r}") from None
    return _core.array_from_ptr(
        address, _shape(shape), _dtypes.as_dtype(dtype).name, strides, bool(readonly), owner, _device_name(device),
        stream,
    )


def from_dlpack(obj: Any) -> Array:
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

    def refuse(what):
        raise TypeError(f"asarray: __cuda_array_interface__ {what}")

    if not isinstance(cai, dict):
        refuse(f"is a dict, not {cai!r}")
    for key in ("shape", "typestr", "data"):
        if key not in cai:
            refuse(f"has no {key!r}")
    version = cai.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        refuse(f"'version' is an integer, not {version!r}")
    if version > 3:
        raise ValueError(f"asarray: __cuda_array_interface__ version {version} is newer than the 3 Tack reads")
    if cai.get("mask") is not None:
        raise ValueError("asarray: __cuda_array_interface__ with a mask is not supported; Tack arrays have none")
    typestr = cai["typestr"]
    if not isinstance(typestr, str) or typestr[:1] == ">" or typestr[1:] not in _TYPESTRS:
        raise TypeError(
            f"asarray: element type {typestr!r} is not one of Tack's (little-endian i1..i8, u1..u8, f4, f8)"
        )
    data = cai["data"]
    if not (isinstance(data, (tuple, list)) and len(data) == 2 and data[1] in (True, False) and
            hasattr(data[0], "__index__") and not isinstance(data[0], bool)):
        refuse(f"'data' is (an integer address, a read-only bool), not {data!r}")
    address, readonly = operator.index(data[0]), bool(data[1])
    shape = cai["shape"]
    if not isinstance(shape, (tuple, list)):
        refuse(f"'shape' is a tuple of extents, not {shape!r}")
    # ROCm builds of CuPy and PyTorch export HIP memory through the same
    # protocol.
    device = "hip" if _core.device_unavailable_reason("cuda") and not _core.device_unavailable_reason("hip") else "cuda"
    # The producer's stream: None when its data is ready for every stream.
    return _core.array_from_ptr(
        address, _shape(shape), _TYPESTRS[typestr[1:]], cai.get("strides"), readonly, obj,
        device, cai.get("stream") if version >= 3 else None,
    )


def asarray(obj: Any) -> Array:
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


def _copy(self: Array) -> Array:
    """A new array with this one's contents, element type, layout and
    device, in storage of its own (a view copies only what it views)."""
    out = empty_like(self)
    copyto(out, self)
    return out


def _unrepresentable(values, target):
    """A mask of the floating values with no value of integer type
    `target`: NaN, the infinities and values whose truncation toward zero
    lies outside the type's range."""
    info = np.iinfo(target)
    # Both bounds are exact in f64: min is -2**(bits-1) or 0, max + 1 a power of two.
    truncated = np.trunc(values.astype(np.float64))
    with np.errstate(invalid="ignore"):
        inside = (truncated >= float(info.min)) & (truncated < float(info.max) + 1.0)
    return ~inside


def _converted(values, component, who, of=""):
    """NumPy `values` (of one of Tack's ten types) as scalar type
    `component`, as NumPy's astype converts them (casting="unsafe"):
    integers wrap, floats round to nearest or truncate toward zero into
    integers. A float with no integer value of the target type (NaN, an
    infinity, or out of range after truncation), where NumPy's result
    depends on the platform, raises ValueError from `who` naming the element
    (`of` says of what)."""
    if values.dtype.kind == "f" and component.numpy.kind in "iu":
        bad = _unrepresentable(values, component.numpy)
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"{who}: element {at if len(at) != 1 else at[0]}{of}, {values[at]!r}, has no {component!r} value (NaN, "
                f"an infinity, or outside [{np.iinfo(component.numpy).min}, {np.iinfo(component.numpy).max}] after "
                "truncation); NumPy's result there depends on the platform"
            )
    # f64 -> f32 overflow to infinity is IEEE rounding, not an error.
    with np.errstate(over="ignore"):
        return values.astype(component.numpy, copy=False)


def _numbers(data, dtype, who):
    """`data` read by NumPy (numpy.asarray) as numbers for scalar type
    `dtype` (None: NumPy's own): strings, dates, complex numbers (whose
    imaginary part a conversion drops) and other objects are a TypeError.
    Python integers (not NumPy's arrays) converted to an integer `dtype`
    are read exactly and must lie inside it, as NumPy 2 and tack.full take
    them (OverflowError; NumPy alone reads [2**64 - 1, 0] as float64)."""
    from_python = not isinstance(data, (np.ndarray, np.generic)) and not hasattr(data, "__array_interface__")
    if from_python and dtype is not None and dtype.numpy.kind in "iu":
        exact = np.asarray(data, dtype=object)
        if exact.size and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                              for v in exact.ravel()):
            _integers_inside(exact.ravel(), dtype)
            return exact.astype(dtype.numpy)
    src = np.asarray(data)
    if src.dtype.kind == "O" and src.size and all(type(v) is int for v in src.ravel()):
        # Python integers beyond 64 bits.
        if dtype is None:
            raise TypeError(f"{who}: the data hold integers beyond 64 bits, which no type of Tack's holds")
        src = np.array(src.tolist(), dtype=dtype.numpy)
    if src.dtype.kind not in "biuf":
        raise TypeError(f"{who}: the data are {src.dtype} values, not numbers of one of Tack's ten types")
    return src


def _integers_inside(values, dtype):
    info = np.iinfo(dtype.numpy)
    for v in values:
        if not info.min <= int(v) <= info.max:
            raise OverflowError(f"Python integer {int(v)} out of bounds for {dtype.name}")


def _astype(self: Array, dtype: ElementTypeLike) -> Array:
    """A new array (same device, shape and layout) with every component
    converted to `dtype` as NumPy's astype converts it (casting="unsafe"):
    integers wrap modulo 2**bits, floats round to nearest (f64 values beyond
    f32's range become infinities), floats truncate toward zero into
    integers. A float with no integer value of the target type (NaN, an
    infinity, or out of range after truncation), where NumPy's result
    depends on the platform, raises ValueError instead. An array of vectors
    or matrices keeps its element shape: `dtype` is the component type, or
    an element type of the same shape."""
    element_shape = self.element_shape
    if isinstance(dtype, _element_types.ElementType):
        if dtype.shape != element_shape:
            raise ValueError(
                f"astype: {dtype!r} elements have shape {dtype.shape}, this array's have {element_shape}"
            )
        component = dtype.dtype
    else:
        component = _dtypes.as_dtype(dtype)
    target = _element_types.element_type(component, element_shape) if element_shape else component
    converted = _converted(self.numpy(), component, "astype", f" of the {self.dtype!r} array")
    out = empty(self.shape, target, self.layout, self.device)
    copyto(out, converted)
    return out


def _rebuild(data, scalar, element_shape, layout, device):
    """An unpickled array: new storage on `device` holding `data`."""
    dtype = _dtypes.BY_NAME[scalar]
    if element_shape:
        dtype = _element_types.element_type(dtype, element_shape)
    return array(data, dtype, layout, device)


def _reduce(self):
    # Contents, not memory: the unpickled array is new storage (writable,
    # even where this one imports read-only memory) on the same device.
    t = self.dtype
    scalar = t.dtype.name if isinstance(t, _element_types.ElementType) else t.name
    return _rebuild, (np.asarray(self.numpy(), order="C"), scalar, tuple(self.element_shape), self.layout, self.device)


def _method(fn, name):
    """fn as the method Array.<name>, with a docstring help() and the stub
    generator show unindented."""
    fn.__name__, fn.__qualname__ = name, f"Array.{name}"
    fn.__doc__ = inspect.cleandoc(fn.__doc__)
    setattr(Array, name, fn)


def _bool(self: Array) -> bool:
    """Truth as NumPy's: an array of one number is that number's truth;
    any other array (empty, of several numbers, of vector or matrix
    elements) raises ValueError, where `if a:` would otherwise ask whether
    it is empty."""
    if self.size == 1 and not self.element_shape:
        return bool(self[(0,) * self.ndim])
    if self.size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use `a.size > 0` to check that an array "
                         "is not empty.")
    raise ValueError("The truth value of an array with more than one element is ambiguous. Use a.numpy().any() or "
                     "a.numpy().all()")


_method(_copy, "copy")
_method(_astype, "astype")
_method(_bool, "__bool__")
setattr(Array, "__reduce__", _reduce)


# Whole-array reductions (contract, "Array and parallel reductions"). Each
# dtype takes whichever of two implementations bench/reductions.py measured
# faster: NumPy over a zero-copy view, or the compiled parallel reduction in
# src/runtime/reduce.cpp. Both follow the same accumulator rules.

_SUM_DTYPE = {
    "i8": "int64", "i16": "int64", "i32": "int64", "i64": "int64",
    "u8": "uint64", "u16": "uint64", "u32": "uint64", "u64": "uint64",
    "f32": "float32", "f64": "float64",
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



def _sum(self: Array) -> float:
    """The sum of every element as a Python float: f32 accumulates in f32,
    f64 in f64, signed integers in i64 and unsigned in u64, wrapping modulo
    2**64. An empty array sums to 0.0."""
    return _REDUCE_WITH["sum", _scalar_name(self)](self)


def _min(self: Array) -> float:
    """The least element as a Python float. NaN if any element is NaN;
    -0.0 wins a tie with +0.0. Raises ValueError for an empty array."""
    return _REDUCE_WITH["min", _scalar_name(self)](self)


def _max(self: Array) -> float:
    """The greatest element as a Python float. NaN if any element is NaN;
    +0.0 wins a tie with -0.0. Raises ValueError for an empty array."""
    return _REDUCE_WITH["max", _scalar_name(self)](self)


def _mean(self: Array) -> float:
    """sum() divided by the element count in binary64 (integer means inherit
    the sum's wrapping); NaN for an empty array."""
    n = self.size
    return self.sum() / n if n else float("nan")


_method(_sum, "sum")
_method(_min, "min")
_method(_max, "max")
_method(_mean, "mean")
