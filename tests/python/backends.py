"""What each backend supports, as the contract states it, for tests that
expect a rejection where a backend's domain ends."""

import contextlib

import numpy as np
import pytest
import tack

# "Atomic array updates": the element types each backend's atomics cover.
_ALL = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                              np.float32, np.float64)}
ATOMIC_DTYPES = {
    "cpu": _ALL,
    "cuda": {np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64)},
    "hip": {np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64)},
    "metal": {np.dtype(t) for t in (np.int32, np.uint32, np.float32)},
    "opencl": {np.dtype(t) for t in (np.int32, np.uint32, np.float32)},
}


# "Workgroups and synchronization": which backends run shared memory,
# barriers, thread indices and block reductions.
WORKGROUPS = {"cpu": False, "opencl": True, "cuda": True, "hip": True, "metal": True}


def atomics_cover(backend, dtype):
    return np.dtype(dtype) in ATOMIC_DTYPES[backend]


@contextlib.contextmanager
def atomic_domain(backend, dtype):
    """Runs the block; where `backend`'s atomics do not cover `dtype`, the
    block must instead be refused before it runs, with a KernelTypeError
    naming the target and the types it covers (and the test ends there)."""
    if atomics_cover(backend, dtype):
        yield True
        return
    with pytest.raises(tack.KernelTypeError, match=rf"is not supported by the {backend} target: its atomics cover"):
        yield False


def counter_dtype(backend):
    """The widest signed integer `backend`'s atomics cover, for counters
    whose counts stay small."""
    return tack.i64 if atomics_cover(backend, np.int64) else tack.i32


# The reason for cpu_only on a case that checks a diagnostic the frontend
# raises before any backend is involved: it launches nothing, so another
# backend would repeat the same check.
FRONTEND_ONLY = "a frontend diagnostic; no backend runs"

# The reason for cpu_only on a case whose arrays come from NumPy through
# tack.from_dlpack or tack.array_from_ptr: views of host memory, which are
# CPU arrays by definition.
IMPORTED_HOST_MEMORY = "arrays imported from host memory (from_dlpack, array_from_ptr) are CPU arrays by definition"

# The reason for cpu_only on a case that reads kernel.inspect("llvm"): the
# LLVM IR is the CPU backend's code.
LLVM_INSPECTION = 'inspect("llvm") shows the CPU backend\'s LLVM IR'
