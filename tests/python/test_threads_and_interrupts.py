"""Launches and Python threads: a launch runs without the interpreter lock,
Ctrl-C stops a long launch and leaves the process usable, and concurrent
first calls compile each variant once."""

import os
import signal
import sys
import threading
import time

import numpy as np
import pytest
import tack

import calibration


@tack.kernel
def count_up(a, reps):
    for i in range(len(a)):
        x = 0.0
        for k in range(reps):
            x = x + 1.0
        a[i] = x


def run_count_up(a, reps):
    """count_up, then the wait for it: devices that queue launches return
    before the kernel has run."""
    count_up(a, reps)
    tack.sync()


def reps_for(seconds):
    """Inner repetitions that make count_up over 2,000 elements take about
    `seconds` on this machine."""
    a = tack.zeros(2000, dtype=tack.f32)
    run_count_up(a, 1)
    return calibration.reps_for(lambda reps: run_count_up(a, reps), seconds, start=1000)


def test_other_threads_run_while_a_launch_runs(backend):
    reps = reps_for(0.5)
    a = tack.zeros(2000, dtype=tack.f32)
    stamps, done = [], threading.Event()

    def tick():
        while not done.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.02)
    start = time.perf_counter()
    run_count_up(a, reps)
    end = time.perf_counter()
    done.set()
    ticker.join()
    inside = [t for t in stamps if start < t < end]
    third = (end - start) / 3
    middle = [t for t in inside if start + third < t < end - third]
    # Holding the lock, the ticker could run only in the moments around the
    # call; released, it ticks all through the launch and the wait for it.
    # (A few ticks suffice: on a loaded machine the ticker waits for a core
    # the launch's workers also want.)
    assert len(inside) >= 3 and middle, (len(inside), len(middle), end - start)
    assert (a.numpy() == np.float32(reps)).all()


@pytest.mark.cpu_only("the CPU's thread pool checks for Ctrl-C between chunks; a queued device launch runs to its end")
def test_ctrl_c_stops_a_long_launch_and_the_process_stays_usable():
    # Python runs signal handlers on the main thread, where pytest runs tests.
    assert threading.current_thread() is threading.main_thread()
    reps = reps_for(30.0)  # far longer than the test waits
    a = tack.zeros(2000, dtype=tack.f32)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            count_up(a, reps)
    finally:
        timer.cancel()
    unfinished = int((a.numpy() != np.float32(reps)).sum())
    assert unfinished > 1000, unfinished  # it stopped early, not at the end
    count_up(a, 7)
    assert (a.numpy() == 7).all()


RACING_MODULE = """
import tack


@tack.func
def first(x):
    return x + 1


@tack.func
def second(x):
    return first(x) * 2


@tack.kernel
def racing(a, v):
    for i in range(len(a)):
        a[i] = second(v) + first(v) + i + {round}
"""


def test_concurrent_first_calls_compile_each_variant_once(backend, tmp_path):
    import importlib.util

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as Python can
    try:
        for round in range(6):
            # A fresh kernel text each round (no disk-cache hit); lowering it
            # calls back into Python to resolve names, where other threads
            # get to run and ask for the same variant.
            path = tmp_path / f"racing_{round}.py"
            path.write_text(RACING_MODULE.format(round=round))
            spec = importlib.util.spec_from_file_location(f"racing_{round}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)

            arrays = [tack.zeros(16, dtype=d) for d in (tack.f32, tack.f64, tack.i32, tack.i64)] * 2
            barrier = threading.Barrier(len(arrays))
            errors = []

            def call(a):
                try:
                    barrier.wait()
                    module.racing(a, 3)
                except BaseException as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [threading.Thread(target=call, args=(a,)) for a in arrays]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors
            assert module.racing.compiled_variants == 4  # four signatures
            expected = (3 + 1) * 2 + (3 + 1) + np.arange(16) + round
            for a in arrays:
                np.testing.assert_array_equal(a.numpy(), expected.astype(a.numpy().dtype))
    finally:
        sys.setswitchinterval(old)
