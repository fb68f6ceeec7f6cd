"""Builds and runs bench/parallel_runtime.cpp once per runtime and prints
OpenMP and oneTBB side by side."""

import os
import subprocess

from native import BENCH_DIR, OUT_DIR, compile_cpp

RUNTIMES = ("omp", "tbb")

# (key printed by the program, label, unit)
_LAUNCH_ROWS = [
    ("launch_median_us", "empty loop, 2 chunks, back to back: median", "us"),
    ("launch_p90_us", "empty loop, 2 chunks, back to back: p90", "us"),
    ("launch_two_threads_pct", "  launches whose 2 chunks ran on 2 threads", "%"),
    ("idle_launch_median_us", "empty loop, 2 chunks, after 1 ms idle: median", "us"),
    ("idle_launch_two_threads_pct", "  launches whose 2 chunks ran on 2 threads", "%"),
    ("small_loop_median_us", "2 chunks of ~5 us work: median", "us"),
    ("small_loop_serial_us", "  same work on the calling thread alone", "us"),
    ("small_loop_two_threads_pct", "  launches whose 2 chunks ran on 2 threads", "%"),
]


def _measure(binary, runtime):
    out = subprocess.run([str(binary), runtime], capture_output=True, text=True, check=True)
    pairs = (line.split(" ", 1) for line in out.stdout.splitlines() if line)
    return {key: value for key, value in pairs}


def _thread_counts(results):
    keys = results[RUNTIMES[0]]
    return sorted(int(k.rsplit("_", 1)[1]) for k in keys if k.startswith("memory_ms_"))


def _print_scaling(results, kind, label):
    counts = _thread_counts(results)
    print(f"\n{label}")
    print(f"{'threads':>8}" + "".join(f"{r + ' ms':>12}{r + ' speedup':>14}" for r in RUNTIMES))
    for threads in counts:
        row = f"{threads:>8}"
        for runtime in RUNTIMES:
            one = float(results[runtime][f"{kind}_ms_1"])
            ms = float(results[runtime][f"{kind}_ms_{threads}"])
            row += f"{ms:>12.2f}{one / ms:>14.2f}"
        print(row)


def main():
    source = BENCH_DIR / "parallel_runtime.cpp"
    binary = compile_cpp(source, OUT_DIR / "parallel_runtime", libs=["-ltbb"])
    # Other processes on the cores distort every figure below, OpenMP's most.
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} logical CPUs")
    results = {runtime: _measure(binary, runtime) for runtime in RUNTIMES}
    for runtime in RUNTIMES:
        print(f"{runtime}: {results[runtime]['version']}, {results[runtime]['threads']} threads")
    print(f"\n{'launch overhead':<50}" + "".join(f"{r:>10}" for r in RUNTIMES))
    for key, label, unit in _LAUNCH_ROWS:
        values = "".join(f"{float(results[r][key]):>10.2f}" for r in RUNTIMES)
        print(f"{label + ' (' + unit + ')':<50}{values}")
    _print_scaling(results, "memory", "memory-bound: a[i] = b[i] + 3 c[i], 3 x 128 MiB float32")
    _print_scaling(results, "compute", "compute-bound: 256 dependent polynomial steps per element, 2^18 elements")
