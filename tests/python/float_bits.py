"""Comparing floating-point results by their bits, for the numerical
suites: distance in units in the last place, bitwise identity, and the
float nearest a rational number."""

from fractions import Fraction

import numpy as np


def ulp_distance(got, expected):
    """How many representable values apart each pair is (0: identical bits,
    signed zeros one apart), in got's dtype."""
    got = np.asarray(got)
    expected = np.asarray(expected, dtype=got.dtype)
    itype = np.int32 if got.dtype == np.float32 else np.int64

    def ordered(x):
        i = x.view(itype).astype(np.int64)
        return np.where(i < 0, np.iinfo(itype).min - i, i)

    return np.abs(ordered(got) - ordered(expected))


def identical(got, expected):
    """Equal bit patterns, any NaN standing for any NaN."""
    got, expected = np.asarray(got), np.asarray(expected, dtype=np.asarray(got).dtype)
    both_nan = np.isnan(got) & np.isnan(expected)
    same = (got == expected) & (np.signbit(got) == np.signbit(expected))
    return bool(np.all(both_nan | same))


def round_to(q, t):
    """The value of float type t ("f32" or "f64") nearest the rational q,
    ties to even; infinite past the largest finite value's rounding
    boundary. Zero is +0.0 (the caller gives a zero its sign). Normal range
    only: a result below the smallest normal is not rounded as a denormal."""
    if t == "f64":
        try:
            return np.float64(float(q))
        except OverflowError:
            return np.float64(np.inf if q > 0 else -np.inf)
    if q == 0:
        return np.float32(0.0)
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    scaled = a / Fraction(2) ** (e - 23)
    m, rest = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rest
    if twice > scaled.denominator or (twice == scaled.denominator and m % 2 == 1):
        m += 1
    magnitude = Fraction(m) * Fraction(2) ** (e - 23)
    if magnitude >= Fraction(2) ** 128:
        return np.float32(sign * np.inf)
    return np.float32(sign * float(magnitude))
