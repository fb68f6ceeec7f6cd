"""Device functions (@tack.func) in generated programs.

A program may define up to two helpers before its kernel:

    @tack.func
    def h<seed>_<k>(a0, a1, a2, a3, i, p0, p1):
        u = <expression>                 # sometimes
        if <expression>:                 # sometimes
            return <expression>
        return <expression>

Each takes the kernel's input arrays (v0 and m0 too where the program has
them) and
its index, so its expressions load as the kernel's do, and one or two
numbers of random types; a later helper may call an earlier one. The
kernel's expressions call a helper with its numbers converted to the
parameters' types (tack.T(e), a float into an integer type through the
grammar's guarded cast; an expression already of that type as it is), so
each helper has one instantiation. A helper's value has the join of its
returns' types (as a local assigned twice has: the contract's "A local with
more than one assignment has one type, the join of its assignments", which
a device function's returns follow), each return converted to it. Inside
it only its parameters and its own local are readable: the kernel's locals
are not.
"""

from dataclasses import dataclass

from integer_types import INT_NAMES

from .rules import FLOAT_NAMES, INPUTS, Context, Node, convert, promoted


@dataclass
class Helper:
    name: str
    params: list  # the numbers' types
    source: str
    body: object  # (context with the parameters bound) -> the value, in `type`
    type: str


class HelperCalls:
    """Helpers of the typed-expression Generator (a mixin: it uses the
    Generator's rng, expressions, casts and joins)."""

    def helper_definitions(self):
        """Defines zero to two helpers; their sources, in order."""
        self.helpers = []
        r = self.rng
        if r.random() < 0.6:
            return []
        for k in range(r.randint(1, 2)):
            self.helpers.append(self.helper(f"h{self.seed}_{k}"))
        return [h.source for h in self.helpers]

    def array_params(self):
        return list(INPUTS) + list(self.element_arrays())

    def helper(self, name):
        r = self.rng
        types = [r.choice(INT_NAMES + FLOAT_NAMES) for _ in range(r.randint(1, 2))]
        saved = self.locals, self.vector_locals
        self.locals = {f"p{j}": t for j, t in enumerate(types)}
        self.vector_locals = {}
        lines, local = [], None
        if r.random() < 0.4:
            local = self.expr(2)
            lines.append(f"    u = {local.src}")
            self.locals["u"] = local.type
        cond = self.expr(2) if r.random() < 0.6 else None
        first, second = self.joinable(self.expr(3), self.expr(3)) if cond else (None, self.expr(3))
        t = promoted(first.type, second.type) if cond else second.type
        if cond:
            lines += [f"    if {cond.src}:", f"        return {first.src}"]
        lines.append(f"    return {second.src}")
        self.locals, self.vector_locals = saved
        params = ", ".join(self.array_params() + ["i"] + [f"p{j}" for j in range(len(types))])
        source = f"@tack.func\ndef {name}({params}):\n" + "\n".join(lines) + "\n"

        def body(c):
            if local is not None:
                c.locals["u"] = local.ev(c)
            if cond is not None and cond.ev(c) != 0:
                return convert(first.ev(c), first.type, t)
            return convert(second.ev(c), second.type, t)

        return Helper(name, types, source, body, t)

    def call(self, depth):
        """A call of one of the helpers defined so far (a number where
        there are none)."""
        if not self.helpers:
            return self.literal()
        h = self.rng.choice(self.helpers)
        args = []
        for t in h.params:
            e = self.expr(min(depth, 2))
            args.append(e if e.type == t else self.cast(t, e))
        src = f"{h.name}({', '.join(self.array_params() + ['i'] + [a.src for a in args])})"

        def ev(c):
            inner = Context(c.arrays, c.i, c.n)
            inner.locals = {f"p{j}": a.ev(c) for j, a in enumerate(args)}
            return h.body(inner)

        return Node(src, h.type, ev)
