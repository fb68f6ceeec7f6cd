"""What one launch costs on each device: a cached call of a kernel over one
element (the fixed cost: packing, the count entry, the launch, the wait)
and over a million (saxpy), timed per call in one process, with the CPU
measured in the same run as the baseline.

    python bench/launch_overhead.py [--calls N] [--devices cpu,opencl]

An OpenCL launch runs three steps on the in-order queue (the count entry,
a read of its result, the body) and reads back a written array only when
the host asks for it; the times include making the arrays current on the
device, which after the first call is nothing.
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
def saxpy(alpha, x, y):
    for i in range(len(x)):
        y[i] = alpha * x[i] + y[i]


def measure(device, n, calls):
    x = tack.array(np.arange(n, dtype=np.float32), device=device)
    y = tack.ones(n, device=device)
    saxpy(2.0, x, y)  # compiles
    if n > 1:
        return timing.median_ms(lambda: saxpy(2.0, x, y), repeats=calls, budget_s=5.0) * 1e3
    return timing.median_us_per_call(lambda: saxpy(2.0, x, y), calls=calls)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--devices", default=",".join(tack.available_devices()))
    args = parser.parse_args()
    devices = args.devices.split(",")
    for n, label in ((1, "one element"), (1 << 20, "2^20 elements")):
        times = {d: measure(d, n, args.calls if n == 1 else 30) for d in devices}
        base = times[devices[0]]
        print(f"saxpy, {label}, median per call")
        for d in devices:
            print(f"  {d:>8}: {times[d]:10.1f} us   {times[d] / base:6.2f}x {devices[0]}")


if __name__ == "__main__":
    main()
