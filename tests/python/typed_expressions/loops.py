"""Sequential loops in generated programs: a typed local carried round a
loop whose trip count varies from iteration to iteration.

After its locals a program may run (or a while loop over a counter, below)

    for j in range(<bound>):
        if <condition>:          # sometimes, before or after the update
            break                # or continue
        t<k> = <expression>      # reads t<k> itself, j, the other locals
        if <condition>:          # sometimes
            t<k> = <expression>

over one of its scalar locals t<k> of type T. The range is a literal end,
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
"""

from dataclasses import dataclass

from integer_types import INT_NAMES, wrap

from .rules import Node, convert, promoted

VARIABLE = "j"


@dataclass
class Loop:
    bounds: tuple  # the range's Nodes: (end,) or (start, end); a while loop: (its test,)
    target: str
    type: str
    value: Node
    exit: tuple = None  # ("break" or "continue", condition, before the update: bool)
    second: tuple = None  # (condition, value): a second assignment under a condition
    counter: tuple = None  # a while loop's (start, type): j counts from start, incremented first in each trip

    def run(self, c):
        """The loop's trips in context c."""
        if self.counter:
            c.locals[VARIABLE] = self.counter[0]
            while self.bounds[0].ev(c) != 0:
                c.locals[VARIABLE] = wrap(c.locals[VARIABLE] + 1, self.counter[1])
                if self.trip(c) == "break":
                    break
        else:
            for j in range(*(b.ev(c) for b in self.bounds)):
                c.locals[VARIABLE] = j
                if self.trip(c) == "break":
                    break
        c.locals.pop(VARIABLE, None)

    def trip(self, c):
        """One trip's body: "break" where it breaks."""
        if self.exit and self.exit[2] and self.exit[1].ev(c) != 0:
            return self.exit[0]
        c.locals[self.target] = convert(self.value.ev(c), self.value.type, self.type)
        if self.second and self.second[0].ev(c) != 0:
            c.locals[self.target] = convert(self.second[1].ev(c), self.second[1].type, self.type)
        if self.exit and not self.exit[2] and self.exit[1].ev(c) != 0:
            return self.exit[0]
        return None


class SequentialLoops:
    """Loops of the typed-expression Generator (a mixin: it uses the
    Generator's rng, expressions, casts and locals)."""

    def loop(self, lines):
        """A loop carrying one of the scalar locals, its lines added to
        `lines`; None where there is no local."""
        r = self.rng
        carried = [name for name in sorted(self.locals) if name.startswith("t")]
        if not carried:
            return None
        target = r.choice(carried)
        t = self.locals[target]
        pick = r.random()
        counter = None
        if pick < 0.35:  # a while loop over a counter of any integer type
            counter = (r.randint(0, 3), r.choice(INT_NAMES))
            j = Node(VARIABLE, counter[1], lambda c: c.locals[VARIABLE])
            left, right = self.joinable(j, self.masked(self.integer(2), 7))
            bounds = (Node(f"{left.src} < {right.src}", "i32", lambda c: int(left.ev(c) < right.ev(c))),)
            self.locals[VARIABLE] = counter[1]
            lines += [f"        {VARIABLE} = tack.{counter[1]}({counter[0]})", f"        while {bounds[0].src}:",
                      f"            {VARIABLE} += tack.{counter[1]}(1)"]
        elif pick < 0.45:
            bounds = (self.literal(r.randint(0, 4)),)
        elif pick < 0.75:
            bounds = (self.masked(self.integer(2), 7),)
            if r.random() < 0.4:  # an end of any integer type
                bounds = (self.cast(r.choice(INT_NAMES), bounds[0]),)
        else:  # a start and an end, each of its own integer type
            start, end = (self.cast(r.choice(INT_NAMES), self.masked(self.integer(2), mask)) for mask in (3, 7))
            bounds = self.joinable(start, end)
        if not counter:
            # The implicit start and step are i32s, which count in the bounds'
            # type where an i32 cannot be mixed with it (a u64).
            counted = bounds[0].type if len(bounds) == 1 else promoted(bounds[0].type, bounds[1].type)
            self.locals[VARIABLE] = "u64" if counted == "u64" else promoted("i32", counted)
            lines.append(f"        for {VARIABLE} in range({', '.join(b.src for b in bounds)}):")
        exit = None
        if r.random() < 0.4:
            exit = (r.choice(["break", "continue"]), self.expr(2), r.random() < 0.5)
        if exit and exit[2]:
            lines += [f"            if {exit[1].src}:", f"                {exit[0]}"]
        value = self.expr(3)
        if r.random() < 0.6:  # the local's own value, updated
            own = Node(target, t, lambda c: c.locals[target])
            value = self.arith_of(r.choice(["+", "-", "*", "^"]), *self.joinable(own, value))
        value = self.settled(t, value)
        lines.append(f"            {target} = {value.src}")
        second = None
        if r.random() < 0.3:
            second = (self.expr(2), self.settled(t, self.expr(2)))
            lines += [f"            if {second[0].src}:", f"                {target} = {second[1].src}"]
        if exit and not exit[2]:
            lines += [f"            if {exit[1].src}:", f"                {exit[0]}"]
        del self.locals[VARIABLE]  # the loop's variable ends with it (a while loop's counter is not read after it)
        return Loop(bounds, target, t, value, exit, second, counter)

    def settled(self, t, e):
        """e, cast to t where it would widen t."""
        if promoted(t, e.type) == t:
            return e
        return self.cast(t, e)
