"""A fixed grammar of race-free integer kernels, generated from a seed.

Every program is a kernel `k<id>(a, b, o, p, n0, n1)` plus the @tack.func
helpers it calls. `a` and `b` are inputs, read anywhere; `o` and `p` are
outputs that each parallel iteration reads and writes only at its own index
(helpers receive that index as a parameter and keep to it), so running the
iterations in order in CPython is a valid schedule. Statements before the
parallel loop only bind locals the loop never reassigns, since a serial run
would carry one iteration's reassignment into the next.

Values stay small enough that no operation leaves the i32 range: each
expression carries a bound on its magnitude, a plain assignment of something
larger goes through a literal `%`, and reads of values that accumulate
(locals, outputs) are assumed to be within READ_BOUND. With that, Python's
unbounded integers and Tack's fixed-width ones agree, and // and % follow
Python's floor rules on both sides.

The grammar covers: parallel range bounds (and, as an option, steps);
sequential for loops with positive steps; while loops; if/elif/else;
break and continue; continue in the parallel loop; nested loops; chained
comparisons; short-circuit `and`/`or` whose later operands call helpers that
mutate arrays; conditional expressions with calls in their arms; inlined
helpers that return one value, two values or nothing, call other helpers,
return early from a branch, and store through their array parameters;
augmented assignments whose index is a call with side effects.
"""

import random
from dataclasses import dataclass, field

EXPR_LIMIT = 2**30  # no intermediate value reaches this magnitude
STORE_BOUND = 4096  # plain assignments store at most this magnitude
READ_BOUND = 2**24  # accumulated locals and outputs stay below this
INPUT_BOUND = 8  # input array elements
AUG_BOUND = 64  # right-hand sides of += and -=
MAX_LEN = 9


@dataclass
class Options:
    parallel_steps: bool = False  # range(start, end, step) as the parallel loop


@dataclass
class Helper:
    name: str
    kind: str  # "value", "pair", "void", "touch"
    source: str


@dataclass
class Program:
    seed: int
    kernel: str
    helpers: list
    source: str  # helpers then the kernel, decorated with @tack.func / @tack.kernel


@dataclass
class Scope:
    """Names readable at a point of the program, with their bounds."""

    values: dict = field(default_factory=dict)  # name -> magnitude bound
    assignable: set = field(default_factory=set)  # locals this scope may rebind
    index: str = "i"  # the iteration's own index into the outputs
    inputs: tuple = ("a", "b")
    outputs: tuple = ("o", "p")
    loop_depth: int = 0  # sequential loops around the statement
    in_parallel: bool = True  # a continue here may end the parallel iteration

    def copy(self):
        return Scope(dict(self.values), set(self.assignable), self.index, self.inputs, self.outputs,
                     self.loop_depth, self.in_parallel)


class Generator:
    def __init__(self, seed, options=None):
        self.seed = seed
        self.rng = random.Random(seed)
        self.options = options or Options()
        self.prefix = f"g{seed}"
        self.helpers = []
        self.counter = 0
        self.calls_left = 0

    # ---------------------------------------------------------- utilities

    def fresh(self, stem):
        self.counter += 1
        return f"{stem}{self.counter}"

    def chance(self, p):
        return self.rng.random() < p

    def helpers_of(self, *kinds):
        return [h for h in self.helpers if h.kind in kinds]

    # --------------------------------------------------------- expressions

    def literal(self):
        v = self.rng.randint(0, 9)
        return str(v), v

    def leaf(self, scope):
        r = self.rng.random()
        if r < 0.15:
            return self.literal()
        if r < 0.40:
            arr = self.rng.choice(scope.inputs)
            return f"{arr}[{self.input_index(scope, arr)}]", INPUT_BOUND
        if r < 0.50 and scope.outputs:
            out = self.rng.choice(scope.outputs)
            return f"{out}[{scope.index}]", READ_BOUND
        if r < 0.58:
            arr = self.rng.choice(scope.inputs + scope.outputs)
            return f"len({arr})", MAX_LEN
        names = list(scope.values)
        if names:
            name = self.rng.choice(names)
            return name, scope.values[name]
        return self.literal()

    def input_index(self, scope, arr):
        r = self.rng.random()
        if r < 0.4:
            return f"{scope.index} % len({arr})"
        if r < 0.6:
            return f"({scope.index} + {self.rng.randint(1, 5)}) % len({arr})"
        inner, _ = self.expr(scope, 1, EXPR_LIMIT)
        return f"({inner}) % len({arr})"

    def expr(self, scope, depth, limit=EXPR_LIMIT):
        """(source, bound) of an integer expression whose magnitude stays
        within `bound` <= `limit`."""
        for _ in range(8):
            src, bound = self.expr_once(scope, depth)
            if bound <= limit:
                return src, bound
        lit = self.rng.randint(0, min(9, limit))
        return str(lit), lit

    def expr_once(self, scope, depth):
        if depth <= 0 or self.chance(0.25):
            return self.leaf(scope)
        r = self.rng.random()
        if r < 0.40:
            op = self.rng.choice(["+", "-", "*", "+", "-", "&", "|", "^"])
            lhs, lb = self.expr(scope, depth - 1)
            rhs, rb = self.expr(scope, depth - 1)
            if op in "+-":
                bound = lb + rb
            elif op == "*":
                bound = lb * rb
            else:
                bound = 2 * max(lb, rb) + 1
            return f"({lhs} {op} {rhs})", bound
        if r < 0.52:
            lhs, lb = self.expr(scope, depth - 1)
            d = self.rng.choice([1, 2, 3, 4, 5, 7, -1, -2, -3])
            if self.chance(0.5):
                return f"({lhs} // {d})", lb
            return f"({lhs} % {d})", abs(d) - 1
        if r < 0.58:
            # A computed divisor that is never zero.
            lhs, lb = self.expr(scope, depth - 1)
            den, db = self.expr(scope, depth - 1, 1000)
            div = f"(abs({den}) % 5 + 1)"
            if self.chance(0.5):
                return f"({lhs} // {div})", lb
            return f"({lhs} % {div})", 5
        if r < 0.64:
            inner, b = self.expr(scope, depth - 1)
            return self.rng.choice([(f"(-{inner})", b), (f"abs({inner})", b), (f"(~{inner})", b + 1)])
        if r < 0.70:
            inner, b = self.expr(scope, depth - 1, 2**20)
            k = self.rng.randint(0, 3)
            if self.chance(0.5):
                return f"({inner} << {k})", b << k
            return f"({inner} >> {k})", b
        if r < 0.76:
            fn = self.rng.choice(["min", "max"])
            args = [self.expr(scope, depth - 1) for _ in range(self.rng.randint(2, 3))]
            return f"{fn}({', '.join(s for s, _ in args)})", max(b for _, b in args)
        if r < 0.84:
            cond = self.cond(scope, depth - 1)
            then, tb = self.expr(scope, depth - 1)
            other, ob = self.expr(scope, depth - 1)
            return f"({then} if {cond} else {other})", max(tb, ob)
        if r < 0.95:
            call = self.value_call(scope, depth - 1)
            if call:
                return call
        inner, b = self.expr(scope, depth - 1, 2**15)
        return f"({inner} * {inner})" if self.chance(0.3) else f"({inner} ** 2)", b * b

    def cond(self, scope, depth):
        r = self.rng.random()
        if depth > 0 and r < 0.25:
            op = self.rng.choice(["and", "or"])
            return f"({self.cond(scope, depth - 1)} {op} {self.cond(scope, depth - 1)})"
        if depth > 0 and r < 0.32:
            return f"(not {self.cond(scope, depth - 1)})"
        if r < 0.42:
            e, _ = self.expr(scope, depth)
            return e  # truthiness of an integer
        ops = ["<", "<=", ">", ">=", "==", "!="]
        lhs, _ = self.expr(scope, depth)
        rhs, _ = self.expr(scope, depth)
        if self.chance(0.2):
            third, _ = self.expr(scope, depth)
            return f"({lhs} {self.rng.choice(ops)} {rhs} {self.rng.choice(ops)} {third})"
        return f"({lhs} {self.rng.choice(ops)} {rhs})"

    def call_args(self, scope, depth):
        arg, _ = self.expr(scope, depth, READ_BOUND)
        return f"{self.rng.choice(scope.inputs)}, {self.rng.choice(scope.outputs)}, {scope.index}, {arg}"

    def value_call(self, scope, depth):
        options = self.helpers_of("value", "touch")
        if not options or self.calls_left <= 0:
            return None
        self.calls_left -= 1
        h = self.rng.choice(options)
        if h.kind == "touch":  # returns its index argument
            return f"{h.name}({self.call_args(scope, depth)})", MAX_LEN
        return f"{h.name}({self.call_args(scope, depth)})", STORE_BOUND

    def bounded(self, scope, depth, limit=STORE_BOUND):
        """An expression for a plain store: wrapped by a literal modulus when
        its bound exceeds `limit`."""
        e, b = self.expr(scope, depth)
        if b <= limit:
            return e
        return f"({e}) % {self.rng.choice([97, 1009, 4093, -101])}"

    # ---------------------------------------------------------- statements

    def block(self, scope, depth, count, out):
        for _ in range(count):
            self.stmt(scope, depth, out)

    def stmt(self, scope, depth, out):
        """Appends (indent, line) pairs to out; may add names to scope."""
        r = self.rng.random()
        if r < 0.22:
            self.assign_local(scope, depth, out)
        elif r < 0.36:
            target = self.rng.choice(scope.outputs)
            out.append((0, f"{target}[{scope.index}] = {self.bounded(scope, 2)}"))
        elif r < 0.46:
            self.aug_assign(scope, out)
        elif r < 0.58 and depth > 0:
            self.if_stmt(scope, depth, out)
        elif r < 0.68 and depth > 0 and scope.loop_depth < 2:
            self.for_stmt(scope, depth, out)
        elif r < 0.72 and depth > 0 and scope.loop_depth < 2:
            self.while_stmt(scope, depth, out)
        elif r < 0.80:
            self.call_stmt(scope, out)
        elif r < 0.86:
            self.tuple_assign(scope, out)
        elif r < 0.90 and (scope.loop_depth > 0 or scope.in_parallel):
            # break/continue under a condition; the parallel loop takes continue only
            word = "continue" if scope.loop_depth == 0 or self.chance(0.5) else "break"
            out.append((0, f"if {self.cond(scope, 1)}:"))
            out.append((1, word))
        else:
            self.assign_local(scope, depth, out)

    def assign_local(self, scope, depth, out):
        names = sorted(scope.assignable)
        if names and self.chance(0.5):
            name = self.rng.choice(names)
        else:
            name = self.fresh("v")
        out.append((0, f"{name} = {self.bounded(scope, 2)}"))
        scope.values[name] = READ_BOUND
        scope.assignable.add(name)

    def aug_assign(self, scope, out):
        op = self.rng.choice(["+=", "-=", "^=", "|=", "&="])
        rhs, _ = self.expr(scope, 1, AUG_BOUND)
        if self.chance(0.3) and self.helpers_of("touch") and self.calls_left > 0:
            # The index calls a helper that stores; it is evaluated once,
            # before the old value is read and before the right-hand side.
            self.calls_left -= 1
            h = self.rng.choice(self.helpers_of("touch"))
            index = f"{h.name}({self.call_args(scope, 0)})"
        else:
            index = scope.index
        names = sorted(scope.assignable)
        if names and self.chance(0.4):
            out.append((0, f"{self.rng.choice(names)} {op} {rhs}"))
        else:
            out.append((0, f"{self.rng.choice(scope.outputs)}[{index}] {op} {rhs}"))

    def if_stmt(self, scope, depth, out):
        out.append((0, f"if {self.cond(scope, 1)}:"))
        then_scope = scope.copy()
        self.nested(then_scope, depth - 1, out)
        arms = [then_scope]
        if self.chance(0.3):
            elif_scope = scope.copy()
            out.append((0, f"elif {self.cond(scope, 1)}:"))
            self.nested(elif_scope, depth - 1, out)
            arms.append(elif_scope)
        if self.chance(0.6):
            else_scope = scope.copy()
            out.append((0, "else:"))
            self.nested(else_scope, depth - 1, out)
            arms.append(else_scope)
            # Names every arm binds are bound after the statement.
            common = set.intersection(*(set(a.values) for a in arms))
            for name in common - set(scope.values):
                scope.values[name] = READ_BOUND
                scope.assignable.add(name)

    def nested(self, scope, depth, out):
        inner = []
        self.block(scope, depth, self.rng.randint(1, 3), inner)
        out.extend((indent + 1, line) for indent, line in inner)

    def range_args(self, scope):
        end = self.rng.choice([str(self.rng.randint(0, 6)), f"{self.expr(scope, 1)[0]} % 7"])
        r = self.rng.random()
        if r < 0.4:
            return end
        start = self.rng.choice([str(self.rng.randint(0, 3)), f"{self.expr(scope, 1)[0]} % 4"])
        if r < 0.7:
            return f"{start}, {end}"
        return f"{start}, {end}, {self.rng.randint(1, 3)}"

    def for_stmt(self, scope, depth, out):
        # Sibling loops sometimes share a variable; a loop variable is not
        # read after its loop.
        var = self.rng.choice(["k", "m", self.fresh("k")])
        while var in scope.values:
            var = self.fresh("k")
        out.append((0, f"for {var} in range({self.range_args(scope)}):"))
        inner = scope.copy()
        inner.values[var] = 9
        inner.loop_depth += 1
        self.nested(inner, depth - 1, out)

    def while_stmt(self, scope, depth, out):
        w = self.fresh("w")
        out.append((0, f"{w} = {self.rng.randint(0, 3)}"))
        extra = f" and {self.cond(scope, 0)}" if self.chance(0.4) else ""
        out.append((0, f"while {w} < 4{extra}:"))
        out.append((1, f"{w} += 1"))
        inner = scope.copy()
        inner.values[w] = 4
        inner.loop_depth += 1
        self.nested(inner, depth - 1, out)
        scope.values[w] = 4

    def call_stmt(self, scope, out):
        options = self.helpers_of("void", "value", "touch")
        if not options or self.calls_left <= 0:
            self.assign_local(scope, 0, out)
            return
        self.calls_left -= 1
        h = self.rng.choice(options)
        out.append((0, f"{h.name}({self.call_args(scope, 1)})"))

    def tuple_assign(self, scope, out):
        pairs = self.helpers_of("pair")
        x, y = self.fresh("v"), self.fresh("v")
        names = sorted(scope.assignable)
        if len(names) >= 2 and self.chance(0.3):
            x, y = self.rng.sample(names, 2)
            out.append((0, f"{x}, {y} = {y}, {x}"))
            return
        if pairs and self.calls_left > 0 and self.chance(0.6):
            self.calls_left -= 1
            rhs = f"{self.rng.choice(pairs).name}({self.call_args(scope, 1)})"
        else:
            rhs = f"{self.bounded(scope, 1)}, {self.bounded(scope, 1)}"
        if self.chance(0.3):
            # A subscript target sees the names assigned before it.
            out.append((0, f"{x}, {self.rng.choice(scope.outputs)}[{scope.index}] = {rhs}"))
            scope.values[x] = READ_BOUND
            scope.assignable.add(x)
            return
        out.append((0, f"{x}, {y} = {rhs}"))
        for n in (x, y):
            scope.values[n] = READ_BOUND
            scope.assignable.add(n)

    # ------------------------------------------------------------- helpers

    def helper(self, kind):
        name = f"{self.prefix}_{kind}{len(self.helpers)}"
        scope = Scope(values={"x": READ_BOUND, "idx": MAX_LEN}, assignable={"x"}, index="idx", inputs=("inp",),
                      outputs=("res",), loop_depth=0, in_parallel=False)
        body = []
        self.calls_left = 2
        self.block(scope, 2, self.rng.randint(1, 4), body)
        returns = {
            "value": lambda s: f"return {self.bounded(s, 2)}",
            "pair": lambda s: f"return {self.bounded(s, 1)}, {self.bounded(s, 1)}",
            "void": lambda s: "return",
            "touch": lambda s: "return idx",
        }[kind]
        if self.chance(0.35):
            # An early return from a branch, outside any loop.
            body.append((0, f"if {self.cond(scope, 1)}:"))
            body.append((1, returns(scope)))
        if kind != "void" or self.chance(0.3):
            body.append((0, returns(scope)))
        lines = ["@tack.func", f"def {name}(inp, res, idx, x):"]
        if self.chance(0.2):
            lines.append('    """A generated helper."""')
        lines += ["    " * (indent + 1) + line for indent, line in body]
        self.helpers.append(Helper(name, kind, "\n".join(lines) + "\n"))

    # -------------------------------------------------------------- kernel

    def program(self):
        for _ in range(self.rng.randint(0, 4)):
            self.helper(self.rng.choice(["value", "value", "pair", "void", "touch"]))
        kernel = f"k{self.prefix}"
        lines = ["@tack.kernel", f"def {kernel}(a, b, o, p, n0, n1):"]
        body = []
        prologue = Scope(values={"n0": 3, "n1": 5}, assignable=set(), index="0", in_parallel=False,
                         inputs=("a", "b"), outputs=())
        # Statements before the loop: locals from loads, never reassigned in
        # it, and no calls (helpers store).
        self.calls_left = 0
        for _ in range(self.rng.randint(0, 2)):
            c = self.fresh("c")
            body.append((0, f"{c} = {self.bounded(prologue, 2)}"))
            prologue.values[c] = STORE_BOUND
        body.append((0, f"for i in range({self.parallel_range()}):"))
        scope = Scope(values=dict(prologue.values), assignable=set())
        scope.values["i"] = MAX_LEN
        self.calls_left = 6
        inner = []
        self.block(scope, 3, self.rng.randint(2, 6), inner)
        body.extend((indent + 1, line) for indent, line in inner)
        lines += ["    " * (indent + 1) + line for indent, line in body]
        source = "\n\n".join([h.source for h in self.helpers] + ["\n".join(lines) + "\n"])
        return Program(self.seed, kernel, [h.name for h in self.helpers], source)

    def parallel_range(self):
        r = self.rng.random()
        if self.options.parallel_steps and r < 0.6:
            return f"{self.rng.choice(['0', 'n0'])}, len(o), {self.rng.randint(1, 3)}"
        if r < 0.5:
            return "len(o)"
        if r < 0.75:
            return "n0, len(o)"
        return "n0, len(o) - n0"


def generate(seed, options=None):
    return Generator(seed, options).program()
