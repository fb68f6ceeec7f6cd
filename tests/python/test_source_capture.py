"""When Tack reads source: @tack.kernel, @tack.func and device-class methods
take their text when the decorator runs, the text Python has just imported.
A file edited afterwards changes nothing in this process, for CPython or for
Tack. (test_disk_cache.py checks that a new process compiles the new text.)
"""

import importlib.util
import os
import sys

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY

MODULE = '''
import tack

@tack.func
def helper(v):
    return v * {factor} + 1.0

@tack.device_class
class Offsets:
    def __init__(self, base):
        self.base = base

    @tack.func
    def at(self, v):
        return v - self.base * {factor}

    @staticmethod
    @tack.func
    def half(v):
        return v / {factor}

@tack.kernel
def combined(o, x, out):
{body}

def combined_py(o, x, out):  # the same body, for CPython
{body}
'''

BODY = """\
    for i in range(len(out)):
        out[i] = helper(x[i]) + o.at(x[i]) + Offsets.half(x[i]) + {factor}"""


def module_text(factor):
    return MODULE.format(body=BODY.format(factor=factor), factor=factor)


def test_a_file_edited_after_import_runs_the_imported_code(backend, tmp_path):
    path = tmp_path / "captured_kernels.py"
    path.write_text(module_text(2.0))
    spec = importlib.util.spec_from_file_location("captured_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["captured_kernels"] = mod
    try:
        spec.loader.exec_module(mod)
        # Edited before the first compile, with a newer mtime so that
        # linecache and inspect would see the new text.
        path.write_text(module_text(-8.0))
        before = os.stat(path).st_mtime
        os.utime(path, (before + 10, before + 10))

        x = np.arange(5, dtype=np.float32) * 2 - 3
        o = mod.Offsets(0.5)
        out = tack.zeros(5, dtype=tack.f32)
        mod.combined(o, tack.array(x), out)
        expected = np.zeros(5, dtype=np.float32)
        mod.combined_py(o, x, expected)  # the imported code, run by CPython
        np.testing.assert_array_equal(out.numpy(), expected)
    finally:
        sys.modules.pop("captured_kernels", None)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_device_function_without_source_runs_on_the_host_only():
    # exec gives a function inspect cannot read: it is still a Python
    # function; compiling a kernel that calls it says why it cannot.
    namespace = {"tack": tack}
    exec("@tack.func\ndef twice(v):\n    return v * 2\n", namespace)
    twice = namespace["twice"]
    assert twice(21) == 42

    @tack.kernel
    def calls_twice(out):
        for i in range(len(out)):
            out[i] = twice(i)

    with pytest.raises(OSError, match="cannot read the source of 'twice'"):
        calls_twice(tack.zeros(3, dtype=tack.i32))
