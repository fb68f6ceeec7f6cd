"""Vectors and square matrices in generated expressions.

The contract defines a vector as its scalar components: every operation on
vectors is the scalar operation on each component, each component keeping
its own type (tack.vec2(a_i8, b_u16) + 1 wraps the first component in i32
and the second in i32, a vector of an i8 and a u64 keeps both). So a
vector here is a list of component nodes (rules.Node), and each vector
construct builds its components with the scalar rules of grammar.py:

- tack.vecN(e0, ..., eN-1), tack.vecN(e) (one number for every component),
  a load from a vector array (v0[i], its element type in every component)
  or a square-matrix array (m0[i]), at i, from the end or at a generated
  index of any integer type, and a vector local;
- + - * & | ^ between vectors (or square matrices) of one shape or a vector
  and a number (used for every component), negation, abs, ~, casts,
  comparisons giving masks (vectors of i32 0/1), `and`/`or`/`not` over
  masks (every operand evaluated), tack.select(mask, a, b) (each component
  the conditional expression of its own), cross of integer vectors;
- matrices: tack.matN(N*N numbers, row-major), tack.identity(N) (i32 ones
  and zeros), outer_product of integer vectors, the same componentwise
  constructs, transpose, a row by a literal index, and @ of integer
  operands (matrix @ matrix, matrix @ vector as a column, vector @ matrix
  as a row: each entry its products added in index order); into numbers
  m[i, j] by literal indices (negative ones count from the end) or runtime
  ones (in range, as the contract requires), sum, trace (the diagonal
  added in index order) and the determinant of 2x2 and 3x3 integer
  matrices of one type;
- into numbers: a component by a literal index (negative ones count from
  the end) or by name (.x .y .z .w), min and max of integer vectors (in
  the components' pairwise join), by a runtime index (at or past the
  width: the last component; the type of all the components together, any
  float making it a float), sum (the components added in index order),
  dot and @ of integer vectors (the products added in index order), any
  and all.

Products of integer vectors (cross, outer_product, @, dot) take their
operands' components with their own types half the time: each product in
its pair's promoted type and each partial sum or difference in its
operands' (a vector is its components; `tack.vec2(a_i8, b_i64).dot(
tack.vec2(c_i8, d_i8))` multiplies a by c in i8), and otherwise, or where
two of those types have no common one, cast both operands to one type.

Float components keep the scalar grammar's limits: no product beside an add
(sum and the arithmetic turn such an add into a product), no bitwise
operator, no float converted to an integer (casts to integer types take
integer vectors only). Where two components have no common type (a signed
type with u64), the left vector is converted to f64 first, which every
component converts to exactly or by the contract's rounding.
"""

from dataclasses import dataclass

import numpy as np

from integer_types import INT_NAMES, wrap

from .contraction import products_added
from .rules import (FLOAT_NAMES, GRID_ARRAY, GRID_COLUMNS, NUMPY_FLOAT, Node, arithmetic, checked, convert, is_float,
                    promoted)

NAMES = "xyzw"


@dataclass
class Vector:
    """A vector (shape (n,)) or a square matrix (shape (n, n)), its
    components in row-major order."""
    src: str
    comps: list  # a Node per component; their src is not used
    shape: tuple = ()

    def __post_init__(self):
        self.shape = self.shape or (len(self.comps),)

    def all_integer(self):
        return not any(is_float(c.type) for c in self.comps)


def count(shape):
    return shape[0] * (shape[1] if len(shape) == 2 else 1)


def random_shape(rng, matrices=True):
    n = rng.choice((2, 3, 4))
    return (n, n) if matrices and rng.random() < 0.3 else (n,)


def component(t, ev, product=False):
    return Node("", t, ev, product=product)


def product(x, y):
    """x * y of integer components in their promoted type (wrapped), or
    None where they have none."""
    t = promoted(x.type, y.type)
    return None if t is None else component(t, lambda c: arithmetic("*", x.ev(c), x.type, y.ev(c), y.type))


def difference(x, y):
    """x - y of integer components (either None: None), as product()."""
    t = None if x is None or y is None else promoted(x.type, y.type)
    return None if t is None else component(t, lambda c: arithmetic("-", x.ev(c), x.type, y.ev(c), y.type))


def sum_of_products(pairs):
    """The products of `pairs` of integer components added in index order,
    each product and each partial sum in the promoted type of its operands
    (the scalar rules: a vector is its components); None where two types
    have no common one."""
    total = product(*pairs[0])
    for x, y in pairs[1:]:
        p = product(x, y)
        t = None if total is None or p is None else promoted(total.type, p.type)
        if t is None:
            return None
        total = component(t, lambda c, a=total, b=p: arithmetic("+", a.ev(c), a.type, b.ev(c), b.type))
    return total


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
    MATRIX_ARRAY = "m0"

    def choose_vector_array(self):
        """A vector input array (its width, component type and layout), or
        None."""
        if self.rng.random() < 0.5:
            return None
        return (self.rng.choice((2, 3, 4)), self.rng.choice(INT_NAMES + FLOAT_NAMES), self.rng.choice(("aos", "soa")))

    def choose_matrix_array(self):
        """A square-matrix input array (its size, entry type and layout),
        or None."""
        if self.rng.random() < 0.7:
            return None
        return (self.rng.choice((2, 3, 4)), self.rng.choice(INT_NAMES + FLOAT_NAMES), self.rng.choice(("aos", "soa")))

    def element_arrays(self):
        """name -> (type, (width or (rows, columns), layout)) of the vector
        and matrix input arrays, and of the 2-D input array (layout
        "rows": a number per element, `width` of them in each row)."""
        arrays = {}
        if self.vector_array:
            width, t, layout = self.vector_array
            arrays[self.VECTOR_ARRAY] = (t, (width, layout))
        if self.matrix_array:
            n, t, layout = self.matrix_array
            arrays[self.MATRIX_ARRAY] = (t, ((n, n), layout))
        if self.grid_array:
            arrays[GRID_ARRAY] = (self.grid_array, (GRID_COLUMNS, "rows"))
        return arrays

    # ------------------------------------------------------------ leaves

    def vector(self, depth, shape):
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.vector_leaf(depth, shape)
        kind = r.choices(["varith", "vscale", "vunary", "vcast", "vcompare", "vselect", "vlogic", "vcross",
                          "transpose", "product", "row", "outer"], [4, 2, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1])[0]
        return getattr(self, kind)(depth - 1, shape)

    def vector_leaf(self, depth, shape):
        r = self.rng
        n, size = shape[0], count(shape)
        choices = ["scalars", "one"] if len(shape) == 1 else ["scalars", "scalars", "identity"]
        if self.vector_array and (self.vector_array[0],) == shape:
            choices += ["load", "load"]
        if self.matrix_array and (self.matrix_array[0],) * 2 == shape:
            choices += ["load"] * 4
        readable = [name for name, (s, _) in self.vector_locals.items() if s == shape]
        if readable:
            choices += ["local", "local"]
        pick = r.choice(choices)
        if pick == "scalars":
            parts = [self.expr(min(depth, 1)) for _ in range(size)]
            kind = "vec" if len(shape) == 1 else "mat"
            return Vector(f"tack.{kind}{n}({', '.join(p.src for p in parts)})",
                          [component(p.type, p.ev, p.product) for p in parts], shape)
        if pick == "one":
            p = self.expr(min(depth, 1))
            return Vector(f"tack.vec{n}({p.src})", [component(p.type, p.ev, p.product)] * n)
        if pick == "identity":  # ones and zeros: literals, i32
            return Vector(f"tack.identity({n})", [component("i32", lambda c, k=k: int(k // n == k % n))
                                                 for k in range(size)], shape)
        if pick == "load":  # an element of v0 or m0, its components row-major
            name, t = ((self.VECTOR_ARRAY, self.vector_array[1]) if len(shape) == 1
                       else (self.MATRIX_ARRAY, self.matrix_array[1]))
            pick = r.random()
            if pick < 0.6:
                index, at = "i", lambda c: c.i
            elif pick < 0.8 or not self.typed_indices:
                index, at = f"len({name}) - 1 - i", lambda c: c.n - 1 - c.i
            else:  # a generated index of any integer type (the arrays have 8 elements or more)
                e = self.masked(self.integer(1), 7)
                index, at = e.src, e.ev
            return Vector(f"{name}[{index}]",
                          [component(t, lambda c, k=k: c.arrays[name][at(c)][k]) for k in range(size)], shape)
        name = r.choice(sorted(readable))
        return Vector(name, [component(t, lambda c, k=k: c.locals[name][k])
                             for k, t in enumerate(self.vector_locals[name][1])], shape)

    # ------------------------------------------------------ vector to vector

    def as_f64(self, v):
        return Vector(f"tack.f64({v.src})", [component("f64", lambda c, x=x: convert(x.ev(c), x.type, "f64"))
                                             for x in v.comps], v.shape)

    def pairable(self, a, b):
        """(a, b) with a converted to f64 where a pair of components has no
        common type."""
        if any(promoted(x.type, y.type) is None for x, y in zip(a.comps, b.comps)):
            a = self.as_f64(a)
        return a, b

    def pairable_number(self, v, s):
        """The number s, converted to f64 where it has no common type with
        one of v's components."""
        return self.cast("f64", s) if any(promoted(x.type, s.type) is None for x in v.comps) else s

    def arith_op(self, op, pairs):
        """op, or * where a float pair cannot take it (a bitwise operator, or
        + and - beside a product)."""
        for x, y in pairs:
            if is_float(promoted(x.type, y.type)):
                if op in "&|^" or (op in "+-" and (x.product or y.product)):
                    return "*"
        return op

    def varith(self, depth, shape):
        a, b = self.pairable(self.vector(depth, shape), self.vector(depth, shape))
        op = self.arith_op(self.rng.choice(["+", "-", "*", "&", "|", "^"]), list(zip(a.comps, b.comps)))
        return Vector(f"({a.src} {op} {b.src})", [self.arith_of(op, x, y) for x, y in zip(a.comps, b.comps)], shape)

    def vscale(self, depth, shape):
        v = self.vector(depth, shape)
        s = self.pairable_number(v, self.expr(depth))
        op = self.rng.choice(["+", "-", "*", "&", "|", "^"])
        if self.rng.random() < 0.5:
            op = self.arith_op(op, [(x, s) for x in v.comps])
            return Vector(f"({v.src} {op} {s.src})", [self.arith_of(op, x, s) for x in v.comps], shape)
        op = self.arith_op(op, [(s, x) for x in v.comps])
        return Vector(f"({s.src} {op} {v.src})", [self.arith_of(op, s, x) for x in v.comps], shape)

    def vunary(self, depth, shape):
        v = self.vector(depth, shape)
        op = self.rng.choice(["-", "abs", "~"] if v.all_integer() else ["-", "abs"])
        src = f"abs({v.src})" if op == "abs" else f"({op}{v.src})"
        return Vector(src, [self.unary_of(op, x) for x in v.comps], shape)

    def vcast(self, depth, shape):
        v = self.vector(depth, shape)
        t = self.rng.choice(INT_NAMES + FLOAT_NAMES if v.all_integer() else FLOAT_NAMES)
        return Vector(f"tack.{t}({v.src})", [component(t, lambda c, x=x: convert(x.ev(c), x.type, t))
                                             for x in v.comps], shape)

    def vcompare(self, depth, shape):
        op = self.rng.choice(sorted(self.COMPARISONS))
        a = self.vector(depth, shape)
        if self.rng.random() < 0.3:  # a number compared with every component
            s = self.pairable_number(a, self.expr(depth))
            fns = [self.compared(op, x, s) for x in a.comps]
            return Vector(f"({a.src} {op} {s.src})",
                          [component("i32", lambda c, x=x, f=f: int(f(x.ev(c), s.ev(c)))) for x, f in zip(a.comps, fns)],
                          shape)
        a, b = self.pairable(a, self.vector(depth, shape))
        fns = [self.compared(op, x, y) for x, y in zip(a.comps, b.comps)]
        return Vector(f"({a.src} {op} {b.src})",
                      [component("i32", lambda c, x=x, y=y, f=f: int(f(x.ev(c), y.ev(c))))
                       for x, y, f in zip(a.comps, b.comps, fns)], shape)

    def vlogic(self, depth, shape):
        m = self.vcompare(depth, shape)
        pick = self.rng.random()
        if pick < 0.3:
            return Vector(f"(not {m.src})", [component("i32", lambda c, x=x: int(x.ev(c) == 0)) for x in m.comps], shape)
        n = self.vcompare(depth, shape)
        if pick < 0.65:
            return Vector(f"({m.src} and {n.src})", [component("i32", lambda c, x=x, y=y: int(x.ev(c) != 0 and y.ev(c) != 0))
                                                     for x, y in zip(m.comps, n.comps)], shape)
        return Vector(f"({m.src} or {n.src})", [component("i32", lambda c, x=x, y=y: int(x.ev(c) != 0 or y.ev(c) != 0))
                                                for x, y in zip(m.comps, n.comps)], shape)

    def vselect(self, depth, shape):
        m = self.vcompare(depth, shape)
        a, b = self.pairable(self.vector(depth, shape), self.vector(depth, shape))

        def pick(x, y, k):
            t = promoted(x.type, y.type)
            return component(t, lambda c: convert(x.ev(c), x.type, t) if m.comps[k].ev(c) != 0
                             else convert(y.ev(c), y.type, t))

        return Vector(f"tack.select({m.src}, {a.src}, {b.src})",
                      [pick(x, y, k) for k, (x, y) in enumerate(zip(a.comps, b.comps))], shape)

    def integer_operands(self, depth, shape, other, combine):
        """combine(a, b) of two integer vectors or matrices (of `shape`, and
        of `other` for the second where given), with their components' own
        types or (half the time, and where combine returns None: two
        components with no common type) both cast to one integer type; the
        operands' source and combine's result, or None where one of them
        has a float component."""
        for _ in range(2):  # (a second try where the first has a float)
            a, b = self.vector(depth, shape), self.vector(depth, other or shape)
            if a.all_integer() and b.all_integer():
                break
        else:
            return None
        if self.rng.random() < 0.5:
            result = combine(a.comps, b.comps)
            if result is not None:
                return a.src, b.src, result
        t = self.rng.choice(INT_NAMES)

        def cast(v):
            return Vector(f"tack.{t}({v.src})", [component(t, lambda c, x=x: wrap(x.ev(c), t)) for x in v.comps], v.shape)

        a, b = cast(a), cast(b)
        return a.src, b.src, combine(a.comps, b.comps)

    def vcross(self, depth, shape):
        if shape != (3,):
            return self.varith(depth, shape)

        def cross(x, y):
            comps = [difference(product(x[i], y[j]), product(x[j], y[i])) for i, j in ((1, 2), (2, 0), (0, 1))]
            return None if None in comps else comps

        operands = self.integer_operands(depth, shape, None, cross)
        if operands is None:
            return self.varith(depth, shape)
        a, b, comps = operands
        return Vector(f"{a}.cross({b})", comps)

    def transpose(self, depth, shape):
        if len(shape) == 1:
            return self.varith(depth, shape)
        n = shape[0]
        m = self.vector(depth, shape)
        return Vector(f"{m.src}.transpose()", [m.comps[(k % n) * n + k // n] for k in range(n * n)], shape)

    def product(self, depth, shape):
        """a @ b of integer operands: matrix @ matrix, matrix @ vector (a
        column) or vector @ matrix (a row); each entry the sum of its
        products in index order (sum_of_products)."""
        n = shape[0]
        if len(shape) == 2:
            shapes, (rows, inner, cols) = (shape, None), (n, n, n)
        elif self.rng.random() < 0.5:
            shapes, (rows, inner, cols) = ((n, n), (n,)), (n, n, 1)
        else:
            shapes, (rows, inner, cols) = ((n,), (n, n)), (1, n, n)

        def entries(x, y):
            comps = [sum_of_products([(x[i * inner + k], y[k * cols + j]) for k in range(inner)])
                     for i in range(rows) for j in range(cols)]
            return None if None in comps else comps

        operands = self.integer_operands(depth, *shapes, entries)
        if operands is None:
            return self.varith(depth, shape)
        a, b, comps = operands
        return Vector(f"({a} @ {b})", comps, shape)

    def outer(self, depth, shape):
        """a.outer_product(b) of integer vectors: entry (i, j) is a[i] * b[j]."""
        if len(shape) != 2:
            return self.varith(depth, shape)
        n = shape[0]

        def entries(x, y):
            comps = [product(x[k // n], y[k % n]) for k in range(n * n)]
            return None if None in comps else comps

        operands = self.integer_operands(depth, shape[:1], None, entries)
        if operands is None:
            return self.varith(depth, shape)
        a, b, comps = operands
        return Vector(f"{a}.outer_product({b})", comps, shape)

    def row(self, depth, shape):
        """A matrix's row by a literal index (negative ones count from the
        end)."""
        if len(shape) == 2:
            return self.varith(depth, shape)
        n = shape[0]
        m = self.vector(depth, (n, n))
        r = self.rng.randrange(-n, n)
        return Vector(f"{m.src}[{r}]", m.comps[(r % n) * n:(r % n) * n + n])

    # ------------------------------------------------------ vector to number

    def from_vector(self, depth):
        """A number read from a vector or matrix expression."""
        r = self.rng
        shape = random_shape(r)
        if len(shape) == 2:
            return self.from_matrix(depth, shape)
        width = shape[0]
        kind = r.choices(["index", "name", "runtime", "sum", "dot", "any_all", "min_max"], [3, 2, 2, 2, 2, 1, 2])[0]
        if kind == "dot":
            operands = self.integer_operands(depth, shape, None, lambda x, y: sum_of_products(list(zip(x, y))))
            if operands:
                a, b, total = operands
                src = f"{a}.dot({b})" if r.random() < 0.5 else f"({a} @ {b})"
                return Node(src, total.type, total.ev)
            kind = "index"
        if kind == "any_all":
            m = self.vcompare(depth, shape)
            fn = r.choice([any, all])
            return Node(f"(1 if {fn.__name__}({m.src}) else 0)", "i32",
                        lambda c: int(fn(x.ev(c) != 0 for x in m.comps)))
        v = self.vector(depth, shape)
        if kind == "min_max":  # integers: the least or greatest value, in the components' pairwise join
            t = joined([x.type for x in v.comps])
            if v.all_integer() and t is not None:
                fn = r.choice([min, max])
                return Node(f"{v.src}.{fn.__name__}()", t, lambda c: fn(x.ev(c) for x in v.comps))
            kind = "index"
        if kind == "sum":
            total = self.sum_of(v.comps)
            if total:
                return Node(f"{v.src}.sum()", total.type, total.ev)
            kind = "index"
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

    def contracted(self, depth):
        """A float sum of products of a vector or matrix expression (dot,
        @, norm_sqr, norm) whose value is the Choices contraction allows
        (contraction.py), or None where its type is no float or two of its
        types have no common one."""
        r = self.rng
        shape = random_shape(r)
        kind = r.choice(["dot", "@", "norm_sqr", "norm"] if len(shape) == 1 else ["norm_sqr", "norm"])
        for _ in range(3):  # (again where the sum is of integers)
            a = self.vector(depth, shape)
            b = self.vector(depth, shape) if kind in ("dot", "@") else a
            pairs = list(zip(a.comps, b.comps))
            types = [promoted(x.type, y.type) for x, y in pairs]
            t = types[0]
            for u in types[1:]:
                t = None if t is None or u is None else promoted(t, u)
            if is_float(t):
                break
        else:
            return None
        if kind == "norm":
            ft = NUMPY_FLOAT[t]
            return Node(f"{a.src}.norm()", t,
                        lambda c: products_added(pairs, c).map(lambda v: checked(np.sqrt(ft(v), dtype=ft), t)))
        src = f"{a.src}.{kind}()" if kind == "norm_sqr" else f"{a.src}.dot({b.src})" if kind == "dot" else \
            f"({a.src} @ {b.src})"
        return Node(src, t, lambda c: products_added(pairs, c))

    def sum_of(self, comps):
        """The components added in index order, or None where two have no
        common type or a float one is a product (beside an add)."""
        if any(is_float(x.type) and x.product for x in comps):
            return None
        total = comps[0]
        for x in comps[1:]:
            if promoted(total.type, x.type) is None:
                return None
            total = self.arith_of("+", total, x)
        return total

    def from_matrix(self, depth, shape):
        r = self.rng
        n = shape[0]
        kind = r.choices(["index", "runtime", "sum", "trace", "determinant"], [2, 2, 1, 2, 4])[0]
        if kind == "determinant" and n < 4:

            def determinant(x, _):  # of integers of one type (a mixed matrix is cast to one)
                t = x[0].type
                if any(e.type != t for e in x):
                    return None

                def det(c):
                    v = [e.ev(c) for e in x]
                    if n == 2:
                        return wrap(v[0] * v[3] - v[1] * v[2], t)
                    return wrap(v[0] * (v[4] * v[8] - v[5] * v[7]) - v[1] * (v[3] * v[8] - v[5] * v[6])
                                + v[2] * (v[3] * v[7] - v[4] * v[6]), t)

                return component(t, det)

            operands = self.integer_operands(depth, shape, None, determinant)
            if operands:
                m, _, value = operands
                return Node(f"{m}.determinant()", value.type, value.ev)
        m = self.vector(depth, shape)
        if kind in ("sum", "trace"):
            total = self.sum_of(m.comps if kind == "sum" else [m.comps[k * n + k] for k in range(n)])
            if total:
                return Node(f"{m.src}.{kind}()", total.type, total.ev)
        if kind == "runtime" and n in (2, 4):  # in range, as the contract requires
            i, j = self.masked(self.integer(depth), n - 1), self.masked(self.integer(depth), n - 1)
            if joined([x.type for x in m.comps]) is None:
                m = self.as_f64(m)
            t = joined([x.type for x in m.comps])

            def ev(c):
                x = m.comps[i.ev(c) * n + j.ev(c)]
                return convert(x.ev(c), x.type, t)

            return Node(f"{m.src}[{i.src}, {j.src}]", t, ev)
        i, j = r.randrange(-n, n), r.randrange(-n, n)
        x = m.comps[(i % n) * n + j % n]
        return Node(f"{m.src}[{i}, {j}]", x.type, x.ev, product=x.product)
