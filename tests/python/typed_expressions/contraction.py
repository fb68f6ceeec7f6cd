"""Float sums of products in generated programs, whose low bits the
contract leaves to contraction.

`a.dot(b)` and `a @ b` of vectors, `v.norm_sqr()` (a matrix's too, its
entries in row-major order) and `v.norm()` add their products in index
order (docs/language.md: "Each entry of the result is the sum of its
products in index order"), each product in its pair of components'
promoted type and each partial sum in its operands' (a vector is its
components). The contract lets a backend fuse a multiply with an adjacent
add into one rounding ("Permitted contraction"), so such a sum has a few
allowed values: every partial sum `acc + x*y` may be `fma(x, y, acc)`, and
the first `x0*y0 + x1*y1` may also be `fma(x0, y0, x1*y1)`, where the
product and the sum are of one float type (a product converted to a wider
sum is rounded first). The oracle's value for such an expression is the
Choices of all of them; the runner accepts any. The generator stores such
an expression directly into a float output (where each choice converts on
its own), never into further arithmetic.

A fused step is the exact rational x*y + acc rounded once (zero keeps the
sign IEEE 754 gives an exact zero sum: that of two zeros of one sign,
+0.0 otherwise); with an infinite or NaN operand it is what the separate
step gives, but that an infinite or NaN acc beside a finite product stays
acc (the separate product may overflow where the fused one does not). A
nonzero denormal on any path makes the element Unspecified.
"""

from fractions import Fraction

import numpy as np

from float_bits import round_to

from .rules import NUMPY_FLOAT, arithmetic, checked, convert, is_float, promoted


class Choices(tuple):
    """The values the contract allows an expression: any one of them."""

    def map(self, fn):
        return Choices(fn(v) for v in self)


def fused(x, y, acc, t):
    """fma(x, y, acc), all of float type t."""
    if not (np.isfinite(x) and np.isfinite(y)):
        return arithmetic("+", acc, t, arithmetic("*", x, t, y, t), t)
    if not np.isfinite(acc):
        return acc
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(acc))
    if exact == 0:
        product_negative = bool(np.signbit(x)) != bool(np.signbit(y))
        both_negative = product_negative and bool(np.signbit(acc)) and x * y == 0
        return NUMPY_FLOAT[t](-0.0 if both_negative else 0.0)
    return checked(round_to(exact, t), t)


def products_added(pairs, c):
    """The Choices of sum(x * y for x, y in pairs) in index order in
    context c, `pairs` of component Nodes (rules.Node)."""
    terms = [(x.ev(c), x.type, y.ev(c), y.type, promoted(x.type, y.type)) for x, y in pairs]
    x0, tx0, y0, ty0, t0 = terms[0]
    sums = [(arithmetic("*", x0, tx0, y0, ty0), t0)]
    for k, (x, tx, y, ty, t) in enumerate(terms[1:], 1):
        product = arithmetic("*", x, tx, y, ty)
        following = []
        for acc, ta in sums:
            following.append((arithmetic("+", acc, ta, product, t), promoted(ta, t)))
            if is_float(t) and ta == t:
                following.append((fused(convert(x, tx, t), convert(y, ty, t), acc, t), t))
        if k == 1 and is_float(t0) and t0 == t:  # the first product fused into the second
            following.append((fused(convert(x0, tx0, t), convert(y0, ty0, t), product, t), t))
        sums = following
    return Choices(v for v, _ in sums)
