"""Sizing a launch to run for a while on this machine, for tests that need
a long launch (threads, interrupts), not for timing anything."""

import time


def reps_for(run, seconds, start=100):
    """The repetition count that makes `run(reps)` take about `seconds`,
    scaled from the first count, growing 4x from `start`, whose run took
    over 50 ms."""
    reps = start
    while True:
        t0 = time.perf_counter()
        run(reps)
        took = time.perf_counter() - t0
        if took > 0.05:
            return int(reps * seconds / took) + 1
        reps *= 4
