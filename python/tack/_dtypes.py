"""The ten scalar types. Each is also a cast inside kernels: tack.f32(x)."""

from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import numpy as np
else:
    from ._numpy import np


class DType:
    """One of Tack's ten scalar types: tack.i8, i16, i32, i64, u8, u16, u32,
    u64, f32 and f64. `name` is its short name ("f32"), `numpy` the NumPy
    dtype it matches and `itemsize` its bytes. Calling it converts: on the
    host like NumPy's typed scalar (tack.f32(0.1) is numpy.float32(0.1)),
    inside a kernel as a cast. It compares equal to the NumPy dtype, type or
    name of the same type."""

    __slots__ = ("name", "itemsize", "_tack_dtype", "_numpy_name", "_numpy")

    def __init__(self, name, numpy_name):
        self.name = name
        self.itemsize = int(name[1:]) // 8
        self._tack_dtype = name
        self._numpy_name = numpy_name
        self._numpy = None

    @property
    def numpy(self) -> "np.dtype[Any]":
        """The NumPy dtype of the same type (NumPy is imported at first use)."""
        if self._numpy is None:
            self._numpy = np.dtype(self._numpy_name)
        return self._numpy

    def __call__(self, value):
        """On the host, converts like NumPy's typed scalar; in kernels, a cast."""
        return self.numpy.type(value)

    def __repr__(self):
        return f"tack.{self.name}"

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.name == other.name
        try:
            return self.numpy == np.dtype(other)
        except (TypeError, ValueError):  # no dtype: another kind of object (tack.vec3f raises ValueError)
            return NotImplemented

    def __hash__(self):
        return hash(self.name)


i8 = DType("i8", "int8")
i16 = DType("i16", "int16")
i32 = DType("i32", "int32")
i64 = DType("i64", "int64")
u8 = DType("u8", "uint8")
u16 = DType("u16", "uint16")
u32 = DType("u32", "uint32")
u64 = DType("u64", "uint64")
f32 = DType("f32", "float32")
f64 = DType("f64", "float64")

# What a scalar dtype= parameter accepts: a tack dtype, a NumPy dtype or
# scalar type (numpy.float32, float) or a name ("f32", "float32").
DTypeLike = Union[DType, "np.dtype[Any]", type, str]

ALL = (i8, i16, i32, i64, u8, u16, u32, u64, f32, f64)
BY_NAME = {t.name: t for t in ALL}


def as_dtype(d):
    """A tack dtype from a tack dtype, a NumPy dtype or type, or a name."""
    if isinstance(d, DType):
        return d
    if isinstance(d, str) and d in BY_NAME:
        return BY_NAME[d]
    nd = np.dtype(d)
    for t in ALL:
        if t.numpy == nd:
            return t
    raise TypeError(f"unsupported dtype {d!r}; Tack arrays hold i8..i64, u8..u64, f32, f64")
