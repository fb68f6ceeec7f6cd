"""Runs race programs (programs.py) and compares what Tack does with the
oracle's accesses and with CPython.

For each program:

- in debug mode on the CPU, the call raises tack.RaceError exactly where
  two iterations conflict on some byte; the element the message names is
  such a byte's, and the two accesses it names (verb, line, device
  function) are a conflicting pair of accesses of that element by two
  different iterations;
- a program with an access outside its array raises IndexError in debug
  mode on every backend present, before any race, naming such an access:
  its array, index, a dimension it falls outside, the shape and the line;
- a program that does not race leaves its arrays as CPython running the
  same source leaves them (iterations in order; any order gives the same
  values when no two conflict), in debug mode and outside it, on the CPU
  in SIMD lanes and as the scalar program, and on OpenCL where it is
  present: arrays that share memory must be read and written as one.
"""

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from differential import builder
from differential.builder import load_module

from .programs import conflicting, generate

TACK_HEADER = "import tack\n\n\n"

# The plain CPython reading of the same source (the differential suite's
# decorators), with what race programs call besides: i32 arithmetic wraps
# as NumPy's int32 does (NumPy's overflow warnings are off).
PLAIN_HEADER = builder.PLAIN_HEADER + '''import itertools

import numpy


def _vector(*c):
    return numpy.array(c).astype(numpy.int32)


def _atomic_add(a, j, v):
    base = a.view(numpy.ndarray)
    old = base[j].copy()
    base[j] = (old + v).astype(base.dtype)
    return old


tack.i32 = numpy.int32
tack.vec2 = tack.vec3 = staticmethod(_vector)
tack.ndindex = staticmethod(lambda *extents: itertools.product(*(range(e) for e in extents)))
tack.atomic_add = staticmethod(_atomic_add)


'''


class Wrapping(np.ndarray):
    """A NumPy array whose element stores reduce the value modulo 2^N, as
    Tack's stores do (docs/numerics.md); NumPy's refuse a Python or NumPy
    integer outside the array's type."""

    def __setitem__(self, key, value):
        self.view(np.ndarray)[key] = np.asarray(value).astype(self.dtype)


class Vectors(Wrapping):
    """An (n, components) NumPy array read as a vector program's kernel
    reads an array of vectors: v[j] is an element (Row), whose components
    are .x, .y, [k]."""

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            return Row(np.ndarray.__getitem__(self, key).view(np.ndarray))
        return super().__getitem__(key)


class Row:
    """One element of Vectors: a view of its row."""
    __slots__ = ("_r",)

    def __init__(self, r):
        object.__setattr__(self, "_r", r)

    def __getattr__(self, name):
        return self._r["xyzw".index(name)]

    def __setattr__(self, name, v):
        self._r["xyzw".index(name)] = np.asarray(v).astype(self._r.dtype)

    def __getitem__(self, k):
        return self._r[k]

    def __setitem__(self, k, v):
        self._r[k] = np.asarray(v).astype(self._r.dtype)

    def dot(self, other):
        return (self._r * np.asarray(other)).sum(dtype=self._r.dtype)

    def __array__(self, dtype=None, copy=None):
        return self._r if dtype is None else self._r.astype(dtype)


VERBS = {"R": "reads", "W": "writes", "A": "updates"}


@dataclass
class Mismatch:
    seed: int
    what: str
    detail: str
    source: str

    def __str__(self):
        return f"seed {self.seed}: {self.what}: {self.detail}\n{self.source}"


_ACCESS = re.compile(r"iteration (reads|writes|updates) it(?: atomically)? at (\S+?):(\d+)"
                     r"(?: in device function '(\w+)')?: ")
_ELEMENT = re.compile(r"data race on (?:component (\d+) of )?element \(([-\d, ]+)\) of array '(\w+)'")


def _bindings(program):
    return ", ".join(f"{p}={program.bindings[p]}" for p in program.params) + \
        f"; buffers of {program.buffers} i32; n={program.n}"


def _check_report(program, message, races, path):
    """None if `message` names a raced element and a conflicting pair of its
    accesses, else what is wrong."""
    element = _ELEMENT.search(message)
    found = _ACCESS.findall(message)
    if not element or len(found) != 2:
        return f"the message does not name an element and two accesses: {message}"
    component = element.group(1)
    index = tuple(int(x) for x in element.group(2).split(",") if x.strip())
    param = element.group(3)
    if (component is None) != (program.vector is None):
        return f"the message names {'no ' if component is None else 'a '}component: {message}"
    if param not in program.params or len(index) != len(program.shapes()[param]):
        return f"the message names element {index} of '{param}': {message}"
    units = program.units(param, index, None if component is None else (int(component),))
    bytes_ = [races[u] for u in units if u in races]
    if not bytes_:
        return f"element {index} of '{param}' has no conflict (the oracle's raced bytes: " \
               f"{sorted(races)[:6]}...): {message}"
    named = []
    for verb, filename, line, function in found:
        if not filename.endswith(path.name):
            return f"an access in another file {filename}: {message}"
        kind = {v: k for k, v in VERBS.items()}[verb]
        named.append((kind, int(line) - program.first_line + 1, function is not None and function != ""))
    if any(conflicting(at, named[0], named[1]) for at in bytes_):
        return None
    return f"the accesses named {named} (kind, line in the program, in a device function) are no conflicting " \
           f"pair of element {index} of '{param}' (its touches: {bytes_[0]}): {message}"


def _same(got, want):
    return all(np.array_equal(_numpy(g), w) for g, w in zip(got, want))


def _numpy(a):
    return a if isinstance(a, np.ndarray) else a.numpy()


_OUTSIDE = re.compile(r"kernel '(\w+)': index \(([-\d, ]+)\) is out of bounds for array '(\w+)' with shape "
                      r"\(([\d, ]+)\) \(dimension (\d+) has extent (\d+)\) at (\S+?):(\d+)")


def _ints(text):
    return tuple(int(x) for x in text.split(",") if x.strip())


def _check_outside(program, message, outside, path):
    """None if `message` names one of the accesses `outside` their array,
    with its array's shape, a dimension it falls outside, and its line."""
    m = _OUTSIDE.search(message)
    if not m:
        return f"the message does not name an index, an array and a line: {message}"
    kernel, index, param, shape, dim, extent, filename, line = m.groups()
    index, shape, dim, extent, line = _ints(index), _ints(shape), int(dim), int(extent), int(line)
    if kernel != program.kernel or not filename.endswith(path.name):
        return f"another kernel or file: {message}"
    if param not in program.params or shape != tuple(program.shapes()[param]) or not 0 <= dim < len(shape) or \
            extent != shape[dim] or 0 <= index[dim] < extent:
        return f"the array, shape or dimension named is not the access's: {message}"
    for a in outside:
        if a.param == param and a.index == index and program.first_line + a.line - 1 == line:
            return None
    shown = sorted({(a.param, a.index, program.first_line + a.line - 1) for a in outside})[:6]
    return f"no access outside its array is ({param}, {index}, line {line}); those outside: {shown}: {message}"


def _refused(program, device, error):
    """Whether `device` refused the program as documented: OpenCL's atomics
    cover i32, u32 and f32 arrays (docs/language.md)."""
    import tack

    return device == "opencl" and program.wide_atomics() and isinstance(error, tack.KernelTypeError) and \
        "atomic_add on the i64 array" in str(error)


def _run_outside(program, module, path, devices, source):
    """Debug mode on every device raises IndexError naming an access outside
    its array, before any race (docs/diagnostics.md)."""
    import tack

    outside = program.outside()
    was = tack.debug_enabled(), tack.debug_races_enabled(), tack.get_default_device()
    tack.set_debug(True, races=True)
    try:
        for device in devices:
            tack.set_default_device(device)
            buffers, args, out = program.call_arrays(device)
            try:
                getattr(module, program.kernel)(*args, out)
            except IndexError as e:
                problem = _check_outside(program, str(e), outside, path)
                if problem:
                    return Mismatch(program.seed, f"{device}: the index reported is not outside", problem, source)
                continue
            except Exception as e:
                if _refused(program, device, e):
                    continue
                return Mismatch(program.seed, f"{device}: debug mode raised", f"{type(e).__name__}: {e}", source)
            a = outside[0]
            return Mismatch(program.seed, f"{device}: no IndexError",
                            f"iteration {a.iteration} {VERBS[a.kind]} element {a.index} of '{a.param}' (shape "
                            f"{program.shapes()[a.param]}) at line {a.line}", source)
    finally:
        tack.set_debug(was[0], races=was[1])
        tack.set_default_device(was[2])
    return None


def _run_one(program, module, plain, path, devices):
    import tack

    source = program.source + "\n" + _bindings(program)
    if program.outside():
        return _run_outside(program, module, path, devices, source)
    races = program.races()
    buffers, args, out = program.arrays()
    with np.errstate(over="ignore"):
        kind = Vectors if program.vector else Wrapping
        getattr(plain, program.kernel)(*(a.view(kind) for a in args), out.view(Wrapping))
    want = buffers + [out]

    was = tack.debug_enabled(), tack.debug_races_enabled()
    threads = tack.get_num_threads()
    tack.set_debug(True, races=True)
    # A quarter of the programs run their debug call on one thread: the
    # detector finds a race whatever the schedule.
    if program.seed % 4 == 0:
        tack.set_num_threads(1)
    try:
        buffers, args, out = program.call_arrays("cpu")
        try:
            getattr(module, program.kernel)(*args, out)
        except tack.RaceError as e:
            if not races:
                return Mismatch(program.seed, "a race reported where no two iterations conflict", str(e), source)
            problem = _check_report(program, str(e), races, path)
            if problem:
                return Mismatch(program.seed, "the race reported is not one", problem, source)
        except Exception as e:
            return Mismatch(program.seed, "debug mode raised", f"{type(e).__name__}: {e}", source)
        else:
            if races:
                (b, byte), at = next(iter(races.items()))
                return Mismatch(program.seed, "no race reported",
                                f"byte {byte} of buffer {b} is touched by (kind, line in the program, in a device "
                                f"function): iterations {at}", source)
            if program.values_defined() and not _same(buffers + [out], want):
                return Mismatch(program.seed, "debug mode's values differ from CPython's",
                                f"got {[list(_numpy(b)) for b in buffers + [out]]}, want {[list(b) for b in want]}", source)
    finally:
        tack.set_debug(*was)
        tack.set_num_threads(threads)
    if races or not program.values_defined():
        return None

    for device in devices:
        modes = [True, False] if device == "cpu" else [None]
        for spmd in modes:
            was_spmd = tack.cpu_spmd_enabled()
            was_device = tack.get_default_device()
            try:
                tack.set_default_device(device)
                if spmd is not None:
                    tack.set_cpu_spmd("always" if spmd else False)
                buffers, args, out = program.call_arrays(device)
                getattr(module, program.kernel)(*args, out)
            except Exception as e:
                if _refused(program, device, e):
                    continue
                return Mismatch(program.seed, f"{device} raised", f"{type(e).__name__}: {e}", source)
            finally:
                tack.set_cpu_spmd(was_spmd)
                tack.set_default_device(was_device)
            if not _same(buffers + [out], want):
                mode = "" if spmd is None else (" in SIMD lanes" if spmd else " as the scalar program")
                return Mismatch(program.seed, f"{device}{mode}: values differ from CPython's",
                                f"got {[list(_numpy(b)) for b in buffers + [out]]}, want {[list(b) for b in want]}", source)
    return None


def run_programs(programs, name, devices):
    import sys

    with tempfile.TemporaryDirectory() as tmp:
        text = ""
        for p in programs:
            p.first_line = len((TACK_HEADER + text).split("\n"))
            text += p.source + "\n\n"
        tack_path = Path(tmp) / f"{name}_tack.py"
        plain_path = Path(tmp) / f"{name}_plain.py"
        tack_path.write_text(TACK_HEADER + text, encoding="utf-8")
        plain_path.write_text(PLAIN_HEADER + text, encoding="utf-8")
        module = load_module(tack_path, f"{name}_tack")
        plain = load_module(plain_path, f"{name}_plain")
        try:
            return [m for m in (_run_one(p, module, plain, tack_path, devices) for p in programs) if m]
        finally:
            sys.modules.pop(f"{name}_tack", None)
            sys.modules.pop(f"{name}_plain", None)


def devices_present():
    import tack

    return ["cpu"] + [d for d in ("opencl",) if d in tack.available_devices()]


def run_batch(seeds, devices=None):
    return run_programs([generate(s) for s in seeds], f"tack_race_programs_{seeds[0]}_{len(seeds)}",
                        devices or devices_present())
