"""Tack: numerical kernels in Python syntax, compiled for every core.

    import numpy as np, tack

    @tack.kernel
    def saxpy(alpha, x, y):
        for i in range(len(x)):
            y[i] = alpha * x[i] + y[i]

    x = tack.array(np.arange(8, dtype=np.float32))
    y = tack.zeros(8)
    saxpy(2.0, x, y)
"""

import importlib as _importlib
import typing as _typing
from typing import Optional as _Optional, Union as _Union

from . import _core
from ._arrays import (
    Array,
    arange,
    array,
    array_from_ptr,
    asarray,
    copyto,
    empty,
    empty_like,
    from_dlpack,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    sync,
    zeros,
    zeros_like,
)
from ._builtins import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    atomic_add,
    atomic_cas,
    atomic_exch,
    atomic_max,
    atomic_min,
    atomic_sub,
    barrier,
    block_max,
    block_min,
    block_sum,
    cbrt,
    ceil,
    clamp,
    copysign,
    cos,
    cosh,
    erf,
    erfc,
    exp,
    exp2,
    expm1,
    floor,
    fmod,
    hypot,
    identity,
    isfinite,
    isinf,
    isnan,
    local_array,
    local_array_like,
    log,
    log10,
    log1p,
    log2,
    mat,
    mat2,
    mat3,
    mat4,
    ndindex,
    round,
    select,
    shared,
    shared_like,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    thread_id,
    trunc,
    vec2,
    vec3,
    vec4,
)
from ._arrays import _device_name
from ._cache import cache_dir, clear_cache
from ._constants import Constant, constant
from ._decorators import DeviceFunction, func, kernel
from . import _templates
from ._templates import device_class
from ._dtypes import DType, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64
from ._element_types import (
    ElementType,
    element_type as _element_type,
    mat22d,
    mat22f,
    mat33d,
    mat33f,
    mat44d,
    mat44f,
    matrix,
    vec2d,
    vec2f,
    vec2i,
    vec3d,
    vec3f,
    vec3i,
    vec4d,
    vec4f,
    vec4i,
    vector,
)
from ._errors import (
    CompileError,
    InternalCompilerError,
    KernelNameError,
    KernelSyntaxError,
    KernelTypeError,
    KernelValueError,
    RaceError,
    UnsupportedError,
)
from ._textures import Texture3D, texture3d

__version__ = "0.1.0"

_templates._bind_package_types()
_core._set_dtypes([i8, i16, i32, i64, u8, u16, u32, u64, f32, f64])
_core._set_element_type_factory(_element_type)
_core._set_exception_types(
    {
        "syntax": KernelSyntaxError,
        "unsupported": UnsupportedError,
        "name": KernelNameError,
        "type": KernelTypeError,
        "value": KernelValueError,
        "index": IndexError,
        "internal": InternalCompilerError,
        "race": RaceError,
    }
)

def set_debug(on: bool = True, races: _Optional[bool] = None) -> None:
    """Debug mode: kernels compiled from now on check every array index
    against its extent, skip an out-of-range access (a load gives 0) and make
    the call raise IndexError naming the first such access. Debug variants
    never share code with ordinary ones. TACK_DEBUG=1 turns it on at import.

    On the CPU, debug mode also detects data races: two iterations of one
    launch that access one array element, at least one with a plain store
    (``grid[j] += v`` included: it is not atomic), or one atomically and
    the other plainly. The call then raises tack.RaceError naming the
    array, the element and both source lines. races=False compiles debug
    variants without it (races=None keeps the current setting, on unless
    TACK_DEBUG_RACES=0)."""
    _core.set_debug(bool(on))
    if races is not None:
        _core.set_debug_races(bool(races))


def debug_races_enabled() -> bool:
    """Whether debug variants compiled from now on detect data races."""
    return _core.debug_races_enabled()


def debug_enabled() -> bool:
    """Whether kernels compiled from now on are bounds-checked debug
    variants (tack.set_debug)."""
    return _core.debug_enabled()


_CPU_LANES: dict[_Union[bool, str], str] = {True: "paying", "always": "always", False: "never"}


def set_cpu_spmd(on: _Union[bool, str] = True) -> None:
    """SPMD CPU code: kernels compiled from now on run consecutive parallel
    iterations in the lanes of SIMD registers, with the scalar program's
    results to the bit.

    on=True (the default): where the kernel allows and the lanes pay; a
    body that runs mostly lane by lane (library calls, gathers, atomics)
    runs as the scalar program. on="always": wherever the kernel allows.
    on=False: one iteration at a time, for comparison. kernel.inspect("llvm")
    says which a variant is, and why a kernel runs scalar. TACK_CPU_SPMD=0
    (or =always) sets it at import."""
    for setting, lanes in _CPU_LANES.items():
        if on is setting or (isinstance(on, str) and on == setting):
            _core.set_cpu_lanes(lanes)
            return
    raise ValueError(f"set_cpu_spmd: {on!r} is not True, False or 'always'")


def cpu_spmd_enabled() -> _Union[bool, str]:
    """The setting of set_cpu_spmd: True, False or "always"."""
    lanes = _core.cpu_lanes()
    return next(setting for setting, name in _CPU_LANES.items() if name == lanes)


import atexit as _atexit
import os as _os

import operator as _operator

# At exit, launches still queued on a device end before the process's
# libraries are torn down: PoCL compiles a kernel at its first launch in a
# thread of its own, with an LLVM whose objects exit destroys. Only in the
# process that imported tack: a forked child has no device threads to wait
# for.
_import_pid = _os.getpid()


def _wait_for_devices_at_exit() -> None:
    if _os.getpid() == _import_pid:
        _core.sync()


_atexit.register(_wait_for_devices_at_exit)

if _os.environ.get("TACK_DEBUG_RACES", "") == "0":
    _core.set_debug_races(False)
if _os.environ.get("TACK_DEBUG", "") not in ("", "0"):
    set_debug(True)
_spmd = _os.environ.get("TACK_CPU_SPMD", "").strip()
if _spmd == "0":
    set_cpu_spmd(False)
elif _spmd == "always":
    set_cpu_spmd("always")
elif _spmd:
    raise ValueError(f"TACK_CPU_SPMD={_spmd!r}: expected 0 (the scalar program) or always (SIMD lanes wherever "
                     "the kernel allows); unset, the lanes run where they pay")


def set_num_threads(n: int) -> None:
    """The number of threads the CPU backend's launches run on from now on,
    the calling thread included: 1 <= n <= _MOST_THREADS (ValueError
    otherwise: 1024, or 8 per core where that is more); more than the cores
    is allowed and starts that many. Results do not depend on it.
    By default every core the process may use; TACK_NUM_THREADS sets it at
    import. Other backends schedule their own threads (PoCL among them)."""
    if isinstance(n, bool):
        raise TypeError("set_num_threads: n must be an integer, not bool")
    try:
        n = _operator.index(n)  # an int, or a NumPy integer
    except TypeError:
        raise TypeError(f"set_num_threads: n must be an integer, not {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"set_num_threads: the CPU backend needs at least 1 thread, not {n}")
    if n > _MOST_THREADS:
        raise ValueError(f"set_num_threads: at most {_MOST_THREADS} threads, not {n}")
    _core.set_num_threads(n)


# The most threads set_num_threads starts: each is a system thread with its
# own stack, and thousands of them would exhaust the process before they
# ran any faster.
_MOST_THREADS = max(1024, 8 * (_os.cpu_count() or 1))


def get_num_threads() -> int:
    """The number of threads the CPU backend's launches run on."""
    return _core.get_num_threads()


def _threads_from_environment():
    given = _os.environ.get("TACK_NUM_THREADS", "").strip()
    if not given:
        return
    try:
        n = int(given)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"TACK_NUM_THREADS={given!r}: expected a whole number of threads, at least 1")
    set_num_threads(n)


_threads_from_environment()


def available_devices() -> list[str]:
    """The backends that start on this machine: "cpu" first (in a build with
    LLVM), then "opencl" when an OpenCL platform with a device is found."""
    return _core.available_devices()


def set_default_device(name: str) -> None:
    """Selects the device new arrays are created on (unless `device=` says
    otherwise) and kernels without array arguments run on. TACK_DEVICE sets
    it at import. A device that cannot start raises RuntimeError naming what
    is missing; "cpu" is always taken (its arrays are host memory, which a
    build without LLVM has too; a kernel launched there names the missing
    backend)."""
    _core.set_default_device(_device_name(name, "tack.set_default_device: a device"))


def get_default_device() -> str:
    """The device new arrays are created on by default: "cpu" unless
    tack.set_default_device or TACK_DEVICE chose another."""
    return _core.default_device()


if _os.environ.get("TACK_DEVICE"):
    set_default_device(_os.environ["TACK_DEVICE"])


# The submodules load at first use: each decorates device functions or
# kernels, which reads their source, and `import tack` need not pay for what
# a program never touches. Kernels reach them too (tack.random.uniform in a
# kernel body): the name resolver imports a submodule this set names.
_LAZY_SUBMODULES = frozenset({"algorithms", "random", "tile"})

if _typing.TYPE_CHECKING:
    from . import algorithms, random, tile
else:

    def __getattr__(name):
        if name in _LAZY_SUBMODULES:
            return _importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBMODULES)


__all__ = [
    # Arrays
    "Array", "DType", "ElementType", "Texture3D",
    "arange", "array", "array_from_ptr", "asarray", "copyto", "empty", "empty_like", "from_dlpack", "full",
    "full_like", "linspace", "ones", "ones_like", "sync", "texture3d", "zeros", "zeros_like",
    # Scalar, vector and matrix types
    "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
    "mat22d", "mat22f", "mat33d", "mat33f", "mat44d", "mat44f", "matrix",
    "vec2d", "vec2f", "vec2i", "vec3d", "vec3f", "vec3i", "vec4d", "vec4f", "vec4i", "vector",
    # Kernels, device functions and what they read
    "Constant", "DeviceFunction", "constant", "device_class", "func", "kernel",
    # Builtins of the kernel language
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "atomic_add", "atomic_cas", "atomic_exch",
    "atomic_max", "atomic_min", "atomic_sub", "barrier", "block_max", "block_min", "block_sum", "cbrt", "ceil",
    "clamp", "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "floor", "fmod", "hypot",
    "identity", "isfinite", "isinf", "isnan", "local_array", "local_array_like", "log", "log10", "log1p", "log2",
    "mat", "mat2", "mat3", "mat4", "ndindex", "round", "select", "shared", "shared_like", "sin", "sinh", "sqrt",
    "tan", "tanh", "thread_id", "trunc", "vec2", "vec3", "vec4",
    # Errors
    "CompileError", "InternalCompilerError", "KernelNameError", "KernelSyntaxError", "KernelTypeError",
    "KernelValueError", "RaceError", "UnsupportedError",
    # Settings: devices, threads, debug mode, SIMD lanes, the disk cache
    "available_devices", "cache_dir", "clear_cache", "cpu_spmd_enabled", "debug_enabled", "debug_races_enabled",
    "get_default_device", "get_num_threads", "set_cpu_spmd", "set_debug", "set_default_device",
    "set_num_threads",
]
