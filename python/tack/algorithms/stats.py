"""Descriptive statistics over every element of an array.

Terms are formed by Tack kernels in the inputs' precision: f64 if any input
array is f64, f32 otherwise (integer inputs included, as for Python floats
in kernels). The terms are then reduced as arrays, so the accumulator,
accuracy and repeatability rules of Array.sum() apply (contract, "Array and
parallel reductions"). Results are Python floats, except histogram's arrays.
"""

import math
import operator as _operator

import numpy as np
import tack

from .. import _dtypes
from .._arrays import Array

__all__ = ["mean", "variance", "std", "min", "max", "histogram"]

_builtin_min, _builtin_max = min, max


def _as_array(x):
    """A tack.Array over x: itself, a zero-copy import of anything with
    __dlpack__ (NumPy arrays), else a copy of numpy.asarray(x)."""
    if isinstance(x, Array):
        return x
    if hasattr(x, "__dlpack__"):
        return tack.from_dlpack(x)
    return tack.array(np.asarray(x))


def _flat(a):
    """A one-dimensional array of a's elements in row-major order: a view
    when a is contiguous, else a copy."""
    if a.ndim == 1:
        return a
    if a.is_contiguous:
        return a.reshape(a.size)
    return tack.array(np.ascontiguousarray(a.numpy()).reshape(-1), device=a.device)


def _precision(*arrays):
    return _dtypes.f64 if any(a.dtype == _dtypes.f64 for a in arrays) else _dtypes.f32


@tack.device_class
class _InF32:
    """Terms formed in f32: `to` is the cast kernels apply to each input."""

    to = _dtypes.f32


@tack.device_class
class _InF64:
    """Terms formed in f64."""

    to = _dtypes.f64


def _terms_in(precision):
    return _InF64() if precision == _dtypes.f64 else _InF32()


@tack.kernel
def _squared_deviations(terms, x, center, out):
    for i in range(len(x)):
        d = terms.to(x[i]) - center
        out[i] = d * d


# Bins as numpy.histogram finds them: a first guess from the scaled offset,
# then one step down or up so that edges[b] <= v < edges[b + 1] holds against
# the very edges returned (the last bin also takes its right edge).
@tack.kernel
def _histogram(terms, x, edges, counts, lo, hi, scale, last):
    for i in range(len(x)):
        v = terms.to(x[i])
        if v >= lo and v <= hi:
            b = tack.i32((v - lo) * scale)
            if b > last:
                b = last
            if v < edges[b]:
                b = b - 1
            elif b != last and v >= edges[b + 1]:
                b = b + 1
            tack.atomic_add(counts, b, 1)


def mean(x):
    """The mean of every element of x: x.sum() / x.size in binary64; NaN
    when x is empty."""
    return _as_array(x).mean()


def min(x):
    """The least element (NaN if any is NaN; -0.0 wins a zero tie).
    Raises ValueError when x is empty."""
    return _as_array(x).min()


def max(x):
    """The greatest element (NaN if any is NaN; +0.0 wins a zero tie).
    Raises ValueError when x is empty."""
    return _as_array(x).max()


def variance(x, ddof=0):
    """The variance sum((x - mean)**2) / (n - ddof), in two passes: the
    mean, then squared deviations formed by a kernel in the inputs'
    precision into a temporary array, reduced by its sum(). NaN when
    n - ddof <= 0."""
    a = _flat(_as_array(x))
    n = a.size
    if n - ddof <= 0:
        return float("nan")
    precision = _precision(a)
    center = a.mean()
    deviations = tack.empty(n, precision, device=a.device)  # beside the input: one launch, one device
    _squared_deviations(_terms_in(precision), a, center, deviations)
    return deviations.sum() / (n - ddof)


def std(x, ddof=0):
    """The standard deviation: math.sqrt(variance(x, ddof))."""
    v = variance(x, ddof)
    return math.sqrt(v) if not math.isnan(v) else v


def histogram(x, bins=10, range=None):
    """Counts of x's elements in `bins` equal-width bins over `range`
    (default: x.min(), x.max(), widened by 0.5 each way when they are equal),
    as numpy.histogram defines them: each bin holds edges[k] <= v <
    edges[k + 1], the last also its right edge; values outside the range and
    NaNs are not counted. Bins are counted with atomic adds.

    Returns (counts, edges): an i32 tack.Array of `bins` counts and a
    tack.Array of the bins + 1 edges in the inputs' precision, from
    numpy.linspace. Inputs of 2**31 or more elements are refused, since the
    counts are i32 (the widest atomic every backend provides)."""
    a = _flat(_as_array(x))
    if isinstance(bins, bool) or not hasattr(bins, "__index__"):
        # numpy.histogram's TypeError: 2.5 is not 2 bins (its bin-estimator
        # names and explicit edges are not supported).
        raise TypeError(f"histogram: bins must be an integer, not {bins!r}")
    bins = _operator.index(bins)
    if bins < 1:
        raise ValueError(f"histogram: bins must be a positive integer, not {bins}")
    if a.size >= 2**31:
        raise ValueError(f"histogram: {a.size} elements could overflow the i32 counts; split the input")
    precision = _precision(a)
    # The outer edges and numpy.linspace's inputs as numpy.histogram forms
    # them: the data's extrema as scalars of the edge type, a given range
    # as Python floats.
    if range is None:
        if a.size == 0:
            lo, hi = 0.0, 1.0
        else:
            lo, hi = precision.numpy.type(a.min()), precision.numpy.type(a.max())
    else:
        if len(range) != 2 or not all(isinstance(e, (int, float, np.integer, np.floating)) for e in range):
            raise TypeError(f"histogram: range must be two real numbers (lower, upper), not {range!r}")
        lo, hi = (float(e) for e in range)
        if lo > hi:
            raise ValueError(f"histogram: the range's lower end {lo} exceeds its upper end {hi}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"histogram: the range [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1, endpoint=True, dtype=precision.numpy)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"histogram: the range [{lo}, {hi}] is too narrow for {bins} distinct bins")
    lo_p, hi_p = float(edges[0]), float(edges[-1])
    counts = tack.zeros(bins, _dtypes.i32, device=a.device)
    edge_array = tack.array(edges, device=a.device)
    if a.size:
        scale = bins / (hi_p - lo_p)
        _histogram(_terms_in(precision), a, edge_array, counts, lo_p, hi_p, scale, bins - 1)
    return counts, edge_array
