"""Fixtures shared by the Python suites."""

import os
import tempfile

# The suites compile thousands of kernels: keep their disk-cache entries out
# of the user's cache, and start every run cold.
os.environ.setdefault("TACK_CACHE_DIR", tempfile.mkdtemp(prefix="tack-test-cache-"))

import pytest  # noqa: E402
import tack  # noqa: E402


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


@pytest.fixture(params=_backend_names())
def backend(request):
    """Runs a test once per available backend, with that backend as the
    default device; test ids carry its name, so `-k cuda` selects its cases."""
    tack.set_default_device(request.param)
    yield request.param
    tack.set_default_device("cpu")
