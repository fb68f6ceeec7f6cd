"""What a call of a tack.tile function costs on arrays too small for the
work to matter (16x16 f32, the kernels compiled and tuned before timing):
the Python that checks the arguments, chooses the kernel and builds its
views, plus the launch. Baselines measured in the same run: a compiled
@tack.kernel over one element (the launch alone) and NumPy's counterpart.

    python bench/tile_calls.py [--calls N]

Median of N individually timed calls (default 5000), in microseconds.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import tack  # noqa: E402
import tack.tile as T  # noqa: E402
import timing  # noqa: E402


@tack.kernel
def one_element(x, y):
    for i in range(len(x)):
        y[i] = x[i]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    calls = parser.parse_args().calls
    r = np.random.default_rng(0)
    x = r.standard_normal((16, 16)).astype(np.float32)
    y = r.standard_normal((16, 16)).astype(np.float32)
    w = r.standard_normal(16).astype(np.float32)
    batch = r.standard_normal((4, 16, 16)).astype(np.float32)
    idx = r.permutation(16).astype(np.int64)
    tx, ty, tw, tbatch, tidx = (tack.array(v) for v in (x, y, w, batch, idx))
    out, out_batch = tack.empty((16, 16)), tack.empty((4, 16, 16))
    images, filters = r.standard_normal((1, 2, 8, 8)).astype(np.float32), r.standard_normal((2, 2, 3, 3)).astype(np.float32)
    timages, tfilters = tack.array(images), tack.array(filters)
    e1, e2 = tack.array(np.zeros(1, np.float32)), tack.array(np.zeros(1, np.float32))

    rows = [
        ("launch of a @tack.kernel, one element", lambda: one_element(e1, e2), None),
        ("matmul 16x16 @ 16x16", lambda: T.matmul(tx, ty, out=out), lambda: np.matmul(x, y)),
        ("matmul 4x16x16 @ 16x16", lambda: T.matmul(tbatch, ty, out=out_batch), lambda: np.matmul(batch, y)),
        ("matmul 4x16x16 @ 4x16x16", lambda: T.matmul(tbatch, tbatch, out=out_batch), lambda: np.matmul(batch, batch)),
        ("einsum ij,jk->ik", lambda: T.einsum("ij,jk->ik", tx, ty, out=out),
         lambda: np.einsum("ij,jk->ik", x, y)),
        ("softmax", lambda: T.softmax(tx, out=out), lambda: np.exp(x - x.max(-1, keepdims=True))),
        ("layer_norm", lambda: T.layer_norm(tx, tw, tw, out=out), lambda: (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True)),
        ("rms_norm", lambda: T.rms_norm(tx, tw, out=out), lambda: x / np.sqrt((x * x).mean(-1, keepdims=True))),
        ("scan", lambda: T.scan(tx, out=out), lambda: np.cumsum(x, -1)),
        ("sort", lambda: T.sort(tx, out=out), lambda: np.sort(x, -1)),
        ("topk k=4", lambda: T.topk(tx, 4), lambda: np.argpartition(x, -4, -1)),
        ("gather axis 0", lambda: T.gather(tx, tidx, out=out), lambda: np.take(x, idx, 0)),
        ("conv2d 1x2x8x8 by 2x2x3x3", lambda: T.conv2d(timages, tfilters, padding=1), None),
    ]
    print(f"tack.tile calls on 16x16 f32, median of {calls} calls, microseconds")
    print(f"{'call':40s} {'tack':>8s} {'numpy':>8s}")
    for name, run, numpy_run in rows:
        for _ in range(20):  # compile, tune and warm up
            run()
        tack_us = timing.median_us_per_call(run, calls=calls)
        numpy_us = timing.median_us_per_call(numpy_run, calls=calls) if numpy_run else float("nan")
        print(f"{name:40s} {tack_us:8.1f} {numpy_us:8.1f}")


if __name__ == "__main__":
    main()
