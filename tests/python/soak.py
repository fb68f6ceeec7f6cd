"""The soak command's loop, shared by the generated-program suites
(tests/python/differential, tests/python/typed_expressions)."""

import sys
import time


def soak(run, stop_after, items="programs", problems="mismatches"):
    """Calls run(on_batch), which runs batches of programs and reports each
    batch's seeds and mismatches to on_batch; prints every mismatch and the
    progress each 1000 programs, and stops after `stop_after` mismatches.
    Returns the exit status: 1 if anything mismatched. `items` and
    `problems` name the programs and the mismatches in the progress lines."""
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
        if len(found) >= stop_after:
            raise KeyboardInterrupt

    try:
        run(progress)
    except KeyboardInterrupt:
        print(f"stopped after {len(found)} {problems}", file=sys.stderr)
    print(f"{done} {items}, {len(found)} {problems}, {time.time() - started:.0f}s", file=sys.stderr)
    return 1 if found else 0
