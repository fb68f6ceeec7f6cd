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
