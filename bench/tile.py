"""tack.tile's compiled reference kernels against NumPy on the CPU.

    PYTHONPATH=python python bench/tile.py           the sizes below
    PYTHONPATH=python python bench/tile.py --quick   small sizes, in seconds

Each row runs the tack.tile function and its NumPy counterpart on the same
f32 data in the same process. Every result is checked first (against a
float64 NumPy reference with the error bounds tests/python/test_tile_library.py
derives, or exactly where the kernel's order is NumPy's) and only then
timed: the median of a few runs, the first, compiling, call excluded (for
matmul and conv2d, whose NumPy counterparts and references are
multi-threaded BLAS, Tack is timed first and checked after: see
bench_matmul). The
ratio is tack's time over NumPy's (above 1: NumPy is faster). NumPy's
matmul is its BLAS on all cores; matmul runs twice, with the fixed
16x16x16 tiles and with autotuned ones (docs/tile/python.md), and prints how
long the first tuned call took (tuning, unless the winner is on disk); softmax and LayerNorm are NumPy expressions,
and are also timed as hand-written C++ loops (bench/cpp/rows.cpp: OpenMP over rows, g++ -O3 -march=native,
no -ffast-math, so the row sums stay in order as Tack's do), whose time is the last column, with Tack's time
over it; rms_norm is a NumPy expression; conv2d is the padded input's windows
(sliding_window_view) contracted with the filters by np.tensordot (BLAS), checked against a float64
sum with the error bound of its c*kh*kw products (the test's), each row followed by which way
Tack ran it (direct or through the matrix product) and its first call's time; Top-K is argpartition plus a sort of the k winners; sort is
np.sort(kind="stable"); einsum is np.einsum(optimize=True).
"""

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))

import native  # noqa: E402
import timing  # noqa: E402
import tack  # noqa: E402
import tack.tile as T  # noqa: E402
from tack import _tile_tuning as tuning  # noqa: E402
from test_tile_library import U, conv2d_bound, norm_bound, product_bound, softmax_bound, topk_oracle  # noqa: E402


def ms(run, budget_s):
    return timing.median_ms(run, repeats=3, budget_s=budget_s, warmup=0)


def row(name, tack_ms, numpy_ms, flops=None, cpp_ms=None):
    line = f"{name:<34} {tack_ms:>10.2f} {numpy_ms:>10.2f} {tack_ms / numpy_ms:>8.1f}x"
    if flops:
        line += f"   {flops / tack_ms / 1e6:>7.2f} {flops / numpy_ms / 1e6:>7.2f}"
    if cpp_ms:
        line += f"   C++ {cpp_ms:>8.2f} ms, tack/C++ {tack_ms / cpp_ms:.1f}x"
    print(line, flush=True)


_rows = None
# After NumPy's BLAS, before the next Tack timing (bench_matmul).
_BLAS_PAUSE_S = 2.0


def cpp_rows():
    """bench/cpp/rows.cpp, built at first use."""
    global _rows
    if _rows is None:
        _rows = native.RowKernels()
    return _rows


def bench_matmul(m, k, n, r):
    """Two rows: the fixed 16x16x16 tiles (TACK_TILE_AUTOTUNE=0), then the
    autotuned ones; the tuning's own time (the first tuned call) is printed.
    Tack runs (tuning included) before anything in this case calls BLAS:
    OpenBLAS's threads keep spinning on the cores for a while after a call
    (a Tack launch right after one measured up to twice as slow), so the f64
    reference, the error bound and NumPy's timing come after Tack's, and
    the case ends with a pause before the next one's Tack runs."""
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    ta, tb = tack.array(a), tack.array(b)
    out = tack.empty((m, n))
    budget = 5.0
    rows = []
    for tuned in (False, True):
        os.environ["TACK_TILE_AUTOTUNE"] = "1" if tuned else "0"
        start = time.perf_counter()
        T.matmul(ta, tb, out=out)
        first_s = time.perf_counter() - start
        result = out.numpy().copy()
        tiles = "x".join(map(str, tuning.matmul_tiles(m, k, n, "cpu")))
        label = f"matmul {m}x{k}x{n} " + (f"tuned {tiles}" if tuned else "16x16x16")
        rows.append((label, ms(lambda: T.matmul(ta, tb, out=out), budget), result, first_s if tuned else None))
    del os.environ["TACK_TILE_AUTOTUNE"]
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = product_bound(a, b, k)
    numpy_ms = ms(lambda: a @ b, budget)
    for label, tack_ms, result, first_s in rows:
        assert np.all(np.abs(result - exact) <= bound), f"{label} disagrees with NumPy"
        row(label, tack_ms, numpy_ms, 2 * m * n * k)
        if first_s is not None:
            print(f"#   first tuned call (tuning class {tuning.shape_class(m, k, n)}, or reading its winner): "
                  f"{first_s:.1f} s", flush=True)
    time.sleep(_BLAS_PAUSE_S)


def bench_softmax(rows, cols, r):
    x = (r.standard_normal((rows, cols)) * 4).astype(np.float32)
    tx, out = tack.array(x), tack.empty((rows, cols))
    T.softmax(tx, out=out)
    exact, bound = softmax_bound(x, -1)
    assert np.all(np.abs(out.numpy() - exact) <= bound), "softmax disagrees with NumPy"

    def numpy_softmax():
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    by_cpp = np.empty_like(x)
    cpp_rows().softmax(x, by_cpp)
    assert np.all(np.abs(by_cpp - exact) <= bound), "the C++ softmax disagrees with NumPy"
    row(f"softmax {rows}x{cols}", ms(lambda: T.softmax(tx, out=out), 3.0), ms(numpy_softmax, 3.0),
        cpp_ms=ms(lambda: cpp_rows().softmax(x, by_cpp), 3.0))


def bench_layer_norm(rows, cols, r):
    x = (r.standard_normal((rows, cols)) * 3 + 5).astype(np.float32)
    g = r.standard_normal(cols).astype(np.float32)
    b = r.standard_normal(cols).astype(np.float32)
    tx, tg, tb, out = tack.array(x), tack.array(g), tack.array(b), tack.empty((rows, cols))
    T.layer_norm(tx, tg, tb, out=out)
    exact, bound = norm_bound(x, g, b, np.float64(np.float32(1e-5)), rms=False)
    assert np.all(np.abs(out.numpy() - exact) <= bound), "layer_norm disagrees with NumPy"

    def numpy_layer_norm():
        mean = x.mean(axis=1, keepdims=True)
        d = x - mean
        return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + np.float32(1e-5)) * g + b

    by_cpp = np.empty_like(x)
    cpp_rows().layer_norm(x, g, b, np.float32(1e-5), by_cpp)
    assert np.all(np.abs(by_cpp - exact) <= bound), "the C++ layer_norm disagrees with NumPy"
    row(f"layer_norm {rows}x{cols}", ms(lambda: T.layer_norm(tx, tg, tb, out=out), 3.0), ms(numpy_layer_norm, 3.0),
        cpp_ms=ms(lambda: cpp_rows().layer_norm(x, g, b, np.float32(1e-5), by_cpp), 3.0))


def bench_rms_norm(rows, cols, r):
    x = (r.standard_normal((rows, cols)) * 3 + 5).astype(np.float32)
    g = r.standard_normal(cols).astype(np.float32)
    tx, tg, out = tack.array(x), tack.array(g), tack.empty((rows, cols))
    T.rms_norm(tx, tg, out=out)
    exact, bound = norm_bound(x, g, np.zeros(cols, np.float32), np.float64(np.float32(1e-5)), rms=True)
    assert np.all(np.abs(out.numpy() - exact) <= bound), "rms_norm disagrees with NumPy"

    def numpy_rms_norm():
        return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + np.float32(1e-5)) * g

    row(f"rms_norm {rows}x{cols}", ms(lambda: T.rms_norm(tx, tg, out=out), 3.0), ms(numpy_rms_norm, 3.0))


def bench_conv2d(x_shape, w_shape, padding, r):
    """NumPy's counterpart: the padded input's windows
    (sliding_window_view) contracted with the filters by tensordot (BLAS).
    As in bench_matmul, Tack runs (its first call, which may tune the
    matrix product's tiles, included) before the case calls BLAS, and the
    case ends with a pause."""
    x = r.standard_normal(x_shape).astype(np.float32)
    w = r.standard_normal(w_shape).astype(np.float32)
    tx, tw = tack.array(x), tack.array(w)
    start = time.perf_counter()
    out = T.conv2d(tx, tw, padding=padding)
    first_s = time.perf_counter() - start
    tack_ms = ms(lambda: T.conv2d(tx, tw, padding=padding, out=out), 5.0)
    f, c, kh, kw = w.shape

    def numpy_conv2d():
        padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
        windows = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(2, 3))  # N C OH OW KH KW
        return np.tensordot(windows, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)

    exact, bound = conv2d_bound(x, w, padding)
    assert np.all(np.abs(out.numpy() - exact) <= bound), "conv2d disagrees with NumPy"
    n, _, oh, ow = exact.shape
    name = "conv2d " + "x".join(map(str, x_shape)) + " by " + "x".join(map(str, w_shape))
    row(name, tack_ms, ms(numpy_conv2d, 5.0), 2 * n * f * oh * ow * c * kh * kw)
    how = "through the matrix product" if T._conv_by_columns(f, c * kh * kw) else "direct"
    print(f"#   {how}; first call: {first_s:.1f} s", flush=True)
    time.sleep(_BLAS_PAUSE_S)


def bench_einsum(spec, shapes, r):
    """NumPy's counterpart: np.einsum(optimize=True), BLAS for these specs;
    Tack timed first, as in bench_matmul."""
    ops = [r.standard_normal(s).astype(np.float32) for s in shapes]
    tops = [tack.array(o) for o in ops]
    start = time.perf_counter()
    out = T.einsum(spec, *tops)
    first_s = time.perf_counter() - start
    tack_ms = ms(lambda: T.einsum(spec, *tops, out=out), 5.0)
    wide = [o.astype(np.float64) for o in ops]
    exact = np.einsum(spec, *wide, optimize=True)
    magnitude = np.einsum(spec, *[np.abs(w) for w in wide], optimize=True)
    inputs, output = spec.split("->")
    extent = {c: n for labels, o in zip(inputs.split(","), ops) for c, n in zip(labels, o.shape)}
    terms = int(np.prod([n for c, n in extent.items() if c not in output]))
    bound = (terms * U / (1 - terms * U) + terms * 2.0**-53) * magnitude
    assert np.all(np.abs(out.numpy() - exact) <= bound), f"einsum {spec} disagrees with NumPy"
    name = f"einsum {spec} " + " by ".join("x".join(map(str, s)) for s in shapes)
    row(name, tack_ms, ms(lambda: np.einsum(spec, *ops, optimize=True), 5.0), 2 * int(np.prod(list(extent.values()))))
    print(f"#   first call: {first_s:.1f} s", flush=True)
    time.sleep(_BLAS_PAUSE_S)


def numpy_topk(x, k):
    """NumPy's Top-K of each row: argpartition, then a stable sort of the k
    winners (values, positions)."""
    part = np.argpartition(-x, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(x, part, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(vals, order, axis=1), np.take_along_axis(part, order, axis=1)


def bench_topk(rows, cols, k, r):
    x = r.standard_normal((rows, cols)).astype(np.float32)
    tx = tack.array(x)
    v, i = tack.empty((rows, k)), tack.empty((rows, k), dtype=tack.i64)
    T.topk(tx, k, out=(v, i))
    want_v, want_i = topk_oracle(x, k)
    assert np.array_equal(i.numpy(), want_i) and np.array_equal(v.numpy(), want_v), "topk disagrees with NumPy"

    row(f"topk k={k} {rows}x{cols}", ms(lambda: T.topk(tx, k, out=(v, i)), 5.0), ms(lambda: numpy_topk(x, k), 5.0))


def bench_sort(rows, cols, r):
    x = r.standard_normal((rows, cols)).astype(np.float32)
    tx, out = tack.array(x), tack.empty((rows, cols))
    T.sort(tx, out=out)
    assert np.array_equal(out.numpy(), np.sort(x, axis=1, kind="stable")), "sort disagrees with NumPy"
    row(f"sort {rows}x{cols}", ms(lambda: T.sort(tx, out=out), 5.0), ms(lambda: np.sort(x, axis=1, kind="stable"), 5.0))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    args = parser.parse_args()
    r = np.random.default_rng(0)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, NumPy {np.__version__}, "
          f"Tack CPU workers {tack._core._worker_count()}")
    print(f"{'case':<34} {'tack ms':>10} {'numpy ms':>10} {'ratio':>9}   GFLOP/s tack numpy")
    if args.quick:
        bench_matmul(128, 128, 128, r)
        bench_matmul(100, 77, 33, r)
        bench_softmax(256, 256, r)
        bench_layer_norm(256, 256, r)
        bench_rms_norm(256, 256, r)
        bench_conv2d((1, 3, 32, 32), (8, 3, 3, 3), 1, r)
        bench_einsum("bij,bjk->bik", [(2, 64, 64), (2, 64, 64)], r)
        bench_topk(64, 512, 8, r)
        bench_sort(16, 256, r)
        return
    bench_matmul(2048, 2048, 2048, r)
    bench_matmul(512, 512, 512, r)
    bench_matmul(1000, 777, 333, r)
    bench_matmul(4096, 256, 16, r)  # one 16-wide block column: the block rows in the lanes
    bench_softmax(4096, 4096, r)
    bench_layer_norm(4096, 4096, r)
    bench_layer_norm(1 << 20, 8, r)  # narrow rows: one block of 8 columns a row, rows in the SIMD lanes (docs/tile/python.md)
    bench_rms_norm(4096, 4096, r)
    bench_conv2d((8, 32, 64, 64), (64, 32, 3, 3), 1, r)
    bench_conv2d((1, 3, 224, 224), (32, 3, 3, 3), 1, r)
    bench_conv2d((16, 64, 28, 28), (128, 64, 3, 3), 1, r)
    bench_conv2d((4, 128, 14, 14), (256, 128, 3, 3), 1, r)
    bench_einsum("bij,bjk->bik", [(16, 256, 256), (16, 256, 256)], r)
    bench_einsum("bhqd,bhkd->bhqk", [(4, 8, 256, 64), (4, 8, 256, 64)], r)
    bench_topk(1024, 4096, 8, r)
    bench_topk(1024, 4096, 4, r)
    bench_topk(1024, 4096, 16, r)  # the 16-entry network
    bench_topk(1024, 4096, 32, r)  # from k = 17 on wide rows: the prefiltered tournament
    bench_topk(1024, 4096, 64, r)
    bench_topk(4096, 256, 32, r)  # narrower rows: the 32-entry network
    bench_topk(1024, 4096, 128, r)  # above k = 64: the tournament (prefiltered)
    bench_sort(256, 1024, r)
    bench_sort(1024, 4096, r)


if __name__ == "__main__":
    main()
