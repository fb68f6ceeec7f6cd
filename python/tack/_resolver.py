"""Resolves names in a kernel or device function for the compiler.

Names resolve through the defining function's closure, then its globals,
then Python's builtins; dotted paths follow module dictionaries only (no
properties, no arbitrary attribute evaluation). Each device function carries
its own resolver, so a callee's names resolve in its own module.
"""

import builtins
import importlib
import math
import sys
import types

from . import _builtins, _dtypes, _templates

# Python and math objects the compiler treats as builtins, by identity.
_PYTHON_BUILTINS = {
    builtins.range: "range",
    builtins.len: "len",
    builtins.abs: "abs",
    builtins.min: "min",
    builtins.max: "max",
    builtins.pow: "pow",
    builtins.int: "int",
    builtins.float: "float",
    builtins.print: "print",
    builtins.any: "any",
    builtins.all: "all",
    math.sqrt: "sqrt",
    math.sin: "sin",
    math.cos: "cos",
    math.tan: "tan",
    math.asin: "asin",
    math.acos: "acos",
    math.atan: "atan",
    math.atan2: "atan2",
    math.exp: "exp",
    math.log: "log",
    math.floor: "floor",
    math.ceil: "ceil",
    math.fabs: "fabs",
    math.pow: "fpow",
    builtins.round: "round",
    **{
        getattr(math, name): name
        for name in (
            "tanh sinh cosh asinh acosh atanh log2 log10 exp2 expm1 log1p cbrt hypot copysign fmod trunc erf erfc "
            "isnan isinf isfinite"
        ).split()
        if hasattr(math, name)  # exp2 and cbrt arrived in Python 3.11
    },
}

_MATH_CONSTANTS = {"pi", "e", "tau", "inf", "nan"}

# NumPy's ufuncs for the math builtins (numpy.sqrt, numpy.arcsin), by
# identity; made when a kernel first names one, which it can only do once
# the program has imported NumPy.
_numpy_builtins = None


def _numpy_builtin_name(obj):
    global _numpy_builtins
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    if _numpy_builtins is None:
        _numpy_builtins = {getattr(numpy, n): name for n, name in _builtins.NUMPY_NAMES.items()}
    return _numpy_builtins.get(obj)


def describe(obj):
    if isinstance(obj, types.FunctionType):
        return f"the Python function '{obj.__qualname__}' (not a @tack.func)"
    if isinstance(obj, type):
        return f"the class '{obj.__qualname__}'"
    if isinstance(obj, (int, float, complex, bool)):
        return f"a Python {type(obj).__name__} ({obj!r})"
    return f"a {type(obj).__name__} object"


_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}


class Resolver:
    __slots__ = ("globals", "closure")

    def __init__(self, fn):
        self.globals = fn.__globals__
        self.closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:  # an empty cell: the name is not bound yet
                    pass

    def _lookup(self, name):
        for scope in (self.closure, self.globals, builtins.__dict__):
            if name in scope:
                return True, scope[name]
        return False, None

    def resolve(self, path):
        found, obj = self._lookup(path[0])
        if not found:
            return ("unbound",)
        from ._constants import Constant

        for i, attr in enumerate(path[1:], start=1):
            if isinstance(obj, Constant) and obj.shape is not None and len(obj.shape) == 1 and i == len(path) - 1:
                # A component of a vector constant by name, as v.x is in a kernel.
                k = _COMPONENTS.get(attr)
                if k is None or k >= obj.shape[0]:
                    return ("other", f"a component a {obj.shape[0]}-component vector constant does not have")
                return ("constant", obj.value[k], obj.dtype.name if obj.dtype is not None else None, None)
            if _templates.is_device_class(obj):
                # A device class's own attributes, read from the class
                # dictionaries in method resolution order.
                obj = _templates.class_attribute(obj, attr)
                if obj is _templates.MISSING:
                    return ("unbound",)
                continue
            if not isinstance(obj, types.ModuleType):
                return ("other", f"an attribute of {describe(obj)}")
            if obj is math and attr in _MATH_CONSTANTS:
                return ("constant", getattr(math, attr), None)
            members = vars(obj)
            if attr not in members and attr in members.get("_LAZY_SUBMODULES", ()):
                # A submodule its package loads at first use (tack.random).
                importlib.import_module(f"{obj.__name__}.{attr}")
            if attr not in members:
                return ("unbound",)
            obj = members[attr]
        return self._classify(obj)

    def _classify(self, obj):
        from ._decorators import DeviceFunction  # a cycle at import time otherwise
        from ._constants import Constant

        if isinstance(obj, types.ModuleType):
            return ("module",)
        if isinstance(obj, DeviceFunction):
            return obj._resolution()
        if isinstance(obj, staticmethod) and isinstance(obj.__func__, DeviceFunction):
            return obj.__func__._resolution()
        if isinstance(obj, Constant):
            return ("constant", obj.value, obj.dtype.name if obj.dtype is not None else None, obj.shape)
        if isinstance(obj, _dtypes.DType):
            return ("dtype", obj.name)
        try:
            name = _PYTHON_BUILTINS.get(obj) or _builtins.BUILTIN_NAMES.get(obj) or _numpy_builtin_name(obj)
        except TypeError:  # unhashable
            name = None
        if name:
            return ("builtin", name)
        return ("other", describe(obj))
