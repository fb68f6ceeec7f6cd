"""tack.tile's functions on random views against NumPy: arrays of one to four
dimensions, axes of one element among them, sliced with steps, reversed
and transposed, so that the host code that turns views into launches
(rows merged into runs, axes moved, outputs staged) meets the layouts the
fixed-shape tests do not. Oracles: np.cumsum, stable np.sort/np.argsort,
Python's ordering for Top-K, np.take, and float64 results with the error
bounds of test_tile_library.py for softmax, the norms and matmul.

The view logic is host Python that every device shares, so the cases run
on the CPU (the device tests in test_tile_library.py run each function on
every backend)."""

import random

import numpy as np
import pytest
import tack
import tack.tile as T

from test_tile_library import U, bits, norm_bound, softmax_bound


def random_view(rng, ndim, special=False):
    """(NumPy view, tack view) of the same elements: extents often 1, each
    axis sliced from a larger one with step 1, 2 or -1, maybe transposed."""
    shape = [1 if rng.random() < 0.25 else rng.randint(1, 9) if rng.random() < 0.7 else rng.randint(1, 70)
             for _ in range(ndim)]
    over = [s * rng.choice([1, 1, 2, 3]) + rng.randint(0, 2) for s in shape]
    data = np.random.default_rng(rng.randrange(1 << 30)).standard_normal(over).astype(np.float32)
    if special:
        flat = data.reshape(-1)
        for _ in range(rng.randint(0, 4)):
            flat[rng.randrange(flat.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0])
    key = []
    for s, o in zip(shape, over):
        step = rng.choice([1, 1, 1, 2, -1])
        if step == -1:
            key.append(slice(s - 1, None, -1))
        else:
            start = rng.randint(0, max(0, o - (s - 1) * step - 1))
            key.append(slice(start, start + (s - 1) * step + 1, step))
    nv, tv = data[tuple(key)], tack.array(data)[tuple(key)]
    if ndim >= 2 and rng.random() < 0.3:
        nv, tv = nv.T, tv.T
    assert nv.shape == tv.shape
    return nv, tv


def topk_oracle(x, k):
    """The k largest of each row of x (last axis), NaN above +inf, equal
    values by lower position; short rows end with (-inf, 2**63 - 1)."""
    values, positions = [], []
    for row in x.reshape(-1, x.shape[-1]):
        order = sorted(range(len(row)), key=lambda i: (not np.isnan(row[i]), 0.0 if np.isnan(row[i]) else -row[i], i))
        order = order[:k] + [None] * max(0, k - len(row))
        values.append([-np.inf if i is None else row[i] for i in order])
        positions.append([2**63 - 1 if i is None else i for i in order])
    shape = x.shape[:-1] + (k,)
    return np.array(values, np.float32).reshape(shape), np.array(positions, np.int64).reshape(shape)


@pytest.mark.parametrize("seed", range(0, 240, 8), ids=lambda s: f"seeds-{s}-{s + 7}")
def test_row_functions_on_random_views(seed):
    for case in range(seed, seed + 8):
        rng = random.Random(case)
        ndim = rng.randint(1, 4)
        x, tx = random_view(rng, ndim, special=rng.random() < 0.5)
        axis = rng.randrange(-ndim, ndim)
        where = f"case {case}: shape {x.shape}, strides {x.strides}, axis {axis}"
        assert np.array_equal(T.scan(tx, axis=axis).numpy(), np.cumsum(x, axis=axis, dtype=np.float32),
                              equal_nan=True), where
        order = np.argsort(x, axis=axis, kind="stable")
        assert np.array_equal(T.argsort(tx, axis=axis).numpy(), order), where
        assert np.array_equal(bits(T.sort(tx, axis=axis).numpy()), bits(np.take_along_axis(x, order, axis=axis))), where
        k = rng.randint(0, x.shape[axis] + 2)
        values, positions = T.topk(tx, k, axis=axis)
        want_values, want_positions = topk_oracle(np.moveaxis(x, axis, -1), k)
        assert np.array_equal(np.moveaxis(positions.numpy(), axis, -1), want_positions), where
        assert np.array_equal(bits(np.moveaxis(values.numpy(), axis, -1)), bits(want_values)), where
        if np.isfinite(x).all():
            exact, bound = softmax_bound(x, axis)
            assert np.all(np.abs(T.softmax(tx, axis=axis).numpy() - exact) <= bound), where
            n = x.shape[axis]
            rows = np.moveaxis(x, axis, -1).reshape(-1, n)
            eps = np.float64(np.float32(1e-5))
            for rms in (False, True):
                got = (T.rms_norm(tx, axis=axis) if rms else T.layer_norm(tx, axis=axis)).numpy()
                exact, bound = norm_bound(rows, np.ones(n), None if rms else np.zeros(n), eps, rms=rms)
                assert np.all(np.abs(np.moveaxis(got, axis, -1).reshape(rows.shape) - exact) <= bound), where


@pytest.mark.parametrize("seed", range(0, 120, 8), ids=lambda s: f"seeds-{s}-{s + 7}")
def test_products_and_row_copies_on_random_views(seed):
    for case in range(seed, seed + 8):
        rng = random.Random(1_000_000 + case)
        a, ta = random_view(rng, 2)
        k = a.shape[1]
        b = np.random.default_rng(case).standard_normal((k, rng.randint(1, 40))).astype(np.float32)
        tb = tack.array(np.ascontiguousarray(b.T)).T if rng.random() < 0.5 else tack.array(b)
        where = f"case {case}: {a.shape} {a.strides} @ {b.shape}"
        got = T.matmul(ta, tb).numpy().astype(np.float64)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        bound = k * U / (1 - k * U) * (np.abs(a64) @ np.abs(b64))
        assert np.all(np.abs(got - a64 @ b64) <= bound), where

        axis = rng.randrange(a.ndim)
        n = a.shape[axis]
        indices = np.array([rng.randint(-2, n + 1) for _ in range(rng.randint(0, 12))], np.int64)
        want = np.take(a, np.clip(indices, 0, n - 1), axis=axis)
        outside = (indices < 0) | (indices >= n)
        want[(slice(None),) * axis + (outside,)] = 0
        assert np.array_equal(T.gather(ta, tack.array(indices), axis=axis).numpy(), want), where

        named = list(range(n))
        rng.shuffle(named)
        named = named[:rng.randint(0, n)] + [rng.choice([-1, n])] * rng.randint(0, 1)
        src_shape = list(a.shape)
        src_shape[axis] = len(named)
        src = np.random.default_rng(case).standard_normal(src_shape).astype(np.float32)
        want = a.copy()
        for j, i in enumerate(named):
            if 0 <= i < n:
                want[(slice(None),) * axis + (i,)] = src[(slice(None),) * axis + (j,)]
        T.scatter(tack.array(src), tack.array(np.array(named, np.int64)), ta, axis=axis)
        assert np.array_equal(ta.numpy(), want), where
