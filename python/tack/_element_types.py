"""Vector and matrix element types of arrays.

An array of tack.vec3f holds one 3-vector of f32 per element; inside a
kernel a[i] is a vector value and a[i].x one component. Named types follow
Warp's spelling (the suffix is the component type: f = f32, d = f64,
i = i32); tack.vector(n, dtype) and tack.matrix(rows, cols, dtype) make any
other, as Taichi's ti.types.vector / ti.types.matrix do.
"""

from typing import Union

from . import _dtypes


class ElementType:
    """A vector or matrix of `shape` whose components are `dtype` scalars."""

    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name, dtype, shape):
        self.name = name
        self.dtype = dtype
        self.shape = shape

    @property
    def components(self):
        n = 1
        for e in self.shape:
            n *= e
        return n

    @property
    def numpy(self):
        """The NumPy dtype of one component."""
        return self.dtype.numpy

    @property
    def itemsize(self):
        """Bytes of one element."""
        return self.components * self.dtype.itemsize

    def __repr__(self):
        return f"tack.{self.name}"

    def __eq__(self, other):
        if isinstance(other, ElementType):
            return self.dtype == other.dtype and self.shape == other.shape
        return NotImplemented

    def __hash__(self):
        return hash((self.dtype.name, self.shape))


# What an array's dtype= parameter accepts: a scalar type or a vector or
# matrix element type.
ElementTypeLike = Union[_dtypes.DTypeLike, ElementType]

_SUFFIX = {"f32": "f", "f64": "d", "i32": "i"}
_TYPES: dict[tuple[str, tuple[int, ...]], "ElementType"] = {}


def _check_extent(what, n):
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 4:
        raise ValueError(f"{what} must be an integer from 1 to 4, not {n!r}")


def element_type(dtype, shape):
    """The element type of `shape` ((n,) or (rows, cols)) over `dtype`;
    one object per type, so tack.vector(3, tack.f32) is tack.vec3f."""
    dtype = _dtypes.as_dtype(dtype)
    shape = tuple(int(e) for e in shape)
    key = (dtype.name, shape)
    t = _TYPES.get(key)
    if t is None:
        suffix = _SUFFIX.get(dtype.name)
        if len(shape) == 1:
            name = f"vec{shape[0]}{suffix}" if suffix else f"vector({shape[0]}, tack.{dtype.name})"
        else:
            name = (f"mat{shape[0]}{shape[1]}{suffix}" if suffix
                    else f"matrix({shape[0]}, {shape[1]}, tack.{dtype.name})")
        t = _TYPES[key] = ElementType(name, dtype, shape)
    return t


def vector(length: int, dtype: _dtypes.DTypeLike) -> ElementType:
    """The element type of `length`-vectors (1 to 4) of `dtype`."""
    _check_extent("a vector's length", length)
    return element_type(dtype, (length,))


def matrix(rows: int, cols: int, dtype: _dtypes.DTypeLike) -> ElementType:
    """The element type of rows x cols matrices (each 1 to 4) of `dtype`."""
    _check_extent("a matrix's row count", rows)
    _check_extent("a matrix's column count", cols)
    return element_type(dtype, (rows, cols))


vec2f, vec3f, vec4f = (vector(n, _dtypes.f32) for n in (2, 3, 4))
vec2d, vec3d, vec4d = (vector(n, _dtypes.f64) for n in (2, 3, 4))
vec2i, vec3i, vec4i = (vector(n, _dtypes.i32) for n in (2, 3, 4))
mat22f, mat33f, mat44f = (matrix(n, n, _dtypes.f32) for n in (2, 3, 4))
mat22d, mat33d, mat44d = (matrix(n, n, _dtypes.f64) for n in (2, 3, 4))
