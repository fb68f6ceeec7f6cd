"""Kernels and worker functions a spawned multiprocessing worker imports by
name (test_pickling.py): a pickled kernel is a reference to them."""

import numpy as np
import tack


@tack.kernel
def scale_and_shift(a, scale, shift):
    for i in range(len(a)):
        a[i] = a[i] * scale + shift


class Holder:
    @tack.kernel
    def negate(a):
        for i in range(len(a)):
            a[i] = -a[i]


def run(kernel, array, *scalars):
    """In the worker: runs the kernel it was sent on the array it was sent
    and returns the array, which travels back pickled; also says which
    process did it."""
    kernel(array, *scalars)
    import os
    return array, os.getpid()


def run_on_numpy(kernel, values):
    kernel(values)
    return values, np.asarray(values).dtype.name
