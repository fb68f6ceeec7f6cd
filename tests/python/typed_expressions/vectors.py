"""Vectors in generated expressions.

The contract defines a vector as its scalar components: every operation on
vectors is the scalar operation on each component, each component keeping
its own type (tack.vec2(a_i8, b_u16) + 1 wraps the first component in i32
and the second in i32, a vector of an i8 and a u64 keeps both). So a
vector here is a list of component nodes (rules.Node), and each vector
construct builds its components with the scalar rules of grammar.py:

- tack.vecN(e0, ..., eN-1), tack.vecN(e) (one number for every component),
  a load from a vector array (v0[i], its element type in every component)
  and a vector local;
- + - * & | ^ between vectors of one width or a vector and a number (used
  for every component), negation, abs, ~, casts, comparisons giving masks
  (vectors of i32 0/1), `and`/`or`/`not` over masks (every operand
  evaluated), tack.select(mask, a, b) (each component the conditional
  expression of its own), cross of integer vectors of one type;
- into numbers: a component by a literal index (negative ones count from
  the end) or by name (.x .y .z .w), by a runtime index (at or past the
  width: the last component; the type of all the components together, any
  float making it a float), sum
  (the components added in index order), dot and @ of integer vectors of
  one type (the products added in index order), any and all.

Float components keep the scalar grammar's limits: no product beside an add
(sum and the arithmetic turn such an add into a product), no bitwise
operator, no float converted to an integer (casts to integer types take
integer vectors only). Where two components have no common type (a signed
type with u64), the left vector is converted to f64 first, which every
component converts to exactly or by the contract's rounding.
"""

from dataclasses import dataclass

from integer_types import INT_NAMES, wrap

from .rules import FLOAT_NAMES, Node, convert, is_float, promoted

NAMES = "xyzw"


@dataclass
class Vector:
    src: str
    comps: list  # a Node per component; their src is not used

    @property
    def width(self):
        return len(self.comps)

    def all_integer(self):
        return not any(is_float(c.type) for c in self.comps)


def component(t, ev, product=False):
    return Node("", t, ev, product=product)


def joined(types):
    """The type of all `types` together: any float makes it that float (f64
    where one is f64), integers alone join pairwise; None where no integer
    type holds them all."""
    floats = [t for t in types if is_float(t)]
    if floats:
        return "f64" if "f64" in floats else "f32"
    t = types[0]
    for u in types[1:]:
        t = promoted(t, u) if t is not None else None
    return t


class VectorExpressions:
    """Vector constructs of the typed-expression Generator (a mixin: it
    uses the Generator's rng, scalar expressions and scalar rules)."""

    VECTOR_ARRAY = "v0"

    def choose_vector_array(self):
        """A vector input array (its width, component type and layout), or
        None."""
        if self.rng.random() < 0.5:
            return None
        return (self.rng.choice((2, 3, 4)), self.rng.choice(INT_NAMES + FLOAT_NAMES), self.rng.choice(("aos", "soa")))

    # ------------------------------------------------------------ leaves

    def vector(self, depth, width):
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.vector_leaf(depth, width)
        kind = r.choices(["varith", "vscale", "vunary", "vcast", "vcompare", "vselect", "vlogic", "vcross"],
                         [4, 2, 1, 1, 1, 1, 1, 1])[0]
        return getattr(self, kind)(depth - 1, width)

    def vector_leaf(self, depth, width):
        r = self.rng
        choices = ["scalars", "one"]
        if self.vector_array and self.vector_array[0] == width:
            choices += ["load", "load"]
        readable = [name for name, w in self.vector_locals.items() if len(w) == width]
        if readable:
            choices += ["local", "local"]
        pick = r.choice(choices)
        if pick == "scalars":
            parts = [self.expr(min(depth, 1)) for _ in range(width)]
            return Vector(f"tack.vec{width}({', '.join(p.src for p in parts)})",
                          [component(p.type, p.ev, p.product) for p in parts])
        if pick == "one":
            p = self.expr(min(depth, 1))
            return Vector(f"tack.vec{width}({p.src})", [component(p.type, p.ev, p.product)] * width)
        if pick == "load":
            name, t = self.VECTOR_ARRAY, self.vector_array[1]
            if r.random() < 0.7:
                index, at = "i", lambda c: c.i
            else:
                index, at = f"len({name}) - 1 - i", lambda c: c.n - 1 - c.i
            return Vector(f"{name}[{index}]",
                          [component(t, lambda c, k=k: c.arrays[name][at(c)][k]) for k in range(width)])
        name = r.choice(sorted(readable))
        return Vector(name, [component(t, lambda c, k=k: c.locals[name][k])
                             for k, t in enumerate(self.vector_locals[name])])

    # ------------------------------------------------------ vector to vector

    def as_f64(self, v):
        return Vector(f"tack.f64({v.src})", [component("f64", lambda c, x=x: convert(x.ev(c), x.type, "f64"))
                                             for x in v.comps])

    def pairable(self, a, b):
        """(a, b) with a converted to f64 where a pair of components has no
        common type."""
        if any(promoted(x.type, y.type) is None for x, y in zip(a.comps, b.comps)):
            a = self.as_f64(a)
        return a, b

    def arith_op(self, op, pairs):
        """op, or * where a float pair cannot take it (a bitwise operator, or
        + and - beside a product)."""
        for x, y in pairs:
            if is_float(promoted(x.type, y.type)):
                if op in "&|^" or (op in "+-" and (x.product or y.product)):
                    return "*"
        return op

    def varith(self, depth, width):
        a, b = self.pairable(self.vector(depth, width), self.vector(depth, width))
        op = self.arith_op(self.rng.choice(["+", "-", "*", "&", "|", "^"]), list(zip(a.comps, b.comps)))
        return Vector(f"({a.src} {op} {b.src})", [self.arith_of(op, x, y) for x, y in zip(a.comps, b.comps)])

    def vscale(self, depth, width):
        v, s = self.vector(depth, width), self.expr(depth)
        if any(promoted(x.type, s.type) is None for x in v.comps):
            s = self.cast("f64", s)
        op = self.rng.choice(["+", "-", "*", "&", "|", "^"])
        if self.rng.random() < 0.5:
            op = self.arith_op(op, [(x, s) for x in v.comps])
            return Vector(f"({v.src} {op} {s.src})", [self.arith_of(op, x, s) for x in v.comps])
        op = self.arith_op(op, [(s, x) for x in v.comps])
        return Vector(f"({s.src} {op} {v.src})", [self.arith_of(op, s, x) for x in v.comps])

    def vunary(self, depth, width):
        v = self.vector(depth, width)
        op = self.rng.choice(["-", "abs", "~"] if v.all_integer() else ["-", "abs"])
        src = f"abs({v.src})" if op == "abs" else f"({op}{v.src})"
        return Vector(src, [self.unary_of(op, x) for x in v.comps])

    def vcast(self, depth, width):
        v = self.vector(depth, width)
        t = self.rng.choice(INT_NAMES + FLOAT_NAMES if v.all_integer() else FLOAT_NAMES)
        return Vector(f"tack.{t}({v.src})", [component(t, lambda c, x=x: convert(x.ev(c), x.type, t))
                                             for x in v.comps])

    def vcompare(self, depth, width):
        op = self.rng.choice(sorted(self.COMPARISONS))
        a = self.vector(depth, width)
        if self.rng.random() < 0.3:  # a number compared with every component
            s = self.expr(depth)
            if any(promoted(x.type, s.type) is None for x in a.comps):
                s = self.cast("f64", s)
            fns = [self.compared(op, x, s) for x in a.comps]
            return Vector(f"({a.src} {op} {s.src})",
                          [component("i32", lambda c, x=x, f=f: int(f(x.ev(c), s.ev(c)))) for x, f in zip(a.comps, fns)])
        a, b = self.pairable(a, self.vector(depth, width))
        fns = [self.compared(op, x, y) for x, y in zip(a.comps, b.comps)]
        return Vector(f"({a.src} {op} {b.src})",
                      [component("i32", lambda c, x=x, y=y, f=f: int(f(x.ev(c), y.ev(c))))
                       for x, y, f in zip(a.comps, b.comps, fns)])

    def vlogic(self, depth, width):
        m = self.vcompare(depth, width)
        pick = self.rng.random()
        if pick < 0.3:
            return Vector(f"(not {m.src})", [component("i32", lambda c, x=x: int(x.ev(c) == 0)) for x in m.comps])
        n = self.vcompare(depth, width)
        if pick < 0.65:
            return Vector(f"({m.src} and {n.src})", [component("i32", lambda c, x=x, y=y: int(x.ev(c) != 0 and y.ev(c) != 0))
                                                     for x, y in zip(m.comps, n.comps)])
        return Vector(f"({m.src} or {n.src})", [component("i32", lambda c, x=x, y=y: int(x.ev(c) != 0 or y.ev(c) != 0))
                                                for x, y in zip(m.comps, n.comps)])

    def vselect(self, depth, width):
        m = self.vcompare(depth, width)
        a, b = self.pairable(self.vector(depth, width), self.vector(depth, width))

        def pick(x, y, k):
            t = promoted(x.type, y.type)
            return component(t, lambda c: convert(x.ev(c), x.type, t) if m.comps[k].ev(c) != 0
                             else convert(y.ev(c), y.type, t))

        return Vector(f"tack.select({m.src}, {a.src}, {b.src})",
                      [pick(x, y, k) for k, (x, y) in enumerate(zip(a.comps, b.comps))])

    def one_integer_type(self, depth, width):
        """Two integer vectors cast to one integer type t: (a, b, t), or None
        where one of them has a float component."""
        a, b = self.vector(depth, width), self.vector(depth, width)
        if not (a.all_integer() and b.all_integer()):
            return None
        t = self.rng.choice(INT_NAMES)

        def cast(v):
            return Vector(f"tack.{t}({v.src})", [component(t, lambda c, x=x: wrap(x.ev(c), t)) for x in v.comps])

        return cast(a), cast(b), t

    def vcross(self, depth, width):
        operands = self.one_integer_type(depth, width) if width == 3 else None
        if operands is None:
            return self.varith(depth, width)
        a, b, t = operands
        x, y = a.comps, b.comps

        def comp(i, j):
            return component(t, lambda c: wrap(x[i].ev(c) * y[j].ev(c) - x[j].ev(c) * y[i].ev(c), t))

        return Vector(f"{a.src}.cross({b.src})", [comp(1, 2), comp(2, 0), comp(0, 1)])

    # ------------------------------------------------------ vector to number

    def from_vector(self, depth):
        """A number read from a vector expression."""
        r = self.rng
        width = r.choice((2, 3, 4))
        kind = r.choices(["index", "name", "runtime", "sum", "dot", "any_all"], [3, 2, 2, 2, 2, 1])[0]
        if kind == "dot":
            operands = self.one_integer_type(depth, width)
            if operands:
                a, b, t = operands
                src = f"{a.src}.dot({b.src})" if r.random() < 0.5 else f"({a.src} @ {b.src})"
                return Node(src, t, lambda c: wrap(sum(x.ev(c) * y.ev(c) for x, y in zip(a.comps, b.comps)), t))
            kind = "index"
        if kind == "any_all":
            m = self.vcompare(depth, width)
            fn = r.choice([any, all])
            return Node(f"(1 if {fn.__name__}({m.src}) else 0)", "i32",
                        lambda c: int(fn(x.ev(c) != 0 for x in m.comps)))
        v = self.vector(depth, width)
        if kind == "sum":
            types = [v.comps[0].type]
            for x in v.comps[1:]:
                types.append(promoted(types[-1], x.type) if types[-1] is not None else None)
            if None in types or any(is_float(x.type) and x.product for x in v.comps):
                kind = "index"
            else:
                total = v.comps[0]
                for x in v.comps[1:]:
                    total = self.arith_of("+", total, x)
                return Node(f"{v.src}.sum()", total.type, total.ev)
        if kind == "runtime":
            if joined([x.type for x in v.comps]) is None:
                v = self.as_f64(v)
            t = joined([x.type for x in v.comps])
            index = self.masked(self.integer(depth), 3)

            def ev(c):
                x = v.comps[min(index.ev(c), width - 1)]  # at or past the width: the last component
                return convert(x.ev(c), x.type, t)

            return Node(f"{v.src}[{index.src}]", t, ev)
        k = r.randrange(-width, width) if kind == "index" else r.randrange(width)
        x = v.comps[k % width]
        src = f"{v.src}[{k}]" if kind == "index" else f"{v.src}.{NAMES[k]}"
        return Node(src, x.type, x.ev, product=x.product)

