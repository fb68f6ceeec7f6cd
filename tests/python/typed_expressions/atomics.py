"""Atomic updates in generated programs, and what any order of them allows.

A program may end its iteration with one or two atomic updates of `oa`, an
array of one element type from the device's atomic domain
(backends.ATOMIC_DTYPES), holding random values of that type before the
launch: tack.atomic_add/sub/min/max/exch(oa, index, value) and
tack.atomic_cas(oa, index, expected, value). `oa` is one of
- LENGTH numbers, by an index that is a generated integer expression
  masked into [0, LENGTH - 1] (of any integer type);
- 2x2 numbers, by a tuple of two such indices (each of its own type) or by
  one flat, row-major index;
- LENGTH vectors of 2 to 4 components (either layout), updated by a vector
  of as many values, one atomic per component (no compare-and-swap: it
  takes scalar arrays only), or on the array-of-structures layout a single
  component by its flat index into all the components.
The value and the expected value are generated expressions of any type,
which the atomic converts to oa's type once (the contract's "Atomic array
updates": an integer wraps, an integer or an f64 rounds to a float, a float
goes into an integer type through the grammar's guarded cast).

The iterations run in no defined order, so the oracle checks what some
order gives:
- as statements (one family in a program: add and sub of integers, or min,
  or max), each element ends as the fold of its contributions from its
  starting value, which is the same in every order (integer add wraps;
  min and max compare with the type's signedness);
- as expressions (`b0[i] = tack.atomic_add(...)`, each update's old value
  stored), an update is an edge from the old value it returned to the value
  it left (old + c, old - c, min(old, c), max(old, c), c, or for a
  compare-and-swap c where old has the expected bits and old elsewhere),
  worked out from the returned old value in the array's type. Some order
  of an element's updates gives what Tack returned exactly when its edges
  form one trail from the element's starting value to its final value
  using every edge once: every value is entered as often as it is left,
  but the starting value, left once more, and the final value, entered
  once more, where they differ; and every edge is connected to the start.

Float contributions that are NaN, infinite or denormal, and float updates
whose result overflows or is denormal, leave their element unchecked
(outside the contract's atomic domain). Where a program takes a float
minimum or maximum, zeros of either sign count as one value: the contract
leaves a tie's sign open.
"""

from dataclasses import dataclass

import numpy as np

from integer_types import INT_NAMES, hi, lo, wrap

from .rules import FLOAT_NAMES, NUMPY_FLOAT, Node, Unspecified, checked, convert, is_float

LENGTH = 4
ARRAY = "oa"
OLD = ("b0", "b1")  # where expression updates store their old values
FAMILIES = {"add": ("add", "sub"), "min": ("min",), "max": ("max",)}


@dataclass
class Update:
    op: str  # add, sub, min, max, exch, cas
    index: object  # rules.Node, or a tuple of them (a row and a column)
    value: object  # rules.Node of any type, or a list of them (a vector value)
    expected: object = None  # rules.Node, for cas
    old: str = None  # the output array of the old value (expression form)


@dataclass
class Shape:
    """oa's elements: LENGTH numbers ("flat"), 2x2 numbers ("grid") or
    LENGTH vectors of `width` components ("vector", in `layout`)."""
    kind: str
    width: int = 1
    layout: str = "aos"

    @property
    def components(self):
        return LENGTH * self.width


class AtomicUpdates:
    """The atomic section of the typed-expression Generator (a mixin: it
    uses the Generator's rng, scalar expressions and casts)."""

    def atomic_section(self, types):
        """(lines, Atomics) updating oa with one or two atomics, or None
        (types: the device's atomic element types)."""
        r = self.rng
        if r.random() < 0.65:
            return None
        t = r.choice(types)
        kind = r.choice(["flat", "flat", "grid", "vector"])
        shape = Shape(kind, r.choice((2, 3, 4)), r.choice(("aos", "soa"))) if kind == "vector" else Shape(kind)
        initial = [self.atomic_value(t) for _ in range(shape.components)]
        statements = r.random() < 0.4
        if statements:
            family = FAMILIES[r.choice(["min", "max"] if is_float(t) else ["add", "add", "min", "max"])]
        else:
            family = ("add", "sub", "min", "max", "exch", "cas")
        updates, lines = [], []
        for k in range(r.randint(1, 2)):
            op = r.choice(family)
            if kind == "vector" and op == "cas":
                op = "exch"
            components = kind == "vector" and (shape.layout == "soa" or r.random() < 0.7)
            index, index_src = self.atomic_index(shape, components)
            expected = None
            if components:
                value = [self.contribution(t, 2) for _ in range(shape.width)]
                value_src = f"tack.vec{shape.width}({', '.join(v.src for v in value)})"
            else:
                value = self.contribution(t, 3)
                value_src = value.src
                if op == "cas":  # a starting value's bits half the time, so that some swap
                    expected = (self.literal_of(r.choice(initial), t) if r.random() < 0.5
                                else self.contribution(t, 2))
            call = f"tack.atomic_{op}({ARRAY}, {index_src}, "
            call += f"{expected.src}, {value_src})" if expected else f"{value_src})"
            old = None if statements else OLD[k]
            lines.append(f"        {old}[i] = {call}" if old else f"        {call}")
            updates.append(Update(op, index, value, expected, old))
        return lines, Atomics(t, shape, initial, updates)

    def atomic_index(self, shape, components):
        """(the index node or nodes, its source): a vector element's index
        where `components`, else a number's (on a vector array one
        component's flat index into all of them)."""
        if shape.kind == "grid" and self.rng.random() < 0.6:
            row, col = self.masked(self.integer(2), 1), self.masked(self.integer(2), 1)
            return (row, col), f"({row.src}, {col.src})"
        span = LENGTH if components or shape.kind != "vector" else 8  # a power of two within the components
        index = self.masked(self.integer(2), span - 1)
        return index, index.src

    def atomic_value(self, t):
        r = self.rng
        if is_float(t):
            return NUMPY_FLOAT[t](r.choice([0.0, -0.0, 1.5, -2.0, 3.25, 1e30, -1e-3, 7.0, 2.0**24]))
        return r.choice([lo(t), hi(t), 0, 1, -1 % (hi(t) + 1) if lo(t) == 0 else -1, r.randint(lo(t), hi(t))])

    def contribution(self, t, depth):
        """A generated expression the atomic converts to t: a float one
        cast under the guard where t is an integer type."""
        return self.storable(t, self.expr(depth))

    def literal_of(self, v, t):
        """The value v of type t as a source constant, tack.t(v)."""
        src = f"tack.{t}({float(v)!r})" if is_float(t) else f"tack.{t}({v})"
        return Node(src, t, lambda c: v)


class Atomics:
    """The atomic section of one program: oa's type, shape and starting
    values (one per component, row-major), its updates, and the check of
    what Tack left."""

    def __init__(self, t, shape, initial, updates):
        self.type, self.shape, self.initial, self.updates = t, shape, initial, updates
        self.statements = updates[0].old is None
        self.zeros_merge = is_float(t) and any(u.op in ("min", "max") for u in updates)

    @property
    def olds(self):
        return {u.old: isinstance(u.value, list) and self.shape.width for u in self.updates if u.old}

    def evaluate(self, c):
        """This iteration's updates: for each, its components as (the
        component's position in oa, the contribution in oa's type, the
        expected value) -- a None contribution where the contract leaves it
        open."""
        out = []
        for u in self.updates:
            if isinstance(u.index, tuple):
                at = u.index[0].ev(c) * 2 + u.index[1].ev(c)
            else:
                at = u.index.ev(c)
            values = u.value if isinstance(u.value, list) else [u.value]
            first = at * self.shape.width if isinstance(u.value, list) else at
            components = []
            for k, node in enumerate(values):
                try:
                    v = self.contributed(node, c)
                    e = self.contributed(u.expected, c) if u.expected else None
                except Unspecified:
                    v = e = None
                components.append((first + k, v, e))
            out.append(components)
        return out

    def contributed(self, node, c):
        t = self.type
        v = convert(node.ev(c), node.type, t)
        if is_float(t) and not np.isfinite(v):
            raise Unspecified("a non-finite float in an atomic")
        return checked(v, t)

    def result(self, op, old, v, e):
        """The value an update leaves, from the old value it found."""
        t = self.type
        if op == "exch":
            return v
        if op == "cas":
            return v if self.bits(old) == self.bits(e) else old
        if op in ("min", "max"):
            return (min if op == "min" else max)(old, v)
        if not is_float(t):
            return wrap(old + v if op == "add" else old - v, t)
        ft = NUMPY_FLOAT[t]
        with np.errstate(all="ignore"):
            s = (np.add if op == "add" else np.subtract)(ft(old), ft(v), dtype=ft)
        if not np.isfinite(s):
            raise Unspecified("an atomic float sum overflows")
        return checked(s, t)

    def bits(self, v):
        if not is_float(self.type):
            return v
        return np.asarray(v, dtype=NUMPY_FLOAT[self.type]).tobytes()

    def key(self, v):
        """A value as a vertex of the trail: its bits (zeros of both signs
        one vertex where a min or max leaves the sign open)."""
        if self.zeros_merge and v == 0:
            return self.bits(0.0)
        return self.bits(v)

    def check(self, evaluated, final, olds):
        """What is wrong with `final` (oa's components after the launch)
        and `olds` (name -> the old values stored, a list of components for
        a vector), given each iteration's evaluate() (None for an iteration
        the contract leaves open); None if nothing."""
        per_element = [[] for _ in range(self.shape.components)]  # (op, contribution, expected, old)
        unchecked = set()
        for i, updates in enumerate(evaluated):
            if updates is None:
                return None  # an index the contract leaves open: no element can be checked
            for u, components in zip(self.updates, updates):
                for k, (at, v, e) in enumerate(components):
                    if v is None or (u.op == "cas" and e is None):
                        unchecked.add(at)
                    old = None
                    if u.old:
                        old = olds[u.old][i][k] if isinstance(u.value, list) else olds[u.old][i]
                    per_element[at].append((u.op, v, e, old))
        for k in range(self.shape.components):
            if k in unchecked:
                continue
            try:
                problem = (self.fold(k, per_element[k], final[k]) if self.statements
                           else self.trail(k, per_element[k], final[k]))
            except Unspecified:
                continue
            if problem:
                return problem
        return None

    def where(self, k):
        """Component k of oa in the kernel's indexing."""
        if self.shape.kind == "grid":
            return f"{ARRAY}[{k // 2}, {k % 2}]"
        if self.shape.kind == "vector":
            return f"{ARRAY}[{k // self.shape.width}][{k % self.shape.width}]"
        return f"{ARRAY}[{k}]"

    def fold(self, k, updates, final):
        value = self.initial[k]
        for op, v, _, _ in updates:
            value = self.result(op, value, v, None)
        if self.key(value) != self.key(final):
            return (f"{self.where(k)} ({self.type}) is {final!r}; its {len(updates)} updates from {self.initial[k]!r} "
                    f"give {value!r} in any order")
        return None

    def trail(self, k, updates, final):
        start, end = self.key(self.initial[k]), self.key(final)
        edges = [(self.key(old), self.key(self.result(op, old, v, e))) for op, v, e, old in updates]
        if trail_exists(start, end, edges):
            return None
        shown = ", ".join(f"{op}({v!r}{'' if e is None else f', expected {e!r}'}) returned {old!r}"
                          for op, v, e, old in updates[:8])
        return (f"{self.where(k)} ({self.type}) went from {self.initial[k]!r} to {final!r}, and no order of its "
                f"{len(updates)} updates returns what they did: {shown}")


def trail_exists(start, end, edges):
    """Whether one walk from `start` to `end` uses every edge once."""
    if not edges:
        return start == end
    balance, parent = {}, {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in edges:
        balance[u] = balance.get(u, 0) + 1
        balance[v] = balance.get(v, 0) - 1
        parent[find(u)] = find(v)
    want = {start: 1, end: -1} if start != end else {}
    if any(balance.get(x, 0) != want.get(x, 0) for x in set(balance) | set(want)):
        return False
    root = find(start)
    return all(find(u) == root for u, _ in edges)


def atomic_types(device):
    """The element types `device`'s atomics cover, by the contract."""
    from backends import ATOMIC_DTYPES

    names = {np.dtype(NUMPY_FLOAT[t]): t for t in FLOAT_NAMES}
    from integer_types import NP

    names.update({NP[t]: t for t in INT_NAMES})
    return sorted(names[d] for d in ATOMIC_DTYPES[device])
