"""Random kernels whose iterations touch array elements at computed
indices, through parameters that may share memory, and the exact set of
accesses each iteration makes.

A program has one parallel loop over `n` iterations (`range(len(out))`,
`tack.ndindex(rows, len(out) // rows)` or a stepped range, numbered i as
the detector numbers them). Its statements read,
write, update in place (`p[e] += c`) and update atomically
(`tack.atomic_add`) elements of its array parameters (1-D or 2-D) at
subscripts made of `i` (and `k`, a sequential loop's variable) taken
modulo each axis's extent, some under conditions of `i` and `k` whose
short circuit may skip a read, some after a `continue`, some in device
functions, some in a conditional expression's arm; a statement before the
loop may load an element (no iteration's access). Every value a condition
depends on is an index, never an array element, so which accesses an
iteration makes does not depend on the order the iterations run in: the
program's accesses are a fixed set, computed here by evaluating the
statements' index arithmetic in Python (`Program.accesses`). A fifth of
the programs also index some arrays without the modulo (`i + 2`, `i - 1`,
`len(p) - i`), which may fall outside the array (`Program.outside`).

The call binds the parameters to arrays that may share a buffer (i32 or
i64 elements): the whole buffer, a slice (stepped or reversed), rows of a
run of it (transposed or reversed), an i64 buffer's i32 halves, its bytes
(read only), the same view twice, a buffer and its slice from d indexed
at i + d and at i, or an as_strided view whose elements (or rows) share
memory at stride 0. A quarter of the programs take Tack arrays of vec2 or
vec3 of i32 (interleaved or a structure of arrays) instead, whose
statements touch one component (`p[e].y`, `p[e][1]`, `p[e][i % 3]`) or the
whole element (`p[e] = tack.vec3(...)`, `p[e].dot(...)`, atomics, device
functions); their unit of memory is a component, not a byte. About two programs in three are disciplined: each
iteration reaches only its own elements of what it writes, arrays updated
atomically take atomics alone, so that only the sharing races. A race
(docs/diagnostics.md, "Data races") is a byte that two different
iterations touch where one writes it plainly, or one updates it
atomically and the other reads or writes it plainly; `races()` finds each
such byte (component) and who touches it.
"""

import random
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import as_strided

# Iterations of the parallel loop: few enough for the oracle to list every
# access, enough for several SIMD groups where the lanes run.
MAX_N = 40
# A sequential loop inside an iteration runs at most this many trips.
MAX_TRIPS = 3


@dataclass
class Binding:
    """How a parameter is bound at the call: `buffer` (an index into the
    program's buffers), `start`, `stop`, `step` of a slice of it (None:
    the whole buffer), and `view`, the dtype it is read as where that is
    not the buffer's own: "u8" for its bytes (read only), "i32" for the
    halves of an i64 buffer's elements. The slice counts the view's
    elements."""
    buffer: int
    start: int = None
    stop: int = None
    step: int = None
    view: str = None
    rows: int = None     # 2-D: the slice (of rows * columns elements) as rows
    order: str = None    # 2-D: "T", "rows reversed", "columns reversed" or None
    # An as_strided view whose elements share memory: `repeat` elements of
    # stride 0 over the slice's first element (1-D), or `repeat` rows of
    # stride 0 over the slice (2-D).
    repeat: int = None

    def of(self, buffers):
        base = buffers[self.buffer]
        if self.view:
            base = base.view(np.dtype({"u8": np.uint8, "i32": np.int32}[self.view]))
        if self.start is None:
            return base
        a = base[self.start:self.stop:self.step]
        if self.repeat:
            if self.rows is None:
                return as_strided(a, shape=(self.repeat,), strides=(0,))
            return as_strided(a, shape=(self.repeat, len(a)), strides=(0, a.strides[0]))
        if self.rows is None:
            return a
        a = a.reshape(self.rows, -1)
        return {None: a, "T": a.T, "rows reversed": a[::-1], "columns reversed": a[:, ::-1]}[self.order]

    def __str__(self):
        text = f"b{self.buffer}" + (f".view({self.view})" if self.view else "")
        if self.start is not None:
            stop = "" if self.stop is None else self.stop
            text += f"[{self.start}:{stop}:{self.step}]"
        if self.rows is not None:
            text += f".reshape({self.rows}, -1)" + (f" {self.order}" if self.order else "")
        if self.repeat:
            text += f" repeated x{self.repeat} at stride 0" + (" (rows)" if self.rows else "")
        return text


@dataclass
class Access:
    """One access an iteration makes: `kind` R (a plain read), W (a plain
    write) or A (an atomic update), of element `index` of parameter
    `param`, by the statement at `line` (of the device function `function`
    where it is one's)."""
    iteration: int
    kind: str
    param: str
    index: tuple
    line: int
    function: str = None
    components: tuple = None   # of a vector array's element: those touched


# Each statement is a small tree evaluated per iteration by `_run` (which
# lists its accesses) and printed by `_text` (its source).


@dataclass
class Index:
    """An index expression of `i` (and `k`) along one axis, taken modulo the
    axis's extent, or `i` alone where the axis is at least n long."""
    form: str        # Python source with {L} for the extent, evaluated with i, k, L
    wraps: bool = True

    def source(self, extent):
        if not self.wraps:
            return self.form.format(L=extent)
        return f"({self.form.format(L=extent)}) % {extent}"

    def value(self, i, k, extent):
        x = eval(self.form.format(L=str(extent)), {}, {"i": i, "k": k})
        return x % extent if self.wraps else x


@dataclass
class At:
    """A subscript: an Index per axis of the array."""
    axes: tuple

    def source(self, param):
        if len(self.axes) == 1:
            return self.axes[0].source(f"len({param})")
        return ", ".join(x.source(f"{param}.shape[{d}]") for d, x in enumerate(self.axes))

    def value(self, i, k, shape):
        return tuple(x.value(i, k, e) for x, e in zip(self.axes, shape))


@dataclass
class Condition:
    """A condition of `i` and `k` (`test`, Python source), sometimes joined
    by `and` or `or` (`join`) to a comparison of an array element with
    itself, true (`==`, after `and`) or false (`!=`, after `or`): the
    element is read only where the test lets Python's short circuit reach
    it, and the condition's value is the test's."""
    test: str
    join: str = None
    param: str = None
    index: At = None

    def source(self):
        if not self.join:
            return self.test
        at = self.index.source(self.param)
        if self.join == "and":
            return f"{self.test} and {self.param}[{at}] == {self.param}[{at}]"
        return f"{self.test} or {self.param}[{at}] != {self.param}[{at}]"

    def holds(self, i, k):
        return eval(self.test, {}, {"i": i, "k": k})

    def reads(self, i, k):
        """Whether the element is read."""
        return self.join is not None and self.holds(i, k) == (self.join == "and")


@dataclass
class Statement:
    kind: str        # read, write, augment, atomic, select, if, loop, call_read, call_write, continue
    param: str = None
    index: At = None
    constant: int = 1
    condition: Condition = None
    body: list = field(default_factory=list)
    other: "Statement" = None   # select: the other arm's read
    trips: str = None           # loop: Python source of i
    line: int = 0
    # Of a vector array's element, what the access touches: ("attr", c)
    # (p[e].y), ("literal", c) (p[e][1]), ("runtime",) (p[e][i % N]) or
    # ("all",) (the element as a value); None for a number array.
    part: tuple = None

    def components(self, i, width):
        if self.part is None:
            return None
        if self.part[0] == "all":
            return tuple(range(width))
        if self.part[0] == "runtime":
            return (i % width,)
        return (self.part[1],)


@dataclass
class Program:
    seed: int
    kernel: str
    source: str
    params: list          # names, in call order (the output `out` last)
    statements: list
    n: int
    buffers: list         # (dtype name, length) per buffer
    bindings: dict        # param -> Binding
    values: list          # initial contents of each buffer
    before: tuple = None  # (param, index) loaded before the parallel loop
    functions: dict = field(default_factory=dict)  # "get"/"put" -> line of its access
    first_line: int = 0   # of the program's source in the module
    # Programs over arrays of vectors of i32 (Tack arrays, in the layout
    # named): (components, "aos" or "soa"); None for number arrays.
    vector: tuple = None
    # The parallel loop: ("range",) over len(out); ("ndindex", rows) over
    # rows x len(out) // rows; ("stepped", start, step) over
    # range(start, len(out) * step + start, step).
    loop: tuple = ("range",)

    def arrays(self):
        """The NumPy arrays of one call: fresh buffers, the parameters bound
        to them, and `out` (a vector program's buffers as (n, components)
        arrays)."""
        buffers = [np.array(v, dtype=np.dtype(t)) for (t, _), v in zip(self.buffers, self.values)]
        if self.vector:
            buffers = [b.reshape(-1, self.vector[0]) for b in buffers]
        args = [self.bindings[p].of(buffers) for p in self.params]
        out = np.zeros(self.n, dtype=np.int32)
        return buffers, args, out

    def wide_atomics(self):
        """Whether an atomic updates an i64 array (OpenCL's atomics cover i32,
        u32 and f32 arrays and refuse the kernel: docs/backends.md)."""
        def wide(statements):
            for s in statements:
                if s.kind == "atomic" and self.dtype(s.param) == "int64":
                    return True
                if wide(s.body):
                    return True
            return False
        return wide(self.statements)

    def dtype(self, param):
        b = self.bindings[param]
        return {"u8": "uint8", "i32": "int32", None: self.buffers[b.buffer][0]}[b.view]

    def as_tack(self):
        """Whether the call passes Tack arrays on the device (views made by
        Tack's host indexing) rather than NumPy arrays: half the programs,
        where no parameter reads a buffer as another dtype."""
        if self.vector:
            return True
        return self.seed % 2 == 1 and not any(b.view or b.repeat for b in self.bindings.values())

    def call_arrays(self, device):
        """(buffers, args, out) of one call on `device`: NumPy's, or Tack
        arrays on the device where as_tack() says."""
        buffers, args, out = self.arrays()
        if not self.as_tack():
            return buffers, args, out
        import tack

        if self.vector:
            width, layout = self.vector
            dtype = {2: tack.vec2i, 3: tack.vec3i}[width]
            buffers = [tack.array(b, dtype=dtype, layout=layout, device=device) for b in buffers]
        else:
            buffers = [tack.array(b, device=device) for b in buffers]
        args = [self.bindings[p].of(buffers) for p in self.params]
        return buffers, args, tack.array(out, device=device)

    def shapes(self):
        _, args, _ = self.arrays()
        return {p: a.shape[:1] if self.vector else a.shape for p, a in zip(self.params, args)}

    def accesses(self):
        """Every access of every iteration."""
        lengths = self.shapes()
        found = []
        for i in range(self.n):
            try:
                _block(self.statements, i, None, lengths, found, self.functions, self.vector and self.vector[0])
            except _Continue:
                pass
        return found

    def places(self):
        """{param: (buffer, byte offset of its element 0 in the buffer, byte
        strides, element size)}."""
        buffers, args, _ = self.arrays()
        places = {}
        for p, a in zip(self.params, args):
            b = self.bindings[p].buffer
            base = a.__array_interface__["data"][0] - buffers[b].__array_interface__["data"][0]
            places[p] = (b, base, a.strides, a.itemsize)
        return places

    def byte_range(self, param, index):
        """(buffer, first byte, byte count) of element `index` (a tuple) of
        `param`."""
        buffer, base, strides, size = self.places()[param]
        return buffer, base + sum(x * s for x, s in zip(index, strides)), size

    def units(self, param, index, components=None):
        """The units of memory element `index` (a tuple) of `param` spans
        (of `components` of it, for a vector array): (buffer, byte), or for
        a vector program (buffer, scalar: element * width + component)."""
        if self.vector:
            b = self.bindings[param]
            start, step = (0, 1) if b.start is None else (b.start, b.step)
            element = start + index[0] * step
            return [(b.buffer, element * self.vector[0] + c) for c in components]
        buffer, first, size = self.byte_range(param, index)
        return [(buffer, byte) for byte in range(first, first + size)]

    def outside(self):
        """The accesses whose index falls outside the array's shape (debug
        mode skips them and raises IndexError: docs/diagnostics.md)."""
        shapes = self.shapes()
        return [a for a in self.accesses()
                if any(not 0 <= x < e for x, e in zip(a.index, shapes[a.param]))]

    def touches(self):
        """{unit: {(kind, line, in a device function): {iterations}}}: a unit
        is what units() names (accesses outside their array skipped)."""
        touched = {}
        shapes = self.shapes()
        for acc in self.accesses():
            if any(not 0 <= x < e for x, e in zip(acc.index, shapes[acc.param])):
                continue
            for unit in self.units(acc.param, acc.index, acc.components):
                at = touched.setdefault(unit, {})
                at.setdefault((acc.kind, acc.line, acc.function is not None), set()).add(acc.iteration)
        return touched

    def races(self):
        """The touches of the bytes two iterations touch in conflict."""
        return {byte: at for byte, at in self.touches().items() if _raced(at)}

    def values_defined(self):
        """False where an iteration writes what the statement before the
        loop loads, which then reads it in some chunks after the write and
        in others before (docs/language.md, "Statements outside the
        parallel loop")."""
        if not self.before:
            return True
        p, index = self.before
        touched = self.touches()
        return not any(kind in "WA" for unit in self.units(p, index, range(self.vector[0]) if self.vector else None)
                       for kind, _, _ in touched.get(unit, {}))


def conflicting(at, x, y):
    """Whether accesses x and y (kind, line, in a device function) of one
    byte's touches `at` are made by two different iterations in conflict."""
    return x in at and y in at and _conflict(x[0], y[0]) and _apart(at[x], at[y])


def _raced(at):
    by_kind = {}
    for (kind, _, _), its in at.items():
        by_kind.setdefault(kind, set()).update(its)
    return any(_conflict(a, b) and _apart(by_kind[a], by_kind[b]) for a in by_kind for b in by_kind)


def _apart(xs, ys):
    """Whether some x of xs and y of ys differ."""
    return bool(xs) and bool(ys) and not (len(xs) == 1 and xs == ys)


def _conflict(x, y):
    return x == "W" or y == "W" or (x == "A" and y == "R") or (x == "R" and y == "A")


class _Continue(Exception):
    pass


def _block(statements, i, k, lengths, found, functions, width):
    """Runs statements of iteration i (k: the sequential loop's variable);
    raises _Continue at a `continue`."""
    for s in statements:
        _run(s, i, k, lengths, found, functions, width)


def _run(s, i, k, lengths, found, functions, width):
    def add(kind, param, index, line=s.line, function=None, statement=s):
        found.append(Access(i, kind, param, index, line, function, statement.components(i, width)))

    def at(statement):
        return statement.index.value(i, k, lengths[statement.param])

    def test(condition):
        if condition.reads(i, k):
            add("R", condition.param, condition.index.value(i, k, lengths[condition.param]))
        return condition.holds(i, k)

    if s.kind == "read":
        add("R", s.param, at(s))
    elif s.kind == "write":
        add("W", s.param, at(s))
    elif s.kind == "augment":
        add("R", s.param, at(s))
        add("W", s.param, at(s))
    elif s.kind == "atomic":
        add("A", s.param, at(s))
    elif s.kind == "select":
        chosen = s if test(s.condition) else s.other
        add("R", chosen.param, at(chosen), statement=chosen)
    elif s.kind == "if":
        if test(s.condition):
            _block(s.body, i, k, lengths, found, functions, width)
    elif s.kind == "loop":
        for kk in range(eval(s.trips, {}, {"i": i})):
            try:
                _block(s.body, i, kk, lengths, found, functions, width)
            except _Continue:
                pass
    elif s.kind in ("call_read", "call_write"):
        name = ("get" if s.kind == "call_read" else "put") + ("2" if len(s.index.axes) == 2 else "")
        add("R" if s.kind == "call_read" else "W", s.param, at(s), functions[name], name)
    elif s.kind == "continue":
        raise _Continue
    else:
        raise AssertionError(s.kind)


# ------------------------------------------------------------------ generation


def _index(r, with_k, at_least_n, reaching=False):
    """A random index form of i (and k); `reaching`: sometimes one that is
    not taken modulo the extent and may fall outside it."""
    if reaching and r.random() < 0.3:
        forms = ["i + {c}", "i - {c}", "i * {d}", "{c}", "{L} - i", "{L} + {c} - i"] + (["i + k", "k - 1"] if with_k else [])
        form = r.choice(forms).replace("{c}", str(r.randrange(0, 4))).replace("{d}", str(r.randrange(2, 4)))
        return Index(form, wraps=False)
    forms = ["i", "i + {c}", "{c}", "i // {d}", "i * {d}", "200 - i", "i * i + {c}", "i % {d}", "{L} - 1 - i % {L}"]
    if with_k:
        forms += ["i + k", "i * 2 + k", "k", "i * 3 + k + {c}", "k * {d}"]
    form = r.choice(forms).replace("{c}", str(r.randrange(0, 8))).replace("{d}", str(r.randrange(2, 5)))
    if form == "i" and at_least_n and r.random() < 0.5:
        return Index("i", wraps=False)
    return Index(form)


def _at(r, with_k, shape, n, reaching=False):
    """A random subscript of an array of `shape`."""
    return At(tuple(_index(r, with_k, extent >= n, reaching) for extent in shape))


class _Maker:
    """Random statements over the parameters. `own` maps a parameter to the
    one index form every plain access to it takes (a disciplined program:
    each iteration touches its own elements of what it writes, and arrays
    updated atomically are touched by atomics alone, so that only the
    call's sharing of memory can make it race); empty, any access takes any
    form."""

    def __init__(self, r, n, readable, writable, atomic, shapes, own, width=None, reaching=False):
        self.r, self.n, self.readable, self.writable, self.atomic = r, n, readable, writable, atomic
        self.shapes, self.own, self.width, self.reaching = shapes, own, width, reaching
        if own:
            self.readable = [p for p in readable if p not in atomic]

    def index(self, p, with_k):
        if p in self.own:
            return self.own[p]
        return _at(self.r, with_k, self.shapes[p], self.n, self.reaching)

    def condition(self, with_k):
        r = self.r
        d = r.randrange(2, 5)
        n = max(self.n, 2)
        forms = [f"i % {d} == {r.randrange(d)}", f"i < {r.randrange(1, n)}", f"i > {r.randrange(0, n)}",
                 f"i % {d} != {r.randrange(d)}"]
        if with_k:
            forms += [f"k == {r.randrange(MAX_TRIPS)}", f"i + k > {r.randrange(2, 12)}"]
        condition = Condition(r.choice(forms))
        if self.readable and not self.width and r.random() < 0.3:
            condition.join = r.choice(["and", "or"])
            condition.param = r.choice(self.readable)
            condition.index = self.index(condition.param, with_k)
        return condition

    def part(self, kind):
        """What an access of a vector array's element touches (Statement.part)."""
        if not self.width:
            return None
        if kind in ("atomic", "call_read", "call_write"):
            return ("all",)
        forms = [("attr", self.r.randrange(self.width)), ("literal", self.r.randrange(self.width)), ("runtime",)]
        if kind in ("read", "write"):
            forms.append(("all",))
        return self.r.choice(forms)

    def statement(self, depth, with_k, in_if=False):
        r = self.r
        kinds = ["read", "read", "write", "write", "augment", "select", "call_read"]
        if self.writable:
            kinds.append("call_write")
        if self.atomic:
            kinds += ["atomic", "atomic"]
        if depth < 2:
            # (One loop deep: an inner loop would rebind k.)
            kinds += ["if", "if"] + ([] if with_k else ["loop"])
        if in_if:
            kinds.append("continue")
        kind = r.choice(kinds)
        if kind in ("write", "augment", "call_write") and not self.writable:
            kind = "read"
        if kind in ("read", "call_read", "select") and not self.readable:
            kind = "atomic"
        if kind in ("read", "call_read"):
            p = r.choice(self.readable)
            return Statement(kind, p, self.index(p, with_k), part=self.part(kind))
        if kind in ("write", "augment", "call_write"):
            p = r.choice(self.writable)
            return Statement(kind, p, self.index(p, with_k), r.randrange(1, 9), part=self.part(kind))
        if kind == "atomic":
            p = r.choice(self.atomic)
            return Statement(kind, p, _at(r, with_k, self.shapes[p], self.n, self.reaching), r.randrange(1, 9),
                             part=self.part(kind))
        if kind == "select":
            p, q = r.choice(self.readable), r.choice(self.readable)
            return Statement("select", p, self.index(p, with_k), condition=self.condition(with_k),
                             other=Statement("read", q, self.index(q, with_k), part=self.part("select")),
                             part=self.part("select"))
        if kind == "if":
            return Statement("if", condition=self.condition(with_k),
                             body=[self.statement(depth + 1, with_k, True) for _ in range(r.randrange(1, 3))])
        if kind == "continue":
            return Statement("continue")
        trips = r.choice(["i % 3", "2", "3", "i % 2 + 1"])
        return Statement("loop", trips=trips, body=[self.statement(depth + 1, True) for _ in range(r.randrange(1, 3))])


def _slice(r, size, n, disciplined):
    """(start, stop, step) of a slice of `size` elements: one of n + 1
    elements or more where the program is disciplined."""
    step = r.choice([1, 1, 2, -1, -2, 3])
    if disciplined:
        most = (size - 1) // abs(step) + 1
        if most < n + 1:
            step = 1 if step > 0 else -1
            most = size
        count = r.randrange(n + 1, most + 1)
        first = r.randrange(0, size - ((count - 1) * abs(step) + 1) + 1)
        if step > 0:
            return first, first + (count - 1) * step + 1, step
        start = size - 1 - first
        stop = start + (count - 1) * step - 1
        return start, (None if stop < 0 else stop), step
    if step > 0:
        start = r.randrange(0, size)
        return start, r.randrange(start + 1, size + 1), step
    start = r.randrange(0, size)
    stop = r.choice([None] + list(range(-1, start)))
    return start, (None if stop == -1 else stop), step


def generate(seed):
    r = random.Random(seed)
    n = r.choice([0, 1, 2, 3] + list(range(4, MAX_N + 1)) * 3 + [r.randrange(MAX_N, 4 * MAX_N)] * 10)
    disciplined = r.random() < 0.6
    # A quarter of the programs take arrays of vectors of i32.
    vector = (r.choice([2, 3]), r.choice(["aos", "soa"])) if r.random() < 0.25 else None
    # Buffers of i32 or i64 elements, and parameters bound to them.
    nbuffers = r.randrange(1, 3)
    shortest = 2 * n + 8 if disciplined else 1
    buffers = [("int32" if vector else r.choice(["int32", "int32", "int64"]),
                r.randrange(shortest, shortest + 2 * MAX_N)) for _ in range(nbuffers)]
    nparams = r.randrange(2 if disciplined else 1, 5 if disciplined else 4)
    params = [f"p{j}" for j in range(nparams)]
    bindings = {}
    # Disciplined programs bind some parameters to an earlier one's memory,
    # indexed so that an iteration reaches its own elements through both
    # names: `same` (the same view, the same subscripts), `shifted` (the
    # whole buffer at i + d, and the slice from d at i).
    twins = {}
    for p in params:
        q = params[r.randrange(params.index(p))] if p != params[0] else None
        if disciplined and q and r.random() < 0.6:
            bq = bindings[q]
            if bq.start is None and bq.view is None and buffers[bq.buffer][1] >= n + 1 and r.random() < 0.5:
                size = buffers[bq.buffer][1]
                d = r.randrange(0, size - max(n, 1) + 1)
                bindings[p] = Binding(bq.buffer, d, r.randrange(d + max(n, 1), size + 1), 1)
                twins[p] = ("shifted", q, d)
            else:
                bindings[p] = bq
                twins[p] = ("same", q, 0)
            continue
        b = r.randrange(nbuffers)
        dtype, size = buffers[b]
        if vector:
            bindings[p] = Binding(b) if r.random() < 0.35 else Binding(b, *_slice(r, size, n, disciplined))
            continue
        if r.random() < 0.07:
            # Elements (or rows) sharing memory: every iteration that
            # touches one touches them all.
            # (In a disciplined program, enough of them that each iteration
            # has an element of its own, which races only by address.)
            start = r.randrange(size)
            if r.random() < 0.5:
                least = n + 1 if disciplined else 1
                bindings[p] = Binding(b, start, start + 1, 1, repeat=r.randrange(least, least + 2 * MAX_N))
            else:
                stop = r.randrange(start + 1, size + 1)
                least = -(-(n + 1) // (stop - start)) if disciplined else 1
                bindings[p] = Binding(b, start, stop, 1, rows=1, repeat=r.randrange(least, least + 4))
            continue
        view = r.choice([None, None, None, "u8"] + (["i32"] if dtype == "int64" else []))
        if view:
            size *= np.dtype(dtype).itemsize // {"u8": 1, "i32": 4}[view]
        if r.random() < 0.25:
            # A 2-D array: rows of a run of the buffer, in any order.
            rows = r.randrange(1, 7)
            least = -(-(n + 1) // rows) if disciplined else 1
            if rows * least <= size:
                columns = r.randrange(least, size // rows + 1)
                start = r.randrange(0, size - rows * columns + 1)
                order = r.choice([None, "T", "rows reversed", "columns reversed"])
                bindings[p] = Binding(b, start, start + rows * columns, 1, view, rows, order)
                continue
        if r.random() < 0.35:
            bindings[p] = Binding(b, view=view)
        else:
            bindings[p] = Binding(b, *_slice(r, size, n, disciplined and view != "u8"), view=view)
    writable = [p for p in params if bindings[p].view != "u8" and r.random() < 0.8]
    atomic = [p for p in writable if r.random() < 0.5]
    width = vector[0] if vector else 1
    values = [[r.randrange(-50, 50) for _ in range(size * width)] for _, size in buffers]
    program = Program(seed, f"races_{seed}", "", params, [], n, buffers, bindings, values, vector=vector)
    shapes = program.shapes()
    assert all(0 not in shape for shape in shapes.values()), shapes
    own = {}
    if disciplined:
        atomic = [p for p in atomic if r.random() < 0.5]
        for p in params:
            if p in atomic or (p not in writable and p not in twins):
                continue
            if p in twins:
                how, q, d = twins[p]
                if how == "same" and q in own:
                    own[p] = own[q]
                elif how == "shifted":
                    # q at i + d (wrapped by len(q), which i + d never reaches).
                    own[q] = At((Index(f"i + {d}"),))
                    own[p] = At((Index("i", wraps=False),))
                continue
            if len(shapes[p]) == 2:
                # Row-major: element (i // columns, i % columns).
                columns = shapes[p][1]
                own[p] = At((Index(f"i // {columns}"), Index(f"i % {columns}")))
                continue
            form = r.choice(["i", "i", "i + {c}", "200 - i", "{L} - 1 - i"]).replace("{c}", str(r.randrange(0, 8)))
            own[p] = At((Index(form, wraps=form != "i"),))
    plain = [p for p in writable if p not in atomic] if disciplined else writable
    # A fifth of the programs may index past their arrays.
    maker = _Maker(r, n, params, plain, atomic, shapes, own, vector and vector[0], reaching=r.random() < 0.2)
    program.statements = [maker.statement(0, False) for _ in range(r.randrange(1, 6))]
    if r.random() < 0.2:
        # Before the parallel loop: no iteration's.
        p = r.choice(params)
        program.before = (p, tuple(r.randrange(e) for e in shapes[p]))
    form = r.random()
    if form < 0.2:
        program.loop = ("ndindex", r.choice([d for d in range(1, max(n, 1) + 1) if n % d == 0] if n else [1]))
    elif form < 0.35:
        program.loop = ("stepped", r.randrange(-5, 6), r.randrange(1, 4))
    program.source = _source(program)
    return program


# --------------------------------------------------------------------- source


def _part_source(part, width):
    """The suffix selecting a part of a vector element: .y, [1], [i % 3]."""
    if part is None:
        return ""
    if part[0] == "attr":
        return "." + "xyzw"[part[1]]
    if part[0] == "literal":
        return f"[{part[1]}]"
    return f"[i % {width}]"


def _source(program):
    """The module text of the program: its device functions and its kernel
    (their line numbers recorded, counted from the text's first line)."""
    seed = program.seed
    get, put, get2, put2 = f"get_{seed}", f"put_{seed}", f"get2_{seed}", f"put2_{seed}"
    lines = [
        "@tack.func",
        f"def {get}(a, j):",
        "    return a[j]",
        "",
        "",
        "@tack.func",
        f"def {put}(a, j, v):",
        "    a[j] = v",
        "",
        "",
        "@tack.func",
        f"def {get2}(a, r, c):",
        "    return a[r, c]",
        "",
        "",
        "@tack.func",
        f"def {put2}(a, r, c, v):",
        "    a[r, c] = v",
        "",
        "",
        "@tack.kernel",
        f"def {program.kernel}({', '.join(program.params)}, out):",
    ]
    program.functions = {"get": 3, "put": 8, "get2": 13, "put2": 18}
    # The parallel loop, and i, the iteration's number (as the detector
    # numbers iterations: the flat position in the loop's range).
    form = program.loop
    if form[0] == "ndindex":
        rows = form[1]
        lines += [f"    for r, c in tack.ndindex({rows}, len(out) // {rows}):",
                  f"        i = r * (len(out) // {rows}) + c"]
    elif form[0] == "stepped":
        start, step = form[1:]
        lines += [f"    for j in range({start}, len(out) * {step} + {start}, {step}):",
                  f"        i = (j - {start}) // {step}"]
    else:
        lines.append("    for i in range(len(out)):")
    header = len(lines) - (1 if form[0] == "range" else 2)
    width = program.vector and program.vector[0]
    vec = f"tack.vec{width}"
    ones = f"{vec}({', '.join(['1'] * width)})" if width else None

    def value(x):
        """A vector of a number x (Python source), its components apart."""
        return f"{vec}({', '.join(f'{x} + {c}' for c in range(width))})"

    def ref(s, param, at):
        """The number a read of `s`'s part of param[at] gives."""
        part = s.part
        if part is None:
            return f"{param}[{at}]"
        if part[0] == "all":
            return f"{param}[{at}].dot({ones})"
        return f"{param}[{at}]" + _part_source(part, width)

    if program.before:
        p, index = program.before
        x = ".x" if width else ""
        lines.insert(header, f"    b = {p}[{', '.join(map(str, index))}]{x}")
        lines += ["        s = tack.i32(0)", "        s += b"]
    else:
        lines.append("        s = tack.i32(0)")

    def emit(s, indent):
        pad = " " * indent
        s.line = len(lines) + 1
        at = s.index.source(s.param) if s.index else None
        if s.kind == "read":
            lines.append(f"{pad}s += {ref(s, s.param, at)}")
        elif s.kind == "write":
            if s.part and s.part[0] == "all":
                lines.append(f"{pad}{s.param}[{at}] = {value(f's + {s.constant}')}")
            else:
                lines.append(f"{pad}{s.param}[{at}]{_part_source(s.part, width)} = s + {s.constant}")
        elif s.kind == "augment":
            lines.append(f"{pad}{s.param}[{at}]{_part_source(s.part, width)} += {s.constant}")
        elif s.kind == "atomic":
            where = f"({at})" if len(s.index.axes) == 2 else at
            lines.append(f"{pad}tack.atomic_add({s.param}, {where}, {value(s.constant) if width else s.constant})")
        elif s.kind == "select":
            other = s.other.index.source(s.other.param)
            lines.append(f"{pad}s += {ref(s, s.param, at)} if {s.condition.source()} else "
                         f"{ref(s.other, s.other.param, other)}")
            s.other.line = s.line
        elif s.kind == "if":
            lines.append(f"{pad}if {s.condition.source()}:")
            for t in s.body:
                emit(t, indent + 4)
        elif s.kind == "loop":
            lines.append(f"{pad}for k in range({s.trips}):")
            for t in s.body:
                emit(t, indent + 4)
        elif s.kind == "call_read":
            dot = f".dot({ones})" if width else ""
            lines.append(f"{pad}s += {get2 if len(s.index.axes) == 2 else get}({s.param}, {at}){dot}")
        elif s.kind == "call_write":
            v = value(f"s + {s.constant}") if width else f"s + {s.constant}"
            lines.append(f"{pad}{put2 if len(s.index.axes) == 2 else put}({s.param}, {at}, {v})")
        elif s.kind == "continue":
            lines.append(f"{pad}continue")

    for s in program.statements:
        emit(s, 8)
    lines.append("        out[i] = s")
    return "\n".join(lines) + "\n"
