"""Runs generated expression programs compiled by Tack and compares every
output element with the grammar's evaluation. About a third of programs
take some of their arrays as views of larger ones (every second or third
element, backwards, a column of a 2-D array), whose other elements hold
sentinels that must survive the call."""

import math
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from differential.builder import load_module
from integer_types import NP, hi, lo, wrap
from view_arguments import View, Viewed, choose_views

from .atomics import ARRAY, LENGTH
from .contraction import Choices
from .grammar import NUMPY_FLOAT, generate, is_float
from .workgroups import generate_workgroup


def dtype(t):
    return NUMPY_FLOAT[t] if is_float(t) else NP[t]

MAX_LEN = 70  # past a few SIMD widths, so lanes and tails both run (soaks may set more: --max-length)


@dataclass
class Mismatch:
    seed: int
    what: str  # "output", "tack raised"
    detail: str
    source: str

    def __str__(self):
        return f"seed {self.seed}: {self.what}: {self.detail}\n{self.source}"


def inputs_for(program):
    """Each input's values as Python ints (the type's bounds and neighbours
    among small and random ones) or NumPy floats (signed zeros, infinities,
    NaN, integers near powers of two, values of every magnitude but
    denormals), fixed by the program's seed."""
    rng = random.Random(program.seed * 7919 + 3)
    n = max(rng.randint(1, MAX_LEN), program.min_length)
    n = -(-n // program.length_multiple) * program.length_multiple
    while program.bounds and not program.fits(n):  # (past MAX_LEN's default: a typed range's types too narrow)
        n -= program.length_multiple
    if program.groups:
        n = 256 * program.groups
    arrays = {}
    for name, t in program.inputs.items():
        if is_float(t):
            special = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.5, -3.0, 2.0**31, 2.0**63, 2.0**64, 1e30, -1e-30]

            def value():
                pick = rng.random()
                if pick < 0.3:
                    return NUMPY_FLOAT[t](rng.choice(special))
                if pick < 0.5:
                    return NUMPY_FLOAT[t](rng.randint(-300, 300))
                return NUMPY_FLOAT[t](rng.uniform(-1, 1) * 10.0 ** rng.randint(-4, 6))
        else:
            edges = [lo(t), lo(t) + 1, hi(t), hi(t) - 1, 0, 1, 2, hi(t) // 2, hi(t) // 2 + 1]

            def value():
                pick = rng.random()
                if pick < 0.3:
                    return rng.choice(edges)
                return wrap(rng.randint(-9, 9), t) if pick < 0.6 else rng.randint(lo(t), hi(t))

        if name in program.shapes:  # a vector or matrix array: a list of components per element, row-major
            width = program.shapes[name][0]
            size = width[0] * width[1] if isinstance(width, tuple) else width
            arrays[name] = [[value() for _ in range(size)] for _ in range(n)]
        else:
            arrays[name] = [value() for _ in range(n)]
    return arrays, n


def make_array(values, t, shape, n, view=None):
    """A tack array of type t holding `values` (None: zeros), a vector
    or matrix array where `shape` (width or (rows, columns), layout) is
    given; a view of a larger array where `view` (views_for's) says."""
    import tack

    width, layout = shape or (None, None)
    element = () if shape is None else width if isinstance(width, tuple) else (width,)
    data = np.zeros((n, *element), dtype(t)) if values is None else np.array(values, dtype=dtype(t)).reshape(n, *element)
    if shape is None or layout == "rows":  # numbers ("rows": a 2-D array of them)
        kind = None
    elif len(element) == 2:
        kind = tack.matrix(*element, getattr(tack, t))
    else:
        kind = tack.vector(width, getattr(tack, t))

    def to_tack(data):
        return tack.array(data) if kind is None else tack.array(data, dtype=kind, layout=layout)

    return to_tack(data) if view is None else view.make(data, to_tack)


def views_for(program):
    """How each of the program's input and output arrays is passed
    (view_arguments.choose_views), fixed by the program's seed; none for
    workgroup programs."""
    rng = random.Random(program.seed * 104729 + 11)
    names = list(program.inputs) + list(program.outputs)
    if program.groups:
        return {name: None for name in names}
    views = choose_views(rng, names)
    for name, (_, layout) in program.shapes.items():
        if layout == "rows" and rng.random() < 0.4:  # a 2-D array as the transpose of its transpose
            views[name] = View(transposed=True)
    return views


def same_element(got, want, t):
    """same() of a number, or of each component of a vector element."""
    if isinstance(want, list):
        return all(same(g, w, t) for g, w in zip(got, want))
    return same(got, want, t)


def same(got, want, t):
    """Whether an output element is the oracle's: integers equal; floats of
    the same bits, or both NaN (a NaN's sign and payload are open)."""
    if want is None:  # the contract leaves it open
        return True
    if isinstance(want, Choices):  # any of the values the contract allows
        return any(same(got, w, t) for w in want)
    if not is_float(t):
        return int(got) == want
    if np.isnan(want):
        return bool(np.isnan(got))
    return np.asarray(got).tobytes() == np.asarray(want, dtype=got.dtype).tobytes()


def atomic_array(atomics):
    """oa holding its starting values, in its shape."""
    import tack

    shape = atomics.shape
    if shape.kind == "vector":
        values = [atomics.initial[k:k + shape.width] for k in range(0, shape.components, shape.width)]
        return make_array(values, atomics.type, (shape.width, shape.layout), LENGTH)
    data = np.array(atomics.initial, dtype=dtype(atomics.type))
    return tack.array(data.reshape(2, 2) if shape.kind == "grid" else data)


def values_of(array, t, flat=True):
    """An array's elements (`flat`: all its components in row-major
    order): Python ints, or NumPy floats of type t."""
    got = array.numpy()
    got = got.reshape(-1) if flat else got
    if is_float(t):
        return [list(x) for x in got] if got.ndim == 2 else list(got)
    return [[int(y) for y in x] for x in got] if got.ndim == 2 else [int(x) for x in got]


def kernel_arrays(program, arrays, n, views=None):
    """(inputs, outputs, viewed): the kernel's arrays by name, in its
    parameters' order, the inputs holding `arrays` (inputs_for's), the
    outputs zero, and where the program has atomics oa holding its
    starting values and the arrays of old values after it (among the
    outputs). `views` (views_for's) passes some as views of larger arrays;
    `viewed` holds their Viewed by name."""
    views = views or {}
    made = {name: make_array(v, program.inputs[name], program.shapes.get(name), n, views.get(name))
            for name, v in arrays.items()}
    made.update({name: make_array(None, t, program.shapes.get(name), n, views.get(name))
                 for name, t in program.outputs.items()})
    viewed = {name: a for name, a in made.items() if isinstance(a, Viewed)}
    made = {name: a.view if isinstance(a, Viewed) else a for name, a in made.items()}
    inputs = {name: made[name] for name in arrays}
    outputs = {name: made[name] for name in program.outputs}
    atomics = program.atomics
    if atomics:
        outputs[ARRAY] = atomic_array(atomics)
        outputs.update({name: make_array(None, atomics.type, (width, "aos") if width else None, n)
                        for name, width in atomics.olds.items()})
    return inputs, outputs, viewed


def _run_one(program, module):
    import tack

    arrays, n = inputs_for(program)
    views = views_for(program)
    with np.errstate(all="ignore"):
        expected = program.run(arrays, n)
    # On the CPU the kernel runs in SIMD lanes and as the scalar program.
    modes = [True, False] if tack.get_default_device() == "cpu" else [None]
    for spmd in modes:
        inputs, outputs, viewed = kernel_arrays(program, arrays, n, views)
        atomics = program.atomics
        mode = "" if spmd is None else (" (SPMD)" if spmd else " (scalar)")
        was = tack.cpu_spmd_enabled()
        try:
            if spmd is not None:
                tack.set_cpu_spmd("always" if spmd else False)
            getattr(module, program.kernel)(*program.arguments(inputs, outputs, n))
        except Exception as e:
            return Mismatch(program.seed, "tack raised" + mode, f"{type(e).__name__}: {e}", program.source)
        finally:
            tack.set_cpu_spmd(was)
        if atomics:
            problem = atomics.check(expected[ARRAY], values_of(outputs[ARRAY], atomics.type),
                                    {name: values_of(outputs[name], atomics.type, flat=False)
                                     for name in atomics.olds})
            if problem:
                return Mismatch(program.seed, "atomics" + mode, problem, program.source)
        touched = [name for name, v in viewed.items() if not v.sentinels_kept()]
        if touched:
            return Mismatch(program.seed, "wrote outside a view" + mode,
                            ", ".join(f"{name} ({views[name]})" for name in touched), program.source)
        for name, t in program.outputs.items():
            out = outputs[name]
            got = out.numpy()
            bad = [i for i in range(n) if not same_element(got[i], expected[name][i], t)]
            if bad:
                i = bad[0]
                return Mismatch(program.seed, "output" + mode,
                                f"{name}[{i}] ({t}): tack {got[i]!r} != contract {expected[name][i]!r} "
                                f"({len(bad)} of {n} differ); inputs at {i}: "
                                f"{ {k: (program.inputs[k], v[i]) for k, v in arrays.items()} }"
                                + (f"; views: {', '.join(f'{k} ({views[k]})' for k in viewed)}" if viewed else ""), program.source)
    return None


def run_programs(programs, name):
    """Mismatches of `programs`, built as one module called `name`."""
    import sys

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.py"
        path.write_text("import tack\n\n\n" + "\n\n".join(p.source for p in programs), encoding="utf-8")
        module = load_module(path, name)
        try:
            return [m for m in (_run_one(p, module) for p in programs) if m]
        finally:
            sys.modules.pop(name, None)


def run_workgroup_batch(seeds):
    """Mismatches of the workgroup programs of `seeds` (workgroups.py) on
    the default device, which must have workgroups."""
    return run_programs([generate_workgroup(s) for s in seeds], f"tack_workgroup_expressions_{seeds[0]}_{len(seeds)}")


def run_batch(seeds):
    import tack

    device = tack.get_default_device()
    return run_programs([generate(s, device) for s in seeds], f"tack_typed_expressions_{seeds[0]}_{len(seeds)}")
