"""NumPy, loaded at its first use rather than with `import tack`.

Importing NumPy costs more than the rest of Tack together (about 45 ms of a
cold `import tack`), and a program that only launches kernels on Tack
arrays never needs it. Modules write `np.asarray(...)` as usual through
`np`, a stand-in that imports NumPy the first time one of its attributes
is read (type checkers see NumPy itself):

    if TYPE_CHECKING:
        import numpy as np
    else:
        from ._numpy import np

A test that an object is a NumPy value needs no import: no object can be
one before the process has loaded NumPy (`loaded()`).
"""

import importlib
import sys


class _NumPyOnFirstUse:
    __slots__ = ()

    def __getattr__(self, name):
        return getattr(importlib.import_module("numpy"), name)

    def __repr__(self):
        return "<NumPy, imported at first use>"


np = _NumPyOnFirstUse()


def loaded():
    """NumPy's module where the process has imported it, else None."""
    return sys.modules.get("numpy")


def is_numpy_number(x):
    """True for a NumPy integer or floating scalar (numpy.float32(1), ...)."""
    numpy = loaded()
    return numpy is not None and isinstance(x, numpy.generic) and x.dtype.kind in "iuf"
