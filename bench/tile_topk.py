"""tack.tile.topk across k at 1024x4096 f32 against NumPy on the CPU: the
bitonic networks (k <= 4 on these rows) and the prefiltered tournament of
merges above (docs/tile/python.md). Each row: Tack's time (median of a few calls, the
first excluded), its first call (the compile, in a fresh cache folder
unless TACK_CACHE_DIR says otherwise), and NumPy's argpartition plus a
stable sort of the k winners. Results are checked against the oracle of
tests/python/test_tile_library.py before timing.

With --routes, each k on rows of several widths through both of topk's
routes, the reference kernel's network and the (prefiltered) tournament,
forced by tack.tile's thresholds, with NumPy's time beside them: the
measurements behind _TOPK_NETWORK and _TOPK_WIDE_ROWS (tile.py). The
calls alternate between the routes; each time is the median of 9. The
network's first call, which compiles it, is not timed.

    PYTHONPATH=python python bench/tile_topk.py [K ...]
    PYTHONPATH=python python bench/tile_topk.py --routes [K ...]
"""

import atexit
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
if not os.environ.get("TACK_CACHE_DIR"):
    # A fresh cache folder for this run, removed when it ends.
    os.environ["TACK_CACHE_DIR"] = tempfile.mkdtemp(prefix="tack-bench-topk-")
    atexit.register(shutil.rmtree, os.environ["TACK_CACHE_DIR"], ignore_errors=True)

import timing  # noqa: E402
import tack  # noqa: E402
import tack.tile as T  # noqa: E402
from test_tile_library import topk_oracle  # noqa: E402
from tile import numpy_topk  # noqa: E402  (bench/tile.py)


ROUTE_SHAPES = [(16384, 100), (8192, 128), (8192, 200), (8192, 256), (8192, 512), (1024, 1000), (4096, 1024)]


def routes(ks):
    """Network / tournament / NumPy ms for each k and shape."""
    print("| k | rows x cols | network ms | tournament ms | NumPy ms |\n|---:|---|---:|---:|---:|")
    default = (T._TOPK_NETWORK, T._TOPK_NETWORK_ONLY, T._TOPK_FEW_ROWS)
    for k in ks:
        for rows, cols in ROUTE_SHAPES:
            x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
            tx = tack.array(x)
            want_v, want_i = topk_oracle(x, k)
            v, i = tack.empty((rows, k)), tack.empty((rows, k), dtype=tack.i64)
            samples = {"network": [], "tournament": []}
            for _ in range(10):
                for route in samples:
                    # Every k up to 64 through its network (few long rows too), or
                    # through the tournament.
                    T._TOPK_NETWORK, T._TOPK_NETWORK_ONLY, T._TOPK_FEW_ROWS = (64, 64, 0) if route == "network" else (0, 0, 0)
                    start = time.perf_counter()
                    T.topk(tx, k, out=(v, i))
                    samples[route].append(time.perf_counter() - start)
                    assert np.array_equal(i.numpy(), want_i) and np.array_equal(v.numpy(), want_v), (k, route)
            T._TOPK_NETWORK, T._TOPK_NETWORK_ONLY, T._TOPK_FEW_ROWS = default
            # The first call of each route is left out (it may compile).
            ms = {route: sorted(t[1:])[4] * 1e3 for route, t in samples.items()}
            numpy_ms = timing.median_ms(lambda: numpy_topk(x, k), repeats=9, budget_s=5, warmup=0)
            print(f"| {k} | {rows}x{cols} | {ms['network']:.1f} | {ms['tournament']:.1f} | {numpy_ms:.1f} |", flush=True)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--routes"]:
        routes([int(a) for a in args[1:]] or [17, 32, 33, 64])
        return
    ks = [int(a) for a in args] or [8, 9, 16, 17, 32, 33, 64, 65, 256, 1000]
    x = np.random.default_rng(0).standard_normal((1024, 4096)).astype(np.float32)
    tx = tack.array(x)

    print("| k | tack ms | first call s | NumPy ms |\n|---:|---:|---:|---:|")
    for k in ks:
        v, i = tack.empty((1024, k)), tack.empty((1024, k), dtype=tack.i64)
        start = time.perf_counter()
        T.topk(tx, k, out=(v, i))
        first = time.perf_counter() - start
        want_v, want_i = topk_oracle(x, k)
        assert np.array_equal(i.numpy(), want_i) and np.array_equal(v.numpy(), want_v), f"topk k={k} disagrees"
        tack_ms = timing.median_ms(lambda: T.topk(tx, k, out=(v, i)), repeats=5, budget_s=5, warmup=0)
        numpy_ms = timing.median_ms(lambda: numpy_topk(x, k), repeats=5, budget_s=5, warmup=0)
        print(f"| {k} | {tack_ms:.0f} | {first:.2f} | {numpy_ms:.0f} |", flush=True)


if __name__ == "__main__":
    main()
