"""Whether the CPU's default choice between SIMD lanes and the scalar
program is right, kernel by kernel.

    python bench/lanes_choice.py            every body below, at full size
    python bench/lanes_choice.py --quick    small arrays, few repeats

By default (tack.set_cpu_spmd(True)) the CPU compiles a kernel's SPMD body
and keeps it where the lanes pay for what the body does lane by lane
(src/codegen/llvm/lane_cost.h); elsewhere it runs the scalar program. Each
body here runs as the lanes (set_cpu_spmd("always")) and as the scalar
program (set_cpu_spmd(False)) on one set of arrays, called in turn, and
the two results must be equal bit for bit. The ratio is the lanes' median
time over the scalar program's, both of this run; the choice is right when
the chosen program is at most 5 % slower than the other. The bodies are
the kinds of work the cost model weighs: arithmetic, C library calls,
integer divisions, gathers and atomics, alone and mixed.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tack  # noqa: E402

TOLERANCE = 1.05


@tack.kernel
def sin_only(x, y):
    for i in range(len(x)):
        y[i] = math.sin(x[i])


@tack.kernel
def sin_and_arithmetic(x, y):
    for i in range(len(x)):
        v = x[i]
        y[i] = math.sin(v) + v * v * 0.5 + v * 3.0 - 1.0 + v / (1.0 + v * v)


@tack.kernel
def exp_and_polynomial(x, y):
    for i in range(len(x)):
        v = x[i]
        s = v
        for j in range(8):
            s = s * v + 0.25
        y[i] = math.exp(v) + s


@tack.kernel
def power(x, y):
    for i in range(len(x)):
        y[i] = x[i] ** 2.5


@tack.kernel
def remainder(a, d, y):
    for i in range(len(a)):
        y[i] = a[i] % d[i]


@tack.kernel
def remainder_and_arithmetic(a, d, y):
    for i in range(len(a)):
        v = a[i]
        y[i] = v % d[i] + v * 3 + (v >> 2) ^ (v * 7 + 1)


@tack.kernel
def histogram(keys, counts):
    for i in range(len(keys)):
        tack.atomic_add(counts, keys[i], 1)


@tack.kernel
def gather(idx, x, y):
    for i in range(len(idx)):
        y[i] = x[idx[i]] * 2.0 + 1.0


@tack.kernel
def gather_eight(idx, x, y):
    for i in range(len(y)):
        s = x[0] * 0.0
        for j in range(8):
            s += x[idx[i * 8 + j]]
        y[i] = s


@tack.kernel
def saxpy(a, x, y):
    for i in range(len(x)):
        y[i] = a * x[i] + y[i]


@tack.kernel
def escape_counts(cx, cy, out):
    for r, c in tack.ndindex(len(cy), len(cx)):
        x = cx[c] * 0.0
        y = x
        n = 0
        while n < 200 and x * x + y * y <= 4.0:
            x, y = x * x - y * y + cx[c], 2.0 * x * y + cy[r]
            n += 1
        out[r, c] = n


def bodies(n):
    """(name, kernel, arguments) for arrays of about n elements."""
    rng = np.random.default_rng(0)
    f32 = lambda: tack.array(rng.random(n, dtype=np.float32))
    f64 = lambda: tack.array(rng.random(n))
    i32 = lambda lo, hi: tack.array(rng.integers(lo, hi, n).astype(np.int32))
    i64 = lambda lo, hi: tack.array(rng.integers(lo, hi, n).astype(np.int64))
    side = int(math.isqrt(n // 16))
    return [
        ("saxpy f32", saxpy, (np.float32(2.0), f32(), f32())),
        ("escape counts f32", escape_counts,
         (tack.array(np.linspace(-2.2, 0.8, side * 4, dtype=np.float32)),
          tack.array(np.linspace(-1.2, 1.2, side // 4 + 1, dtype=np.float32)),
          tack.zeros((side // 4 + 1, side * 4), dtype=tack.i32))),
        ("sin f32", sin_only, (f32(), f32())),
        ("sin f64", sin_only, (f64(), f64())),
        ("sin + arithmetic f32", sin_and_arithmetic, (f32(), f32())),
        ("exp + polynomial f32", exp_and_polynomial, (f32(), f32())),
        ("power f32", power, (f32(), f32())),
        ("remainder i32", remainder, (i32(-1000, 1000), i32(1, 100), i32(0, 1))),
        ("remainder i64", remainder, (i64(-1000, 1000), i64(1, 100), i64(0, 1))),
        ("remainder + arithmetic i32", remainder_and_arithmetic, (i32(-1000, 1000), i32(1, 100), i32(0, 1))),
        ("histogram, n bins", histogram, (i32(0, n), tack.zeros(n, dtype=tack.i32))),
        ("histogram, 256 bins", histogram, (i32(0, 256), tack.zeros(256, dtype=tack.i32))),
        ("gather f32", gather, (i32(0, n), f32(), f32())),
        ("eight gathers f32", gather_eight,
         (tack.array(rng.integers(0, n, n).astype(np.int32)), f32(), tack.zeros(n // 8, dtype=tack.f32))),
    ]


def header(kernel, args, setting):
    tack.set_cpu_spmd(setting)
    return kernel.inspect("llvm", *args).split("\n", 1)[0].removeprefix("; tack cpu code: ")


def outputs(args):
    return [a.numpy().copy() for a in args if isinstance(a, tack.Array)]


def same_bits(a, b):
    return all(x.shape == y.shape and x.view(f"u{x.itemsize}").tobytes() == y.view(f"u{y.itemsize}").tobytes()
               for x, y in zip(a, b))


def measure(kernel, args, repeats):
    """The lanes' and the scalar program's median times (s), called in turn
    on the same arrays."""
    samples = {"always": [], False: []}
    for _ in range(repeats):
        for setting in samples:
            tack.set_cpu_spmd(setting)
            kernel(*args)  # this round's first call, untimed
            start = time.perf_counter()
            kernel(*args)
            samples[setting].append(time.perf_counter() - start)
    return statistics.median(samples["always"]), statistics.median(samples[False])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small arrays and few repeats")
    options = parser.parse_args()
    n, repeats = (1 << 16, 5) if options.quick else (1 << 22, 15)
    tack.set_default_device("cpu")
    print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()[0]:.2f}; n = {n}")
    rows, wrong, failures = [], 0, []
    for name, kernel, args in bodies(n):
        chosen = header(kernel, args, True)
        lanes_line = header(kernel, args, "always")
        results = {}
        for setting in ("always", False):
            tack.set_cpu_spmd(setting)
            fresh = [tack.array(a.numpy()) if isinstance(a, tack.Array) else a for a in args]
            kernel(*fresh)
            results[setting] = outputs(fresh)
        if not same_bits(results["always"], results[False]):
            failures.append(f"{name}: the lanes' result is not the scalar program's")
        lanes_s, scalar_s = measure(kernel, args, repeats)
        ratio = lanes_s / scalar_s
        lanes_chosen = chosen.startswith("spmd")
        chosen_s, other_s = (lanes_s, scalar_s) if lanes_chosen else (scalar_s, lanes_s)
        right = chosen_s <= TOLERANCE * other_s
        wrong += not right
        rows.append((name, lanes_line.split(",")[1].strip() if lanes_line.startswith("spmd") else "-",
                     f"{lanes_s * 1e3:.2f}", f"{scalar_s * 1e3:.2f}", f"{ratio:.2f}",
                     "lanes" if lanes_chosen else "scalar", "right" if right else "WRONG"))
        if not lanes_chosen:
            print(f"  {name}: {chosen}")
    tack.set_cpu_spmd(True)
    head = ("body", "lanes", "lanes ms", "scalar ms", "lanes/scalar", "default", "choice")
    widths = [max(len(str(x)) for x in column) for column in zip(head, *rows)]
    print()
    for line in (head, *rows):
        print("  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w) for i, (x, w) in enumerate(zip(line, widths))))
    print(f"\n{len(rows) - wrong} of {len(rows)} choices right (the chosen program at most "
          f"{(TOLERANCE - 1) * 100:.0f} % slower than the other)")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
