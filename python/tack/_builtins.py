"""Tack's math builtins. In kernels they compile to the annotated precision;
on the host they compute with NumPy, so a device function can also run as
plain Python."""

import numpy as np

sqrt = np.sqrt
sin = np.sin
cos = np.cos
tan = np.tan
asin = np.arcsin
acos = np.arccos
atan = np.arctan
atan2 = np.arctan2
exp = np.exp
log = np.log
floor = np.floor
ceil = np.ceil


def ndindex(*extents):
    """The iteration space of a parallel loop over several dimensions.

    Each extent is a size n (indices 0..n-1) or a (start, end) pair. On the
    host it iterates like numpy.ndindex over the same indices.
    """
    import itertools

    ranges = [range(*e) if isinstance(e, tuple) else range(e) for e in extents]
    return itertools.product(*ranges)


BUILTIN_NAMES = {
    sqrt: "sqrt",
    sin: "sin",
    cos: "cos",
    tan: "tan",
    asin: "asin",
    acos: "acos",
    atan: "atan",
    atan2: "atan2",
    exp: "exp",
    log: "log",
    floor: "floor",
    ceil: "ceil",
    ndindex: "ndindex",
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


def local_array(shape, dtype):
    """Private scratch storage of fixed extents for one parallel iteration."""
    return np.zeros(shape, dtype=np.dtype(dtype.numpy) if hasattr(dtype, "numpy") else dtype)


def local_array_like(array):
    return np.zeros_like(array)


BUILTIN_NAMES.update(
    {
        atomic_add: "atomic_add",
        atomic_min: "atomic_min",
        atomic_max: "atomic_max",
        local_array: "local_array",
        local_array_like: "local_array_like",
    }
)
