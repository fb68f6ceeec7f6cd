"""Tack's performance benchmark.

    python bench/run.py                     four kernels: Tack, NumPy and C++
    python bench/run.py --quick             the same at small sizes, in seconds
    python bench/run.py --parallel-runtime  OpenMP against oneTBB, in C++

Each kernel runs in Tack, in NumPy and as hand-written C++ (bench/cpp/, built
here with g++ -O3 -march=native -fopenmp). Tack's and the C++ results are
checked against NumPy's before anything is timed. Times are medians of
repeated calls after a warm-up call; data transfers are not timed.
"""

import argparse
import os
import platform
import sys

import numpy as np

import cases
import native
import parallel_runtime
import tack_overhead
import timing


def _load_tack():
    """(tack, tack_kernels), or (None, reason) when the package is missing."""
    try:
        import tack
        import tack_kernels
    except ImportError as error:
        return None, f"{type(error).__name__}: {error}"
    return tack, tack_kernels


def _check(case, label, state, want):
    for name in case.outputs:
        ok, detail = case.agree(state[name], want[name])
        if not ok:
            return f"{label} {name} differs from NumPy: {detail}"
    return None


def _verified_states(case, cpp, tack, kernels):
    """Runs each implementation once on fresh inputs and compares it with
    NumPy. Returns the states (reused for timing) and Tack's failure, if any."""
    want = case.fresh_state()
    case.run_numpy(want)
    cpp_state = case.fresh_state()
    case.run_cpp(cpp, cpp_state)
    failure = _check(case, "C++", cpp_state, want)
    if failure:
        raise SystemExit(f"{case.name}: the references disagree: {failure}")
    if tack is None:
        return want, cpp_state, None, None
    try:
        tack_state = {k: tack.array(v) for k, v in case.fresh_state().items()}
        case.run_tack(kernels, tack_state)
        tack.sync()
        got = {name: tack_state[name].numpy() for name in case.outputs}
    except Exception as error:  # a compiler under development: report, go on
        return want, cpp_state, None, f"{type(error).__name__}: {error}"
    return want, cpp_state, tack_state, _check(case, "Tack", got, want)


def _measure_case(case, cpp, tack, kernels, settings):
    numpy_state, cpp_state, tack_state, failure = _verified_states(case, cpp, tack, kernels)

    def median(run):
        return timing.median_ms(run, **settings)

    row = {"kernel": case.name, "size": case.size, "tack": None, "failure": failure}
    if tack_state is not None and failure is None:

        def run_tack():
            case.run_tack(kernels, tack_state)
            tack.sync()

        row["tack"] = median(run_tack)
    row["numpy"] = median(lambda: case.run_numpy(numpy_state))
    row["cpp"] = median(lambda: case.run_cpp(cpp, cpp_state))
    return row


def _ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b is not None else "-"


def _ms(value):
    return f"{value:.2f}" if value is not None else "-"


def _print_table(rows):
    header = ("kernel", "size", "Tack ms", "NumPy ms", "C++ ms", "Tack/C++", "NumPy/Tack")
    lines = [
        (r["kernel"], r["size"], _ms(r["tack"]), _ms(r["numpy"]), _ms(r["cpp"]),
         _ratio(r["tack"], r["cpp"]), _ratio(r["numpy"], r["tack"]))
        for r in rows
    ]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
    for line in (header, *lines):
        print("  ".join(str(x).ljust(w) if i < 2 else str(x).rjust(w)
                        for i, (x, w) in enumerate(zip(line, widths))))


def _print_machine(tack, tack_note):
    print(f"machine: {platform.machine()}, {os.cpu_count()} logical CPUs, {platform.system()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"NumPy {np.__version__}; {native.compiler_version()}")
    if tack is None:
        print(f"Tack: not importable, its columns are empty ({tack_note})")
    else:
        print(f"Tack {getattr(tack, '__version__', '(unknown version)')}")
    print()


def _print_overhead(tack, kernels, quick):
    cold = tack_overhead.cold_compile_ms(tack)
    launch = tack_overhead.launch_us(tack, kernels.saxpy, calls=1000 if quick else 5000)
    instance = tack_overhead.instance_launch_us(tack, kernels.SaxpyPair, calls=1000 if quick else 5000)
    print(f"\nTack saxpy cold compile (first call minus a cached call): {cold:.1f} ms")
    print(f"Tack saxpy cached launch, n=1 (median call from Python): {launch:.2f} us")
    print(f"  the same through a device-class instance: {instance:.2f} us ({instance / launch:.1f}x)")


def run_kernels(quick):
    tack, kernels_or_note = _load_tack()
    kernels = kernels_or_note if tack is not None else None
    _print_machine(tack, kernels_or_note)
    cpp = native.NativeKernels()
    settings = {"repeats": 5, "budget_s": 0.5} if quick else {"repeats": 10, "budget_s": 3.0}
    rows = []
    for case in cases.all_cases(quick):
        rows.append(_measure_case(case, cpp, tack, kernels, settings))
    _print_table(rows)
    failures = [r for r in rows if r["failure"]]
    for r in failures:
        print(f"\n{r['kernel']}: Tack not timed: {r['failure']}")
    if tack is not None:
        _print_overhead(tack, kernels, quick)
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats")
    parser.add_argument("--parallel-runtime", action="store_true",
                        help="compare OpenMP and oneTBB launch overhead and scaling instead")
    args = parser.parse_args()
    if args.parallel_runtime:
        parallel_runtime.main()
        return 0
    return run_kernels(args.quick)


if __name__ == "__main__":
    sys.exit(main())
