"""Array.sum(), min(), max() and mean() (contract, "Array and parallel
reductions"): accumulator precision and wrapping, exact and bounded-error
sums, cancellation, nonfinite classes, full-range extrema, NaNs and zero
ties at chunk boundaries and tails, empty arrays, views and reshapes.

Both host implementations run every semantic case: NumPy over a zero-copy
view and the compiled parallel reduction (src/runtime/reduce.cpp); the
public methods pick one per dtype by measured speed, so each must be right.
The compiled reduction cuts arrays into chunks of at least 2**15 elements,
a few per worker; sizes here put special values on and beside those cuts.

Expected values come from Python integers, fractions.Fraction and NumPy,
never from Tack.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import tack
from tack import _arrays
from backends import IMPORTED_HOST_MEMORY

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float32, np.float64]
ALL_DTYPES = INT_DTYPES + FLOAT_DTYPES

CHUNK = 1 << 15
# Long enough for several chunks on any worker count here, with a ragged tail.
LONG = 8 * CHUNK + 37


def ids(dtypes):
    return [np.dtype(t).name for t in dtypes]


@pytest.fixture(params=["numpy", "compiled"])
def impl(request):
    """sum/min/max/mean of a tack.Array through one implementation."""
    table = _arrays._NUMPY if request.param == "numpy" else _arrays._COMPILED

    class Reducer:
        name = request.param

        @staticmethod
        def sum(a):
            return table["sum"](a)

        @staticmethod
        def min(a):
            return table["min"](a)

        @staticmethod
        def max(a):
            return table["max"](a)

        @staticmethod
        def mean(a):
            return table["sum"](a) / a.size if a.size else float("nan")

    return Reducer


def same_float(x, y):
    """Equal as floats, NaN equal to NaN, zero signs distinguished."""
    if math.isnan(y):
        return math.isnan(x)
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def exact_sum(values):
    """The exact sum of finite floats (or integers) as a Fraction: the
    denominators are powers of two, so one common denominator suffices."""
    ratios = [float(v).as_integer_ratio() if isinstance(v, (float, np.floating)) else (int(v), 1) for v in values]
    denominator = max(d for _, d in ratios) if ratios else 1
    return Fraction(sum(n * (denominator // d) for n, d in ratios), denominator)


def gamma(n, dtype):
    u = Fraction(1, 2**24) if np.dtype(dtype) == np.float32 else Fraction(1, 2**53)
    return n * u / (1 - n * u)


def wrapped_sum(values, dtype):
    """The integer sum in the contract's accumulator: i64 for signed inputs,
    u64 for unsigned, modulo 2**64, from Python integers."""
    total = sum(int(v) for v in values) % (1 << 64)
    if np.dtype(dtype).kind == "i" and total >= 1 << 63:
        total -= 1 << 64
    return total


def full_range(dtype, n, seed):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def boundary_positions(n):
    """First, last, tail and chunk-boundary positions of an n-element array."""
    cuts = [k * CHUNK + d for k in range(1, n // CHUNK + 1) for d in (-1, 0)]
    return sorted({p for p in [0, 1, n // 2, n - 2, n - 1] + cuts if 0 <= p < n})


# Results are Python floats


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids(ALL_DTYPES))
def test_results_are_python_floats(backend, dtype):
    a = tack.array(np.arange(1, 11).astype(dtype))
    for r in (a.sum(), a.min(), a.max(), a.mean()):
        assert type(r) is float
    assert (a.sum(), a.min(), a.max(), a.mean()) == (55.0, 1.0, 10.0, 5.5)


# Integer sums: i64 / u64 accumulators, wrapping modulo 2**64


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=ids(INT_DTYPES))
@pytest.mark.parametrize("n", [1, 7, 1000, LONG])
def test_integer_sums_full_range(backend, impl, dtype, n):
    values = full_range(dtype, n, seed=n)
    a = tack.array(values)
    assert impl.sum(a) == float(wrapped_sum(values, dtype))
    assert impl.mean(a) == float(wrapped_sum(values, dtype)) / n


NARROW = [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32]


@pytest.mark.parametrize("dtype", NARROW, ids=ids(NARROW))
def test_narrow_integer_sums_do_not_wrap_at_their_width(backend, impl, dtype):
    for top in (np.iinfo(dtype).max, np.iinfo(dtype).min):
        a = tack.array(np.full(LONG, top, dtype=dtype))
        assert impl.sum(a) == float(LONG * int(top))


def test_integer_sums_wrap_modulo_2_64(backend, impl):
    i64 = np.iinfo(np.int64)
    assert impl.sum(tack.array(np.array([i64.max, 1], dtype=np.int64))) == float(i64.min)
    assert impl.sum(tack.array(np.array([i64.min, -1], dtype=np.int64))) == float(i64.max)
    assert impl.sum(tack.array(np.full(8, 1 << 62, dtype=np.int64))) == 0.0
    u64 = np.iinfo(np.uint64)
    assert impl.sum(tack.array(np.array([u64.max, 2], dtype=np.uint64))) == 1.0
    many = np.full(LONG, u64.max, dtype=np.uint64)
    assert impl.sum(tack.array(many)) == float((LONG * int(u64.max)) % (1 << 64))
    # The mean inherits the wrapped sum.
    assert impl.mean(tack.array(np.array([i64.max, 1], dtype=np.int64))) == float(i64.min) / 2


def test_large_integer_results_round_to_nearest_binary64(backend, impl):
    v = np.array([(1 << 62) + 1, (1 << 53) + 1], dtype=np.int64)
    assert impl.sum(tack.array(v)) == float((1 << 62) + (1 << 53) + 2)
    assert impl.max(tack.array(v)) == float((1 << 62) + 1)
    u = np.array([np.iinfo(np.uint64).max], dtype=np.uint64)
    assert impl.max(tack.array(u)) == float(np.iinfo(np.uint64).max) == 2.0**64


# Floating sums: exact cases, gamma_n bound, cancellation


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
@pytest.mark.parametrize("n", [1, 5, 100, LONG])
def test_sums_of_exactly_representable_partials_are_exact(backend, impl, dtype, n):
    # Small integers and dyadic fractions: every partial sum is representable.
    rng = np.random.default_rng(n)
    values = (rng.integers(-64, 64, size=n) / 4.0).astype(dtype)
    a = tack.array(values)
    expected = exact_sum(values)
    assert impl.sum(a) == float(expected)
    assert impl.mean(a) == float(expected) / n


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
@pytest.mark.parametrize("distribution", ["uniform", "normal", "lognormal", "mixed_sign_scales"])
@pytest.mark.parametrize("n", [3, 1000, LONG])
def test_sum_error_within_gamma_n_bound(backend, impl, dtype, distribution, n):
    rng = np.random.default_rng(hash((distribution, n)) % 2**32)
    if distribution == "uniform":
        v = rng.uniform(0, 1, n)
    elif distribution == "normal":
        v = rng.standard_normal(n)
    elif distribution == "lognormal":
        v = rng.lognormal(0, 4, n)
    else:
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)
    values = v.astype(dtype)
    exact = exact_sum(values)
    absolute = exact_sum(np.abs(values))
    computed = impl.sum(tack.array(values))
    assert abs(Fraction(computed) - exact) <= gamma(n, dtype) * absolute
    # Mean: the sum's budget divided by n, plus one binary64 division.
    mean = impl.mean(tack.array(values))
    budget = gamma(n, dtype) * absolute / n + abs(exact / n) * Fraction(1, 2**52)
    assert abs(Fraction(mean) - exact / n) <= budget


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_cancellation_takes_an_allowed_grouping(backend, impl, dtype):
    big = 2.0**24 if dtype == np.float32 else 2.0**53
    values = np.array([big, 1.0, -big], dtype=dtype)
    # (big + 1) - big rounds to 0; (big - big) + 1 and big + (1 - big) give 1.
    assert impl.sum(tack.array(values)) in (0.0, 1.0)
    assert abs(Fraction(impl.sum(tack.array(values))) - 1) <= gamma(3, dtype) * exact_sum(np.abs(values))
    # Pairs that cancel exactly, spread across chunks: every grouping gives 0.
    rng = np.random.default_rng(5)
    half = rng.standard_normal(LONG // 2).astype(dtype)
    both = np.concatenate([half, -half[::-1]])
    assert impl.sum(tack.array(both)) == 0.0 or abs(impl.sum(tack.array(both))) <= float(
        gamma(both.size, dtype) * exact_sum(np.abs(both))
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_f32_sums_accumulate_in_their_own_precision(backend, impl, dtype):
    # 2**24 + 1 is not an f32, so an f32 accumulator can never exceed 2**24
    # by adding ones to it; an f64 one would reach 2**24 + n - 1.
    n = 1000
    values = np.ones(n, dtype=dtype)
    values[0] = 2.0**24
    s = impl.sum(tack.array(values))
    if dtype == np.float32:
        assert abs(s - (2.0**24 + n - 1)) <= float(gamma(n, dtype) * exact_sum(values))
        assert float(np.float32(s)) == s
    else:
        assert s == 2.0**24 + n - 1


# Nonfinite classes in sums


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_sum_nonfinite_classes_at_every_boundary(backend, impl, dtype):
    rng = np.random.default_rng(9)
    base = rng.standard_normal(LONG).astype(dtype)
    for p in boundary_positions(LONG):
        for special, check in (
            (np.nan, math.isnan),
            (np.inf, lambda r: r == math.inf),
            (-np.inf, lambda r: r == -math.inf),
        ):
            v = base.copy()
            v[p] = special
            r = impl.sum(tack.array(v))
            assert check(r), (p, special, r)
            m = impl.mean(tack.array(v))
            assert check(m), (p, special, m)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_opposite_infinities_and_nan_with_infinity_give_nan(backend, impl, dtype):
    for a_pos, b_pos in [(0, LONG - 1), (CHUNK - 1, CHUNK), (5, 6)]:
        v = np.ones(LONG, dtype=dtype)
        v[a_pos], v[b_pos] = np.inf, -np.inf
        assert math.isnan(impl.sum(tack.array(v)))
        v[b_pos] = np.nan
        assert math.isnan(impl.sum(tack.array(v)))
    same = np.full(10, np.inf, dtype=dtype)
    assert impl.sum(tack.array(same)) == math.inf


def test_zero_sums_have_some_zero_sign(backend, impl):
    for dtype in FLOAT_DTYPES:
        for v in (np.zeros(100, dtype=dtype), -np.zeros(LONG, dtype=dtype)):
            r = impl.sum(tack.array(v))
            assert r == 0.0


# Extrema: full range, integers at every boundary


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=ids(INT_DTYPES))
def test_integer_extrema_full_range(backend, impl, dtype):
    values = full_range(dtype, LONG, seed=11)
    a = tack.array(values)
    assert impl.min(a) == float(int(values.min()))
    assert impl.max(a) == float(int(values.max()))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=ids(INT_DTYPES))
def test_integer_extrema_at_chunk_boundaries_and_tails(backend, impl, dtype):
    info = np.iinfo(dtype)
    middle = info.min // 2 + info.max // 2
    for p in boundary_positions(LONG):
        if p == LONG - 1 - p:
            continue
        v = np.full(LONG, middle, dtype=dtype)
        v[p] = info.min
        v[LONG - 1 - p] = info.max
        a = tack.array(v)
        assert impl.min(a) == float(int(info.min)), p
        assert impl.max(a) == float(int(info.max)), p


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_float_extrema_full_finite_range_and_infinities(backend, impl, dtype):
    fi = np.finfo(dtype)
    specials = np.array([fi.max, -fi.max, fi.tiny, -fi.tiny, 1.0, -1.0], dtype=dtype)
    for p in boundary_positions(LONG):
        if p == LONG - 1 - p:
            continue
        v = np.full(LONG, 0.5, dtype=dtype)
        v[p] = fi.max
        v[LONG - 1 - p] = -fi.max
        a = tack.array(v)
        assert impl.max(a) == float(fi.max) and impl.min(a) == float(-fi.max), p
    a = tack.array(specials)
    assert impl.max(a) == float(fi.max)
    assert impl.min(a) == float(-fi.max)
    small = tack.array(np.array([fi.tiny, 3 * fi.tiny, 2 * fi.tiny], dtype=dtype))
    assert impl.min(small) == float(fi.tiny)
    assert impl.max(small) == float(3 * fi.tiny)
    with_inf = np.concatenate([specials, np.array([np.inf, -np.inf], dtype=dtype)])
    assert impl.max(tack.array(with_inf)) == math.inf
    assert impl.min(tack.array(with_inf)) == -math.inf
    assert impl.max(tack.array(np.full(5, -np.inf, dtype=dtype))) == -math.inf
    assert impl.min(tack.array(np.full(5, np.inf, dtype=dtype))) == math.inf


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_float_extrema_are_exact_in_storage_precision(backend, impl, dtype):
    rng = np.random.default_rng(13)
    v = (rng.standard_normal(LONG) * 1e6).astype(dtype)
    a = tack.array(v)
    assert impl.min(a) == float(v.min())
    assert impl.max(a) == float(v.max())


# NaNs in extrema


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_any_nan_makes_extrema_nan(backend, impl, dtype):
    rng = np.random.default_rng(17)
    base = rng.standard_normal(LONG).astype(dtype)
    base[100] = np.inf
    base[200] = -np.inf
    for p in boundary_positions(LONG):
        v = base.copy()
        v[p] = np.nan
        a = tack.array(v)
        assert math.isnan(impl.min(a)), p
        assert math.isnan(impl.max(a)), p
    for n in (1, 2, 17, 33):
        v = np.full(n, np.nan, dtype=dtype)
        assert math.isnan(impl.min(tack.array(v))) and math.isnan(impl.max(tack.array(v)))
        v = np.ones(n, dtype=dtype)
        v[-1] = np.nan
        assert math.isnan(impl.min(tack.array(v))) and math.isnan(impl.max(tack.array(v)))


# Zero ties in extrema: minimum prefers -0.0, maximum +0.0, in any order


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_zero_ties_prefer_negative_min_positive_max(backend, impl, dtype):
    for p in boundary_positions(LONG):
        v = np.zeros(LONG, dtype=dtype)
        v[p] = -0.0
        a = tack.array(v)
        assert same_float(impl.min(a), -0.0), p
        assert same_float(impl.max(a), 0.0), p
        w = np.full(LONG, -0.0, dtype=dtype)
        w[p] = 0.0
        b = tack.array(w)
        assert same_float(impl.min(b), -0.0), p
        assert same_float(impl.max(b), 0.0), p


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_single_signed_zeros_keep_their_sign(backend, impl, dtype):
    for n in (1, 5, LONG):
        neg = tack.array(np.full(n, -0.0, dtype=dtype))
        pos = tack.array(np.zeros(n, dtype=dtype))
        assert same_float(impl.max(neg), -0.0)
        assert same_float(impl.min(neg), -0.0)
        assert same_float(impl.min(pos), 0.0)
        assert same_float(impl.max(pos), 0.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_zero_extremum_among_nonzero_values(backend, impl, dtype):
    # All values >= 0: the minimum is a zero, and -0.0 wins wherever it is.
    rng = np.random.default_rng(19)
    v = rng.uniform(1, 2, LONG).astype(dtype)
    v[[3, CHUNK, LONG - 1]] = [0.0, -0.0, 0.0]
    assert same_float(impl.min(tack.array(v)), -0.0)
    w = -v
    # -v holds -0.0 at 3 and LONG - 1 and +0.0 at CHUNK: the maximum is +0.0.
    assert same_float(impl.max(tack.array(w)), 0.0)
    w[CHUNK] = -0.0
    assert same_float(impl.max(tack.array(w)), -0.0)


# Empty arrays


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids(ALL_DTYPES))
@pytest.mark.parametrize("shape", [(0,), (0, 5), (3, 0)])
def test_empty_arrays(backend, impl, dtype, shape):
    a = tack.zeros(shape, dtype=dtype)
    s = impl.sum(a)
    assert same_float(s, 0.0)
    assert math.isnan(impl.mean(a))
    with pytest.raises(ValueError, match="empty"):
        impl.min(a)
    with pytest.raises(ValueError, match="empty"):
        impl.max(a)


def test_public_methods_on_empty_arrays(backend):
    a = tack.empty(0)
    assert same_float(a.sum(), 0.0)
    assert math.isnan(a.mean())
    with pytest.raises(ValueError):
        a.min()
    with pytest.raises(ValueError):
        a.max()
    # An empty view of unreadable memory needs no read.
    e = tack.array_from_ptr(0, (0, 4), tack.f32)
    assert same_float(e.sum(), 0.0) and math.isnan(e.mean())


# Views and reshapes reduce all logical elements


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids(ALL_DTYPES))
def test_views_and_reshapes(backend, impl, dtype):
    rng = np.random.default_rng(23)
    if np.dtype(dtype).kind == "f":
        values = (rng.integers(-1000, 1000, size=(300, 400)) / 8).astype(dtype)
    else:
        values = full_range(dtype, 300 * 400, seed=23).reshape(300, 400)
    m = tack.array(values)
    cases = {
        "whole": (m, values),
        "reshaped": (m.reshape(400, 300), values),
        "flat": (m.reshape(-1), values),
        "3d": (m.reshape(30, 10, 400), values),
        "block": (m[17:251, 33:390], values[17:251, 33:390]),
        "columns": (m[:, 5:6], values[:, 5:6]),
        "row": (m[123], values[123]),
        "row_piece": (m[299, 7:9], values[299, 7:9]),
    }
    for name, (view, expected) in cases.items():
        assert view.size == expected.size, name
        flat = expected.reshape(-1)
        if np.dtype(dtype).kind == "f":
            assert impl.sum(view) == float(exact_sum(flat)), name
        else:
            assert impl.sum(view) == float(wrapped_sum(flat, dtype)), name
        assert impl.min(view) == float(flat.min()), name
        assert impl.max(view) == float(flat.max()), name


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.int32, np.uint8], ids=ids(FLOAT_DTYPES + [np.int32, np.uint8]))
@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_imported_strided_and_reversed_views(impl, dtype):
    # Small values keep every f32 partial sum exact.
    base = np.arange(LONG * 2, dtype=np.int64) % 7
    values = base.astype(dtype)
    for view in (values[::2], values[::-1], values[::-3], values.reshape(-1, 2)[:, 1], values.reshape(2, -1).T):
        a = tack.from_dlpack(view)
        flat = view.reshape(-1)
        assert impl.sum(a) == float(sum(int(x) for x in flat))
        assert impl.min(a) == float(flat.min()) and impl.max(a) == float(flat.max())


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids(ALL_DTYPES))
@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_unaligned_imports(impl, dtype):
    n = LONG
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(n * itemsize + 1, dtype=np.uint8)
    view = raw[1:].view(dtype)
    view[...] = (np.arange(n) % 97).astype(dtype)
    a = tack.array_from_ptr(view.ctypes.data, n, dtype)
    assert impl.sum(a) == float(sum(int(x) for x in (np.arange(n) % 97)))
    assert impl.min(a) == 0.0 and impl.max(a) == 96.0


# Public methods agree with the oracles on every dtype


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids(ALL_DTYPES))
def test_public_methods(backend, dtype):
    if np.dtype(dtype).kind == "f":
        values = np.random.default_rng(29).standard_normal(LONG).astype(dtype)
        exact = exact_sum(values)
        s = tack.array(values).sum()
        assert abs(Fraction(s) - exact) <= gamma(LONG, dtype) * exact_sum(np.abs(values))
    else:
        values = full_range(dtype, LONG, seed=29)
        assert tack.array(values).sum() == float(wrapped_sum(values, dtype))
    a = tack.array(values)
    assert a.min() == float(values.min())
    assert a.max() == float(values.max())
    if np.dtype(dtype).kind == "f":
        # Sums may differ in their low bits from call to call, so the mean is
        # checked against the exact mean: the sum's budget over n, plus the
        # host division's rounding.
        bound = gamma(LONG, dtype) * exact_sum(np.abs(values)) / LONG
        exact_mean = exact / LONG
        assert abs(Fraction(a.mean()) - exact_mean) <= bound + (abs(exact_mean) + bound) * Fraction(1, 2**52)
    else:
        assert a.mean() == a.sum() / LONG
