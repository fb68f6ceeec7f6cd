"""f32 array reductions on a device against NumPy on the host.

    python bench/device_reductions.py [--device opencl] [--sizes 16,20,24]

Array.sum(), min() and max() of a contiguous f32 array on a GPU backend run
on the device (256-lane trees, group partials combined atomically); the
baseline is NumPy's np.sum/np.min/np.max over the same values on the host,
timed in the same process. The array already lives on the device, so the
device time is the reduction and the read of its one result. Each result is
checked first: extrema equal NumPy's, sums within gamma_n * sum(|x|).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import tack  # noqa: E402
import timing  # noqa: E402


def check(op, got, x):
    if op == "sum":
        n = x.size
        u = 2.0 ** -24
        bound = n * u / (1 - n * u) * float(np.abs(x.astype(np.float64)).sum())
        assert abs(got - float(x.astype(np.float64).sum())) <= bound, (op, got)
    else:
        assert got == float(getattr(np, op)(x)), (op, got)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="opencl")
    parser.add_argument("--sizes", default="16,20,23", help="powers of two, below 24 (the sum bound needs n * 2^-24 < 1)")
    args = parser.parse_args()
    if args.device not in tack.available_devices():
        sys.exit(f"{args.device} is not available: {tack._core.device_unavailable_reason(args.device)}")
    rng = np.random.default_rng(3)
    print(f"f32 reductions, median per call: NumPy on the host vs Tack on {args.device}")
    for p in (int(s) for s in args.sizes.split(",")):
        x = rng.standard_normal(1 << p).astype(np.float32)
        a = tack.array(x, device=args.device)
        for op in ("sum", "min", "max"):
            method = getattr(a, op)
            check(op, method(), x)
            host = timing.median_ms(lambda: getattr(np, op)(x), repeats=20, budget_s=2.0)
            device = timing.median_ms(method, repeats=20, budget_s=2.0)
            print(f"  2^{p:<2} {op}: numpy {host * 1e3:9.1f} us   {args.device} {device * 1e3:9.1f} us   "
                  f"{device / host:6.2f}x numpy")


if __name__ == "__main__":
    main()
