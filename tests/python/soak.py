"""The soak command shared by the generated-program suites
(tests/python/differential, typed_expressions, mutations): its arguments,
the seeds in batches, progress and the stop after enough mismatches."""

import argparse
import sys
import time


def arguments(prog, items="programs"):
    """A parser with the soak's arguments (--count, --start, --batch,
    --stop-after); a suite adds its own."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--count", type=int, default=2000, help=f"{items} to run")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--batch", type=int, default=50, help=f"{items} per batch")
    parser.add_argument("--stop-after", type=int, default=20, help="stop after this many mismatches")
    return parser


def run_batches(check, start, count, batch=50, on_batch=None):
    """check(seeds) of consecutive batches of at most `batch` seeds, `count`
    in all from `start`; each batch's seeds and mismatches go to on_batch.
    Returns every mismatch."""
    found = []
    for first in range(start, start + count, batch):
        seeds = list(range(first, min(first + batch, start + count)))
        mismatches = check(seeds)
        found += mismatches
        if on_batch:
            on_batch(seeds, mismatches)
    return found


def soak(check, args, items="programs", problems="mismatches"):
    """Runs check(seeds) over the seeds `args` names (arguments()), printing
    every mismatch and the progress each 1000 programs, and stops after
    args.stop_after mismatches. Returns the exit status: 1 if anything
    mismatched. `items` and `problems` name the programs and the mismatches
    in the progress lines."""
    started = time.time()
    done = 0
    found = []

    def progress(seeds, mismatches):
        nonlocal done
        done += len(seeds)
        for m in mismatches:
            print(m, flush=True)
        found.extend(mismatches)
        if done % 1000 < len(seeds):
            print(f"{done} {items}, {len(found)} {problems}, {time.time() - started:.0f}s", file=sys.stderr)
        if len(found) >= args.stop_after:
            raise KeyboardInterrupt

    try:
        run_batches(check, args.start, args.count, args.batch, progress)
    except KeyboardInterrupt:
        print(f"stopped after {len(found)} {problems}", file=sys.stderr)
    print(f"{done} {items}, {len(found)} {problems}, {time.time() - started:.0f}s", file=sys.stderr)
    return 1 if found else 0
