"""Random calls of Tack's host API (tests/python/host_calls): array
creation, host indexing and views, conversions, reductions, kernel calls,
tack.tile's functions and the process settings, with arguments of every
dtype, shape, stride and device, numbers at the ends of their types and
objects that are no number or array. Each call returns or refuses its
arguments as Python's functions do (TypeError, ValueError, IndexError,
OverflowError, MemoryError, ...); none crashes the process or raises
another exception, and a host index selects what NumPy's basic indexing
selects.

    python -m tests.python.host_calls --count 2000 [--start 0]    # soak
    python -m tests.python.host_calls --show SEED                 # one seed's calls
"""

from .runner import CALLS_PER_SEED, Finding, check_batch

__all__ = ["CALLS_PER_SEED", "Finding", "check_batch"]
