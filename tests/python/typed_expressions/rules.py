"""The contract's typing and value rules for generated expressions: the
promoted type of two operands, conversions, the domain checks, and the node
every expression is built of (its source text, its type, and a function
that evaluates it exactly: Python integers; NumPy f32/f64 scalars, each
operation rounded once in its type). grammar.py documents the rules in
full."""

import math
import operator
from dataclasses import dataclass, field

import numpy as np

from integer_types import hi, lo, wrap
from integer_types import promoted as integer_promoted

FLOAT_NAMES = ["f32", "f64"]
NUMPY_FLOAT = {"f32": np.float32, "f64": np.float64}
INPUTS = ("a0", "a1", "a2", "a3")
OUTPUTS = ("o0", "o1")
GRID_ARRAY, GRID_COLUMNS = "g0", 4  # a 2-D input array: a row of numbers per element
MAX_DEPTH = 4


class Unspecified(Exception):
    """The contract leaves this value open."""


def is_float(t):
    return t in FLOAT_NAMES


def promoted(a, b):
    """The operation type of a and b; None for a signed type with u64."""
    if is_float(a) or is_float(b):
        return "f64" if "f64" in (a, b) else "f32"
    return integer_promoted(a, b)


def range_type(bounds):
    """The type a range of bounds of type `bounds` with an implicit step
    (and start) counts in: the implicit i32s join the bounds, unless the
    bounds are u64s, which an i32 cannot be mixed with (docs/language.md,
    "The parallel loop")."""
    return "u64" if bounds == "u64" else promoted("i32", bounds)


def literal_type(v):
    for t in ("i32", "i64", "u64"):
        if lo(t) <= v <= hi(t):
            return t
    raise ValueError(f"no literal type holds {v}")


def to_float(v, t):
    """The integer v rounded to the nearest value of float type t, ties to
    even (Python's int-to-float is that rounding for f64; f32 rounds the
    integer itself, not a double of it)."""
    if t == "f64":
        return np.float64(float(v))
    m = abs(v)
    if m >= 1 << 24:
        drop = m.bit_length() - 24
        kept, rest = m >> drop, m & ((1 << drop) - 1)
        half = 1 << (drop - 1)
        if rest > half or (rest == half and kept & 1):
            kept += 1
        m = kept << drop
    return np.float32(math.copysign(float(m), v) if m else 0.0)


def convert(v, source, t):
    """v, a value of type `source`, converted to type t."""
    if is_float(t):
        return to_float(v, t) if not is_float(source) else NUMPY_FLOAT[t](v)
    if is_float(source):
        return int(v)  # truncation; the generator guards the domain
    return wrap(v, t)


def checked(v, t):
    """A float result in the contract's domain, or Unspecified."""
    if is_float(t) and v != 0 and abs(v) < np.finfo(NUMPY_FLOAT[t]).tiny:
        raise Unspecified("a nonzero denormal")
    return v


_FLOAT_OPERATORS = {"+": np.add, "-": np.subtract, "*": np.multiply}
_INTEGER_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_, "|": operator.or_,
                      "^": operator.xor}


def arithmetic(op, a, ta, b, tb):
    """a op b for a of type ta and b of type tb (op one of + - * & | ^,
    bitwise ones on integers only): both converted to their promoted type,
    a float result rounded once in it (checked), an integer one wrapped."""
    t = promoted(ta, tb)
    if is_float(t):
        return checked(_FLOAT_OPERATORS[op](convert(a, ta, t), convert(b, tb, t), dtype=NUMPY_FLOAT[t]), t)
    return wrap(_INTEGER_OPERATORS[op](a, b), t)


def float_divmod(a, b, t):
    """(a // b, a % b) for floats of type t, b nonzero: the contract's
    reading, CPython's float_divmod (a truncating remainder corrected to the
    divisor's sign, the quotient reconstructed from it and snapped to an
    integral value) with each operation rounded once in t. A nonzero
    denormal anywhere on the way is Unspecified."""
    ft = NUMPY_FLOAT[t]
    for v in (a, b):
        checked(v, t)
    mod = checked(np.fmod(a, b, dtype=ft), t)
    div = checked(np.divide(checked(np.subtract(a, mod, dtype=ft), t), b, dtype=ft), t)
    if mod != 0:  # (NaN too)
        if (b < 0) != (mod < 0):
            mod = checked(np.add(mod, b, dtype=ft), t)
            div = checked(np.subtract(div, ft(1), dtype=ft), t)
    else:
        mod = np.copysign(ft(0), b)
    if div != 0:
        floor = np.floor(div)
        if np.subtract(div, floor, dtype=ft) > 0.5:
            floor = np.add(floor, ft(1), dtype=ft)
    else:
        floor = np.copysign(ft(0), np.divide(a, b, dtype=ft))
    return checked(ft(floor), t), checked(ft(mod), t)


@dataclass
class Node:
    src: str
    type: str
    ev: object  # (context) -> the value, in the type's range
    literal: object = None  # an integer literal's value: -literal is a literal of its own
    product: bool = False  # a float product (or its negation): + and - must not take it


@dataclass
class Program:
    seed: int
    kernel: str
    source: str
    inputs: dict  # name -> type
    outputs: dict  # name -> type
    run: object  # (arrays as lists of values, n) -> {output: list of values, None where unspecified}
    shapes: dict = field(default_factory=dict)  # a vector array's name -> (width, layout); its values are lists
    atomics: object = None  # atomics.Atomics: the atomic updates of oa, or None
    groups: int = 0  # launched over this many complete groups of 256 lanes (0: 1 to MAX_LEN iterations)
    scalars: dict = field(default_factory=dict)  # a number argument's name -> what is passed (after the inputs)
    min_length: int = 1  # the fewest elements its arrays may have
    bounds: object = None  # (n) -> a typed parallel range's arguments for n elements (after the numbers), or None
    length_multiple: int = 1  # its arrays' lengths are multiples of this (an ndindex's second extent)

    def arguments(self, inputs, outputs, n):
        """The kernel's arguments for arrays of n elements: the input
        arrays, the numbers, the range's bounds, the output arrays."""
        bounds = self.bounds(n) if self.bounds else []
        return [*inputs.values(), *self.scalars.values(), *bounds, *outputs.values()]

    def fits(self, n):
        """Whether its typed range's bounds hold n elements' trips."""
        try:
            self.bounds(n)
        except ValueError:
            return False
        return True


class Context:
    """One iteration: its index, the input arrays and the locals so far."""

    def __init__(self, arrays, i, n):
        self.arrays, self.i, self.n, self.locals = arrays, i, n, {}
