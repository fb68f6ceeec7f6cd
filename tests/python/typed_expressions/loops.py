"""Sequential loops in generated programs: a typed local carried round a
loop whose trip count varies from iteration to iteration.

After its locals a program may run (or a while loop over a counter, below)

    for j in range(<bound>):
        if <condition>:          # sometimes, before or after the update
            break                # or continue
        t<m> = <expression>      # reads t<m> itself, j, the other locals
        if <condition>:          # sometimes
            t<m> = <expression>

over one of its scalar locals t<m> of type T. The range is a literal end,
a generated integer expression masked into [0, 7] (so SIMD lanes run
different trip counts), that cast to any integer type, or a start in
[0, 3] and an end in [0, 7] each of its own integer type. j counts in the
type of the bounds and the implicit step together, the implicit start and
step i32s unless the bounds are u64s (docs/language.md: the loop variable
has the type of the bounds and step together, an implicit start or step
counting in the bounds' type where an i32 cannot be mixed with it: range
of a u8 and a u32 counts in i64, of two u64s in u64). The while loop

    j = tack.T(<start in [0, 3]>)
    while j < <end in [0, 7]>:
        j += tack.T(1)
        ...                      # the same body

counts in a type T of its own (the comparison joining it with the end's).
Every assignment in the
loop is of type T, cast where the expression's type would widen T (a float
into an integer type through the grammar's guarded cast), so T is the
local's settled type; the oracle runs the trips one after another and
converts each assignment to T. The loop's variable ends with the loop.

A trip may store to the program's local array after its update
(local_arrays.py: a value and an index the same in every SIMD lane or
not; the trip counts differ between lanes either way).

A loop may hold a second one over `k` in each trip, after its update,
built the same way (carrying one of the locals, the same one or another),
whose end is sometimes the outer variable masked into [0, 7] (`range((j &
7))`, `while k < (j & 7)`), so its trip count changes from one outer trip
to the next; its break and continue leave or skip only its own trips.
"""

from dataclasses import dataclass

from integer_types import INT_NAMES, wrap

from .rules import Node, convert, promoted, range_type

VARIABLE = "j"
INNER_VARIABLE = "k"


@dataclass
class Loop:
    bounds: tuple  # the range's Nodes: (end,) or (start, end); a while loop: (its test,)
    target: str
    type: str
    value: Node
    exit: tuple = None  # ("break" or "continue", condition, before the update: bool)
    second: tuple = None  # (condition, value): a second assignment under a condition
    counter: tuple = None  # a while loop's (start, type): the variable counts from start, incremented first in each trip
    variable: str = VARIABLE
    inner: object = None  # a Loop run in each trip after the update (and its second assignment)
    local_store: tuple = None  # (flat index, value): a store to the local array after the update

    def run(self, c):
        """The loop's trips in context c."""
        v = self.variable
        if self.counter:
            c.locals[v] = self.counter[0]
            while self.bounds[0].ev(c) != 0:
                c.locals[v] = wrap(c.locals[v] + 1, self.counter[1])
                if self.trip(c) == "break":
                    break
        else:
            for j in range(*(b.ev(c) for b in self.bounds)):
                c.locals[v] = j
                if self.trip(c) == "break":
                    break
        c.locals.pop(v, None)

    def trip(self, c):
        """One trip's body: "break" where it breaks."""
        if self.exit and self.exit[2] and self.exit[1].ev(c) != 0:
            return self.exit[0]
        c.locals[self.target] = convert(self.value.ev(c), self.value.type, self.type)
        if self.second and self.second[0].ev(c) != 0:
            c.locals[self.target] = convert(self.second[1].ev(c), self.second[1].type, self.type)
        if self.local_store:
            index, value, array = self.local_store
            array.store(index, value, c)
        if self.inner:
            self.inner.run(c)
        if self.exit and not self.exit[2] and self.exit[1].ev(c) != 0:
            return self.exit[0]
        return None


class SequentialLoops:
    """Loops of the typed-expression Generator (a mixin: it uses the
    Generator's rng, expressions, casts and locals)."""

    def loop(self, lines, variable=VARIABLE, indent=8):
        """A loop carrying one of the scalar locals, its lines added to
        `lines` at `indent` spaces; None where there is no local. The
        outermost loop may hold a second one over `k` in each trip."""
        r = self.rng
        carried = [name for name in sorted(self.locals) if name.startswith("t")]
        if not carried:
            return None
        target = r.choice(carried)
        t = self.locals[target]
        at, body = " " * indent, " " * (indent + 4)
        pick = r.random()
        counter = None
        outer = variable != VARIABLE and VARIABLE in self.locals  # an inner loop may count to the outer variable
        if pick < 0.35:  # a while loop over a counter of any integer type
            counter = (r.randint(0, 3), r.choice(INT_NAMES))
            j = Node(variable, counter[1], lambda c: c.locals[variable])
            end = self.outer_end() if outer and r.random() < 0.5 else self.masked(self.integer(2), 7)
            left, right = self.joinable(j, end)
            bounds = (self.compare_of("<", left, right),)
            self.locals[variable] = counter[1]
            lines += [f"{at}{variable} = tack.{counter[1]}({counter[0]})", f"{at}while {left.src} < {right.src}:",
                      f"{body}{variable} += tack.{counter[1]}(1)"]
        elif pick < 0.45:
            bounds = (self.literal(r.randint(0, 4)),)
        elif pick < 0.75:
            bounds = (self.outer_end() if outer and r.random() < 0.5 else self.masked(self.integer(2), 7),)
            if r.random() < 0.4:  # an end of any integer type
                bounds = (self.cast(r.choice(INT_NAMES), bounds[0]),)
        else:  # a start and an end, each of its own integer type
            start, end = (self.cast(r.choice(INT_NAMES), self.masked(self.integer(2), mask)) for mask in (3, 7))
            bounds = self.joinable(start, end)
        if not counter:
            # The implicit start and step are i32s, which count in the bounds'
            # type where an i32 cannot be mixed with it (a u64).
            counted = bounds[0].type if len(bounds) == 1 else promoted(bounds[0].type, bounds[1].type)
            self.locals[variable] = range_type(counted)
            lines.append(f"{at}for {variable} in range({', '.join(b.src for b in bounds)}):")
        exit = None
        if r.random() < 0.4:
            exit = (r.choice(["break", "continue"]), self.expr(2), r.random() < 0.5)
        if exit and exit[2]:
            lines += [f"{body}if {exit[1].src}:", f"{body}    {exit[0]}"]
        value = self.expr(3)
        if r.random() < 0.6:  # the local's own value, updated
            own = Node(target, t, lambda c: c.locals[target])
            value = self.arith_of(r.choice(["+", "-", "*", "^"]), *self.joinable(own, value))
        value = self.settled(t, value)
        lines.append(f"{body}{target} = {value.src}")
        second = None
        if r.random() < 0.3:
            second = (self.expr(2), self.settled(t, self.expr(2)))
            lines += [f"{body}if {second[0].src}:", f"{body}    {target} = {second[1].src}"]
        local_store = None
        if self.local and r.random() < 0.6:  # the local array, at an index and of a value uniform or not
            store, at, stored = self.local_store(self.local)
            lines.append(f"{body}{store}")
            local_store = (at, stored, self.local)
        inner = None
        if variable == VARIABLE and r.random() < 0.3:  # a loop in each trip
            inner = self.loop(lines, INNER_VARIABLE, indent + 4)
        if exit and not exit[2]:
            lines += [f"{body}if {exit[1].src}:", f"{body}    {exit[0]}"]
        del self.locals[variable]  # the loop's variable ends with it (a while loop's counter is not read after it)
        return Loop(bounds, target, t, value, exit, second, counter, variable, inner, local_store)

    def outer_end(self):
        """The outer loop's variable as an inner loop's end (so the inner
        loop's trips vary from trip to trip), masked into [0, 7]."""
        j = Node(VARIABLE, self.locals[VARIABLE], lambda c: c.locals[VARIABLE])
        return self.masked(j, 7)

    def settled(self, t, e):
        """e, cast to t where it would widen t."""
        if promoted(t, e.type) == t:
            return e
        return self.cast(t, e)
