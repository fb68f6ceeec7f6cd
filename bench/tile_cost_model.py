"""The matmul tuner's cost model against bounded exhaustive enumeration.

    PYTHONPATH=python python bench/tile_cost_model.py           512^3, 1000x777x333 and 4096x256x16
    PYTHONPATH=python python bench/tile_cost_model.py --quick   256^3 and 200x150x130

For each shape every candidate of the family (python/tack/_tile_tuning.py,
FAMILY: 64 tile sizes, each unpacked, with B packed, with the block rows
in the SIMD lanes and packed with a tiled launch) is compiled, checked bit for bit
against the TileIR interpreter (the tuner's oracle: every candidate must be
legal) and timed (best of three runs after a first, compiling one). The
report compares the model's choices with the fastest candidate measured,
all in this run:

- the model's first-ranked candidate: its time over the fastest's, and its
  rank among the measured times;
- the candidates tuning measures (measured(): the packed forms of the six
  best ranked and the two best unpacked, then the winner's tiled launch):
  the best of their times over the fastest's (the tuner's regret);
- how long measuring the tuner's set took against the whole family.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

import tack  # noqa: E402
from tack import _core, _tile_tuning as tuning  # noqa: E402


def args_of(arrays):
    return [(a, list(a.shape), [s // 4 for s in a.strides], 0, i == len(arrays) - 1) for i, a in enumerate(arrays)]


def enumerate_family(m, k, n):
    r = np.random.default_rng(0)
    a = tack.array(r.standard_normal((m, k)).astype(np.float32))
    b = tack.array(r.standard_normal((k, n)).astype(np.float32))
    oracle = tack.empty((m, n))
    _core.tile_interpret(_core.tile_matmul(*tuning.DEFAULT), args_of([a, b, oracle]))
    want = oracle.numpy().view(np.uint32).copy()
    times, seconds = {}, {}
    for tiles in tuning.FAMILY:
        start = time.perf_counter()
        kernel = tuning._compile(tiles)
        out = tack.empty((m, n))
        out.numpy()[...] = np.nan
        args = args_of([a, b, out])
        kernel.launch(args)
        assert np.array_equal(out.numpy().view(np.uint32), want), f"candidate {tiles} differs from the interpreter"
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            kernel.launch(args)
            best = min(best, time.perf_counter() - t)
        times[tiles] = best * 1e3
        seconds[tiles] = time.perf_counter() - start
    return times, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small shapes")
    shapes = ((256, 256, 256), (200, 150, 130)) if parser.parse_args().quick else ((512, 512, 512), (1000, 777, 333), (4096, 256, 16))
    lanes = tuning.lanes("cpu")
    print(f"cost model: {lanes} lanes, gathered B factor {tuning._GATHERED_B}; family of {len(tuning.FAMILY)}")
    for m, k, n in shapes:
        times, seconds = enumerate_family(m, k, n)
        fastest = min(times, key=times.get)
        by_time = sorted(times, key=times.get)
        klass = tuning.shape_class(m, k, n)
        first = tuning.ranked(tuning.FAMILY, klass, lanes)[0]
        # What tune() measures: the first pass, then its winner's tiled launch.
        chosen = [t for t in tuning.measured(tuning.FAMILY, klass, lanes) if not tuning.launch_tile(t)]
        tiled = min(chosen, key=times.get)[:4] + (0, tuning.LAUNCH_TILE)
        if tiled in times:
            chosen.append(tiled)
        picked = min(chosen, key=times.get)
        name = "x".join
        print(f"{m}x{k}x{n} (class {name(map(str, klass))}): fastest {name(map(str, fastest))} "
              f"{times[fastest]:.2f} ms; all {len(times)} candidates legal")
        print(f"  model's first {name(map(str, first))}: {times[first]:.2f} ms, "
              f"{times[first] / times[fastest]:.2f}x the fastest, rank {by_time.index(first) + 1} of {len(times)}")
        print(f"  tuner's {len(chosen)} measured: best {name(map(str, picked))} {times[picked]:.2f} ms, "
              f"regret {times[picked] / times[fastest]:.2f}x; measuring them took "
              f"{sum(seconds[t] for t in chosen):.1f} s against {sum(seconds.values()):.1f} s for the family")


if __name__ == "__main__":
    main()
