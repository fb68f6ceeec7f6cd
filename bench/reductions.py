"""Whole-array reductions: NumPy against Tack's compiled parallel reduction.

    python bench/reductions.py            every dtype, sum/min/max, three sizes
    python bench/reductions.py --quick    small sizes, in seconds

Array.sum(), min() and max() run, per (reduction, dtype), whichever of two
implementations this benchmark measured faster (python/tack/_arrays.py,
_REDUCE_WITH): NumPy over a zero-copy view of the array, with the contract's
accumulators (np.sum with dtype=int64/uint64/float32/float64, a zero-tie
pass for extrema), or the compiled reduction in src/runtime/reduce.cpp on
all cores. Both are timed in the same process on the same arrays, through
the same Python entry points the methods use; the ratio is NumPy's time
over the compiled one (above 1: compiled is faster). Results are checked
to agree before anything is timed.
"""

import argparse
import math
import os
import platform
import sys

import numpy as np

import timing

DTYPES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"]


def _data(name, n, tack):
    rng = np.random.default_rng(1)
    np_type = tack._dtypes.BY_NAME[name].numpy
    if np_type.kind == "f":
        values = rng.standard_normal(n).astype(np_type)
    else:
        info = np.iinfo(np_type)
        values = rng.integers(info.min, info.max, size=n, dtype=np_type, endpoint=True)
    return tack.array(values)


def _agree(op, a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if op == "sum":
        return a == b or abs(a - b) <= 1e-4 * max(abs(a), abs(b), 1.0)
    return a == b


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--ops", default="sum,min,max")
    args = parser.parse_args()

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import tack
    from tack import _arrays

    sizes = [1_000, 100_000] if args.quick else [1_000, 100_000, 10_000_000]
    ops = args.ops.split(",")
    print(f"# {platform.machine()}, {os.cpu_count()} CPUs, NumPy {np.__version__}, tack workers "
          f"{tack._core._worker_count() if hasattr(tack._core, '_worker_count') else '?'}")
    print(f"{'op':4} {'dtype':5} {'n':>10} {'numpy ms':>10} {'compiled ms':>12} {'numpy/compiled':>15}")
    for n in sizes:
        repeats = 200 if n <= 100_000 else 15
        for name in DTYPES:
            a = _data(name, n, tack)
            for op in ops:
                np_fn, c_fn = _arrays._NUMPY[op], _arrays._COMPILED[op]
                if not _agree(op, np_fn(a), c_fn(a)):
                    raise SystemExit(f"{op} {name} n={n}: NumPy gives {np_fn(a)!r}, compiled {c_fn(a)!r}")
                t_np = timing.median_ms(lambda: np_fn(a), repeats=repeats, budget_s=2.0, warmup=2)
                t_c = timing.median_ms(lambda: c_fn(a), repeats=repeats, budget_s=2.0, warmup=2)
                print(f"{op:4} {name:5} {n:>10} {t_np:>10.4f} {t_c:>12.4f} {t_np / t_c:>15.2f}", flush=True)


if __name__ == "__main__":
    main()
