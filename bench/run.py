"""Tack's performance benchmark.

    python bench/run.py                     four kernels: Tack, NumPy and C++
    python bench/run.py --quick             the same at small sizes, in seconds
    python bench/run.py --parallel-runtime  OpenMP against oneTBB, in C++

Each kernel runs in Tack, in NumPy and as hand-written C++ (bench/cpp/, built
here with g++ -O3 -march=native -fopenmp; n-body and Mandelbrot also with
-ffp-contract=off). Tack runs three ways: as compiled by default ("Tack"), as
its CPU SPMD variant ("SPMD", tack.set_cpu_spmd("always"): the parallel
loop's iterations in SIMD lanes) and forced scalar ("scalar",
set_cpu_spmd(False)); by default, the lanes run where they pay;
those two columns are empty while the switch is missing. n-body and
Mandelbrot also run as hand-vectorized C++ ("C++ lanes",
bench/cpp/*_lanes.cpp: 16 consecutive bodies or pixels in one group of SIMD
lanes, ISPC style).

Every result is checked against NumPy's before anything is timed; besides,
the C++ lanes results must equal the scalar C++'s bit for bit (else the run
stops), and Tack SPMD's Tack scalar's (else a failure is reported). Times
are medians of repeated calls after a warm-up call; data transfers are not
timed. Ratios are time / scalar C++ time, both of the same run. The
targets for the SPMD variant are printed below the tables, not asserted;
the default (Tack) against scalar is judged on one set of arrays with the
two variants called in turn ("alternating"), since the columns' separate
arrays move a memory-bound kernel by tens of percent. Whether the default's
choice between lanes and scalar is right for bodies other than these four:
bench/lanes_choice.py.
"""

import argparse
import contextlib
import os
import platform
import statistics
import sys
import time

import numpy as np

import cases
import native
import parallel_runtime
import tack_overhead
import timing

# Tack's columns: (key, name, the tack.set_cpu_spmd setting or None for the
# compiler's default).
TACK_MODES = (("tack", "Tack", None), ("spmd", "Tack SPMD", "always"), ("scalar", "Tack scalar", False))

# The SPMD variant's targets: (kernel, column, at most this many times the scalar
# C++ time). Besides these, no kernel's SPMD may be more than 5 % slower than
# its scalar variant.
TARGETS = (
    ("nbody_kick", "spmd", 0.15),
    ("mandelbrot", "spmd", 0.45),
    ("saxpy", "spmd", 1.00),
    ("jacobi_step", "spmd", 1.00),
)
SPMD_OVER_SCALAR = 1.05


def _load_tack():
    """(tack, tack_kernels), or (None, reason) when the package is missing."""
    try:
        import tack
        import tack_kernels
    except ImportError as error:
        return None, f"{type(error).__name__}: {error}"
    return tack, tack_kernels


def _spmd_missing(tack):
    """Why the SPMD and scalar columns stay empty, or None when they can run:
    the switch must exist and answer (a Python package newer than its
    compiled core has the function but not the core's entry point)."""
    if tack is None:
        return "Tack is not importable"
    missing = [name for name in ("set_cpu_spmd", "cpu_spmd_enabled") if not hasattr(tack, name)]
    if missing:
        return f"{' and '.join('tack.' + name for name in missing)} missing"
    try:
        tack.set_cpu_spmd(tack.cpu_spmd_enabled())
    except Exception as error:
        return f"tack.set_cpu_spmd unusable ({type(error).__name__}: {error})"
    return None


@contextlib.contextmanager
def _cpu_spmd(tack, on):
    """Compiles and runs with tack.set_cpu_spmd(on) (nothing when on is None),
    restoring the previous setting afterwards."""
    if on is None:
        yield
        return
    before = tack.cpu_spmd_enabled()
    tack.set_cpu_spmd(on)
    try:
        yield
    finally:
        tack.set_cpu_spmd(before)


def _check(case, label, state, want):
    for name in case.outputs:
        ok, detail = case.agree(state[name], want[name])
        if not ok:
            return f"{label} {name} differs from NumPy: {detail}"
    return None


def _bitwise_difference(case, got, want):
    """None when every output in `got` has the bits of its `want`, else how
    many elements differ."""
    for name in case.outputs:
        a, b = np.ascontiguousarray(got[name]), np.ascontiguousarray(want[name])
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{name} is {a.dtype}{a.shape}, not {b.dtype}{b.shape}"
        bits = np.dtype(f"u{a.itemsize}")
        differing = int(np.count_nonzero(a.view(bits) != b.view(bits)))
        if differing:
            return f"{name}: {differing} of {a.size} elements differ"
    return None


def _verified_references(case, cpp):
    """NumPy's, the scalar C++'s and (where it exists) the C++ lanes' states
    after one run each; the C++ agrees with NumPy and the lanes with the
    scalar C++ bit for bit, or the benchmark stops."""
    want = case.fresh_state()
    case.run_numpy(want)
    cpp_state = case.fresh_state()
    case.run_cpp(cpp, cpp_state)
    failure = _check(case, "C++", cpp_state, want)
    if failure:
        raise SystemExit(f"{case.name}: the references disagree: {failure}")
    lanes_state = None
    if case.lanes:
        lanes_state = case.fresh_state()
        case.run_cpp_lanes(cpp, lanes_state)
        difference = _bitwise_difference(case, lanes_state, cpp_state)
        if difference:
            raise SystemExit(f"{case.name}: the C++ lanes result is not the scalar C++'s: {difference}")
    return want, cpp_state, lanes_state


def _verified_tack(case, label, tack, kernels, want):
    """Tack's state after one run on fresh inputs (the warm-up compile), its
    outputs as NumPy arrays, and its failure against NumPy, if any."""
    try:
        tack_state = {k: tack.array(v) for k, v in case.fresh_state().items()}
        case.run_tack(kernels, tack_state)
        tack.sync()
        got = {name: tack_state[name].numpy() for name in case.outputs}
    except Exception as error:  # a compiler under development: report, go on
        return None, None, f"{type(error).__name__}: {error}"
    return tack_state, got, _check(case, label, got, want)


def _measure_tack(case, label, on, tack, kernels, want, median):
    """Tack's time under tack.set_cpu_spmd(on) (the default when on is None),
    its outputs and its failure: (ms, outputs, None) or (None, None, why)."""
    try:
        with _cpu_spmd(tack, on):
            tack_state, got, failure = _verified_tack(case, label, tack, kernels, want)
            if failure:
                return None, None, failure

            def run_tack():
                case.run_tack(kernels, tack_state)
                tack.sync()

            return median(run_tack), got, None
    except Exception as error:  # the switch or a timed call failed
        return None, None, f"{type(error).__name__}: {error}"


def _alternating_ratio(case, tack, kernels, settings):
    """The default's over scalar time on one set of arrays, the two (already compiled)
    variants called in turn, so that the arrays' placement in memory and the
    machine's state are the same for both: the comparison the 5 % target
    reads. The columns above time each variant on arrays of its own, which
    moves a memory-bound kernel by tens of percent."""
    state = {k: tack.array(v) for k, v in case.fresh_state().items()}
    samples = {True: [], False: []}
    for _ in range(settings["repeats"]):
        for on in (True, False):
            with _cpu_spmd(tack, on):
                case.run_tack(kernels, state)  # the variant's first call of this round, untimed
                tack.sync()
                start = time.perf_counter()
                case.run_tack(kernels, state)
                tack.sync()
                samples[on].append(time.perf_counter() - start)
    return statistics.median(samples[True]) / statistics.median(samples[False])


def _measure_case(case, cpp, tack, kernels, spmd_missing, settings):
    numpy_state, cpp_state, lanes_state = _verified_references(case, cpp)

    def median(run):
        return timing.median_ms(run, **settings)

    row = {"kernel": case.name, "size": case.size, "failures": []}
    outputs = {}
    for key, label, on in TACK_MODES:
        row[key] = None
        if tack is None or (on is not None and spmd_missing):
            continue
        row[key], got, failure = _measure_tack(case, label, on, tack, kernels, numpy_state, median)
        if failure:
            row["failures"].append(f"{label} not timed: {failure}")
        elif on is not None:
            outputs[key] = got
    row["alternating"] = None
    if "spmd" in outputs and "scalar" in outputs:
        difference = _bitwise_difference(case, outputs["spmd"], outputs["scalar"])
        if difference:
            row["failures"].append(f"Tack SPMD is not bit-identical to Tack scalar: {difference}")
        row["alternating"] = _alternating_ratio(case, tack, kernels, settings)
    del outputs
    row["numpy"] = median(lambda: case.run_numpy(numpy_state))
    row["cpp"] = median(lambda: case.run_cpp(cpp, cpp_state))
    row["lanes"] = median(lambda: case.run_cpp_lanes(cpp, lanes_state)) if case.lanes else None
    return row


def _ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b is not None else "-"


def _ms(value):
    return f"{value:.2f}" if value is not None else "-"


def _print_columns(header, lines, left=2):
    widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
    for line in (header, *lines):
        print("  ".join(str(x).ljust(w) if i < left else str(x).rjust(w)
                        for i, (x, w) in enumerate(zip(line, widths))).rstrip())


def _print_table(rows):
    _print_columns(
        ("kernel", "size", "Tack ms", "SPMD ms", "scalar ms", "NumPy ms", "C++ ms", "C++ lanes ms"),
        [(r["kernel"], r["size"], _ms(r["tack"]), _ms(r["spmd"]), _ms(r["scalar"]),
          _ms(r["numpy"]), _ms(r["cpp"]), _ms(r["lanes"])) for r in rows])
    print("\ntime / scalar C++ time, same run (below 1: faster than the C++):")
    _print_columns(
        ("kernel", "Tack/C++", "SPMD/C++", "scalar/C++", "NumPy/C++", "lanes/C++",
         "SPMD/scalar", "NumPy/Tack"),
        [(r["kernel"], _ratio(r["tack"], r["cpp"]), _ratio(r["spmd"], r["cpp"]),
          _ratio(r["scalar"], r["cpp"]), _ratio(r["numpy"], r["cpp"]), _ratio(r["lanes"], r["cpp"]),
          _ratio(r["spmd"], r["scalar"]), _ratio(r["numpy"], r["tack"])) for r in rows],
        left=1)


def _verdict(value, limit):
    if value is None:
        return "-", "not measured"
    return f"{value:.2f}x", "met" if value <= limit else "missed"


def _print_targets(rows, spmd_missing):
    by_kernel = {r["kernel"]: r for r in rows}
    note = " (the SPMD columns are empty, see above)" if spmd_missing else ""
    print(f"\nthe targets for the SPMD variant, printed, not asserted{note}:")
    lines = []
    for kernel, key, limit in TARGETS:
        r = by_kernel.get(kernel)
        value = r[key] / r["cpp"] if r and r[key] is not None else None
        lines.append((f"{kernel} SPMD / scalar C++", f"<= {limit:.2f}x", *_verdict(value, limit)))
    for r in rows:
        lines.append((f"{r['kernel']} Tack / Tack scalar, alternating", f"<= {SPMD_OVER_SCALAR:.2f}x",
                      *_verdict(r["alternating"], SPMD_OVER_SCALAR)))
    widths = [max(len(x) for x in column) for column in zip(*lines)]
    for line in lines:
        print("  " + "  ".join(x.ljust(w) if i in (0, 3) else x.rjust(w)
                               for i, (x, w) in enumerate(zip(line, widths))).rstrip())


def _print_machine(tack, tack_note, spmd_missing, cpp):
    print(f"machine: {platform.machine()}, {os.cpu_count()} logical CPUs, {platform.system()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"NumPy {np.__version__}; {native.compiler_version()}; C++ lanes: groups of 16 in "
          f"vectors of {cpp.lanes_vector_width} f32")
    if tack is None:
        print(f"Tack: not importable, its columns are empty ({tack_note})")
    else:
        print(f"Tack {getattr(tack, '__version__', '(unknown version)')}")
        if spmd_missing:
            print(f"Tack CPU SPMD: {spmd_missing}, so the SPMD and scalar columns are empty")
        else:
            state = {True: "where the lanes pay", False: "off", "always": "always"}[tack.cpu_spmd_enabled()]
            print(f"Tack CPU SPMD: {state} at start, so in the Tack column")
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
    spmd_missing = _spmd_missing(tack)
    cpp = native.NativeKernels()
    _print_machine(tack, kernels_or_note, spmd_missing, cpp)
    settings = {"repeats": 5, "budget_s": 0.5} if quick else {"repeats": 10, "budget_s": 3.0}
    rows = []
    for case in cases.all_cases(quick):
        rows.append(_measure_case(case, cpp, tack, kernels, spmd_missing, settings))
    _print_table(rows)
    _print_targets(rows, spmd_missing)
    failures = [(r["kernel"], failure) for r in rows for failure in r["failures"]]
    for kernel, failure in failures:
        print(f"\n{kernel}: {failure}")
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
