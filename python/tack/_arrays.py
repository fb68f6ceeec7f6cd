"""Creating arrays and moving data between them and NumPy."""

import numpy as np

from . import _core, _dtypes

Array = _core.Array


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(e) for e in shape)


def empty(shape, dtype=_dtypes.f32):
    """A new array with unspecified contents."""
    return Array._empty(_shape(shape), _dtypes.as_dtype(dtype).name)


def full(shape, value, dtype=_dtypes.f32):
    a = empty(shape, dtype)
    a.fill(value)
    return a


def zeros(shape, dtype=_dtypes.f32):
    return full(shape, 0, dtype)


def ones(shape, dtype=_dtypes.f32):
    return full(shape, 1, dtype)


def array(data, dtype=None):
    """A new array holding a copy of `data` (a NumPy array or anything
    numpy.asarray accepts). Without `dtype`, NumPy's dtype is kept; it must be
    one of Tack's ten."""
    src = np.asarray(data)
    if dtype is not None:
        src = src.astype(_dtypes.as_dtype(dtype).numpy, copy=False)
    else:
        _dtypes.as_dtype(src.dtype)
    return Array._copy_of(np.ascontiguousarray(src))


def copyto(dst, src):
    """Copies src (a tack.Array or NumPy array of dst's shape) into dst.
    The dtypes must match: nothing is converted silently."""
    s = src.numpy() if isinstance(src, Array) else np.asarray(src)
    d = dst.numpy()
    if s.dtype != d.dtype:
        raise TypeError(f"copyto: source dtype {s.dtype} differs from destination {d.dtype}; convert explicitly")
    if s.shape != d.shape:
        raise ValueError(f"copyto: source shape {s.shape} differs from destination {d.shape}")
    np.copyto(d, s)


def sync():
    """Waits for queued launches. CPU launches are synchronous, so this
    returns at once there."""
