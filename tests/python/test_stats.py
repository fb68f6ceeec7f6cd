"""tack.algorithms.stats: mean, variance, standard deviation, extrema and
histogram (contract, "Array and parallel reductions": terms in the inputs'
precision, reduced as arrays; histogram counts bins with atomics).

Expected values come from Python integers, fractions.Fraction and NumPy,
never from Tack. Variance is checked against its exact value with an error
budget built from the contract's gamma_n summation bound.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import tack
from tack.algorithms import stats

FLOAT_DTYPES = [np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
LONG = 8 * (1 << 15) + 37


def ids(dtypes):
    return [np.dtype(t).name for t in dtypes]


def unit_roundoff(dtype):
    """u of the precision the terms are formed in: f64 for f64 inputs,
    f32 for everything else."""
    return Fraction(1, 2**53) if np.dtype(dtype) == np.float64 else Fraction(1, 2**24)


def gamma(n, u):
    return n * u / (1 - n * u)


def scaled_integers(values):
    """(N, D): integers N[i] with values[i] == N[i] / D exactly."""
    ratios = [float(v).as_integer_ratio() if np.asarray(v).dtype.kind == "f" else (int(v), 1) for v in values]
    d = max(den for _, den in ratios)
    return [num * (d // den) for num, den in ratios], d


def exact_mean_and_squares(values):
    """(mean, sum of squared deviations from it), both exact Fractions."""
    numerators, d = scaled_integers(values)
    n = len(numerators)
    total = sum(numerators)
    squares = sum((n * v - total) ** 2 for v in numerators)
    return Fraction(total, n * d), Fraction(squares, (n * d) ** 2)


def variance_budget(values, dtype, ddof):
    """An upper bound on |computed - exact| for variance(values, ddof).

    The center c is the array mean (sum error gamma_n * sum|x| / n, one
    binary64 division, one rounding to the term precision). Each term
    fl(fl(x - c)^2) carries at most three roundings, the sum of the
    (nonnegative) terms gamma_n, and the final division one binary64
    rounding. Centering at c instead of the exact mean adds n (mu - c)^2."""
    n = len(values)
    u = unit_roundoff(dtype)
    mu, squares = exact_mean_and_squares(values)
    numerators, d = scaled_integers(values)
    abs_sum = Fraction(sum(abs(v) for v in numerators), d)
    sum_u = Fraction(1, 2**24) if np.dtype(dtype) == np.float32 else Fraction(1, 2**53)
    center_error = gamma(n, sum_u) * abs_sum / n + abs(mu) * (Fraction(1, 2**52) + 2 * u)
    shifted = squares + n * center_error**2
    term_sum_error = gamma(n + 3, u) * shifted
    exact = squares / (n - ddof)
    budget = (term_sum_error + n * center_error**2) / (n - ddof)
    return exact, budget + (exact + budget) * Fraction(1, 2**52)


def data(kind, dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "normal":
        v = rng.standard_normal(n)
    elif kind == "offset":
        # A large mean over a small spread: the centered terms matter.
        v = 1000.0 + rng.standard_normal(n)
    elif kind == "lognormal":
        v = rng.lognormal(0, 2, n)
    else:
        v = rng.uniform(-1e3, 1e3, n)
    return v.astype(dtype)


# Mean and extrema


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_mean_and_extrema_floats(backend, dtype):
    values = data("normal", dtype, LONG, seed=1)
    numerators, d = scaled_integers(values)
    exact = Fraction(sum(numerators), d * LONG)
    abs_sum = Fraction(sum(abs(v) for v in numerators), d)
    u = Fraction(1, 2**24) if dtype == np.float32 else Fraction(1, 2**53)
    m = stats.mean(tack.array(values))
    assert abs(Fraction(m) - exact) <= gamma(LONG, u) * abs_sum / LONG + abs(exact) * Fraction(1, 2**52)
    assert stats.min(tack.array(values)) == float(values.min())
    assert stats.max(tack.array(values)) == float(values.max())
    assert isinstance(m, float)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=ids(INT_DTYPES))
def test_mean_and_extrema_integers(backend, dtype):
    info = np.iinfo(dtype)
    values = np.random.default_rng(2).integers(info.min, info.max, size=1001, dtype=dtype, endpoint=True)
    total = sum(int(v) for v in values) % (1 << 64)
    if info.min < 0 and total >= 1 << 63:
        total -= 1 << 64
    a = tack.array(values)
    assert stats.mean(a) == float(total) / 1001
    assert stats.min(a) == float(int(values.min()))
    assert stats.max(a) == float(int(values.max()))


def test_empty_mean_and_extrema(backend):
    assert math.isnan(stats.mean(tack.zeros(0)))
    with pytest.raises(ValueError):
        stats.min(tack.zeros(0))
    with pytest.raises(ValueError):
        stats.max(np.zeros(0, dtype=np.float64))


# Variance and standard deviation


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
@pytest.mark.parametrize("kind", ["normal", "offset", "lognormal", "uniform"])
@pytest.mark.parametrize("n", [2, 1000, LONG])
@pytest.mark.parametrize("ddof", [0, 1])
def test_variance_within_budget(backend, dtype, kind, n, ddof):
    values = data(kind, dtype, n, seed=n + ddof)
    exact, budget = variance_budget(values, dtype, ddof)
    v = stats.variance(tack.array(values), ddof=ddof)
    assert isinstance(v, float)
    assert abs(Fraction(v) - exact) <= budget, (v, float(exact), float(budget))
    s = stats.std(tack.array(values), ddof=ddof)
    # A second call's sums may differ in their low bits, so std is checked
    # against the same budget, plus the binary64 square root's rounding.
    assert abs(Fraction(s) ** 2 - exact) <= budget + (exact + budget) * Fraction(1, 2**50), (s, float(exact))
    # Loosely, NumPy agrees too.
    assert v == pytest.approx(float(np.var(values.astype(np.float64), ddof=ddof)), rel=1e-3 if dtype == np.float32 else 1e-9)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.int64, np.uint64],
                         ids=ids([np.int8, np.int16, np.int32, np.uint8, np.uint16, np.int64, np.uint64]))
def test_variance_of_integers_uses_f32_terms(backend, dtype):
    # Values below 2**24 in magnitude convert to f32 exactly.
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -(2**20)), min(int(info.max), 2**20)
    values = np.random.default_rng(3).integers(lo, hi, size=5000, endpoint=True).astype(dtype)
    exact, budget = variance_budget(values, np.float32, 0)
    assert abs(Fraction(stats.variance(tack.array(values))) - exact) <= budget


def test_variance_of_f64_forms_f64_terms(backend):
    # A spread of 1e-6 around 1e6: f32 terms could not resolve it at all.
    rng = np.random.default_rng(4)
    values = 1e6 + rng.standard_normal(10_000) * 1e-6
    exact, budget = variance_budget(values, np.float64, 0)
    v = stats.variance(tack.array(values))
    assert abs(Fraction(v) - exact) <= budget
    assert v == pytest.approx(1e-12, rel=0.05)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.int32], ids=ids(FLOAT_DTYPES + [np.int32]))
def test_variance_of_constant_arrays_is_zero(backend, dtype):
    for n in (1, 7, LONG):
        assert stats.variance(tack.full(n, 3, dtype)) == 0.0
        assert stats.std(tack.full(n, 3, dtype)) == 0.0


def test_variance_degenerate_and_nonfinite_inputs(backend):
    assert math.isnan(stats.variance(tack.zeros(0)))
    assert math.isnan(stats.variance(tack.zeros(1), ddof=1))
    assert math.isnan(stats.std(tack.zeros(3), ddof=3))
    for special in (np.nan, np.inf):
        v = np.ones(1000, dtype=np.float32)
        v[500] = special
        assert math.isnan(stats.variance(tack.array(v)))
        assert math.isnan(stats.std(tack.array(v)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_variance_over_views_and_shapes(backend, dtype):
    values = data("uniform", dtype, 300 * 400, seed=5).reshape(300, 400)
    m = tack.array(values)
    for view, expected in (
        (m, values),
        (m.reshape(400, 300), values),
        (m[10:250, 7:333], values[10:250, 7:333]),
        (m[:, 3:4], values[:, 3:4]),
    ):
        flat = expected.reshape(-1)
        exact, budget = variance_budget(flat, dtype, 0)
        assert abs(Fraction(stats.variance(view)) - exact) <= budget


# Histogram


def assert_matches_numpy(x, bins, range=None, edges_too=True):
    """Histograms a copy of x on the default device."""
    counts, edges = stats.histogram(tack.array(x), bins=bins, range=range)
    want_counts, want_edges = np.histogram(np.asarray(x), bins=bins, range=range)
    assert counts.dtype == tack.i32 and counts.shape == (bins,)
    np.testing.assert_array_equal(counts.numpy(), want_counts)
    if edges_too:
        assert edges.numpy().dtype == want_edges.dtype
        np.testing.assert_array_equal(edges.numpy(), want_edges)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
@pytest.mark.parametrize("bins", [1, 7, 20, 100])
@pytest.mark.parametrize("kind", ["normal", "lognormal", "uniform"])
def test_histogram_matches_numpy(backend, dtype, bins, kind):
    x = data(kind, dtype, 20_000, seed=bins)
    assert_matches_numpy(x, bins)
    assert_matches_numpy(x, bins, range=(-1.0, 2.5))
    assert_matches_numpy(x, bins, range=(float(np.median(x)), float(x.max()) + 1.0))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_histogram_values_on_edges(backend, dtype):
    # Integers on every edge of range (0, 16) in 16 bins, and in 5 bins
    # where edges are not integers; the right edge belongs to the last bin.
    x = np.repeat(np.arange(0, 17), 3).astype(dtype)
    assert_matches_numpy(x, 16, range=(0.0, 16.0))
    assert_matches_numpy(x, 5, range=(0.0, 16.0))
    assert_matches_numpy(x, 3)
    tenths = (np.arange(0, 1001) / 1000).astype(dtype)
    assert_matches_numpy(tenths, 10, range=(0.0, 1.0))
    assert_matches_numpy(tenths, 7)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
def test_histogram_ignores_outside_values_and_nans_in_a_given_range(backend, dtype):
    x = data("normal", dtype, 5000, seed=6) * 3
    x[::17] = np.nan
    x[5] = np.inf
    x[6] = -np.inf
    assert_matches_numpy(x, 12, range=(-2.0, 2.0))
    with pytest.raises(ValueError, match="not finite"):
        stats.histogram(tack.array(x), bins=4)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64], ids=ids([np.int8, np.int32, np.uint16, np.int64]))
def test_histogram_of_integers(backend, dtype):
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
    x = np.random.default_rng(7).integers(lo, hi, size=10_000, endpoint=True).astype(dtype)
    # NumPy's integer edges are f64, Tack's f32: the counts agree for
    # integers, which lie at least 0.1 from every non-integer edge here.
    assert_matches_numpy(x, 20, edges_too=False)
    assert_matches_numpy(x, 9, range=(0, 100), edges_too=False)


def test_histogram_contended_bins_count_exactly(backend):
    x = np.full(LONG, 0.25, dtype=np.float32)
    x[:1000] = 0.75
    counts, _ = stats.histogram(tack.array(x), bins=2, range=(0.0, 1.0))
    assert counts.numpy().tolist() == [LONG - 1000, 1000]
    ones = np.ones(LONG, dtype=np.float64)
    counts, edges = stats.histogram(tack.array(ones), bins=5)
    want, want_edges = np.histogram(ones, bins=5)
    np.testing.assert_array_equal(counts.numpy(), want)
    np.testing.assert_array_equal(edges.numpy(), want_edges)


def test_histogram_of_views_and_empty_input(backend):
    m = tack.array(data("normal", np.float32, 120 * 50, seed=8).reshape(120, 50))
    view = m[7:99, 3:41]
    counts, _ = stats.histogram(view, bins=13)
    want, _ = np.histogram(view.numpy(), bins=13)
    np.testing.assert_array_equal(counts.numpy(), want)
    counts, edges = stats.histogram(tack.zeros(0), bins=4)
    want, want_edges = np.histogram(np.zeros(0, dtype=np.float32), bins=4)
    np.testing.assert_array_equal(counts.numpy(), want)
    np.testing.assert_array_equal(edges.numpy(), want_edges.astype(np.float32))


def test_histogram_rejects_bad_arguments():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="bins"):
        stats.histogram(x, bins=0)
    with pytest.raises(ValueError, match="exceeds"):
        stats.histogram(x, bins=3, range=(2.0, 1.0))
    with pytest.raises(ValueError, match="not finite"):
        stats.histogram(x, bins=3, range=(0.0, np.inf))
    # As numpy.histogram: 2.5 is no count of bins (it made 2), nor is True.
    for bins in (2.5, 3.0, "3", True, None):
        with pytest.raises(TypeError, match="histogram: bins must be an integer"):
            stats.histogram(x, bins=bins)
    assert stats.histogram(x, bins=np.int8(3))[0].shape == (3,)
    # The range's ends are numbers, as numpy.histogram's: text is not parsed.
    for given in (("1", "2"), (0, 1 + 0j), (0,), (0, 1, 2)):
        with pytest.raises(TypeError, match="histogram: range must be two real numbers"):
            stats.histogram(x, bins=3, range=given)


# NumPy inputs


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=ids([np.float32, np.float64, np.int32]))
def test_numpy_inputs_whatever_the_default_device(backend, dtype):
    # A NumPy array reaches the algorithms as a zero-copy import, a CPU
    # array; the results must not depend on which device is the default.
    base = (np.arange(4000) % 61 - 30).astype(dtype)  # small integers: every sum below is exact
    for x in (base, base.reshape(40, 100)[::-2, ::3]):
        flat = np.ascontiguousarray(x).reshape(-1)
        assert stats.mean(x) == float(sum(int(v) for v in flat)) / flat.size
        assert stats.min(x) == float(flat.min()) and stats.max(x) == float(flat.max())
        term = np.float64 if dtype == np.float64 else np.float32
        exact, budget = variance_budget(flat.astype(term), term, 1)
        assert abs(Fraction(stats.variance(x, ddof=1)) - exact) <= budget
        s = stats.std(x, ddof=1)
        assert abs(Fraction(s) ** 2 - exact) <= budget + (exact + budget) * Fraction(1, 2**50)
        counts, edges = stats.histogram(x, bins=7)
        want_counts, want_edges = np.histogram(flat, bins=7)
        np.testing.assert_array_equal(counts.numpy(), want_counts)
        if dtype != np.int32:
            np.testing.assert_array_equal(edges.numpy(), want_edges)
