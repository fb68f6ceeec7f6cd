"""Generated workgroup programs: the typed expressions of grammar.py read
through a shared array of a random type, across barriers and block
reductions, on backends with workgroups (docs/workgroups.md).

Every program is a kernel `g<seed>(a0, a1, a2, a3, o0, o1)` (after the
device functions it calls, helpers.py) launched over
256 * G iterations (G complete groups of 256 lanes). Each lane

- declares `s = tack.shared(256, T)` (or a 16x16 one) of a random type T
  and reads its lane with tack.thread_id();
- binds a few locals, then writes one element of s: its own (s[lane]) or
  another lane's of a permutation (s[255 - lane], s[lane ^ k],
  s[(lane * k + c) & 255] for an odd k; on the 16x16 array s[lane // 16,
  lane % 16] or its transpose), the value converted to T as a store
  converts it;
- after tack.barrier(), reads s at any element (those indices, or a
  generated integer expression masked into [0, 255], of any integer type)
  anywhere in its expressions, may take tack.block_min or tack.block_max
  of an f32 expression, or tack.block_sum of integers in [0, 255] as f32
  (exact in any order), and read the result;
- may run a loop of one to three trips, each reading s into a local,
  waiting at a barrier, writing s again from that local (not from s) and
  waiting again; then stores o0[i];
- may then wait at a second barrier (every lane done reading), write s
  again, wait at a third, and store o1[i] from the new contents;
- may end with atomic updates of a global array (atomics.py).

The oracle runs each group in lock step between barriers: every lane's
statements up to a barrier, then every lane's after it, each expression
evaluated by grammar.py's rules (a loop's trips one after another). A
block minimum or maximum is the exact extremum of the group's values: NaN
where any is NaN, -0.0 before +0.0 in a minimum and +0.0 before -0.0 in a
maximum (docs/workgroups.md, "Block reductions"). A shared element or
reduction whose value the contract leaves open makes whatever reads it
unchecked.
"""

import random

import numpy as np

from integer_types import INT_NAMES

from .atomics import ARRAY, atomic_types
from .grammar import Generator
from .rules import FLOAT_NAMES, OUTPUTS, Context, Node, Program, Unspecified, checked, convert

GROUP = 256
SHARED = "s"
LANE = "lane"
REDUCED = "r"


class _Open:
    """A value the contract leaves open: reading it raises Unspecified."""


OPEN = _Open()


def _read(value):
    if value is OPEN:
        raise Unspecified("a shared element or reduction the contract leaves open")
    return value


class WorkgroupGenerator(Generator):
    read_value = staticmethod(_read)  # a local may hold a value the contract leaves open

    def __init__(self, seed):
        super().__init__(seed, "opencl")
        self.shared_type = self.rng.choice(INT_NAMES + FLOAT_NAMES)
        self.grid = self.rng.random() < 0.3  # s is 16x16
        self.shared_readable = False
        self.reduced = False
        self.locals[LANE] = "i32"

    # ---------------------------------------------------------- indices

    def permutation(self):
        """(the source of an index of s, lane -> the element it names), a
        permutation of the lanes."""
        r = self.rng
        if self.grid:
            if r.random() < 0.5:
                return f"{LANE} // 16, {LANE} % 16", lambda lane: lane
            return f"{LANE} % 16, {LANE} // 16", lambda lane: (lane % 16) * 16 + lane // 16
        pick = r.random()
        if pick < 0.3:
            return LANE, lambda lane: lane
        if pick < 0.5:
            return f"255 - {LANE}", lambda lane: 255 - lane
        if pick < 0.7:
            k = r.randint(1, 255)
            return f"{LANE} ^ {k}", lambda lane: lane ^ k
        k, c = r.randrange(1, 256, 2), r.randint(0, 255)
        return f"({LANE} * {k} + {c}) & 255", lambda lane: (lane * k + c) & 255

    def load(self):
        """Grammar.load, or once s is written a read of s or of the
        reduction."""
        r = self.rng
        if self.reduced and r.random() < 0.15:
            return Node(REDUCED, "f32", lambda c: _read(c.locals[REDUCED]))
        if not self.shared_readable or r.random() < 0.5:
            return super().load()
        t = self.shared_type
        if r.random() < 0.5:
            src, at = self.permutation()
            index = (lambda c: at(c.locals[LANE]))
        else:
            e = self.masked(self.integer(1), 255)
            index, src = e.ev, e.src
            if self.grid:  # its row and column, in a type that holds e and 16
                q, d = self.joinable(e, self.literal(16))
                src = f"{q.src} // {d.src}, {q.src} % {d.src}"
        return Node(f"{SHARED}[{src}]", t, lambda c: _read(c.shared[index(c)]))

    # ---------------------------------------------------------- programs

    def stored(self, t):
        """An expression stored into (or written to s as) type t."""
        return self.storable(t, self.expr())

    def program(self):
        r = self.rng
        t = self.shared_type
        helpers = self.helper_definitions()
        shape = "(16, 16)" if self.grid else "256"
        lines = [f"        {SHARED} = tack.shared({shape}, tack.{t})", f"        {LANE} = tack.thread_id()"]
        phases = [[]]  # each: statements between barriers, as (kind, name, node, at)
        for k in range(r.randint(0, 2)):
            e = self.expr(r.randint(1, 3))
            lines.append(f"        t{k} = {e.src}")
            phases[-1].append(("local", f"t{k}", e, None))
            self.locals[f"t{k}"] = e.type
        self.write(lines, phases[-1])
        lines.append("        tack.barrier()")
        phases.append([])
        self.shared_readable = True
        if r.random() < 0.5:
            op = r.choice(["min", "max", "sum"])
            # A sum of integers in [0, 255]: exact in f32 (below 2^24) in any order.
            x = self.masked(self.integer(2), 255) if op == "sum" else self.expr(3)
            lines.append(f"        {REDUCED} = tack.block_{op}(tack.f32({x.src}))")
            phases[-1].append(("reduce", op, x, None))
            phases.append([])  # the reduction's value is known once every lane gave its own
            self.reduced = True
        if r.random() < 0.35:
            self.rounds(lines, phases)
        if r.random() < 0.5:
            e = self.expr(2)
            lines.append(f"        t9 = {e.src}")
            phases[-1].append(("local", "t9", e, None))
            self.locals["t9"] = e.type
        e = self.stored(self.outputs[OUTPUTS[0]])
        lines.append(f"        {OUTPUTS[0]}[i] = {e.src}")
        phases[-1].append(("store", OUTPUTS[0], e, None))
        if r.random() < 0.5:  # s written again between barriers (its value reads no s: no lane's write races a read)
            lines.append("        tack.barrier()")
            phases.append([])
            self.shared_readable = False
            self.write(lines, phases[-1])
            self.shared_readable = True
            lines.append("        tack.barrier()")
            phases.append([])
        e = self.stored(self.outputs[OUTPUTS[1]])
        lines.append(f"        {OUTPUTS[1]}[i] = {e.src}")
        phases[-1].append(("store", OUTPUTS[1], e, None))
        atomics, extra = self.atomic_section(atomic_types(self.device)), []
        if atomics:  # global atomics among the lanes of every group (atomics.py)
            lines += atomics[0]
            atomics = atomics[1]
            phases[-1].append(("atomics", ARRAY, atomics, None))
            extra = [ARRAY, *atomics.olds]
        inputs, outputs = dict(self.inputs), dict(self.outputs)
        shapes = {}
        for name, (element, shape) in self.element_arrays().items():
            inputs[name], shapes[name] = element, shape
        kernel = f"g{self.seed}"
        params = ", ".join(list(inputs) + list(outputs) + extra)
        source = "".join(h + "\n\n" for h in helpers)
        source += (f"@tack.kernel\ndef {kernel}({params}):\n    for i in range(len({OUTPUTS[0]})):\n"
                   + "\n".join(lines) + "\n")
        groups = random.Random(self.seed).randint(1, 3)

        def run(arrays, n):
            results = {name: [None] * n for name in list(outputs) + ([ARRAY] if atomics else [])}
            for first in range(0, n, GROUP):
                contexts = []
                for lane in range(GROUP):
                    c = Context(arrays, first + lane, n)
                    c.locals[LANE] = lane
                    contexts.append(c)
                shared = [OPEN] * GROUP
                for phase in phases:
                    written = list(shared)  # a phase's writes are read after its barrier
                    for c in contexts:
                        c.shared = shared
                    values = []
                    for c in contexts:
                        for kind, name, node, at in phase:
                            self.execute(c, kind, name, node, at, written, results, outputs, values)
                    for kind, name, node, at in phase:
                        if kind == "reduce":
                            reduced = block(name, values)
                            for c in contexts:
                                c.locals[REDUCED] = reduced
                    shared = written
            return results

        return Program(self.seed, kernel, source, inputs, outputs, run, shapes, atomics, groups=groups)

    def rounds(self, lines, phases):
        """A loop of a uniform trip count whose every trip reads s, waits,
        writes s from what it read (reading no s itself), and waits again."""
        trips = self.rng.randint(1, 3)
        self.locals["step"] = "i32"
        read = self.expr(2)
        self.locals["t8"] = read.type
        lines += [f"        for step in range({trips}):", f"            t8 = {read.src}", "            tack.barrier()"]
        self.shared_readable = False
        write = self.write(lines, indent="            ")
        self.shared_readable = True
        lines.append("            tack.barrier()")
        for trip in range(trips):
            phases[-1] += [("set", "step", trip, None), ("local", "t8", read, None)]
            phases += [[write], []]
        del self.locals["step"]  # the loop's variable ends with it

    def write(self, lines, phase=None, indent="        "):
        """Writes s at a permutation of the lanes; the statement (added to
        `phase` where given)."""
        src, at = self.permutation()
        e = self.stored(self.shared_type)
        lines.append(f"{indent}{SHARED}[{src}] = {e.src}")
        statement = ("write", SHARED, e, at)
        if phase is not None:
            phase.append(statement)
        return statement

    def execute(self, c, kind, name, node, at, written, results, outputs, values):
        """One lane's statement."""
        if kind == "set":
            c.locals[name] = node
            return
        if kind == "local":
            try:
                c.locals[name] = node.ev(c)
            except Unspecified:
                c.locals[name] = OPEN
            return
        try:
            if kind == "atomics":
                results[name][c.i] = node.evaluate(c)
            elif kind == "write":
                t = self.shared_type
                written[at(c.locals[LANE])] = checked(convert(node.ev(c), node.type, t), t)
            elif kind == "reduce":
                values.append(checked(convert(node.ev(c), node.type, "f32"), "f32"))
            else:
                results[name][c.i] = checked(convert(node.ev(c), node.type, outputs[name]), outputs[name])
        except Unspecified:
            if kind == "write":
                written[at(c.locals[LANE])] = OPEN
            elif kind == "reduce":
                values.append(OPEN)


def block(op, values):
    """The group's block_min, block_max or block_sum (of integers, exact)
    of f32 values."""
    if any(v is OPEN for v in values):
        return OPEN
    if op == "sum":
        return np.float32(sum(int(v) for v in values))
    if any(np.isnan(v) for v in values):
        return np.float32(np.nan)
    best = values[0]
    for v in values[1:]:
        if op == "min" and (v < best or (v == 0 and best == 0 and np.signbit(v))):
            best = v
        if op == "max" and (v > best or (v == 0 and best == 0 and not np.signbit(v))):
            best = v
    return np.float32(best)


def generate_workgroup(seed):
    return WorkgroupGenerator(seed).program()
