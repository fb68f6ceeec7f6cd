"""@tack.kernel and @tack.func."""

from __future__ import annotations

import functools
import importlib
import pickle
import types
from typing import Any, Callable, overload

from . import _core
from ._resolver import Resolver
from ._source import capture


def _python_function(fn, decorator):
    """`fn`, a Python function (a `def`), or the TypeError that says what
    `decorator` was given instead."""
    if isinstance(fn, types.FunctionType):
        return fn
    if isinstance(fn, (_core.Kernel, DeviceFunction)):
        what = "a @tack.kernel" if isinstance(fn, _core.Kernel) else "a @tack.func"
        raise TypeError(f"@tack.{decorator} decorates a function, and {fn.__name__!r} is {what} already")
    if isinstance(fn, type):
        raise TypeError(f"@tack.{decorator} decorates a function, not the class {fn.__qualname__!r} "
                        "(@tack.device_class declares a class kernels take)")
    raise TypeError(f"@tack.{decorator} decorates a function written with def, not {fn!r} ({type(fn).__name__})")


class DeviceFunction:
    """A @tack.func: inlined into kernels; callable as plain Python on the host."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = _python_function(fn, "func")
        self._resolver = Resolver(fn)
        # The source is read now, as Python has just compiled it: a file
        # edited later must not change what kernels inline. A function without
        # source still runs on the host; only compiling it fails.
        try:
            self._captured = capture(fn)
        except OSError as e:
            self._captured = e
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any) -> Any:
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


@overload
def func(fn: staticmethod[Any, Any]) -> staticmethod[Any, Any]: ...  # type: ignore[overload-overlap]
@overload
def func(fn: Callable[..., Any]) -> DeviceFunction: ...


def func(fn: Any) -> Any:
    """Declares a device function, inlined where a kernel calls it. In a
    @tack.device_class it is a method (or, under @staticmethod, a function
    the class holds)."""
    if isinstance(fn, staticmethod):
        return staticmethod(DeviceFunction(fn.__func__))
    return DeviceFunction(fn)


def kernel(fn: Callable[..., Any]) -> _core.Kernel:
    """Declares a kernel: one top-level parallel `for` loop, compiled at its
    first call for the argument types it receives. Its source is read here,
    at decoration."""
    fn = _python_function(fn, "kernel")
    text, filename, first_line, indent = capture(fn)
    k = _core.Kernel(fn.__name__, text, filename, first_line, indent, Resolver(fn))
    # As functools.wraps would: __module__, __name__, __qualname__, __doc__,
    # the function's __dict__ and __wrapped__, which inspect.signature and
    # help() follow to the Python function's parameters.
    functools.update_wrapper(k, fn)
    return k


def _find_kernel(module, qualname):
    """The kernel named `qualname` in `module`, imported if need be: how a
    pickled kernel is found again (in a multiprocessing worker, say)."""
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _reduce_kernel(k):
    # A kernel pickles as a reference, as Python functions do: the
    # unpickling process imports its module and compiles it there.
    module = k.__dict__.get("__module__")
    qualname = k.__dict__.get("__qualname__")
    if not module or not qualname or "<locals>" in qualname:
        raise pickle.PicklingError(
            f"cannot pickle kernel '{k.name}': only a kernel defined at the top level of a module (or in a class "
            f"there) pickles, by its module and qualified name; this one is {qualname or 'not made by @tack.kernel'}"
        )
    try:
        found = _find_kernel(module, qualname)
    except (ImportError, AttributeError) as e:
        raise pickle.PicklingError(f"cannot pickle kernel '{k.name}': {module}.{qualname} is not found ({e})") from e
    if found is not k:
        raise pickle.PicklingError(
            f"cannot pickle kernel '{k.name}': {module}.{qualname} is another object now; the name was rebound"
        )
    return _find_kernel, (module, qualname)


setattr(_core.Kernel, "__reduce__", _reduce_kernel)
