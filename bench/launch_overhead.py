"""What one launch costs on each device: a cached call of a kernel over one
element (the fixed cost: packing, the count entry, the launch) and over a
million (saxpy), timed per call in one process, with the CPU measured in
the same run as the baseline.

    python bench/launch_overhead.py [--calls N] [--devices cpu,opencl]

The one-element call is also timed with keyword arguments, which reorder
the arguments before the positional path.

An OpenCL launch queues its body on the in-order queue and returns; saxpy's
range(len(x)) lets the host work out the count itself, so a launch is the
body alone (src/backends/gpu/host_count.h; so would `n = len(x)` before
the loop). saxpy_counted, the same kernel with its length chosen by a
conditional expression before its loop, which the host does not follow,
runs its count entry first on a GPU backend (on a second queue, since it
reads no array) and waits for it: the last rows compare the two in one
run. "call + sync" waits for each call's work; "queued" is 30 calls and
one tack.sync(), per call, which is what a loop of launches without host
reads costs. The times include making the arrays current on the device,
which after the first call is nothing.
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


# The same with a conditional expression before its loop, which the host
# does not follow: on a GPU backend its count comes from the count entry on
# the device, not from the host.
@tack.kernel
def saxpy_counted(alpha, x, y):
    n = len(x) if len(x) <= len(y) else len(y)
    for i in range(n):
        y[i] = alpha * x[i] + y[i]


def arrays(device, n, kernel=saxpy):
    x = tack.array(np.arange(n, dtype=np.float32), device=device)
    y = tack.ones(n, device=device)
    kernel(2.0, x, y)  # compiles
    tack.sync()
    return x, y


def measure(device, n, calls, keywords=False, kernel=saxpy):
    x, y = arrays(device, n, kernel)

    def call_and_sync():
        kernel(2.0, x, y)
        tack.sync()

    def keyword_call_and_sync():
        saxpy(2.0, y=y, x=x)
        tack.sync()

    if keywords:
        call_and_sync = keyword_call_and_sync

    if n > 1:
        return timing.median_ms(call_and_sync, repeats=calls, budget_s=5.0) * 1e3
    return timing.median_us_per_call(call_and_sync, calls=calls)


def measure_queued(device, n, calls=30, kernel=saxpy):
    x, y = arrays(device, n, kernel)

    def queued():
        for _ in range(calls):
            kernel(2.0, x, y)
        tack.sync()

    return timing.median_ms(queued, repeats=5, budget_s=5.0) * 1e3 / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--devices", default=",".join(tack.available_devices()))
    args = parser.parse_args()
    devices = args.devices.split(",")
    for n, label in ((1, "one element"), (1 << 20, "2^20 elements")):
        times = {d: measure(d, n, args.calls if n == 1 else 30) for d in devices}
        base = times[devices[0]]
        print(f"saxpy, {label}, median per call + sync")
        for d in devices:
            print(f"  {d:>8}: {times[d]:10.1f} us   {times[d] / base:6.2f}x {devices[0]}")
        if n == 1:
            keyword = {d: measure(d, n, args.calls, keywords=True) for d in devices}
            print(f"saxpy, {label}, keyword arguments (saxpy(2.0, y=y, x=x)), median per call + sync")
            for d in devices:
                print(f"  {d:>8}: {keyword[d]:10.1f} us   {keyword[d] / times[d]:6.2f}x positional")
        queued = {d: measure_queued(d, n) for d in devices}
        print(f"saxpy, {label}, 30 calls queued then one sync, per call")
        for d in devices:
            print(f"  {d:>8}: {queued[d]:10.1f} us   {queued[d] / base:6.2f}x {devices[0]} call + sync   "
                  f"{queued[d] / times[d]:6.2f}x own call + sync")
        if n == 1:
            counted = {d: measure(d, n, args.calls, kernel=saxpy_counted) for d in devices}
            counted_queued = {d: measure_queued(d, n, kernel=saxpy_counted) for d in devices}
            print(f"saxpy_counted (n = a conditional expression before the loop: a GPU backend runs the count "
                  f"entry), {label}, "
                  "per call + sync / 30 queued, per call")
            for d in devices:
                print(f"  {d:>8}: {counted[d]:10.1f} us   {counted[d] / times[d]:6.2f}x saxpy   "
                      f"{counted_queued[d]:10.1f} us   {counted_queued[d] / queued[d]:6.2f}x saxpy queued")


if __name__ == "__main__":
    main()
