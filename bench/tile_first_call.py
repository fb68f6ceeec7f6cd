"""tack.tile's first calls: in a process that compiles each function's kernel
against a later process that links the code the first one left in the disk
cache (docs/caching.md; tile kernels on the CPU). Each run is two fresh
Python processes over one new cache folder; each times every function's
first call alone, then a second call (the kernel already in the process).

    PYTHONPATH=python python bench/tile_first_call.py [--runs N]

Matmul's autotuning is off here (TACK_TILE_AUTOTUNE=0: one fixed kernel),
so its row is a compile like the others.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO_PYTHON = str(Path(__file__).resolve().parent.parent / "python")

_PROGRAM = textwrap.dedent(
    """
    import json, time
    import numpy as np
    import tack, tack.tile as T

    r = np.random.default_rng(0)
    x = tack.array(r.standard_normal((64, 100)).astype(np.float32))
    w = tack.array(r.standard_normal(100).astype(np.float32))
    b = tack.array(r.standard_normal((100, 30)).astype(np.float32))
    img = tack.array(r.standard_normal((1, 3, 32, 32)).astype(np.float32))
    f = tack.array(r.standard_normal((4, 3, 3, 3)).astype(np.float32))
    calls = {
        "matmul": lambda: T.matmul(x, b),
        "einsum ij->j": lambda: T.einsum("ij->j", x),
        "conv2d": lambda: T.conv2d(img, f, padding=1),
        "softmax": lambda: T.softmax(x),
        "layer_norm": lambda: T.layer_norm(x, w, w),
        "rms_norm": lambda: T.rms_norm(x, w),
        "scan": lambda: T.scan(x),
        "sort": lambda: T.sort(x),
        "topk k=5": lambda: T.topk(x, 5),
        "topk k=12": lambda: T.topk(x, 12),
        "topk k=20": lambda: T.topk(x, 20),
        "topk k=40": lambda: T.topk(x, 40),
        "topk k=80": lambda: T.topk(x, 80),
        "gather": lambda: T.gather(x, [3, 1]),
    }
    times = {}
    for name, call in calls.items():
        start = time.perf_counter()
        call()
        first = time.perf_counter() - start
        start = time.perf_counter()
        call()
        times[name] = (first, time.perf_counter() - start)
    print(json.dumps(times))
    """
)


def one_process(cache):
    env = dict(os.environ, TACK_CACHE_DIR=cache, TACK_TILE_AUTOTUNE="0")
    env.pop("TACK_DISABLE_DISK_CACHE", None)
    env["PYTHONPATH"] = REPO_PYTHON + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compiled, linked = {}, {}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="tack-bench-cache-") as cache:
            for name, t in one_process(cache).items():
                compiled.setdefault(name, []).append(t)
            for name, t in one_process(cache).items():
                linked.setdefault(name, []).append(t)
    print(f"# {os.cpu_count()} cores; medians of {args.runs} runs, ms")
    print(f"{'function':14s} {'compiled':>10s} {'cached':>10s} {'ratio':>7s} {'2nd call':>9s}")
    for name in compiled:
        c = statistics.median(t[0] for t in compiled[name]) * 1e3
        h = statistics.median(t[0] for t in linked[name]) * 1e3
        again = statistics.median(t[1] for t in linked[name]) * 1e3
        print(f"{name:14s} {c:10.1f} {h:10.1f} {c / h:6.0f}x {again:9.2f}")


if __name__ == "__main__":
    main()
