"""Fixtures shared by the Python suites."""

import atexit
import os
import shutil
import tempfile
from collections import defaultdict

# The suites compile thousands of kernels: keep their disk-cache entries out
# of the user's cache, and start every run cold, in a folder made for the
# run and removed when the process that made it ends (pytest-xdist's
# workers inherit the controller's).
if not os.environ.get("TACK_CACHE_DIR"):
    os.environ["TACK_CACHE_DIR"] = tempfile.mkdtemp(prefix="tack-test-cache-")
    atexit.register(shutil.rmtree, os.environ["TACK_CACHE_DIR"], ignore_errors=True)

import pytest  # noqa: E402
import tack  # noqa: E402
from device_share import all_cases, spread  # noqa: E402


def _backend_names():
    """The CPU, then every other device that tack reports on this machine."""
    names = ["cpu"]
    for name in tack.available_devices():
        if name not in names:
            names.append(name)
    return names


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "cpu_only(reason): the case runs on the CPU backend only, for the reason given "
        "(a CPU specialization, or an oracle that assumes the CPU's in-order chunks)",
    )
    config.addinivalue_line(
        "markers",
        "device_cases(n): on a device backend, n of the test's parametrizations run, spread evenly "
        "(TACK_DEVICE_CASES=all runs all of them)",
    )


# A test marked device_cases(n) runs at most n of its parametrizations on
# each device backend, spread evenly over them, and every one on the CPU
# (device_share.py); TACK_DEVICE_CASES=all runs them all everywhere.
def pytest_collection_modifyitems(config, items):
    if all_cases():
        return
    groups = defaultdict(list)
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        device = params.get("backend")
        marker = item.get_closest_marker("device_cases")
        if marker and device not in (None, "cpu"):
            groups[(item.module.__name__, item.originalname, device, marker.args[0])].append(item)
    dropped = set()
    for (_, _, _, keep), group in groups.items():
        chosen = spread(len(group), keep)
        dropped.update(id(item) for at, item in enumerate(group) if at not in chosen)
    if dropped:
        config.hook.pytest_deselected(items=[i for i in items if id(i) in dropped])
        items[:] = [i for i in items if id(i) not in dropped]


@pytest.fixture(params=_backend_names())
def backend(request):
    """Runs a test once per available backend, with that backend as the
    default device; test ids carry its name, so `-k cuda` selects its cases."""
    tack.set_default_device(request.param)
    yield request.param
    tack.set_default_device("cpu")


# A build without LLVM (scripts/device-check.sh's on a GPU machine that has
# no LLVM development files) has no CPU backend. A test that needs it there
# (the CPU as a GPU case's oracle, a kernel compiled for host arrays) is
# reported skipped with that reason, not failed: only this exact message,
# which Tack gives nowhere else, turns a failure into a skip, so a build
# with LLVM never skips this way.
_NO_CPU_BACKEND = "this build of Tack has no CPU backend (it was built without LLVM)"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None and _NO_CPU_BACKEND in str(call.excinfo.value):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, "Skipped: needs the CPU backend: " + _NO_CPU_BACKEND)
