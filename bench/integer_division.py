"""What safe integer division costs: Tack's // and % timed.

    python bench/integer_division.py                  Tack beside plain C++ division
    python bench/integer_division.py --against DIR    this Tack against another build's package

Tack's integer floor division cannot trap: a divisor of 0 (or -1 when
signed) divides as 1 and the quotient becomes the operands' product. This
times the integer-division suite's kernel form, q[i] = a[i] // b[i] and
r[i] = a[i] % b[i], over random inputs with nonzero divisors (the domain
where every version agrees; results are checked against NumPy first).

By default the baseline is the same loop in C++ with the plain, trapping
operators (g++ -O3 -march=native -fopenmp, all cores), built in this run.
With --against DIR (the python/ folder of another Tack build, e.g. a
worktree of an earlier commit) the baseline is that build running the same
kernel: the two alternate, each in a process of its own, and the medians of
the rounds are compared.
"""

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

TYPES = {"i32": np.int32, "i64": np.int64, "u32": np.uint32, "u64": np.uint64}


def inputs(name, n):
    dtype = TYPES[name]
    info = np.iinfo(dtype)
    rng = np.random.default_rng(12)
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = rng.integers(1, 1 << 20, n, dtype=dtype)
    if info.min < 0:
        b = np.where(rng.random(n) < 0.5, b, -b).astype(dtype)
    return a, b


def tack_times(n, repeats):
    """Median ms of the Tack kernel per type, in this process."""
    import tack
    import timing

    @tack.kernel
    def floor_divmod(a, b, q, r):
        for i in range(len(a)):
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]

    times = {}
    for name in TYPES:
        a, b = inputs(name, n)
        ta, tb = tack.array(a), tack.array(b)
        tq, tr = tack.empty(n, dtype=getattr(tack, name)), tack.empty(n, dtype=getattr(tack, name))
        floor_divmod(ta, tb, tq, tr)
        assert (tq.numpy() == a // b).all() and (tr.numpy() == a % b).all(), f"Tack {name} disagrees with NumPy"
        times[name] = timing.median_ms(lambda: floor_divmod(ta, tb, tq, tr), repeats=repeats, budget_s=5)
    return times


def cpp_times(n, repeats):
    from numpy.ctypeslib import ndpointer

    import native
    import timing

    # Idle OpenMP threads would otherwise spin on the cores Tack's workers use.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    library = ctypes.CDLL(
        str(native.compile_cpp(native.CPP_DIR / "int_division.cpp", native.OUT_DIR / "libint_division.so",
                               ["-shared", "-fPIC"]))
    )
    times = {}
    for name, dtype in TYPES.items():
        a, b = inputs(name, n)
        pointer = ndpointer(dtype, flags="C_CONTIGUOUS")
        fn = getattr(library, f"divmod_{name}")
        fn.argtypes = [ctypes.c_int64, pointer, pointer, pointer, pointer]
        fn.restype = None
        q, r = np.empty_like(a), np.empty_like(a)
        fn(n, a, b, q, r)
        assert (q == a // b).all() and (r == a % b).all(), f"C++ {name} disagrees with NumPy"
        times[name] = timing.median_ms(lambda: fn(n, a, b, q, r), repeats=repeats, budget_s=5)
    return times


def child_times(package, n, repeats):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package), str(Path(__file__).parent)]))
    out = subprocess.run([sys.executable, __file__, "--child", "--n", str(n), "--repeats", str(repeats)],
                         env=env, capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (item.split("=") for item in out.split())}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1 << 24, help="elements per array (default 2^24)")
    parser.add_argument("--repeats", type=int, default=15, help="timed calls per measurement")
    parser.add_argument("--against", type=Path, help="another Tack build's python/ folder to compare with")
    parser.add_argument("--rounds", type=int, default=6, help="alternations with --against")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(" ".join(f"{k}={v:.3f}" for k, v in tack_times(args.n, args.repeats).items()))
        return
    if args.against:
        import tack

        here = Path(tack.__file__).resolve().parent.parent
        ours, theirs = {k: [] for k in TYPES}, {k: [] for k in TYPES}
        for _ in range(args.rounds):
            for store, package in ((theirs, args.against), (ours, here)):
                for k, v in child_times(package, args.n, args.repeats).items():
                    store[k].append(v)
        print(f"n = {args.n}; medians of {args.rounds} alternating rounds; baseline: {args.against}")
        print(f"{'type':5} {'baseline ms':>12} {'this ms':>9} {'ratio':>7}")
        for k in TYPES:
            base, this = statistics.median(theirs[k]), statistics.median(ours[k])
            print(f"{k:5} {base:12.2f} {this:9.2f} {this / base:6.2f}x")
        return
    cpp = cpp_times(args.n, args.repeats)
    mine = tack_times(args.n, args.repeats)
    print(f"n = {args.n}; medians of {args.repeats} calls; baseline: plain C++ division in this run")
    print(f"{'type':5} {'C++ ms':>8} {'Tack ms':>9} {'Tack/C++':>9}")
    for k in TYPES:
        print(f"{k:5} {cpp[k]:8.2f} {mine[k]:9.2f} {mine[k] / cpp[k]:8.2f}x")


if __name__ == "__main__":
    main()
