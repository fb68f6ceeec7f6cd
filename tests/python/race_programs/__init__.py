"""Random kernels whose iterations touch array elements through parameters
that may share memory (programs.py), and their runner (runner.py): debug
mode's race detector against the exact set of conflicting accesses, and
race-free programs' values against CPython on every backend present."""

from .runner import run_batch

__all__ = ["run_batch"]
