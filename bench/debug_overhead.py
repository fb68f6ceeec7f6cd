"""What debug mode and its race detector cost on the CPU.

    python bench/debug_overhead.py [--n N] [--repeats R]

Times four representative kernels (a 1-D stencil with a neighbour read,
an MLS-MPM-like particle-to-grid scatter with atomics, a 2-D row update
with a sequential inner loop, and an in-place update given one array as
two parameters, which the detector checks through a shadow by address) in
three builds of each: ordinary, debug mode
without the race detector (bounds checks only) and debug mode with it. The
results of the three are compared first (every kernel is race-free). It
prints the median times and the ratios; it is a measurement, not a test.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import tack  # noqa: E402
import timing  # noqa: E402


@tack.kernel
def smooth(a, out):
    for i in range(1, len(a) - 1):
        out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]


@tack.kernel
def scatter(x, mass, grid, cells):
    for p in range(len(x)):
        c = tack.i32(x[p] * cells)
        tack.atomic_add(grid, c, mass[p])


@tack.kernel
def rows(m, steps):
    for r in range(m.shape[0]):
        for s in range(steps):
            for c in range(1, m.shape[1]):
                m[r, c] = 0.5 * (m[r, c] + m[r, c - 1])


@tack.kernel
def axpy(x, y, alpha):
    for i in range(len(y)):
        y[i] = alpha * x[i] + y[i]


def twice(array):
    return [array, array, 2.0]


def cases(n):
    rng = np.random.default_rng(3)
    a = rng.random(n, dtype=np.float32)
    x = rng.random(n, dtype=np.float32) * np.float32(0.999)
    mass = rng.random(n, dtype=np.float32)
    side = int(np.sqrt(n))
    m = rng.random((side, side), dtype=np.float32)
    return {
        "stencil (1 read-only input)": (smooth, lambda: [tack.array(a), tack.zeros(n)]),
        "scatter (atomics)": (scatter, lambda: [tack.array(x), tack.array(mass), tack.zeros(1024), 1024]),
        "rows (read-modify-write)": (rows, lambda: [tack.array(m), 2]),
        "axpy in place (x is y)": (axpy, lambda: twice(tack.array(a))),
    }


MODES = {"ordinary": (False, False), "debug, no races": (True, False), "debug + races": (True, True)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"n = {args.n}, {args.repeats} repeats, median ms; ratios against the ordinary build")
    print(f"{'kernel':30} " + " ".join(f"{m:>16}" for m in MODES) + f" {'races/no races':>15}")
    for name, (kernel, make) in cases(args.n).items():
        times, results = {}, {}
        for mode, (debug, races) in MODES.items():
            tack.set_debug(debug, races=races)
            state = make()
            kernel(*state)
            results[mode] = [s.numpy() for s in state if isinstance(s, tack.Array)]
            state = make()
            times[mode] = timing.median_ms(lambda: kernel(*state), repeats=args.repeats, budget_s=20)
        tack.set_debug(False)
        base = results["ordinary"]
        for mode, got in results.items():
            for g, w in zip(got, base):
                # The scatter's float atomics add in schedule order.
                np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-3, err_msg=f"{name}: {mode}")
        cells = [f"{times[m]:9.2f} ({times[m] / times['ordinary']:4.1f}x)" for m in MODES]
        print(f"{name:30} " + " ".join(f"{c:>16}" for c in cells) +
              f" {times['debug + races'] / times['debug, no races']:14.1f}x")


if __name__ == "__main__":
    main()
