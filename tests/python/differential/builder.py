"""Writes generated programs into two importable modules.

Tack compiles kernels from their source text (inspect.getsource), so each
batch is a real .py file. The same program text is written twice: once under
the real decorators, and once under identity decorators, which leaves plain
Python functions for the CPython oracle.
"""

import importlib.util
import sys
from pathlib import Path

TACK_HEADER = "import tack\n\n\n"

PLAIN_HEADER = '''class tack:
    """The plain CPython reading of the same source."""

    @staticmethod
    def func(fn):
        return fn

    @staticmethod
    def kernel(fn):
        return fn


'''


def load_module(path, name):
    """The module at `path`, imported as `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def build(programs, directory, name):
    """(compiled module, plain module) holding every program's helpers and kernel."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    text = "\n\n".join(p.source for p in programs)
    compiled_path = directory / f"{name}_tack.py"
    plain_path = directory / f"{name}_plain.py"
    compiled_path.write_text(TACK_HEADER + text, encoding="utf-8")
    plain_path.write_text(PLAIN_HEADER + text, encoding="utf-8")
    return load_module(compiled_path, f"{name}_tack"), load_module(plain_path, f"{name}_plain")


def unload(name):
    for suffix in ("_tack", "_plain"):
        sys.modules.pop(name + suffix, None)
