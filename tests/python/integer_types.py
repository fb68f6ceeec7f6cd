"""Fixed-width integer types as the integer suites' oracle sees them: ranges,
Python's big integers reduced modulo 2^N (`wrap`), and the contract's
promotion of two types (`promoted`)."""

import numpy as np
import tack

INT_NAMES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
NP = {name: np.dtype(getattr(tack, name).numpy) for name in INT_NAMES}


def bits(name):
    return NP[name].itemsize * 8


def signed(name):
    return name.startswith("i")


def lo(name):
    return -(1 << (bits(name) - 1)) if signed(name) else 0


def hi(name):
    return (1 << (bits(name) - 1)) - 1 if signed(name) else (1 << bits(name)) - 1


def wrap(value, name):
    """The value modulo 2^N, read with the type's signedness."""
    n = bits(name)
    v = value % (1 << n)
    if signed(name) and v >= 1 << (n - 1):
        v -= 1 << n
    return v


def promoted(a, b):
    """The contract's promotion: the narrowest type holding both ranges;
    None for a signed type with u64, which no type holds."""
    if a == b:
        return a
    if signed(a) == signed(b):
        return a if bits(a) >= bits(b) else b
    s, u = (a, b) if signed(a) else (b, a)
    if u == "u64":
        return None
    return "i" + str(max(bits(s), 2 * bits(u)))
