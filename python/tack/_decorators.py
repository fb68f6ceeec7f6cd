"""@tack.kernel and @tack.func."""

import functools
import types

from . import _core
from ._resolver import Resolver
from ._source import capture


class DeviceFunction:
    """A @tack.func: inlined into kernels; callable as plain Python on the host."""

    def __init__(self, fn):
        self.fn = fn
        self._resolver = Resolver(fn)
        # The source is read now, as Python has just compiled it: a file
        # edited later must not change what kernels inline. A function without
        # source still runs on the host; only compiling it fails.
        try:
            self._captured = capture(fn)
        except OSError as e:
            self._captured = e
        functools.update_wrapper(self, fn)

    def __call__(self, *args):
        return self.fn(*args)

    def __get__(self, obj, owner=None):
        # A method of a device class: bound to its instance on the host, as
        # a plain function would be.
        return self if obj is None else types.MethodType(self, obj)

    def _resolution(self):
        if isinstance(self._captured, OSError):
            raise OSError(str(self._captured)) from self._captured.__cause__
        text, filename, first_line, indent = self._captured
        # The closure may gain bindings after decoration; read it afresh.
        self._resolver = Resolver(self.fn)
        return ("func", self.fn.__name__, text, filename, first_line, indent, self._resolver, id(self))

    def __repr__(self):
        return f"<tack.func {self.fn.__qualname__}>"


def func(fn):
    """Declares a device function, inlined where a kernel calls it. In a
    @tack.device_class it is a method (or, under @staticmethod, a function
    the class holds)."""
    if isinstance(fn, staticmethod):
        return staticmethod(DeviceFunction(fn.__func__))
    return DeviceFunction(fn)


def kernel(fn):
    """Declares a kernel: one top-level parallel `for` loop, compiled at its
    first call for the argument types it receives. Its source is read here,
    at decoration."""
    text, filename, first_line, indent = capture(fn)
    k = _core.Kernel(fn.__name__, text, filename, first_line, indent, Resolver(fn))
    return k
