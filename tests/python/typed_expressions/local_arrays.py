"""Local arrays in generated programs: private scratch per iteration,
filled, stored to and read back.

After its locals a program may declare (in the parallel loop)

    l0 = tack.local_array(K, tack.T)           # or (2, K // 2): two indices, or one flat
    for m in range(K):
        l0[m] = <value>                        # every element, in order
                                               # (or f<seed>(l0, a0, ..., i): a device function that does)
    if <condition>:                            # sometimes
        l0[<index>] = <value>                  # or l0[<index>] op= <value>
    l0[<index>] = <value>                      # sometimes

of K in {2, 4, 8} elements of any of the ten types, and its later
expressions read `l0[<index>]` (a 2-D one `l0[r, c]` or flat); a
sequential loop's trips may store to it too (loops.py). A value is
uniform (literals, the number arguments, m, and +, -, *, &, |, ^ of them:
the same in every SIMD lane, which docs/backends.md lets the lanes share
one copy of the array for, filled once per group) or varies with i (the
grammar's expressions, loads among them); a condition is uniform (of the
number arguments) or varies; an index is a literal, a number argument
masked into range, or a generated expression masked into range. Each
store converts its value to T as an array store does (a float into an
integer type through the grammar's guarded cast). The oracle keeps each
iteration's array as a Python list, the element's value converted to T at
each store; no element is read before the fill writes it.
"""

from dataclasses import dataclass

from integer_types import INT_NAMES

from .rules import Node, checked, convert, is_float, promoted
from .vectors import count

ARRAY = "l0"
FILL = "m"


@dataclass
class LocalArray:
    type: str
    shape: tuple  # (K,) or (2, K // 2)
    fill: Node  # reads FILL
    stores: list  # (condition Node or None, flat index Node, value Node)

    def run(self, c):
        """The array's fill and stores in context c: c.locals[ARRAY]."""
        values = []
        for m in range(count(self.shape)):
            c.locals[FILL] = m
            values.append(self.stored(self.fill, c))
        c.locals.pop(FILL)
        c.locals[ARRAY] = values
        for condition, index, value in self.stores:
            if condition is None or condition.ev(c) != 0:
                self.store(index, value, c)

    def store(self, index, value, c):
        """Stores value at the flat index in context c, converted to the
        array's type."""
        c.locals[ARRAY][index.ev(c)] = self.stored(value, c)

    def stored(self, value, c):
        return checked(convert(value.ev(c), value.type, self.type), self.type)


def element(index, at, t):
    """l0[index] of type t, its flat index the Node `at`."""
    return Node(f"{ARRAY}[{index}]", t, lambda c: c.locals[ARRAY][at.ev(c)])


class LocalArrays:
    """Local arrays of the typed-expression Generator (a mixin: it uses the
    Generator's rng, expressions, casts and number arguments)."""

    def local_array(self, lines):
        """Declares l0, fills it and stores to it, its lines added to
        `lines`: the LocalArray, which later loads may read (load_local)."""
        r = self.rng
        t = r.choice(sorted(self.local_types()))
        size = r.choice((2, 4, 8))
        shape = (size,) if size == 2 or r.random() < 0.6 else (2, size // 2)
        extents = str(size) if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
        lines.append(f"        {ARRAY} = tack.local_array({extents}, tack.{t})")
        if r.random() < 0.3:  # filled by a device function the array is passed to
            fill = self.fill_helper(t, size, lines)
        else:
            self.locals[FILL] = "i32"
            fill = self.storable(t, self.uniform() if r.random() < 0.5 else self.expr(2))
            del self.locals[FILL]
            lines += [f"        for {FILL} in range({size}):", f"            {ARRAY}[{FILL}] = {fill.src}"]
        array = LocalArray(t, shape, fill, [])
        for _ in range(r.choice((0, 1, 1, 2))):
            condition = None
            if r.random() < 0.4:
                condition = self.uniform_condition() if r.random() < 0.5 else self.expr(2)
            store, at, value = self.local_store(array)
            lines += [f"        if {condition.src}:", f"            {store}"] if condition else [f"        {store}"]
            array.stores.append((condition, at, value))
        self.local = array
        return array

    def local_store(self, array):
        """(source, flat index Node, value Node) of a store to `array`: of a
        value uniform across the lanes or not, or (a third of the time) an
        augmented one, `l0[k] op= value`, whose value is the element's
        old value op the value (its index evaluated once), converted on
        the store as the assignment's is."""
        r = self.rng
        index, at = self.local_index(array.shape)
        value = self.storable(array.type, self.uniform() if r.random() < 0.5 else self.expr(2))
        if r.random() < 0.33:
            if promoted(array.type, value.type) is None:  # a signed type with u64: the value is cast
                value = self.cast("u64" if array.type == "u64" else "i64", value)
            old = element(index, at, array.type)
            op = self.operator_for(r.choice(["+", "-", "*", "&", "|", "^"]), old, value)
            return f"{ARRAY}[{index}] {op}= {value.src}", at, self.arith_of(op, old, value)
        return f"{ARRAY}[{index}] = {value.src}", at, value

    def fill_helper(self, t, size, lines):
        """Fills the local array through a device function that takes it
        (arrays are storage: its stores are the caller's), defined after
        the program's other helpers, which it may call; the call's line is
        added to `lines`. Inside it only its parameters are readable (the
        arrays, i and m). The fill's value Node."""
        name = f"f{self.seed}"
        saved = self.locals, self.vector_locals, self.scalars
        self.locals, self.vector_locals, self.scalars = {FILL: "i32"}, {}, {}
        fill = self.storable(t, self.uniform() if self.rng.random() < 0.5 else self.expr(2))
        self.locals, self.vector_locals, self.scalars = saved
        params = self.array_params() + ["i"]
        self.local_helpers.append(f"@tack.func\ndef {name}(l, {', '.join(params)}):\n"
                                  f"    for {FILL} in range({size}):\n        l[{FILL}] = {fill.src}\n")
        lines.append(f"        {name}({ARRAY}, {', '.join(params)})")
        return fill

    def local_types(self):
        """The types a local array may take: any but an f64 after a
        Python float argument that was f32 (so its values stay those of
        the program's float precision)."""
        return set(INT_NAMES) | set(self.float_array_types())

    def uniform(self):
        """A value the same in every lane: literals, the number arguments
        and the fill's m where it is bound, combined by + - * & | ^."""
        r = self.rng
        leaves = [self.literal] + ([self.read_scalar] if self.scalars else [])
        if FILL in self.locals:
            leaves.append(lambda: Node(FILL, "i32", lambda c: c.locals[FILL]))
        e = r.choice(leaves)()
        for _ in range(r.randint(0, 2)):
            e = self.arith_of(r.choice(["+", "-", "*", "&", "|", "^"]), *self.joinable(e, r.choice(leaves)()))
        return e

    def uniform_condition(self):
        """A condition the same in every lane: a uniform value compared
        with a literal."""
        return self.compare_of("<", *self.joinable(self.uniform(), self.literal()))

    def local_index(self, shape):
        """(source, flat index Node) of an element: a literal, a number
        argument masked into range, or a generated expression masked into
        range; of a 2-D array two such indices or one flat one."""
        r = self.rng
        if len(shape) == 1 or r.random() < 0.3:
            e = self.index_below(count(shape))
            return e.src, e
        row, column = self.index_below(shape[0]), self.index_below(shape[1])
        columns = shape[1]
        return f"{row.src}, {column.src}", Node("", "i64", lambda c: row.ev(c) * columns + column.ev(c))

    def index_below(self, n):
        """An index in [0, n), n a power of two."""
        r = self.rng
        pick = r.random()
        if pick < 0.3:
            k = r.randrange(n)
            return Node(str(k), "i32", lambda c: k)
        integers = [name for name in self.scalars if not is_float(self.scalars[name][1])]
        if pick < 0.55 and integers:
            name = r.choice(integers)
            _, t, value = self.scalars[name]
            return self.masked(Node(name, t, lambda c: value), n - 1)
        return self.masked(self.integer(1), n - 1)

    def load_local(self):
        """l0[<index>]: an element of the local array."""
        index, at = self.local_index(self.local.shape)
        return element(index, at, self.local.type)
