"""@tack.device_class: classes whose instances kernels read as templates.

A kernel, device function or method that receives an instance sees two kinds
of attribute. Class-level numbers and tack.constants (inherited ones too)
are literals compiled into the code; instance attributes that are arrays,
textures, numbers or tuples of numbers are runtime parameters, passed at
each call like ordinary arguments. Methods are @tack.func functions inlined with
`self` bound to the instance; `__getitem__`, `__setitem__` and `__len__`
give `obj[i]`, `obj[i] = v` and `len(obj)`.

At each call an instance is read once into a signature (everything that is
compiled into code: the class itself, its constants by bit pattern, the
names and categories of its attributes, the device functions it holds) and
its leaves (the runtime values, in a fixed order). Equal signatures share
one small integer id, which joins the variant key; the compiler asks for a
signature's description by that id when it lowers a kernel.

This module defines the reading. The bindings (python/bindings/
py_template.cpp) repeat it in C++ for calls, keyed by what it reads, and
come here for the id the first time a key is seen: a change to what counts
here must be made there too.
"""

import operator
import struct
from typing import Any, TypeVar

from . import _dtypes
from ._numpy import is_numpy_number
from ._constants import Constant

_MARK = "__tack_device_class__"


_Class = TypeVar("_Class", bound=type)


def device_class(cls: _Class) -> _Class:
    """Declares a class whose instances kernels and device functions accept.

    Subclasses of a device class are device classes too."""
    if not isinstance(cls, type):
        raise TypeError(f"@tack.device_class decorates a class, not {type(cls).__name__}")
    setattr(cls, _MARK, True)
    return cls


def is_instance(obj):
    """Whether `obj` is an instance of a device class."""
    return getattr(type(obj), _MARK, False) is True


def is_device_class(obj):
    return isinstance(obj, type) and getattr(obj, _MARK, False) is True


MISSING = object()


def class_attribute(cls, name):
    """`cls.name` as the class dictionaries hold it (no descriptors run)."""
    for klass in cls.__mro__:
        members = vars(klass)
        if name in members:
            return members[name]
    return MISSING


# ---- Signatures


def _float_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _is_number(v):
    if isinstance(v, (int, float)):
        return True
    return is_numpy_number(v)


def _constant_entry(value, dtype):
    """A class-level constant in the signature: its value by bit pattern, so
    that -0.0 and 0.0 differ and NaN equals itself."""
    if isinstance(value, float):
        return ("f", _float_bits(value), dtype)
    return ("i", int(value), dtype)


def _class_entry(value):
    """What a class attribute contributes to the signature."""
    if isinstance(value, _DeviceFunction):
        return ("method", value)
    if isinstance(value, staticmethod):
        inner = value.__func__
        if isinstance(inner, _DeviceFunction):
            return ("function", inner)
        return ("other", f"the static method '{getattr(inner, '__qualname__', inner)}' (not a @tack.func)")
    if isinstance(value, Constant):
        dtype = value.dtype.name if value.dtype else None
        if value.shape is not None:
            return ("vector", value.shape, tuple(_constant_entry(x, dtype) for x in value.value))
        return ("constant",) + _constant_entry(value.value, dtype)
    if isinstance(value, (int, float)):
        return ("constant",) + _constant_entry(value, None)
    if isinstance(value, tuple) and value and all(isinstance(x, (int, float)) for x in value):
        return ("constants", tuple(_constant_entry(x, None) for x in value))
    if isinstance(value, _dtypes.DType):
        return ("dtype", value.name)
    if isinstance(value, _Kernel):
        return ("other", f"the kernel '{value.name}' (kernels are launched from the host)")
    return ("other", _describe(value))


# The class-level part of signatures, by class: the class dictionaries along
# the method resolution order as last seen (compared by identity, so a
# rebound attribute, -0.0 for 0.0 say, is seen), and the id of the entries
# they gave. Ids index _class_parts.
_class_cache: dict[Any, Any] = {}
_class_part_ids: dict[Any, int] = {}
_class_parts: list[Any] = []


def _unchanged(seen, now):
    if len(seen) != len(now):
        return False
    for (keys_a, values_a), (keys_b, values_b) in zip(seen, now):
        if keys_a != keys_b or not all(map(operator.is_, values_a, values_b)):
            return False
    return True


def _tack_member(value):
    """Whether a dunder-named class attribute is Tack's (a @tack.func such as
    __getitem__, or a tack.constant) rather than Python's (__init__,
    __module__, __dict__ ...)."""
    if isinstance(value, staticmethod):
        value = value.__func__
    return isinstance(value, (_DeviceFunction, Constant))


def _class_part(cls):
    """The id of the class-level signature entries of `cls`."""
    mro = cls.__mro__
    dicts = tuple((tuple(d), tuple(d.values())) for d in map(vars, mro[:-1]))
    cached = _class_cache.get(cls)
    if cached is not None and cached[0] is mro and _unchanged(cached[1], dicts):
        return cached[2]
    entries = []
    seen = set()
    for klass in mro[:-1]:
        for name, value in vars(klass).items():
            if name in seen or (name.startswith("__") and name.endswith("__") and not _tack_member(value)):
                continue
            seen.add(name)
            entries.append((name,) + _class_entry(value))
    part = (cls, tuple(entries))
    ident = _class_part_ids.get(part)
    if ident is None:
        ident = len(_class_parts)
        _class_part_ids[part] = ident
        _class_parts.append(part)
    _class_cache[cls] = (mro, dicts, ident)
    return ident


def _attributes(obj):
    """An instance's own attributes: its __dict__, then any __slots__."""
    cls = type(obj)
    slots = _slot_names.get(cls)
    if slots is None:
        slots = []
        for klass in cls.__mro__:
            declared = vars(klass).get("__slots__", ())
            for name in (declared,) if isinstance(declared, str) else declared:
                if name not in ("__dict__", "__weakref__") and name not in slots:
                    slots.append(name)
        _slot_names[cls] = slots = tuple(slots)
    items = getattr(obj, "__dict__", _EMPTY).items()
    if not slots:
        return items
    present = [(name, getattr(obj, name, _UNSET)) for name in slots]
    return list(items) + [(name, value) for name, value in present if value is not _UNSET]


def _read(obj, leaves, within=()):
    """The signature of one instance; appends its leaves. `within` holds the
    instances that contain this one, to refuse cycles."""
    sig = [_class_part(type(obj))]
    for name, value in _attributes(obj):
        if isinstance(value, _Storage):  # an array or a texture: its own key word says which
            sig.append((name, "array"))
            leaves.append(value)
        elif _is_number(value):
            sig.append((name, "scalar"))
            leaves.append(value)
        elif isinstance(value, tuple) and value and all(_is_number(x) for x in value):
            sig.append((name, "tuple", len(value)))
            leaves.extend(value)
        elif is_instance(value):
            chain = within + (obj,)
            if any(value is outer for outer in chain):
                raise ValueError(
                    f"a {type(obj).__qualname__} instance reaches itself through its attribute {name!r}; "
                    "kernels take device-class instances that nest without cycles"
                )
            sig.append((name, "object", _read(value, leaves, chain)))
        elif isinstance(value, _DeviceFunction):
            sig.append((name, "function", value))
        else:
            sig.append((name, "other", _describe(value)))
    return tuple(sig)


_slot_names: dict[Any, Any] = {}
_UNSET = object()
_EMPTY: dict[str, Any] = {}

# Signatures seen in this process, and the ids the variant key uses. A
# signature holds its class and device functions, which therefore live as
# long as the process.
_ids: dict[Any, int] = {}
_signatures: list[Any] = []


def flatten(obj):
    """(signature id, leaves) of an instance, for one kernel call."""
    leaves = []
    sig = _read(obj, leaves)
    ident = _ids.get(sig)
    if ident is None:
        ident = len(_signatures)
        _ids[sig] = ident
        _signatures.append(sig)
    return ident, leaves


def _bind_package_types():
    # Names from modules that import this one, bound once they exist.
    global _Storage, _Kernel, _DeviceFunction, _describe
    from ._core import Array, Kernel, Texture3D
    from ._decorators import DeviceFunction
    from ._resolver import describe

    _Storage, _Kernel, _DeviceFunction, _describe = (Array, Texture3D), Kernel, DeviceFunction, describe


# ---- Descriptions for the compiler


def _constant_resolution(entry):
    kind, bits, dtype = entry
    value = struct.unpack("<d", struct.pack("<Q", bits))[0] if kind == "f" else bits
    return ("constant", value, dtype)


def _describe_members(sig, leaf_names, prefix):
    """The members of one instance: (name, kind, ...) tuples the compiler
    reads, instance attributes first, then class attributes in method
    resolution order."""
    cls, class_entries = _class_parts[sig[0]]
    members = []
    own = {entry[0] for entry in sig[1:]}
    class_entries = tuple(e for e in class_entries if e[0] not in own)
    for entry in sig[1:] + class_entries:
        name, kind = entry[0], entry[1]
        if kind in ("array", "scalar"):
            members.append((name, kind, len(leaf_names)))
            leaf_names.append(prefix + name)
        elif kind == "tuple":
            members.append((name, "tuple", len(leaf_names), entry[2]))
            leaf_names.extend(f"{prefix}{name}[{k}]" for k in range(entry[2]))
        elif kind == "object":
            first = len(leaf_names)
            nested = _describe_members(entry[2], leaf_names, prefix + name + ".")
            members.append((name, "object", first, nested))
        elif kind == "method":
            members.append((name, "method", entry[2]._resolution()))
        elif kind == "function":
            members.append((name, "static", entry[2]._resolution()))
        elif kind == "constant":
            members.append((name, "static", _constant_resolution(entry[2:])))
        elif kind == "constants":
            members.append((name, "constants", [_constant_resolution(c) for c in entry[2]]))
        elif kind == "vector":
            parts = [_constant_resolution(c) for c in entry[3]]
            dtype = parts[0][2]
            members.append((name, "static", ("constant", tuple(p[1] for p in parts), dtype, entry[2])))
        elif kind == "dtype":
            members.append((name, "static", ("dtype", entry[2])))
        else:
            members.append((name, "static", ("other", entry[2])))
    return (cls.__qualname__, members)


def _function_content(f):
    name, text, filename, first_line, indent = f._resolution()[1:6]
    return (f.fn.__module__, f.fn.__qualname__, text, filename, first_line, indent)


def _content(sig):
    cls, class_entries = _class_parts[sig[0]]
    mro = tuple(f"{k.__module__}:{k.__qualname__}" for k in cls.__mro__[:-1])
    own = {entry[0] for entry in sig[1:]}
    items = []
    for entry in sig[1:] + tuple(e for e in class_entries if e[0] not in own):
        kind = entry[1]
        if kind == "object":
            items.append(entry[:2] + (_content(entry[2]),))
        elif kind in ("method", "function"):
            items.append(entry[:2] + (_function_content(entry[2]),))
        else:
            items.append(entry)
    return (mro, tuple(items))


def content(ident):
    """A signature as text that is equal across processes exactly when the
    signatures are: classes by module and qualified name along the method
    resolution order, attributes by name and category, constants by bit
    pattern, functions by their source. The names functions resolve are
    recorded and checked by the disk cache itself."""
    return repr(_content(_signatures[ident]))


def describe(ident):
    """(class name, members, leaf names) of a signature id."""
    leaf_names = []
    name, members = _describe_members(_signatures[ident], leaf_names, "")
    return name, members, leaf_names
