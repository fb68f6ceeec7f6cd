"""tack.constant: a value a kernel reads as a literal."""

from . import _dtypes


class Constant:
    """A scalar a kernel reads as a literal fixed where it was declared.

    Untyped, it follows the literal rules (an int literal, or a weak float
    literal); with a dtype, it is that literal under the corresponding cast.
    """

    __slots__ = ("value", "dtype")

    def __init__(self, value, dtype=None):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"tack.constant takes an int or a float, not {type(value).__name__}")
        if isinstance(value, int) and not -(2**63) <= value < 2**64:
            raise ValueError(f"tack.constant {value} does not fit 64 bits")
        self.value = value
        self.dtype = _dtypes.as_dtype(dtype) if dtype is not None else None

    def __repr__(self):
        if self.dtype is None:
            return f"tack.constant({self.value!r})"
        return f"tack.constant({self.value!r}, dtype={self.dtype!r})"


def constant(value, dtype=None):
    return Constant(value, dtype)
