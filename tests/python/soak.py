"""The soak command's loop, shared by the generated-program suites
(tests/python/differential, tests/python/typed_expressions)."""

import sys
import time


def soak(run, stop_after):
    """Calls run(on_batch), which runs batches of programs and reports each
    batch's seeds and mismatches to on_batch; prints every mismatch and the
    progress each 1000 programs, and stops after `stop_after` mismatches.
    Returns the exit status: 1 if anything mismatched."""
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
            print(f"{done} programs, {len(found)} mismatches, {time.time() - started:.0f}s", file=sys.stderr)
        if len(found) >= stop_after:
            raise KeyboardInterrupt

    try:
        run(progress)
    except KeyboardInterrupt:
        print(f"stopped after {len(found)} mismatches", file=sys.stderr)
    print(f"{done} programs, {len(found)} mismatches, {time.time() - started:.0f}s", file=sys.stderr)
    return 1 if found else 0
