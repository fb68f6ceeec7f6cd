"""The child process of runner.py: runs the host calls of the seeds on its
command line, printing one JSON line as each call begins, one for each
finding and one as each seed ends.

    python -m host_calls.child CALLS_PER_SEED SEED...
"""

import json
import re
import sys
import warnings

import numpy as np

import tack

from .calls import calls

# What Python's own functions raise for arguments they refuse (NumPy
# included: MemoryError for an array too large, ZeroDivisionError for
# arange's zero step). tack's diagnostics derive from these.
REFUSALS = (TypeError, ValueError, IndexError, KeyError, OverflowError, ZeroDivisionError, MemoryError,
            NotImplementedError, BufferError)


def _emit(**record):
    print(json.dumps(record), flush=True)


def _refusal(e):
    """Whether `e` is how a host call may refuse its arguments."""
    if isinstance(e, tack.InternalCompilerError):
        return False
    if isinstance(e, REFUSALS):
        return True
    # A device that does not start (no driver, no such backend), named in
    # its own words or after what needed it ("from_dlpack: the memory is on
    # DLPack device (2, 0), and device 'cuda' is not available: ...").
    return type(e) is RuntimeError and re.search(r"(^|: |, and )device '[^']*' is not available", str(e)) is not None


def _advanced(index):
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (list, bool, np.bool_)) or (isinstance(p, np.ndarray) and p.ndim > 0) for p in parts)


def _index_mismatch(x, index, got, error):
    """What differs between tack's a[index] (`got`, or the exception
    `error`) and NumPy's x[index]; None where they agree."""
    try:
        want = x[index]
    except Exception as e:  # NumPy refuses: so must tack, as an IndexError or TypeError
        if error is None:
            return f"NumPy refuses the index ({type(e).__name__}: {e}); tack gave {got!r}"
        return None if isinstance(error, (IndexError, TypeError, ValueError)) else f"raised {error!r}"
    if error is not None:
        if _advanced(index) and isinstance(error, (IndexError, TypeError)):
            return None  # basic indexing only (docs/arrays.md)
        return f"NumPy gives shape {np.shape(want)}; tack raised {type(error).__name__}: {error}"
    if isinstance(want, np.generic):
        # One element: a Python number (docs/arrays.md), of its value.
        kind = int if want.dtype.kind in "iu" else float
        same = type(got) is kind and (got == want.item() or (kind is float and np.isnan(got) and np.isnan(want)))
        return None if same else f"NumPy gives {want!r}; tack {got!r}"
    have = got.numpy() if isinstance(got, tack.Array) else np.asarray(got)
    want = np.asarray(want)
    if have.shape != want.shape or have.dtype != want.dtype or not np.array_equal(have, want, equal_nan=True):
        return f"NumPy gives {want.dtype} {want.shape} {want.ravel()[:6]}; tack {have.dtype} {have.shape} {have.ravel()[:6]}"
    return None


def run_seed(seed, count, devices, threads):
    tack.set_default_device("cpu")
    tack.set_num_threads(threads)
    tack.set_debug(True)  # kernels' indices are checked: an index past an array is an IndexError
    for k, c in enumerate(calls(seed, count, devices)):
        _emit(kind="begin", seed=seed, call=k, what=c.what)
        got, error = None, None
        try:
            got = c.run()
        except Exception as e:
            error = e
        if c.numpy_index is not None:
            problem = _index_mismatch(*c.numpy_index, got, error)
        elif error is not None:
            problem = None if _refusal(error) else f"{type(error).__name__}: {error}"
        else:
            problem = c.check() if c.check else None
        if problem:
            _emit(kind="finding", seed=seed, call=k, what=c.what, detail=problem)
    _emit(kind="seed done", seed=seed)


def main(argv):
    count, seeds = int(argv[0]), [int(s) for s in argv[1:]]
    devices = [d for d in tack.available_devices() if d in ("cpu", "opencl")]
    threads = tack.get_num_threads()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's casts of the odd values
        for seed in seeds:
            run_seed(seed, count, devices, threads)


if __name__ == "__main__":
    main(sys.argv[1:])
