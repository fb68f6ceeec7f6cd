"""tack.set_num_threads / get_num_threads and TACK_NUM_THREADS: how many
threads the CPU backend's launches run on. Results do not depend on it (the
oracle is NumPy), and a long launch really runs on that many threads (the
runtime counts the threads that ran a part of the last launch)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tack

import calibration


@tack.kernel
def busy(a, reps):
    for i in range(len(a)):
        x = a[i]
        for k in range(reps):
            x = x * 0.999 + 0.5
        a[i] = x


@tack.kernel
def squares(a):
    for i in range(len(a)):
        a[i] = i * i


@pytest.fixture
def restore_threads():
    before = tack.get_num_threads()
    yield
    tack.set_num_threads(before)


def expected_busy(n, reps):
    x = np.zeros(n, dtype=np.float32)
    for _ in range(reps):
        x = x * np.float32(0.999) + np.float32(0.5)
    return x


def run_python(code, **env):
    """`code` in a fresh interpreter importing this tack, with `env` set
    (a None value unsets the variable)."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tack.__file__)))
    environment = dict(os.environ, PYTHONPATH=package_root)
    for name, value in env.items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True)


def test_default_is_every_core_the_process_may_use():
    # In a process of its own, without TACK_NUM_THREADS whatever this run sets.
    r = run_python("import tack; print(tack.get_num_threads())", TACK_NUM_THREADS=None)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split()[0]) == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_results_do_not_depend_on_the_thread_count(restore_threads, threads):
    tack.set_num_threads(threads)
    assert tack.get_num_threads() == threads
    a = tack.zeros(100_000, dtype=tack.i64)
    squares(a)
    np.testing.assert_array_equal(a.numpy(), np.arange(100_000, dtype=np.int64) ** 2)
    b = tack.zeros(3000)
    busy(b, 50)
    np.testing.assert_array_equal(b.numpy(), expected_busy(3000, 50))
    assert tack.array(np.arange(1_000_000, dtype=np.int64)).sum() == float(sum(range(1_000_000)))


def reps_for(seconds, n):
    a = tack.zeros(n)
    return calibration.reps_for(lambda reps: busy(a, reps), seconds)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_long_launch_runs_on_that_many_threads(restore_threads, threads):
    n = 4096
    tack.set_num_threads(threads)
    reps = reps_for(0.6, n)
    a = tack.zeros(n)
    busy(a, reps)
    used = tack._core._last_launch_threads()
    # Never more than asked; and a launch of more than half a second,
    # divided into chunks of milliseconds, gives every thread a part.
    assert used == threads, used


@pytest.mark.parametrize("bad", [0, -1])
def test_fewer_than_one_thread_is_refused(restore_threads, bad):
    with pytest.raises(ValueError, match=f"at least 1 thread, not {bad}"):
        tack.set_num_threads(bad)
    with pytest.raises(TypeError, match="integer"):
        tack.set_num_threads(2.0)


def test_more_threads_than_a_process_can_hold_are_refused(restore_threads):
    most = max(1024, 8 * (os.cpu_count() or 1))
    before = tack.get_num_threads()
    for bad in (most + 1, 2**31, 2**64):
        with pytest.raises(ValueError, match=f"at most {most} threads, not {bad}"):
            tack.set_num_threads(bad)
    assert tack.get_num_threads() == before


def test_the_environment_variable_sets_it_at_import():
    r = run_python(
        "import tack\n"
        "print(tack.get_num_threads())\n",
        TACK_NUM_THREADS="3",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "3"


@pytest.mark.parametrize("bad", ["0", "two", "-4"])
def test_a_bad_environment_variable_fails_the_import(bad):
    r = run_python("import tack", TACK_NUM_THREADS=bad)
    assert r.returncode != 0
    assert f"TACK_NUM_THREADS={bad!r}" in r.stderr and "at least 1" in r.stderr


def test_float_sums_do_not_depend_on_the_thread_count(restore_threads):
    values = np.random.default_rng(7).standard_normal(3_000_001).astype(np.float32)
    a = tack.array(values)
    exact = float(np.sum(values, dtype=np.float64))
    sums = []
    for threads in (1, 2, 3, 7):
        tack.set_num_threads(threads)
        sums.append(a.sum())
    # The same grouping at every count: the same rounding, bit for bit.
    assert len(set(sums)) == 1, sums
    # And a sum (f32 accumulation, error well inside n * u * sum|x|).
    assert abs(sums[0] - exact) <= len(values) * 2.0**-24 * float(np.sum(np.abs(values), dtype=np.float64))


@pytest.mark.parametrize("threads", [1, 3])
def test_python_threads_launch_together_under_a_thread_count(restore_threads, threads):
    import threading

    tack.set_num_threads(threads)
    arrays = [tack.zeros(20_000) for _ in range(4)]
    errors = []

    def launch(a):
        try:
            for _ in range(5):
                busy(a, 20)
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    workers = [threading.Thread(target=launch, args=(a,)) for a in arrays]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    expected = np.zeros(20_000, dtype=np.float32)
    for _ in range(5):
        for _ in range(20):
            expected = expected * np.float32(0.999) + np.float32(0.5)
    for a in arrays:
        np.testing.assert_array_equal(a.numpy(), expected)
