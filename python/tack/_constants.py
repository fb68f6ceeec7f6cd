"""tack.constant: a value a kernel reads as a literal."""

from __future__ import annotations

from typing import Any, Optional

from . import _dtypes
from ._numpy import is_numpy_number, loaded as loaded_numpy


def _number(x, where):
    if is_numpy_number(x):
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"tack.constant takes numbers, vectors and matrices of numbers, not {type(x).__name__}{where}")
    if isinstance(x, int) and not -(2**63) <= x < 2**64:
        raise ValueError(f"tack.constant {x} does not fit 64 bits")
    return x


def _sequence(x):
    numpy = loaded_numpy()
    if numpy is not None and isinstance(x, numpy.ndarray):
        return x.tolist()
    return list(x) if isinstance(x, (list, tuple)) else None


class Constant:
    """A value a kernel reads as a literal fixed where it was declared: a
    number, a vector (2 to 4 numbers) or a matrix (2 to 4 rows of 2 to 4
    numbers; a list of rows, or a NumPy array such as tack.mat3(...) gives
    on the host).

    Untyped, each number follows the literal rules (an int literal, or a weak
    float literal); with a dtype, it is that literal under the corresponding
    cast. `value` is the number, or the components in row-major order;
    `shape` is None, (n,) or (rows, cols).
    """

    __slots__ = ("value", "dtype", "shape")

    def __init__(self, value, dtype=None):
        rows = _sequence(value)
        if rows is None:
            self.value, self.shape = _number(value, ""), None
        elif rows and all(_sequence(r) is not None for r in rows):
            rows = [_sequence(r) for r in rows]
            width = len(rows[0])
            if not 2 <= len(rows) <= 4 or any(len(r) != width for r in rows) or not 2 <= width <= 4:
                raise ValueError("a tack.constant matrix has 2 to 4 rows of the same length, 2 to 4")
            self.value = tuple(_number(x, " in a matrix") for r in rows for x in r)
            self.shape = (len(rows), width)
        else:
            if not 2 <= len(rows) <= 4:
                raise ValueError(f"a tack.constant vector has 2 to 4 components, not {len(rows)}")
            self.value = tuple(_number(x, " in a vector") for x in rows)
            self.shape = (len(rows),)
        self.dtype = _dtypes.as_dtype(dtype) if dtype is not None else None

    def __repr__(self):
        value = self.value
        if self.shape is not None and len(self.shape) == 1:
            value = list(value)
        elif self.shape is not None:
            width = self.shape[1]
            value = [list(value[r * width : (r + 1) * width]) for r in range(self.shape[0])]
        if self.dtype is None:
            return f"tack.constant({value!r})"
        return f"tack.constant({value!r}, dtype={self.dtype!r})"


def constant(value: Any, dtype: Optional[_dtypes.DTypeLike] = None) -> Constant:
    """A tack.Constant: `value` (a number, a vector of 2 to 4 numbers or a
    matrix of 2 to 4 rows) that kernels reading it compile as a literal,
    typed as `dtype` if given; see tack.Constant."""
    return Constant(value, dtype)
