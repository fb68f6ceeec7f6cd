"""tack.tile's functions on random views against NumPy: arrays of one to four
dimensions, axes of one element among them, sliced with steps, reversed
and transposed, so that the host code that turns views into launches
(rows merged into runs, axes moved, outputs staged) meets the layouts the
fixed-shape tests do not. Oracles: np.cumsum, stable np.sort/np.argsort,
the lexsort of test_tile_library.py for Top-K, np.take, and float64
results with the error bounds of test_tile_library.py for softmax, the
norms and matmul.

The view logic is host Python that every device shares, so the cases run
on the CPU (the device tests in test_tile_library.py run each function on
every backend)."""

import random

import numpy as np
import pytest
import tack
import tack.tile as T

from test_tile_library import SENTINEL, U, bits, fold_conv2d, fold_einsum, fold_matmul, norm_bound, softmax_bound, topk_oracle


def random_view(rng, ndim, special=False):
    """(NumPy view, tack view) of the same elements: extents often 1, each
    axis sliced from a larger one with step 1, 2 or -1, maybe transposed."""
    shape = [1 if rng.random() < 0.25 else rng.randint(1, 9) if rng.random() < 0.7 else rng.randint(1, 70)
             for _ in range(ndim)]
    return view_of_shape(rng, shape, special)


def view_of_shape(rng, shape, special=False):
    """random_view's views with the given shape."""
    transposed = len(shape) >= 2 and rng.random() < 0.3
    shape = shape[::-1] if transposed else list(shape)
    over = [s * rng.choice([1, 1, 2, 3]) + rng.randint(0, 2) for s in shape]
    data = np.random.default_rng(rng.randrange(1 << 30)).standard_normal(over).astype(np.float32)
    if special:
        flat = data.reshape(-1)
        for _ in range(rng.randint(0, 4)):
            flat[rng.randrange(flat.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0])
    key = random_slices(rng, shape, over)
    nv, tv = data[key], tack.array(data)[key]
    if transposed:
        nv, tv = nv.T, tv.T
    assert nv.shape == tv.shape
    return nv, tv


def random_slices(rng, shape, over):
    """A view's key: each axis of `over` sliced to the extent in `shape` with
    step 1, 2 or -1."""
    key = []
    for s, o in zip(shape, over):
        step = rng.choice([1, 1, 1, 2, -1]) if o >= 2 * s - 1 or s == 1 else rng.choice([1, -1])
        if step == -1:
            start = rng.randint(s - 1, o - 1)
            key.append(slice(start, start - s if start >= s else None, -1))
        else:
            start = rng.randint(0, max(0, o - (s - 1) * step - 1))
            key.append(slice(start, start + (s - 1) * step + 1, step))
    return tuple(key)


class GuardedView:
    """An output: a random view (steps, reversed axes) inside a larger array
    of sentinels; the view starts NaN. value() checks the sentinels."""

    def __init__(self, rng, shape):
        over = [s * rng.choice([1, 2]) + rng.randint(0, 2) for s in shape]
        self.big = np.full(over, SENTINEL, np.float32)
        self.key = random_slices(rng, shape, over)
        self.big[self.key] = np.nan
        self.array = tack.asarray(self.big)[self.key]
        assert self.array.shape == tuple(shape)

    def value(self):
        mask = np.ones(self.big.shape, bool)
        mask[self.key] = False
        assert np.all(bits(self.big[mask]) == bits(SENTINEL)), "a sentinel changed"
        return self.big[self.key].copy()


def topk_of_rows(x, k):
    """topk_oracle over the last axis of an array of any rank."""
    values, positions = topk_oracle(x.reshape(-1, x.shape[-1]), k)
    shape = x.shape[:-1] + (k,)
    return values.reshape(shape), positions.reshape(shape)


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
        want_values, want_positions = topk_of_rows(np.moveaxis(x, axis, -1), k)
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


def random_einsum(rng):
    """A two-operand spec of ranks 1 to 3 (labels shared, contracted, summed
    within one operand, or kept) with each label's extent."""
    labels = "abcdefg"
    la = "".join(rng.sample(labels, rng.randint(1, 3)))
    shared = [c for c in la if rng.random() < 0.6]
    own = [c for c in labels if c not in la]
    lb = shared + rng.sample(own, rng.randint(0 if shared else 1, 3 - len(shared))) if len(shared) < 3 else shared
    rng.shuffle(lb)
    lb = "".join(lb)
    every = list(dict.fromkeys(la + lb))
    out = [c for c in every if rng.random() < 0.5]
    rng.shuffle(out)
    out = out[:4]  # einsum's outputs have rank 4 at most
    extent = {c: 1 if rng.random() < 0.2 else rng.randint(2, 7) for c in every}
    return f"{la},{lb}->{''.join(out)}", extent


@pytest.mark.parametrize("seed", range(0, 96, 8), ids=lambda s: f"seeds-{s}-{s + 7}")
def test_contractions_on_random_views(seed):
    """einsum and conv2d on views, into random views (or NumPy's own output
    shape) of guarded outputs, equal to the documented fold bit for bit;
    matmul into an operand's own storage."""
    for case in range(seed, seed + 8):
        rng = random.Random(2_000_000 + case)
        spec, extent = random_einsum(rng)
        (la, lb), out_labels = spec.split("->")[0].split(","), spec.split("->")[1]
        (a, ta), (b, tb) = (view_of_shape(rng, [extent[c] for c in labels]) for labels in (la, lb))
        where = f"case {case}: {spec} {extent}, strides {a.strides} {b.strides}"
        want = fold_einsum(spec, a, b)
        if rng.random() < 0.5 and out_labels:
            out = GuardedView(rng, want.shape)
            assert T.einsum(spec, ta, tb, out=out.array) is out.array, where
            got = out.value()
        else:
            got = T.einsum(spec, ta, tb).numpy()
        assert np.array_equal(bits(got), bits(want)), where

        groups = rng.choice([1, 1, 2, 3])
        c, f = groups * rng.randint(1, 3), groups * rng.randint(1, 3)
        kh, kw = rng.randint(1, 3), rng.randint(1, 3)
        padding = rng.choice([0, 1, (rng.randint(0, 2), rng.randint(0, 2))])
        stride = rng.choice([1, 1, 2, (1, 2)])
        dilation = rng.choice([1, 1, 2])
        h, wd = (rng.randint(1, 6) + dilation * (k - 1) for k in (kh, kw))
        x, tx = view_of_shape(rng, [rng.randint(1, 2), c, h, wd])
        w, tw = view_of_shape(rng, [f, c // groups, kh, kw])
        where = f"case {case}: conv2d {x.shape} {x.strides} by {w.shape} {w.strides}, groups {groups}, " \
                f"padding {padding}, stride {stride}, dilation {dilation}"
        want = fold_conv2d(x, w, padding, stride, dilation, groups)
        out = GuardedView(rng, want.shape)
        T.conv2d(tx, tw, padding=padding, stride=stride, dilation=dilation, groups=groups, out=out.array)
        assert np.array_equal(bits(out.value()), bits(want)), where

        n = rng.randint(1, 12)
        a, ta = view_of_shape(rng, [rng.randint(1, 12), n])
        b, tb = view_of_shape(rng, [n, n])
        want = fold_matmul(a, b)
        into_b = rng.random() < 0.5 and a.shape[0] == n
        T.matmul(ta, tb, out=tb if into_b else ta)
        assert np.array_equal(bits((tb if into_b else ta).numpy()), bits(want)), f"case {case}: {a.strides} {b.strides}"
