"""Writing into fresh arrays against writing into touched ones, Tack and NumPy.

    PYTHONPATH=python python bench/fresh_arrays.py

A new array's memory is mapped at its first touch, a page fault per page.
Tack's arrays from 4 MiB start at a huge page and ask the kernel for huge
pages (src/runtime/array.cpp), as NumPy's do, so a fresh 64 MiB output
faults 32 times instead of 16384. Each row times the same work twice in one
process: into an array made for each call (fresh) and into one reused
(touched); the ratio is the cost of the fresh memory. Every result is
checked against NumPy first.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

import timing  # noqa: E402
import tack  # noqa: E402
import tack.tile as T  # noqa: E402


@tack.kernel
def scale(x, y):
    for i in range(len(x)):
        y[i] = 2.0 * x[i]


def ms(run):
    return timing.median_ms(run, repeats=9, budget_s=2.0)


def row(name, fresh, touched):
    print(f"{name:<40} {fresh:>9.2f} {touched:>9.2f} {fresh / touched:>7.2f}x", flush=True)


def main():
    n = 4096
    r = np.random.default_rng(0)
    x = r.standard_normal(n * n).astype(np.float32)
    tx = tack.array(x)
    rows = tack.array(x.reshape(n, n))
    idx = tack.array(r.integers(0, n, n).astype(np.int64))
    y, out = tack.empty(n * n), tack.empty((n, n))
    ny = np.empty_like(x)

    scale(tx, y)
    assert np.array_equal(y.numpy(), 2.0 * x)
    assert np.array_equal(T.gather(rows, idx).numpy(), x.reshape(n, n)[idx.numpy()])
    print(f"# {n}x{n} f32 (64 MiB), {os.cpu_count()} cores; fresh ms, touched ms, fresh/touched")
    row("tack.zeros / y.fill(0)", ms(lambda: tack.zeros(n * n)), ms(lambda: y.fill(0.0)))
    row("Tack kernel y = 2x", ms(lambda: scale(tx, tack.empty(n * n))), ms(lambda: scale(tx, y)))
    row("tack.tile.gather rows", ms(lambda: T.gather(rows, idx)), ms(lambda: T.gather(rows, idx, out=out)))
    row("NumPy 2 * x", ms(lambda: 2.0 * x), ms(lambda: np.multiply(x, 2.0, out=ny)))


if __name__ == "__main__":
    main()
