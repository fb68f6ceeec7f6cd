"""Typed parallel ranges in generated programs.

A program's parallel loop is `for i in range(len(o0))`, or (about a
quarter of programs) a range over number arguments of integer types of
their own, whose values each call chooses for its length n:

    for q in range(r1):                                   # q in 0 .. n - 1
    for q in range(r0, r1):                               # r0 .. r0 + n - 1
    for q in range(r0, r1, r2):                           # n trips of a positive step r2
        i = tack.i64(q) - tack.i64(r0)                    # (the first two: tack.i64(q))
        i = (tack.i64(q) - tack.i64(r0)) // tack.i64(r2)  # (the third)

Each call runs n trips, i taking each of 0 .. n - 1 once, so the outputs
are written as the program's other forms write them. q counts in the type
of the bounds and the step together, the implicit start and step i32s
unless the bounds are u64s (docs/language.md, "The parallel loop": an
implicit start or step counts in the bound's type where an i32 cannot be
mixed with it), and the program's expressions read q as a local of that
type. The bounds sit at the low or high end of their types (the last trip
one step inside the type's bound), across zero, or anywhere; the end is
`r0 + n * r2` or up to |r2| - 1 short of it (the same n trips, the count
rounded up). A parallel range's step is positive (docs/language.md: a
step of zero or less raises ValueError before anything runs). Each bound
is passed as a NumPy scalar of its type, an i32 sometimes as a Python int.

i is computed from q in i64, where q - r0 and the quotient are exact (a
u64 q past 2^63 converts with wraparound, and the difference wraps back):
in q's own type `q - r0` may wrap (an i8 range from -100 to 100 does), as
the contract's arithmetic says and as a user's index must not.
"""

import random
from dataclasses import dataclass

import numpy as np

from integer_types import INT_NAMES, NP, hi, lo

from .rules import promoted

VARIABLE = "q"
NAMES = ("r0", "r1", "r2")


@dataclass
class TypedRange:
    seed: int
    types: tuple  # (start, end, step) types; None where the source leaves one out
    type: str  # q's type: the bounds and the step together
    magnitude: int  # the step at most (a call may take less where its types leave no room)
    slack: int  # the end falls short of start + n * step by up to step - 1
    placement: str  # "low", "high", "zero" or "random"
    python_int: bool  # an i32 bound passed as a Python int

    @property
    def params(self):
        return [name for name, t in zip(NAMES, self.types) if t]

    def header(self, lines):
        """The loop's first lines."""
        bounds = ", ".join(self.params)
        lines.append(f"    for {VARIABLE} in range({bounds}):")
        offset = f"tack.i64({VARIABLE}) - tack.i64(r0)" if self.types[0] else f"tack.i64({VARIABLE})"
        lines.append(f"        i = ({offset}) // tack.i64(r2)" if self.types[2] else f"        i = {offset}")

    def values(self, n):
        """(start, end, step) for n trips."""
        if not self.types[0]:
            return 0, n, 1
        start_type, end_type, step_type = self.types
        for step in range(self.magnitude, 0, -1):
            end_offset = n * step - self.slack % step
            low = max(lo(start_type), lo(end_type) - end_offset)
            high = min(hi(start_type), hi(end_type) - end_offset)
            if low <= high:
                break
        else:
            raise AssertionError(f"no room for {n} trips in {self.types}")
        if self.placement == "low":
            start = low
        elif self.placement == "high":
            start = high
        elif self.placement == "zero":
            start = min(max(0, low), high)
        else:
            start = random.Random(self.seed * 101 + n).randint(low, high)
        return start, start + end_offset, step

    def arguments(self, n):
        """The bounds passed for n trips, in the kernel's parameter order."""
        args = []
        for t, v in zip(self.types, self.values(n)):
            if t:
                args.append(v if t == "i32" and self.python_int else np.array(v).astype(NP[t])[()])
        return args

    def variable(self, k, n):
        """q in trip k of n."""
        start, _, step = self.values(n)
        return start + k * step


def choose_range(seed):
    """A TypedRange for about a quarter of seeds, else None; from a random
    stream of its own, so the rest of a program is as it was without it."""
    r = random.Random(seed * 7 + 1)
    if r.random() >= 0.25:
        return None
    form = r.choice(["end", "bounds", "step"])
    end_type = r.choice(INT_NAMES)
    start_type = step_type = None
    if form != "end":
        start_type = r.choice([t for t in INT_NAMES if promoted(t, end_type)])
    if form == "step":
        step_type = r.choice([t for t in INT_NAMES if promoted(promoted(start_type, end_type), t)])
        counted = promoted(promoted(start_type, end_type), step_type)
    else:
        bounds = end_type if form == "end" else promoted(start_type, end_type)
        counted = "u64" if bounds == "u64" else promoted("i32", bounds)
    return TypedRange(seed, (start_type, end_type, step_type), counted, r.randint(1, 3) if form == "step" else 1,
                      r.randint(0, 2), r.choice(["low", "high", "zero", "random"]), r.random() < 0.5)
