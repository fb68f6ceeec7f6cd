"""Runs generated programs compiled and in CPython, and compares arrays."""

import random
import tempfile
from dataclasses import dataclass

import numpy as np

from soak import run_batches
from view_arguments import Viewed, choose_views

from . import builder
from .grammar import INPUT_BOUND, MAX_LEN, Options, generate

DTYPES = {"int32": np.int32, "int64": np.int64}


@dataclass
class Mismatch:
    seed: int
    what: str  # "array", "tack raised", "oracle raised", "out of range"
    detail: str
    source: str

    def __str__(self):
        return f"seed {self.seed}: {self.what}: {self.detail}\n{self.source}"


@dataclass
class Inputs:
    arrays: dict  # name -> NumPy array (a, b inputs; o, p outputs)
    n0: int
    n1: int
    alias: bool = False  # o and p are one array (each iteration touches only its own index of either)
    views: dict = None  # name -> how it is passed (view_arguments.View, or None: as itself)


def inputs_for(seed):
    """The arrays and scalars a program runs on, fixed by its seed."""
    rng = random.Random(seed * 7919 + 17)
    n = rng.randint(1, MAX_LEN)
    arrays = {}
    for name in ("a", "b", "o", "p"):
        dtype = DTYPES[rng.choice(list(DTYPES))]
        arrays[name] = np.array([rng.randint(-INPUT_BOUND, INPUT_BOUND) for _ in range(n)], dtype=dtype)
    n0, n1 = rng.randint(0, 3), rng.randint(-5, 5)
    alias = rng.random() < 0.25
    if alias:
        arrays["p"] = arrays["o"]
    views = choose_views(random.Random(seed * 104729 + 13), ("a", "b", "o", "p"))
    return Inputs(arrays, n0, n1, alias, views)


def _shared(inputs, make):
    """make(name) for a, b, o and p; p is o's where they alias."""
    made = {k: make(k) for k in ("a", "b", "o")}
    made["p"] = made["o"] if inputs.alias else make("p")
    return made


def _run_one(program, compiled, plain):
    import tack

    inputs = inputs_for(program.seed)
    order = ("a", "b", "o", "p")
    # The oracle works on Python lists of Python ints: exact arithmetic.
    lists = _shared(inputs, lambda k: [int(v) for v in inputs.arrays[k]])
    try:
        getattr(plain, program.kernel)(*(lists[k] for k in order), inputs.n0, inputs.n1)
    except Exception as e:  # the generator produced something CPython rejects
        return Mismatch(program.seed, "oracle raised", f"{type(e).__name__}: {e}", program.source)
    # On the CPU the kernel runs twice, in SIMD lanes and as the scalar
    # program: each must agree with CPython, so they agree bit for bit.
    modes = [True, False] if tack.get_default_device() == "cpu" else [None]
    for spmd in modes:
        found = _run_compiled(program, compiled, inputs, lists, spmd)
        if found:
            return found
    return None


def _run_compiled(program, compiled, inputs, lists, spmd):
    import tack

    order = ("a", "b", "o", "p")
    made = _shared(inputs, lambda k: inputs.views[k].make(inputs.arrays[k], tack.array) if inputs.views[k]
                   else tack.array(inputs.arrays[k]))
    arrays = {k: a.view if isinstance(a, Viewed) else a for k, a in made.items()}
    mode = "" if spmd is None else (" (SPMD)" if spmd else " (scalar)")
    was = tack.cpu_spmd_enabled()
    try:
        if spmd is not None:
            tack.set_cpu_spmd("always" if spmd else False)
        getattr(compiled, program.kernel)(*(arrays[k] for k in order), inputs.n0, inputs.n1)
    except Exception as e:
        return Mismatch(program.seed, "tack raised" + mode, f"{type(e).__name__}: {e}", program.source)
    finally:
        tack.set_cpu_spmd(was)
    viewed = {k: inputs.views[k] for k, a in made.items() if isinstance(a, Viewed)}
    touched = [k for k, a in made.items() if isinstance(a, Viewed) and not a.sentinels_kept()]
    if touched:
        return Mismatch(program.seed, "wrote outside a view" + mode,
                        ", ".join(f"{k} ({inputs.views[k]})" for k in touched), program.source)
    for k in order:
        expected = lists[k]
        info = np.iinfo(inputs.arrays[k].dtype)
        if any(not info.min <= v <= info.max for v in expected):
            return Mismatch(program.seed, "out of range", f"{k} = {expected} does not fit {info.dtype}",
                            program.source)
        got = arrays[k].numpy().tolist()
        if got != expected:
            together = "one array" if inputs.alias else "apart"
            return Mismatch(program.seed, "array" + mode, f"{k}: tack {got} != python {expected} "
                            f"(n0={inputs.n0}, n1={inputs.n1}, o and p {together}, dtypes "
                            f"{ {n: str(a.dtype) for n, a in inputs.arrays.items()} }"
                            + (f"; views: {', '.join(f'{k} ({v})' for k, v in viewed.items())}" if viewed else "")
                            + ")", program.source)
    return None


def run_programs(programs, name):
    """Mismatches of `programs`, built as one module called `name`."""
    with tempfile.TemporaryDirectory() as tmp:
        compiled, plain = builder.build(programs, tmp, name)
        try:
            return [m for m in (_run_one(p, compiled, plain) for p in programs) if m]
        finally:
            builder.unload(name)


def run_batch(seeds, options=None):
    """Mismatches of the programs generated from `seeds`, built as one module."""
    programs = [generate(s, options) for s in seeds]
    steps = "_steps" if options and options.parallel_steps else ""
    return run_programs(programs, f"tack_differential_{seeds[0]}_{len(seeds)}{steps}")


def run_seeds(start, count, batch=50, options=None, on_batch=None):
    return run_batches(lambda seeds: run_batch(seeds, options), start, count, batch, on_batch)


def default_options(steps=False):
    return Options(parallel_steps=steps)
