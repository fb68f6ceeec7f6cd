"""Median wall-clock timing shared by every benchmark measurement."""

import statistics
import time


def median_ms(run, *, repeats, budget_s, warmup=1):
    """Median duration of run() in milliseconds, after `warmup` untimed calls.

    Stops after three samples once the samples so far exceed `budget_s`, so
    that a slow implementation cannot stretch the whole run.
    """
    for _ in range(warmup):
        run()
    samples = []
    spent = 0.0
    while len(samples) < repeats and (len(samples) < 3 or spent < budget_s):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
        spent += samples[-1]
    return statistics.median(samples) * 1e3


def median_us_per_call(run, *, calls):
    """Median of `calls` individually timed calls of run(), in microseconds."""
    samples = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        run()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1e3
