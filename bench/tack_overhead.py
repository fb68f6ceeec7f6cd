"""Tack's fixed costs: compiling a kernel the first time it is called, and
launching an already compiled one from Python."""

import importlib.util
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import numpy as np

import timing

# The kernel of bench/tack_kernels.py, under a name filled in per process.
_SAXPY_SOURCE = textwrap.dedent(
    """
    import tack

    @tack.kernel
    def {name}(alpha, x, y):
        for i in range(len(x)):
            y[i] = alpha * x[i] + y[i]
    """
)


def _fresh_saxpy(directory):
    """A saxpy kernel no cache has seen: Tack's disk cache keys kernels by
    their source text, so the kernel gets a name unique to this call."""
    name = f"saxpy_{uuid.uuid4().hex[:12]}"
    path = Path(directory) / f"{name}.py"
    path.write_text(_SAXPY_SOURCE.format(name=name))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def cold_compile_ms(tack, n=1024):
    """First call of a freshly defined saxpy minus the median cached call."""
    x = tack.array(np.arange(n, dtype=np.float32))
    y = tack.zeros(n, dtype=tack.f32)
    with tempfile.TemporaryDirectory(prefix="tack-bench-") as directory:
        kernel = _fresh_saxpy(directory)
        start = time.perf_counter()
        kernel(2.0, x, y)
        tack.sync()
        first_ms = (time.perf_counter() - start) * 1e3
        cached_ms = timing.median_ms(lambda: (kernel(2.0, x, y), tack.sync()), repeats=50, budget_s=1.0)
    return first_ms - cached_ms


def instance_launch_us(tack, pair_class, calls):
    """As launch_us, with the operands in a device-class instance: the
    instance is read into its signature and leaves at every call."""
    pair = pair_class(2.0, tack.array(np.ones(1, dtype=np.float32)), tack.zeros(1, dtype=tack.f32))
    pair.saxpy()
    tack.sync()
    return timing.median_us_per_call(pair.saxpy, calls=calls)


def launch_us(tack, kernel, calls):
    """Median time of one cached saxpy call with n=1, until the call returns
    (on the CPU the kernel has run by then)."""
    x = tack.array(np.ones(1, dtype=np.float32))
    y = tack.zeros(1, dtype=tack.f32)
    kernel(2.0, x, y)
    tack.sync()
    return timing.median_us_per_call(lambda: kernel(2.0, x, y), calls=calls)
