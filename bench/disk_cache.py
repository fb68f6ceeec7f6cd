"""The disk cache's payoff: a saxpy kernel's first call in a process that
compiles it, against its first call in a later process that loads the cached
code. Each measurement is one fresh Python process and times the call alone
(not the interpreter's start or `import tack`), as wall time and as the
calling thread's CPU time, which other load on the machine does not inflate.

    python bench/disk_cache.py [--runs N] [--n ELEMENTS] [--device cpu|opencl]

On the CPU a cached entry is an object file the JIT links; on OpenCL it is
the device's program binary (clCreateProgramWithBinary instead of
clBuildProgram). PoCL's own kernel cache (POCL_CACHE_DIR) is a fresh folder
for every process, so only Tack's cache can spare a build.
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
    import json, sys, time
    import numpy as np
    import tack

    @tack.kernel
    def saxpy(alpha, x, y):
        for i in range(len(x)):
            y[i] = alpha * x[i] + y[i]

    n = int(sys.argv[1])
    tack.set_default_device(sys.argv[2])
    x = tack.array(np.arange(n, dtype=np.float32))
    y = tack.ones(n)
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    saxpy(2.0, x, y)
    wall1, cpu1 = time.perf_counter(), time.thread_time()
    assert np.array_equal(y.numpy(), np.float32(2) * np.arange(n, dtype=np.float32) + np.float32(1))
    print(json.dumps({"wall_ms": (wall1 - wall0) * 1e3, "cpu_ms": (cpu1 - cpu0) * 1e3}))
    """
)


def first_call(script, cache, n, device):
    with tempfile.TemporaryDirectory() as pocl_cache:
        env = dict(os.environ, PYTHONPATH=REPO_PYTHON, TACK_CACHE_DIR=str(cache), POCL_CACHE_DIR=pocl_cache)
        env.pop("TACK_DISABLE_DISK_CACHE", None)
        out = subprocess.run([sys.executable, str(script), str(n), device], env=env, check=True, capture_output=True,
                             text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def summary(samples, key):
    values = sorted(s[key] for s in samples)
    return statistics.median(values), values[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="processes per measurement")
    parser.add_argument("--n", type=int, default=1024, help="elements of x and y")
    parser.add_argument("--device", default="cpu", help="the device the kernel runs on (cpu, opencl)")
    args = parser.parse_args()

    # Empty arrays launch nothing, which isolates the cache's own cost from
    # the parallel runtime's start in the process's first launch.
    sizes = [0] + ([args.n] if args.n else [])
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "saxpy_first_call.py"
        script.write_text(_PROGRAM)
        for n in sizes:
            cold, cached = [], []
            for run in range(args.runs):
                cache = Path(tmp) / f"cache{n}-{run}"
                cold.append(first_call(script, cache, n, args.device))  # an empty cache: compiles and stores
                cached.append(first_call(script, cache, n, args.device))  # a second process: loads the entry
            print(f"saxpy on {args.device}, {n} elements, {args.runs} process pairs; first call, median (min)")
            for key, label in (("wall_ms", "wall"), ("cpu_ms", "thread CPU")):
                cold_median, cold_min = summary(cold, key)
                cached_median, cached_min = summary(cached, key)
                print(
                    f"  {label:>10}: cold compile {cold_median:8.2f} ms ({cold_min:.2f})   "
                    f"cached {cached_median:6.2f} ms ({cached_min:.2f})   ratio {cold_median / cached_median:6.1f}x"
                )


if __name__ == "__main__":
    main()
