"""Typed parallel ranges in generated programs.

A program's parallel loop is `for i in range(len(o0))`, or (about a third
of programs) a range or a tack.ndindex over number arguments of integer
types of their own, whose values each call chooses for its length n:

    for q in range(r1):                                   # q in 0 .. n - 1
    for q in range(r0, r1):                               # r0 .. r0 + n - 1
    for q in range(r0, r1, r2):                           # n trips of a positive step r2
        i = tack.i64(q)                                   # (the first)
        i = tack.i64(q) - tack.i64(r0)                    # (the second)
        i = (tack.i64(q) - tack.i64(r0)) // tack.i64(r2)  # (the third)

    for q, c in tack.ndindex(r1, (r3, r4)):               # sizes or (start, end) pairs
        i = (tack.i64(q)) * W + (tack.i64(c) - tack.i64(r3))

Each call runs one trip per element, i taking each of 0 .. n - 1 once, so
the outputs are written as the program's other forms write them (an
ndindex's second dimension has W = 1 to 4 trips and n is a multiple of W).
Each variable counts in the type of its bounds and step together, the
implicit start and step i32s unless the bounds are u64s (docs/language.md,
"The parallel loop": an implicit start or step counts in the bound's type
where an i32 cannot be mixed with it; an ndindex dimension is typed as a
range of its pair is), and the program's expressions read q and c as
locals of those types. The bounds sit at the low or high end of their
types (the last trip one step inside the type's bound), across zero, or
anywhere; the end is `r0 + trips * r2` or up to r2 - 1 short of it (the
same trips, the count rounded up). A parallel range's step is positive
(docs/language.md: a step of zero or less raises ValueError before anything
runs). Each bound is passed as a NumPy scalar of its type, an i32
sometimes as a Python int.

i is computed from q and c in i64, where the differences and the quotient
are exact (a u64 past 2^63 converts with wraparound, and the difference
wraps back): in q's own type `q - r0` may wrap (an i8 range from -100 to
100 does), as the contract's arithmetic says and as a user's index must
not.
"""

import random
from dataclasses import dataclass

import numpy as np

from integer_types import INT_NAMES, NP, hi, lo

from .rules import promoted, range_type

VARIABLE = "q"
COLUMN = "c"  # an ndindex's second variable


@dataclass
class Dim:
    """One dimension of the parallel loop: its bounds' and step's types
    (None where the source leaves one out) and how each call places them."""
    names: tuple  # the parameters' names: (start, end, step)
    types: tuple  # their types
    type: str  # the variable's type: the bounds and the step together
    magnitude: int  # the step at most (a call may take less where its types leave no room)
    slack: int  # the end falls short of start + trips * step by up to step - 1
    placement: str  # "low", "high", "zero" or "random"

    @property
    def params(self):
        return [name for name, t in zip(self.names, self.types) if t]

    def offset(self, variable):
        """The source of the trip's number from the variable, in i64."""
        if not self.types[0]:
            return f"tack.i64({variable})"
        offset = f"tack.i64({variable}) - tack.i64({self.names[0]})"
        return f"({offset}) // tack.i64({self.names[2]})" if self.types[2] else offset

    def values(self, trips, seed):
        """(start, end, step) for `trips` trips; ValueError where the types
        leave no room for them."""
        if not self.types[0]:
            if trips > hi(self.types[1]):
                raise ValueError(f"no room for {trips} trips in {self.types[1]}")
            return 0, trips, 1
        start_type, end_type, _ = self.types
        for step in range(self.magnitude, 0, -1):
            end_offset = trips * step - self.slack % step
            low = max(lo(start_type), lo(end_type) - end_offset)
            high = min(hi(start_type), hi(end_type) - end_offset)
            if low <= high:
                break
        else:
            raise ValueError(f"no room for {trips} trips in {self.types}")
        if self.placement == "low":
            start = low
        elif self.placement == "high":
            start = high
        elif self.placement == "zero":
            start = min(max(0, low), high)
        else:
            start = random.Random(seed * 101 + trips).randint(low, high)
        return start, start + end_offset, step


@dataclass
class TypedRange:
    seed: int
    dims: list  # one Dim, or two for tack.ndindex
    columns: int  # the second dimension's trips (0: range())
    python_int: bool  # an i32 bound passed as a Python int

    @property
    def params(self):
        return [name for d in self.dims for name in d.params]

    @property
    def variables(self):
        """The loop's variables and their types."""
        return dict(zip((VARIABLE, COLUMN), (d.type for d in self.dims)))

    def header(self, lines):
        """The loop's first lines."""
        if not self.columns:
            lines.append(f"    for {VARIABLE} in range({', '.join(self.params)}):")
            lines.append(f"        i = {self.dims[0].offset(VARIABLE)}")
            return
        extents = [d.params[0] if len(d.params) == 1 else f"({', '.join(d.params)})" for d in self.dims]
        lines.append(f"    for {VARIABLE}, {COLUMN} in tack.ndindex({', '.join(extents)}):")
        row, column = self.dims[0].offset(VARIABLE), self.dims[1].offset(COLUMN)
        lines.append(f"        i = ({row}) * {self.columns} + ({column})")

    def trips(self, n):
        return [n] if not self.columns else [n // self.columns, self.columns]

    def arguments(self, n):
        """The bounds passed for n elements, in the kernel's parameter order."""
        args = []
        for d, trips in zip(self.dims, self.trips(n)):
            for t, v in zip(d.types, d.values(trips, self.seed)):
                if t:
                    args.append(v if t == "i32" and self.python_int else np.array(v).astype(NP[t])[()])
        return args

    def bind(self, c, k, n):
        """Binds the variables of the trip that writes element k of n in c."""
        trips = self.trips(n)
        numbers = [k] if len(trips) == 1 else [k // trips[1], k % trips[1]]
        for name, d, trip, count in zip((VARIABLE, COLUMN), self.dims, numbers, trips):
            start, _, step = d.values(count, self.seed)
            c.locals[name] = start + trip * step


def choose_dim(r, names, forms):
    """A Dim of one of `forms` ("end", "bounds", "step")."""
    form = r.choice(forms)
    end_type = r.choice(INT_NAMES)
    start_type = step_type = None
    if form != "end":
        start_type = r.choice([t for t in INT_NAMES if promoted(t, end_type)])
    if form == "step":
        step_type = r.choice([t for t in INT_NAMES if promoted(promoted(start_type, end_type), t)])
        counted = promoted(promoted(start_type, end_type), step_type)
    else:
        bounds = end_type if form == "end" else promoted(start_type, end_type)
        counted = range_type(bounds)
    return Dim(names, (start_type, end_type, step_type), counted, r.randint(1, 3) if form == "step" else 1,
               r.randint(0, 2), r.choice(["low", "high", "zero", "random"]))


def choose_range(seed):
    """A TypedRange for about a third of seeds, else None; from a random
    stream of its own, so programs without one are as they were."""
    r = random.Random(seed * 7 + 1)
    if r.random() >= 0.33:
        return None
    if r.random() < 0.3:  # tack.ndindex over two dimensions: sizes or (start, end) pairs
        dims = [choose_dim(r, names, ["end", "bounds"]) for names in (("r0", "r1", "r2"), ("r3", "r4", "r5"))]
        return TypedRange(seed, dims, r.randint(1, 4), r.random() < 0.5)
    return TypedRange(seed, [choose_dim(r, ("r0", "r1", "r2"), ["end", "bounds", "step"])], 0, r.random() < 0.5)
