"""Random typed expressions and the contract's reading of them.

Every program is a kernel `e<seed>(a0, a1, a2, a3, o0, o1)` (after the
device functions it calls, helpers.py) over arrays of
random types (i8 to u64, f32, f64): for each i it binds a few locals and
stores two expressions into o0[i] and o1[i] (and may end with atomic
updates of an array `oa`, atomics.py). Each expression is a tree whose
nodes carry their source text, their type under the contract's rules and a
function that evaluates them exactly (Python integers; NumPy f32/f64
scalars, each operation rounded once in its type):

- integer literals take the narrowest of i32, i64 and u64 that holds their
  whole value; float literals appear under tack.f32/tack.f64, which round
  their Python value once; array loads take the array's type, at i or at
  another index (a generated integer expression of any type, too); number
  arguments (s0, s1) take a NumPy scalar's dtype, a Python int's i32, i64
  or u64 by magnitude, a Python float's f64 beside an f64 array argument
  and f32 otherwise;
- +, -, *, &, |, ^, min, max, comparisons and conditional arms promote
  integer operands to the narrowest type that holds both ranges (a signed
  type with u64 has none: the generator casts one side, as a user must),
  an integer with a float to the float's type, f32 with f64 to f64;
  integer arithmetic wraps modulo 2^N at that width, before any enclosing
  operation;
- casts and stores reduce integers modulo 2^N, round integers and f64 to
  the nearest float (ties to even), and truncate floats toward zero into
  integer types, under a guard that keeps NaN and values outside the type
  away from the conversion (outside the contract's domain);
- -, ~ and abs keep their operand's type (-, abs flip and clear a float's
  sign); `not`, `and`, `or` and comparisons give i32 0 or 1, NaN counting
  as true and comparing unequal to everything;
- << and >> keep the left operand's type, with counts masked into [0, N):
  left shifts wrap, right shifts fill with the sign of signed values;
- // and % of integers floor, by divisors made positive ((x & 15) + 1);
  with a float operand they convert both to the promoted float type and
  follow CPython's float_divmod (float_divmod below), by divisors made
  nonzero (x if x != 0 else -1.5; NaN and infinities stay);
  / of integers converts both to f32 (the same positive divisors), of
  floats divides in the promoted type;
- ** by a literal exponent keeps an integer base's type and wraps;
- float min and max prefer the number to a NaN; floor, ceil, trunc, sqrt,
  copysign and fmod are NumPy's in the result type (f32, or f64 beside an
  f64 argument; integers converted), isnan, isinf and isfinite i32 0 or 1;
- a sequential for or while loop may carry a local round a varying trip
  count, with break or continue, and hold a second loop (loops.py);
- a local array may be filled, stored to under conditions and read back
  at indices of any integer type (local_arrays.py);
- `if <condition>: continue` may end an iteration of the parallel loop
  before or after the sequential loop: its outputs keep their zeros and it
  updates no atomic;
- the parallel loop may range over bounds and a step of their own integer
  types, or be a tack.ndindex over two such dimensions, its variables read
  as locals of their joined types (ranges.py);
- a local assigned twice (the second time under a condition) has the join
  of its assignments' types (a vector local: each component the join of
  its own); one assigned under a condition only reads zero of its type
  where the condition was false (a vector local: every component).

A product is never an operand of + or - (nor of a negation that is): the
contract lets a backend fuse a multiply with an adjacent add into one
rounding, which this oracle models only for float sums of products stored
directly into an output (dot, @, norm_sqr and norm of vectors and
matrices), whose value is the Choices of every fusion (contraction.py).
Where the contract leaves a result open (a nonzero denormal on the way,
min or max of zeros of both signs, copysign from a NaN, whose sign is
open) the evaluation raises Unspecified and that element is not compared.

The oracle is this module's evaluation, written from the contract's text
(kernel-language contract: fixed-width arithmetic, promotion, shifts,
division and power, the floating-point execution policy), not from Tack's
output.
"""

import math
import random
from dataclasses import dataclass

import numpy as np

from integer_types import INT_NAMES, NP, bits, hi, lo, signed, wrap

from .atomics import ARRAY, AtomicUpdates, atomic_types
from .contraction import Choices
from .helpers import HelperCalls
from .local_arrays import LocalArray, LocalArrays
from .loops import Loop, SequentialLoops
from .ranges import choose_range
from .rules import (FLOAT_NAMES, GRID_ARRAY, GRID_COLUMNS, INPUTS, MAX_DEPTH, NUMPY_FLOAT, OUTPUTS, Context, Node,
                    Program, Unspecified, arithmetic, checked, convert, float_divmod, is_float, literal_type, promoted,
                    to_float)
from .vectors import VectorExpressions, random_shape

__all__ = ["FLOAT_NAMES", "Unspecified", "float_divmod", "generate", "promoted", "to_float"]


FLOAT_LITERALS = [0.0, -0.0, 0.1, 1.5, -2.25, 3.0, 1e30, -3.4e38, 1e-3, 0.5, 2.0**31, 2.0**63, 16777217.0]


@dataclass
class Continue:
    """`if <condition>: continue` in the parallel loop."""
    condition: Node


class Skipped(Exception):
    """An iteration ended by the parallel loop's continue."""


class Generator(VectorExpressions, AtomicUpdates, HelperCalls, SequentialLoops, LocalArrays):
    def __init__(self, seed, device="cpu"):
        self.seed = seed
        self.device = device
        self.rng = random.Random(seed)
        types = INT_NAMES + FLOAT_NAMES if self.rng.random() < 0.5 else INT_NAMES
        self.inputs = {name: self.rng.choice(types) for name in INPUTS}
        self.outputs = {name: self.rng.choice(types) for name in OUTPUTS}
        self.locals = {}  # name -> type of locals readable from here
        self.vector_locals = {}  # name -> its components' types
        self.helpers = []  # the device functions defined so far (helpers.py)
        self.scalars = {}  # name -> (the argument passed, its type, its value in that type)
        self.float_precision = None  # a Python float argument's type, once one is passed
        self.typed_indices = self.rng.random() < 0.3  # loads at generated indices in [0, 7]
        self.vector_array = self.choose_vector_array()  # (width, type, layout) of v0, or None
        self.matrix_array = self.choose_matrix_array()  # (size, type, layout) of m0, or None
        self.grid_array = self.choose_grid_array()  # the type of g0, or None
        self.local = None  # the local array (local_arrays.py), once declared
        self.local_helpers = []  # the sources of device functions that fill it

    # ------------------------------------------------------------ leaves

    def literal(self, value=None):
        r = self.rng
        if value is None:
            pick = r.random()
            if pick < 0.1:
                t = r.choice(FLOAT_NAMES)
                x = r.choice(FLOAT_LITERALS)
                v = NUMPY_FLOAT[t](x)
                return Node(f"tack.{t}({x!r})", t, lambda c: v)
            if pick < 0.5:
                value = r.randint(-9, 9)
            elif pick < 0.85:
                t = r.choice(INT_NAMES)
                value = r.choice([lo(t), hi(t), hi(t) + 1, lo(t) - 1, hi(t) // 2 + 1])
                value = max(-(1 << 63), min(value, (1 << 64) - 1))
            else:
                value = r.randint(-(1 << 63), (1 << 64) - 1)
        t = literal_type(value)
        return Node(f"({value})" if value < 0 else str(value), t, lambda c: value, literal=value)

    def load(self):
        if self.scalars and self.rng.random() < 0.15:
            return self.read_scalar()
        if self.grid_array and self.rng.random() < 0.25:
            return self.grid_load()
        if self.local and self.rng.random() < 0.4:
            return self.load_local()
        name = self.rng.choice(INPUTS)
        form = self.rng.random()
        if form < 0.7:
            index, at = "i", lambda c: c.i
        elif form < 0.85:
            index, at = f"len({name}) - 1 - i", lambda c: c.n - 1 - c.i
        elif form < 0.93 and self.typed_indices:  # an index of any integer type (the arrays have 8 elements or more)
            e = self.masked(self.integer(1), 7)
            index, at = e.src, e.ev
        else:
            k = self.rng.randint(2, 5)
            index, at = f"(i * {k}) % len({name})", lambda c: (c.i * k) % c.n
        return Node(f"{name}[{index}]", self.inputs[name], lambda c: c.arrays[name][at(c)])

    def parallel_continue(self, lines):
        """`if <condition>: continue` in the parallel loop, its lines added
        to `lines`: the iteration ends there (docs/language.md; its outputs
        keep what they held, zeros here)."""
        condition = self.expr(2)
        lines += [f"        if {condition.src}:", "            continue"]
        return Continue(condition)

    def choose_grid_array(self):
        """The type of a 2-D input array g0 (a row of GRID_COLUMNS numbers
        per element) for about a third of programs, else None; from a
        random stream of its own, so programs without one are as they were."""
        r = random.Random(self.seed * 11 + 5)
        return r.choice(INT_NAMES + FLOAT_NAMES) if r.random() < 0.3 else None

    def grid_load(self):
        """g0[row, column] (or g0[row * 4 + column], one flat row-major
        index, or g0[tack.vec2(row, column)], a vector index): the row i,
        from the end, at a multiple of i or at a generated index, the
        column a literal or a generated index of any integer type."""
        r = self.rng
        if r.random() < 0.4:
            at_column = r.randrange(GRID_COLUMNS)
            column = Node(str(at_column), "i32", lambda c: at_column)
        else:
            column = self.masked(self.integer(1), GRID_COLUMNS - 1)
        form = r.random()
        row_type = "i64"  # i's, len()'s
        if form < 0.55:
            row, at = "i", lambda c: c.i
        elif form < 0.7:
            row, at = f"len({GRID_ARRAY}) - 1 - i", lambda c: c.n - 1 - c.i
        elif form < 0.8:
            row, at = f"{GRID_ARRAY}.shape[0] - 1 - i", lambda c: c.n - 1 - c.i
        elif form < 0.9 and self.typed_indices:
            e = self.masked(self.integer(1), 7)
            row, at, row_type = e.src, e.ev, e.type
        else:
            k = r.randint(2, 5)
            row, at = f"(i * {k}) % len({GRID_ARRAY})", lambda c: (c.i * k) % c.n
        if row_type == "i64" and r.random() < 0.2:  # one flat row-major index (docs/language.md, "Arrays")
            flat, column = self.joinable(Node(f"({row}) * {GRID_COLUMNS}", "i64", lambda c: 0), column)
            index = f"{flat.src} + {column.src}"
        elif r.random() < 0.25:  # a vector of integers as the index (docs/status.md: vectors of integers as indices)
            index = f"tack.vec2({row}, {column.src})"
        else:
            index = f"{row}, {column.src}"
        return Node(f"{GRID_ARRAY}[{index}]", self.grid_array, lambda c: c.arrays[GRID_ARRAY][at(c)][column.ev(c)])

    def choose_scalars(self):
        """Zero to two number arguments: a NumPy scalar keeps its dtype, a
        Python int is i32, i64 or u64 by magnitude, a Python float f64
        beside an f64 array argument and f32 otherwise (docs/language.md,
        "Values and types"; no f64 array comes after a Python float that
        was f32)."""
        r = self.rng
        for k in range(r.choice([0, 0, 1, 2])):
            kind = r.choice(["numpy", "int", "float"])
            if kind == "numpy":
                t = r.choice(INT_NAMES + FLOAT_NAMES)
                if is_float(t):
                    v = NUMPY_FLOAT[t](r.choice(FLOAT_LITERALS + [math.nan, -math.inf]))
                    arg, value = v, v
                else:
                    value = r.choice([lo(t), hi(t), 0, 1, r.randint(lo(t), hi(t))])
                    arg = np.array(value).astype(NP[t])[()]
            elif kind == "int":
                value = r.choice([0, 7, -5, (1 << 31) - 1, 1 << 31, -(1 << 31) - 1, (1 << 63) - 1, 1 << 63,
                                  (1 << 64) - 1, r.randint(-(1 << 63), (1 << 64) - 1)])
                arg, t = value, literal_type(value)
            else:
                if self.float_precision is None:
                    known = list(self.inputs.values()) + list(self.outputs.values())
                    known += [t for t, _ in self.element_arrays().values()]
                    self.float_precision = "f64" if "f64" in known else "f32"
                t = self.float_precision
                arg = r.choice([0.1, -2.5, 1e30, 3.0, -0.0, 16777217.0, math.inf])
                value = NUMPY_FLOAT[t](arg)
            self.scalars[f"s{k}"] = (arg, t, value)

    def read_scalar(self):
        name = self.rng.choice(sorted(self.scalars))
        _, t, value = self.scalars[name]
        return Node(name, t, lambda c: value)

    def float_array_types(self):
        """The float types an array chosen from here may take."""
        return ["f32"] if self.float_precision == "f32" else FLOAT_NAMES

    def read_local(self):
        name = self.rng.choice(sorted(self.locals))
        read = self.read_value
        return Node(name, self.locals[name], lambda c: read(c.locals[name]))

    @staticmethod
    def read_value(value):
        """A local's value as an expression reads it (workgroups.py's
        generator raises Unspecified for one the contract leaves open)."""
        return value

    # ----------------------------------------------------------- helpers

    def cast(self, t, e):
        """tack.t(e); a float into an integer type under a guard that keeps
        NaN and values outside t away from the conversion."""
        if is_float(e.type) and not is_float(t):
            low, high = float(lo(t) - 1), float(hi(t) + 1)
            fallback = self.rng.randint(0, 9)

            def ev(c):
                v = e.ev(c)
                l, h = NUMPY_FLOAT[e.type](low), NUMPY_FLOAT[e.type](high)
                return int(v) if l < v < h else fallback

            # e is read twice in the source; it is pure, so once in the oracle.
            return Node(f"(tack.{t}({e.src}) if {low!r} < {e.src} < {high!r} else tack.{t}({fallback}))", t, ev)
        return Node(f"tack.{t}({e.src})", t, lambda c: convert(e.ev(c), e.type, t))

    def storable(self, t, e):
        """e as a store to (or a conversion into) type t takes it: a float
        into an integer type through the guarded cast, anything else as
        it is."""
        return self.cast(t, e) if is_float(e.type) and not is_float(t) else e

    def joinable(self, l, r):
        """(l, r) with one side cast where no type holds both."""
        if promoted(l.type, r.type) is not None:
            return l, r
        if self.rng.random() < 0.5:
            return (self.cast("u64", l), r) if signed(l.type) else (l, self.cast("u64", r))
        return (self.cast("i64", l), r) if l.type == "u64" else (l, self.cast("i64", r))

    def integer(self, depth):
        """An expression of an integer type (a float one cast)."""
        e = self.expr(depth)
        return self.cast(self.rng.choice(INT_NAMES), e) if is_float(e.type) else e

    def masked(self, e, mask):
        """e & mask: a value in [0, mask]."""
        e, m = self.joinable(e, self.literal(mask))
        t = promoted(e.type, m.type)
        return Node(f"({e.src} & {m.src})", t, lambda c: e.ev(c) & mask)

    def positive(self, depth):
        """((x & 15) + 1): an integer divisor in [1, 16]."""
        masked, one = self.joinable(self.masked(self.integer(depth), 15), self.literal(1))
        return Node(f"({masked.src} + {one.src})", promoted(masked.type, one.type), lambda c: masked.ev(c) + 1)

    # ------------------------------------------------------- expressions

    def expr(self, depth=MAX_DEPTH):
        r = self.rng
        if depth == 0 or r.random() < 0.2:
            pick = r.random()
            if pick < 0.2 and self.locals:
                return self.read_local()
            return self.literal() if pick < 0.45 else self.load()
        kind = r.choices(["arith", "cast_", "unary", "shift", "minmax", "compare", "chain", "select", "logic",
                          "divmod_", "divide", "power", "exact_math", "from_vector", "call"],
                         [8, 3, 2, 2, 2, 2, 1, 2, 1, 2, 1, 1, 2, 2, 2 if self.helpers else 0])[0]
        return getattr(self, kind)(depth - 1)

    def arith(self, depth):
        op = self.rng.choice(["+", "-", "*", "&", "|", "^"])
        return self.arith_of(op, *self.joinable(self.expr(depth), self.expr(depth)))

    def arith_of(self, op, l, r):
        """l op r, of operands with a common type (on floats a bitwise
        operator, and + or - beside a product, become *)."""
        t = promoted(l.type, r.type)
        op = self.operator_for(op, l, r)
        return Node(f"({l.src} {op} {r.src})", t, lambda c: arithmetic(op, l.ev(c), l.type, r.ev(c), r.type),
                    product=is_float(t) and op == "*")

    @staticmethod
    def operator_for(op, l, r):
        """The operator arith_of applies for op: on floats a bitwise
        operator, and + or - beside a product, become * (no bitwise
        operators on floats; no product beside an add)."""
        if is_float(promoted(l.type, r.type)) and (op in "&|^" or (op in "+-" and (l.product or r.product))):
            return "*"
        return op

    def cast_(self, depth):
        return self.cast(self.rng.choice(INT_NAMES + FLOAT_NAMES), self.expr(depth))

    def unary(self, depth):
        e = self.expr(depth)
        op = self.rng.choice(["-", "~", "abs", "not"])
        if op == "not":
            return Node(f"(not {e.src})", "i32", lambda c: int(e.ev(c) == 0))
        if is_float(e.type) and op == "~":
            op = "-"
        if op == "-" and e.literal is not None:
            # -N is the literal of N's negated whole value (where one holds it).
            return self.literal(-e.literal) if -e.literal >= -(1 << 63) else self.literal(e.literal)
        return self.unary_of(op, e)

    def unary_of(self, op, e):
        """-e, abs(e) or ~e (an integer e) in e's type."""
        if is_float(e.type):
            fn = np.abs if op == "abs" else np.negative
            return Node(f"abs({e.src})" if op == "abs" else f"(-{e.src})", e.type, lambda c: fn(e.ev(c)),
                        product=op != "abs" and e.product)
        if op == "abs":
            return Node(f"abs({e.src})", e.type, lambda c: wrap(abs(e.ev(c)), e.type))
        fn = (lambda v: -v) if op == "-" else (lambda v: ~v)
        return Node(f"({op}{e.src})", e.type, lambda c: wrap(fn(e.ev(c)), e.type))

    def shift(self, depth):
        l = self.integer(depth)
        count = self.masked(self.integer(depth), bits(l.type) - 1)
        t = l.type
        if self.rng.random() < 0.5:
            return Node(f"({l.src} << {count.src})", t, lambda c: wrap(l.ev(c) << count.ev(c), t))
        return Node(f"({l.src} >> {count.src})", t, lambda c: l.ev(c) >> count.ev(c))

    def minmax(self, depth):
        fn = self.rng.choice([min, max])
        l, r = self.joinable(self.expr(depth), self.expr(depth))
        t = promoted(l.type, r.type)
        if not is_float(t):
            return Node(f"{fn.__name__}({l.src}, {r.src})", t, lambda c: fn(l.ev(c), r.ev(c)))

        def ev(c):
            x, y = convert(l.ev(c), l.type, t), convert(r.ev(c), r.type, t)
            if np.isnan(x) or np.isnan(y):
                return y if np.isnan(x) else x  # the number, or NaN if both are
            if x == 0 and y == 0 and np.signbit(x) != np.signbit(y):
                raise Unspecified("min or max of zeros of both signs")
            return fn(x, y)

        return Node(f"{fn.__name__}({l.src}, {r.src})", t, ev)

    COMPARISONS = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, "==": lambda x, y: x == y,
                   "!=": lambda x, y: x != y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}

    def compared(self, op, l, r):
        """(x, y) -> whether x op y holds, in l and r's promoted type."""
        fn, t = self.COMPARISONS[op], promoted(l.type, r.type)
        return lambda x, y: bool(fn(convert(x, l.type, t), convert(y, r.type, t)))

    def compare(self, depth):
        op = self.rng.choice(sorted(self.COMPARISONS))
        return self.compare_of(op, *self.joinable(self.expr(depth), self.expr(depth)))

    def compare_of(self, op, l, r):
        """(l op r) of operands with a common type: i32 0 or 1, compared in
        their promoted type."""
        fn = self.compared(op, l, r)
        return Node(f"({l.src} {op} {r.src})", "i32", lambda c: int(fn(l.ev(c), r.ev(c))))

    def chain(self, depth):
        """a < b <= c: b evaluated once, each pair promoted on its own."""
        a, b, z = self.expr(depth), self.expr(depth), self.expr(depth)
        if promoted(a.type, b.type) is None or promoted(b.type, z.type) is None:
            return self.compare(depth)
        op1, op2 = self.rng.choice(sorted(self.COMPARISONS)), self.rng.choice(sorted(self.COMPARISONS))
        f1, f2 = self.compared(op1, a, b), self.compared(op2, b, z)

        def ev(c):
            x, y = a.ev(c), b.ev(c)
            return int(f1(x, y) and f2(y, z.ev(c)))

        return Node(f"({a.src} {op1} {b.src} {op2} {z.src})", "i32", ev)

    def select(self, depth):
        cond = self.expr(depth)
        x, y = self.joinable(self.expr(depth), self.expr(depth))
        t = promoted(x.type, y.type)
        return Node(f"({x.src} if {cond.src} else {y.src})", t,
                    lambda c: convert(x.ev(c), x.type, t) if cond.ev(c) != 0 else convert(y.ev(c), y.type, t))

    def logic(self, depth):
        l, r = self.expr(depth), self.expr(depth)
        if self.rng.random() < 0.5:
            return Node(f"({l.src} and {r.src})", "i32", lambda c: int(l.ev(c) != 0 and r.ev(c) != 0))
        return Node(f"({l.src} or {r.src})", "i32", lambda c: int(l.ev(c) != 0 or r.ev(c) != 0))

    def divmod_(self, depth):
        if self.rng.random() < 0.4:
            return self.float_divmod(depth)
        l, d = self.joinable(self.integer(depth), self.positive(depth))
        t = promoted(l.type, d.type)
        if self.rng.random() < 0.5:
            return Node(f"({l.src} // {d.src})", t, lambda c: l.ev(c) // d.ev(c))
        return Node(f"({l.src} % {d.src})", t, lambda c: l.ev(c) % d.ev(c))

    def nonzero(self, e):
        """e where it is nonzero (NaN is), another value of e's type
        where it is zero: the divisor of // and % must be nonzero."""
        other = f"tack.{e.type}(-1.5)" if is_float(e.type) else f"tack.{e.type}(3)"
        fallback = NUMPY_FLOAT[e.type](-1.5) if is_float(e.type) else 3
        # e is read twice in the source; it is pure, so once in the oracle.
        return Node(f"({e.src} if {e.src} != tack.{e.type}(0) else {other})", e.type,
                    lambda c: v if (v := e.ev(c)) != 0 else fallback)

    def float_divmod(self, depth):
        """// or % with a float operand, both converted to the promoted
        float type."""
        l, r = self.expr(depth), self.nonzero(self.expr(depth))
        if not is_float(promoted(l.type, r.type)):
            l = self.cast(self.rng.choice(FLOAT_NAMES), l)
        t = promoted(l.type, r.type)
        floor = self.rng.random() < 0.5
        return Node(f"({l.src} {'//' if floor else '%'} {r.src})", t,
                    lambda c: float_divmod(convert(l.ev(c), l.type, t), convert(r.ev(c), r.type, t), t)[0 if floor else 1])

    def divide(self, depth):
        l = self.expr(depth)
        if not is_float(l.type):  # integers: both to f32, by a nonzero divisor
            d = self.positive(depth)
            return Node(f"({l.src} / {d.src})", "f32",
                        lambda c: checked(np.divide(to_float(l.ev(c), "f32"), to_float(d.ev(c), "f32")), "f32"))
        r = self.expr(depth)
        t = promoted(l.type, r.type)
        return Node(f"({l.src} / {r.src})", t,
                    lambda c: checked(np.divide(convert(l.ev(c), l.type, t), convert(r.ev(c), r.type, t)), t))

    # The math builtins whose results are exact (sqrt: correctly rounded):
    # NumPy's in the result type. An integer argument converts to f32, or to
    # f64 beside an f64 argument.
    UNARY_MATH = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "sqrt": np.sqrt}
    BINARY_MATH = {"copysign": np.copysign, "fmod": np.fmod}
    CLASSES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}

    def exact_math(self, depth):
        pick = self.rng.random()
        if pick < 0.5:
            name = self.rng.choice(sorted(self.UNARY_MATH))
            fn, args = self.UNARY_MATH[name], [self.expr(depth)]
        elif pick < 0.8:
            name = self.rng.choice(sorted(self.BINARY_MATH))
            fn, args = self.BINARY_MATH[name], [self.expr(depth), self.expr(depth)]
        else:
            name = self.rng.choice(sorted(self.CLASSES))
            fn, args = self.CLASSES[name], [self.expr(depth)]
        t = "f64" if any(a.type == "f64" for a in args) else "f32"
        src = f"tack.{name}({', '.join(a.src for a in args)})"

        def ev(c):
            values = [convert(a.ev(c), a.type, t) for a in args]
            if name == "copysign" and np.isnan(values[1]):
                raise Unspecified("the sign of a NaN")
            return checked(NUMPY_FLOAT[t](fn(*values)), t)

        if name in self.CLASSES:
            return Node(src, "i32", lambda c: int(fn(convert(args[0].ev(c), args[0].type, t))))
        return Node(src, t, ev)

    def power(self, depth):
        base = self.integer(depth)
        k = self.rng.randint(0, 5)
        src = f"({base.src} ** {k})" if self.rng.random() < 0.7 else f"pow({base.src}, {k})"
        return Node(src, base.type, lambda c: wrap(base.ev(c) ** k, base.type))

    # ---------------------------------------------------------- programs

    def program(self):
        r = self.rng
        helpers = self.helper_definitions()
        self.choose_scalars()  # after the helpers, which cannot read them
        typed_range = choose_range(self.seed)
        if typed_range:
            self.locals.update(typed_range.variables)
        lines, steps = [], []
        for k in range(r.randint(0, 3)):
            name = f"t{k}"
            first = self.expr(r.randint(1, 3))
            lines.append(f"        {name} = {first.src}")
            t = first.type
            second = cond = None
            if r.random() < 0.15:  # assigned under a condition only: zero of its type where not
                cond = self.expr(2)
                lines[-1:] = [f"        if {cond.src}:", f"            {name} = {first.src}"]
                first, second = None, first
            elif r.random() < 0.3:  # a second assignment under a condition: the local's type is the join
                cond, second = self.expr(2), self.expr(2)
                if is_float(first.type) != is_float(second.type):  # one kind: cast the integer
                    f = first.type if is_float(first.type) else second.type
                    first, second = (first if is_float(first.type) else self.cast(f, first),
                                     second if is_float(second.type) else self.cast(f, second))
                first, second = self.joinable(first, second)
                t = promoted(first.type, second.type)
                lines[-1] = f"        {name} = {first.src}"
                lines.append(f"        if {cond.src}:")
                lines.append(f"            {name} = {second.src}")
            steps.append((name, t, first, cond, second))
            self.locals[name] = t
            if r.random() < 0.2:  # a vector local
                name = f"w{k}"
                v = self.vector(r.randint(1, 3), random_shape(r))
                lines.append(f"        {name} = {v.src}")
                types, cond, second = [x.type for x in v.comps], None, None
                pick = r.random()
                if pick < 0.3:  # a second assignment under a condition: each component the join
                    cond, second = self.expr(2), self.vector(2, v.shape)
                    if any(promoted(x.type, y.type) is None for x, y in zip(v.comps, second.comps)):
                        second = self.as_f64(second)
                    types = [promoted(x.type, y.type) for x, y in zip(v.comps, second.comps)]
                    lines += [f"        if {cond.src}:", f"            {name} = {second.src}"]
                elif pick < 0.45:  # assigned under a condition only: zeros where not
                    cond, second = self.expr(2), v
                    lines[-1:] = [f"        if {cond.src}:", f"            {name} = {v.src}"]
                    v = None
                steps.append((name, types, v, cond, second))
                self.vector_locals[name] = ((second or v).shape, types)
        if random.Random(self.seed * 13 + 7).random() < 0.3:  # (a stream of its own: other programs stay as they were)
            steps.append(self.local_array(lines))
        skip = random.Random(self.seed * 17 + 3).random() < 0.2  # (a stream of its own)
        early = skip and r.random() < 0.5
        if early:  # before the sequential loop
            steps.append(self.parallel_continue(lines))
        if r.random() < 0.45:
            loop = self.loop(lines)
            if loop:
                steps.append(loop)
        if skip and not early:
            steps.append(self.parallel_continue(lines))
        stores = []
        for name, t in self.outputs.items():
            e = self.contracted(MAX_DEPTH - 1) if is_float(t) and r.random() < 0.3 else None
            if e is None:
                e = self.expr()
            stores.append((name, self.storable(t, e)))
        lines += [f"        {name}[i] = {e.src}" for name, e in stores]
        inputs, outputs, shapes = dict(self.inputs), dict(self.outputs), {}
        vector_store = None
        for name, (t, shape) in self.element_arrays().items():
            inputs[name], shapes[name] = t, shape
        if self.vector_array:
            if r.random() < 0.5:  # a vector output (of floats: no float component converts to an integer)
                width, layout = r.choice((2, 3, 4)), r.choice(("aos", "soa"))
                outputs["ov"], shapes["ov"] = r.choice(self.float_array_types()), (width, layout)
                vector_store = self.vector(MAX_DEPTH - 1, (width,))
                lines.append(f"        ov[i] = {vector_store.src}")
        atomics = self.atomic_section([t for t in atomic_types(self.device)
                                       if not is_float(t) or t in self.float_array_types()])
        extra = []
        if atomics:
            lines += atomics[0]
            atomics = atomics[1]
            extra = [ARRAY, *atomics.olds]
        kernel = f"e{self.seed}"
        bounds = typed_range.params if typed_range else []
        params = ", ".join(list(inputs) + list(self.scalars) + bounds + list(outputs) + extra)
        header = []
        if typed_range:
            typed_range.header(header)
        else:
            header.append(f"    for i in range(len({OUTPUTS[0]})):")
        source = "".join(h + "\n\n" for h in helpers + self.local_helpers)
        source += f"@tack.kernel\ndef {kernel}({params}):\n" + "\n".join(header + lines) + "\n"

        def run(arrays, n):
            results = {name: [] for name in list(outputs) + ([ARRAY] if atomics else [])}
            for i in range(n):
                c = Context(arrays, i, n)
                if typed_range:
                    typed_range.bind(c, i, n)
                try:
                    for step in steps:
                        if isinstance(step, Continue):
                            if step.condition.ev(c) != 0:
                                raise Skipped
                            continue
                        if isinstance(step, (Loop, LocalArray)):
                            step.run(c)
                            continue
                        name, t, first, cond, second = step
                        if isinstance(t, list):  # a vector local: its components, each of its own type
                            c.locals[name] = ([convert(x.ev(c), x.type, u) for x, u in zip(first.comps, t)]
                                              if first else [convert(0, "i64", u) for u in t])
                            if cond is not None and cond.ev(c) != 0:
                                c.locals[name] = [convert(x.ev(c), x.type, u) for x, u in zip(second.comps, t)]
                            continue
                        c.locals[name] = convert(first.ev(c), first.type, t) if first else convert(0, "i64", t)
                        if cond is not None and cond.ev(c) != 0:
                            c.locals[name] = convert(second.ev(c), second.type, t)
                except Unspecified:
                    for values in results.values():
                        values.append(None)
                    continue
                except Skipped:  # the iteration ends: its outputs keep their zeros, it updates no atomic
                    for name, t in outputs.items():
                        width = shapes[name][0] if name in shapes else 0
                        results[name].append([convert(0, "i64", t)] * width if width else convert(0, "i64", t))
                    if atomics:
                        results[ARRAY].append([[] for _ in atomics.updates])
                    continue
                for name, e in stores:
                    t = outputs[name]
                    try:
                        value = e.ev(c)
                        if isinstance(value, Choices):  # any of the values contraction allows
                            results[name].append(value.map(lambda v: checked(convert(v, e.type, t), t)))
                        else:
                            results[name].append(checked(convert(value, e.type, t), t))
                    except Unspecified:
                        results[name].append(None)
                if vector_store:
                    t = outputs["ov"]
                    values = []
                    for x in vector_store.comps:
                        try:
                            values.append(checked(convert(x.ev(c), x.type, t), t))
                        except Unspecified:
                            values.append(None)
                    results["ov"].append(values)
                if atomics:
                    try:
                        results[ARRAY].append(atomics.evaluate(c))
                    except Unspecified:
                        results[ARRAY].append(None)
            return results

        return Program(self.seed, kernel, source, inputs, outputs, run, shapes, atomics,
                       scalars={name: arg for name, (arg, _, _) in self.scalars.items()},
                       bounds=typed_range.arguments if typed_range else None,
                       length_multiple=typed_range.columns if typed_range and typed_range.columns else 1,
                       min_length=8 if self.typed_indices else 1)


def generate(seed, device="cpu"):
    """The program of `seed`, its atomics in `device`'s domain."""
    return Generator(seed, device).program()
