"""Tack's math builtins. In kernels they compile to the annotated precision;
on the host they compute with NumPy, so a device function can also run as
plain Python."""

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ._numpy import np


# NumPy's names of the math builtins, for the resolver: a kernel that calls
# numpy.arcsin calls the builtin asin.
NUMPY_NAMES: dict[str, str] = {}


def _numpy_form(name, numpy_name, what):
    """The host form of a math builtin: NumPy's ufunc `numpy_name` (looked up
    at the call, so that importing tack does not import NumPy)."""
    NUMPY_NAMES[numpy_name] = name

    def fn(*args, **kwargs):
        return getattr(np, numpy_name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"{what}. In kernels it computes at its arguments' floating precision (docs/numerics.md); "
        f"on the host it is numpy.{numpy_name}, with the same arguments."
    )
    return fn


sqrt = _numpy_form("sqrt", "sqrt", "The square root")
sin = _numpy_form("sin", "sin", "The sine of an angle in radians")
cos = _numpy_form("cos", "cos", "The cosine of an angle in radians")
tan = _numpy_form("tan", "tan", "The tangent of an angle in radians")
asin = _numpy_form("asin", "arcsin", "The arc sine, in radians")
acos = _numpy_form("acos", "arccos", "The arc cosine, in radians")
atan = _numpy_form("atan", "arctan", "The arc tangent, in radians")
atan2 = _numpy_form("atan2", "arctan2", "atan2(y, x): the angle of the point (x, y), in radians")
exp = _numpy_form("exp", "exp", "e to the power x")
log = _numpy_form("log", "log", "The natural logarithm")
floor = _numpy_form("floor", "floor", "The largest integral value not above x, as a float")
ceil = _numpy_form("ceil", "ceil", "The smallest integral value not below x, as a float")
tanh = _numpy_form("tanh", "tanh", "The hyperbolic tangent")
sinh = _numpy_form("sinh", "sinh", "The hyperbolic sine")
cosh = _numpy_form("cosh", "cosh", "The hyperbolic cosine")
asinh = _numpy_form("asinh", "arcsinh", "The inverse hyperbolic sine")
acosh = _numpy_form("acosh", "arccosh", "The inverse hyperbolic cosine")
atanh = _numpy_form("atanh", "arctanh", "The inverse hyperbolic tangent")
log2 = _numpy_form("log2", "log2", "The base-2 logarithm")
log10 = _numpy_form("log10", "log10", "The base-10 logarithm")
exp2 = _numpy_form("exp2", "exp2", "2 to the power x")
expm1 = _numpy_form("expm1", "expm1", "exp(x) - 1 without cancellation near 0")
log1p = _numpy_form("log1p", "log1p", "log(1 + x) without cancellation near 0")
cbrt = _numpy_form("cbrt", "cbrt", "The cube root")
hypot = _numpy_form("hypot", "hypot", "hypot(x, y): sqrt(x*x + y*y) without overflow where x*x would")
copysign = _numpy_form("copysign", "copysign", "copysign(x, y): x's magnitude with y's sign bit")
fmod = _numpy_form("fmod", "fmod", "fmod(x, y): C's remainder, exact, with the sign of x")
trunc = _numpy_form("trunc", "trunc", "x rounded toward zero, as a float")
isnan = _numpy_form("isnan", "isnan", "Whether x is a NaN (0 or 1 in kernels)")
isinf = _numpy_form("isinf", "isinf", "Whether x is an infinity (0 or 1 in kernels)")
isfinite = _numpy_form("isfinite", "isfinite", "Whether x is neither a NaN nor an infinity (0 or 1 in kernels)")


def round(x):
    """x rounded to the nearest integral value, ties to even (Python's round,
    NumPy's rint); in kernels it keeps the floating type."""
    return np.rint(x)


def _elementwise(scalar_fn, name, doc):
    def fn(x):
        return np.vectorize(scalar_fn, otypes=[np.float64])(x)[()]

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


# NumPy has no error function; the host form applies Python's math.erf.
erf = _elementwise(math.erf, "erf", "The error function (math.erf on the host).")
erfc = _elementwise(math.erfc, "erfc", "The complementary error function, 1 - erf(x) without cancellation.")


def clamp(x, lo, hi):
    """min(max(x, lo), hi) by comparisons: a NaN x stays NaN and a NaN bound
    imposes nothing; with lo > hi the result is hi."""
    x = np.asarray(x)
    t = np.where(x < lo, lo, x)
    return np.where(t > hi, hi, t)[()]


def ndindex(*extents):
    """The iteration space of a parallel loop over several dimensions.

    Each extent is a size n (indices 0..n-1) or a (start, end) pair. On the
    host it iterates like numpy.ndindex over the same indices.
    """
    import itertools

    ranges = [range(*e) if isinstance(e, tuple) else range(e) for e in extents]
    return itertools.product(*ranges)


BUILTIN_NAMES = {
    f: f.__name__
    for f in (sqrt, sin, cos, tan, asin, acos, atan, atan2, exp, log, floor, ceil, ndindex)
    + (tanh, sinh, cosh, asinh, acosh, atanh, log2, log10, exp2, expm1, log1p, cbrt, hypot, copysign, fmod, trunc)
    + (isnan, isinf, isfinite, round, erf, erfc, clamp)
}


def atomic_add(array, index, value):
    """Adds value to array[index] atomically and returns the old value."""
    old = array[index]
    array[index] = old + value
    return old


def atomic_min(array, index, value):
    """Stores min(array[index], value) atomically and returns the old value."""
    old = array[index]
    array[index] = min(old, value)
    return old


def atomic_max(array, index, value):
    """Stores max(array[index], value) atomically and returns the old value."""
    old = array[index]
    array[index] = max(old, value)
    return old


def atomic_sub(array, index, value):
    """Subtracts value from array[index] atomically and returns the old value."""
    old = array[index]
    array[index] = old - value
    return old


def atomic_exch(array, index, value):
    """Stores value in array[index] atomically and returns the old value."""
    old = array[index]
    array[index] = value
    return old


def atomic_cas(array, index, expected, value):
    """Compare-and-swap: stores value in array[index] if the element holds
    expected, atomically, and returns the old value either way. Floating
    elements compare bit patterns (-0.0 is not 0.0; a NaN matches the same
    NaN), so the store happened exactly when the old value has expected's
    bits."""
    old = array[index]
    a, e = np.asarray(old), np.asarray(expected, dtype=np.asarray(old).dtype)
    if a.tobytes() == e.tobytes():
        array[index] = value
    return old


def local_array(shape, dtype):
    """Private scratch storage of fixed extents for one parallel iteration."""
    return np.zeros(shape, dtype=np.dtype(dtype.numpy) if hasattr(dtype, "numpy") else dtype)


def local_array_like(array):
    """Private scratch storage of `array`'s extents and dtype for one
    parallel iteration (zeros on the host)."""
    return np.zeros_like(array)


BUILTIN_NAMES.update(
    {
        atomic_add: "atomic_add",
        atomic_min: "atomic_min",
        atomic_max: "atomic_max",
        atomic_sub: "atomic_sub",
        atomic_exch: "atomic_exch",
        atomic_cas: "atomic_cas",
        local_array: "local_array",
        local_array_like: "local_array_like",
    }
)


def _vector(n):
    def make(*args):
        if len(args) == 1:
            a = np.asarray(args[0])
            return np.array(a, copy=True) if a.shape == (n,) else np.full(n, a)
        if len(args) != n:
            raise TypeError(f"vec{n}() takes {n} numbers, one number or a vec{n}")
        return np.array(args)

    make.__name__ = make.__qualname__ = f"vec{n}"
    make.__doc__ = f"A {n}-vector: from {n} numbers, one number for every component, or one {n}-vector."
    return make


def _matrix(n):
    def make(*args):
        if len(args) == n * n:
            return np.array(args).reshape(n, n)
        return np.array([np.asarray(r) for r in args])

    make.__name__ = make.__qualname__ = f"mat{n}"
    make.__doc__ = f"An {n}x{n} matrix: from {n} rows (lists or vectors) or {n * n} numbers in row-major order."
    return make


vec2, vec3, vec4 = _vector(2), _vector(3), _vector(4)
mat2, mat3, mat4 = _matrix(2), _matrix(3), _matrix(4)


def mat(*rows):
    """A matrix from its rows (lists or vectors of equal length)."""
    return np.array([np.asarray(r) for r in rows])


def identity(n):
    """The n x n identity matrix (n a literal 2, 3 or 4 in kernels)."""
    return np.identity(n)


def select(mask, a, b):
    """a where the mask's component is nonzero, b elsewhere."""
    return np.where(np.asarray(mask) != 0, a, b)


BUILTIN_NAMES.update(
    {
        vec2: "vec2",
        vec3: "vec3",
        vec4: "vec4",
        mat2: "mat2",
        mat3: "mat3",
        mat4: "mat4",
        mat: "mat",
        identity: "identity",
        select: "select",
    }
)


def _workgroup_primitive(name):
    def primitive(*args):
        raise RuntimeError(f"tack.{name}() runs only inside kernels on backends with workgroups")

    primitive.__name__ = primitive.__qualname__ = name
    primitive.__doc__ = f"A workgroup primitive: GPU backends only; CPU kernels reject it."
    return primitive


barrier = _workgroup_primitive("barrier")
block_sum = _workgroup_primitive("block_sum")
block_min = _workgroup_primitive("block_min")
block_max = _workgroup_primitive("block_max")
thread_id = _workgroup_primitive("thread_id")
shared = _workgroup_primitive("shared")
shared_like = _workgroup_primitive("shared_like")

BUILTIN_NAMES.update(
    {f: f.__name__ for f in (barrier, block_sum, block_min, block_max, thread_id, shared, shared_like)}
)
