"""Sequential loops in generated programs: a typed local carried round a
loop whose trip count varies from iteration to iteration.

After its locals a program may run

    for j in range(<bound>):
        if <condition>:          # sometimes, before or after the update
            break                # or continue
        t<k> = <expression>      # reads t<k> itself, j, the other locals
        if <condition>:          # sometimes
            t<k> = <expression>

over one of its scalar locals t<k> of type T. The bound is a literal or a
generated integer expression masked into [0, 7] (so SIMD lanes run
different trip counts); j counts in the bound's type joined with i32 (u64
for a u64 bound: the contract's range over a u64). Every assignment in the
loop is of type T, cast where the expression's type would widen T (a float
into an integer type through the grammar's guarded cast), so T is the
local's settled type; the oracle runs the trips one after another and
converts each assignment to T. The loop's variable ends with the loop.
"""

from dataclasses import dataclass

from .rules import Node, convert, is_float, promoted

VARIABLE = "j"


@dataclass
class Loop:
    bound: Node
    target: str
    type: str
    value: Node
    exit: tuple = None  # ("break" or "continue", condition, before the update: bool)
    second: tuple = None  # (condition, value): a second assignment under a condition

    def run(self, c):
        """The loop's trips in context c."""
        for j in range(self.bound.ev(c)):
            c.locals[VARIABLE] = j
            if self.exit and self.exit[2] and self.exit[1].ev(c) != 0:
                if self.exit[0] == "break":
                    break
                continue
            c.locals[self.target] = convert(self.value.ev(c), self.value.type, self.type)
            if self.second and self.second[0].ev(c) != 0:
                c.locals[self.target] = convert(self.second[1].ev(c), self.second[1].type, self.type)
            if self.exit and not self.exit[2] and self.exit[1].ev(c) != 0:
                if self.exit[0] == "break":
                    break
                continue
        c.locals.pop(VARIABLE, None)


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
        if r.random() < 0.3:
            bound = self.literal(r.randint(0, 4))
        else:
            bound = self.masked(self.integer(2), 7)
        self.locals[VARIABLE] = "u64" if bound.type == "u64" else promoted("i32", bound.type)
        lines.append(f"        for {VARIABLE} in range({bound.src}):")
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
        del self.locals[VARIABLE]  # the loop's variable ends with it
        return Loop(bound, target, t, value, exit, second)

    def settled(self, t, e):
        """e, cast to t where it would widen t."""
        if promoted(t, e.type) == t:
            return e
        return self.cast(t, e)
