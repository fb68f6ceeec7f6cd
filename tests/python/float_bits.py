"""Comparing floating-point results by their bits, for the numerical
suites: distance in units in the last place, and bitwise identity."""

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
