"""Counter-based random numbers for kernels, with NumPy mirrors for the host.

Every function is pure: a draw depends only on its arguments, so there is
no hidden state, and two kernels (or a kernel and the host) that seed alike
draw alike. Inside a kernel::

    s = tack.random.seed(i, stream)     # u32 state for element i of a stream
    s = tack.random.advance(s)          # the next state
    u = tack.random.uniform(s)          # f32 in [0, 1)
    z = tack.random.normal(s)           # f32, standard normal
    dx, dy = tack.random.direction2(s)  # f32 unit vector, as a tuple

Each draw function reads one state; advance between draws. Vectors do not
exist yet, so direction2 and direction3 return tuples of f32.

The generator
-------------
The state is a u32 and all arithmetic wraps modulo 2^32:

* ``seed(index, stream)`` hashes the stream, adds the index and hashes
  again with Wellons' "lowbias32" integer hash (xor-shift / multiply, three
  rounds; every output bit depends on every input bit).
* ``advance(state)`` is one step of PCG32's 32-bit linear congruential
  generator, ``state * 747796405 + 2891336453`` (full period 2^32).
* ``uniform(state)`` applies PCG's RXS-M-XS output permutation to the state
  and scales the top 24 bits of the result by 2^-24, so it is exactly one of
  the 2^24 values k / 2^24 and never 1.0.
* ``normal(state)`` is the Box-Muller transform of ``uniform(state)`` and of
  the uniform of the state's lowbias32 hash; ``direction2`` and
  ``direction3`` map those uniforms to the circle and the sphere (Archimedes'
  projection). These three use log, sqrt, cos and sin, so their low bits
  follow each backend's math library.

Statistical quality: consecutive uniforms of one stream and uniforms of
neighbouring indices pass a 64-bin chi-square test and show serial
correlation below 0.01 over 2^16 draws (tests/python/test_random.py). This
is a fast generator for simulation and sampling, not a cryptographic one,
and 2^32 states bound any one stream.

Host mirrors
------------
``seed_np``, ``advance_np`` and ``uniform_np`` compute the same values as
the kernel functions, bit for bit, on NumPy arrays (or scalars) of
integers; ``normal_np``, ``direction2_np`` and ``direction3_np`` use NumPy's
f32 math and agree to within its rounding.
"""

import math

import numpy as np

__all__ = [
    "seed", "advance", "uniform", "normal", "direction2", "direction3",
    "seed_np", "advance_np", "uniform_np", "normal_np", "direction2_np", "direction3_np",
]

from ._decorators import func
from ._dtypes import f32, u32

# Kernels read literals, not module floats; the mirrors use these names.
_TWO_PI = 6.283185307179586
_INV_2_24 = 5.9604644775390625e-08  # 2^-24


# ------------------------------------------------------------------ kernels


@func
def _mix(x):
    h = u32(x)
    h = h ^ (h >> 16)
    h = h * u32(0x7FEB352D)
    h = h ^ (h >> 15)
    h = h * u32(0x846CA68B)
    h = h ^ (h >> 16)
    return h


@func
def _permute(state):
    s = u32(state)
    w = ((s >> ((s >> 28) + u32(4))) ^ s) * u32(277803737)
    return (w >> 22) ^ w


@func
def seed(index, stream):
    """The u32 state for `index` of `stream` (each reduced modulo 2^32)."""
    return _mix(u32(index) + _mix(u32(stream) ^ u32(0x9E3779B9)))


@func
def advance(state):
    """The state after `state`."""
    return u32(state) * u32(747796405) + u32(2891336453)


@func
def uniform(state):
    """An f32 in [0, 1): the top 24 bits of the permuted state times 2^-24."""
    return f32(_permute(state) >> 8) * 5.9604644775390625e-08  # 2^-24


@func
def _uniform_pair(state):
    return uniform(state), uniform(_mix(state))


@func
def normal(state):
    """A standard normal f32 (Box-Muller)."""
    u1, u2 = _uniform_pair(state)
    r = math.sqrt(-2.0 * math.log(1.0 - u1))
    return r * math.cos(6.283185307179586 * u2)


@func
def direction2(state):
    """A uniformly distributed f32 unit vector in the plane, as (x, y)."""
    a = 6.283185307179586 * uniform(state)
    return math.cos(a), math.sin(a)


@func
def direction3(state):
    """A uniformly distributed f32 unit vector in space, as (x, y, z)."""
    u1, u2 = _uniform_pair(state)
    z = 1.0 - 2.0 * u1
    r = math.sqrt(max(1.0 - z * z, 0.0))
    a = 6.283185307179586 * u2
    return r * math.cos(a), r * math.sin(a), z


# ------------------------------------------------------------ NumPy mirrors


def _u32(x):
    """Integers reduced modulo 2^32, as uint32."""
    a = np.asarray(x)
    if a.dtype.kind == "u":
        return a.astype(np.uint64).astype(np.uint32)
    return a.astype(np.int64).astype(np.uint64).astype(np.uint32)


def _mix_np(x):
    h = _u32(x)
    with np.errstate(over="ignore"):
        h = h ^ (h >> np.uint32(16))
        h = h * np.uint32(0x7FEB352D)
        h = h ^ (h >> np.uint32(15))
        h = h * np.uint32(0x846CA68B)
        h = h ^ (h >> np.uint32(16))
    return h


def _permute_np(state):
    s = _u32(state)
    with np.errstate(over="ignore"):
        w = ((s >> ((s >> np.uint32(28)) + np.uint32(4))) ^ s) * np.uint32(277803737)
        return (w >> np.uint32(22)) ^ w


def seed_np(index, stream):
    """seed() on the host: NumPy uint32 states for integer index/stream
    arrays (or scalars), each reduced modulo 2^32."""
    with np.errstate(over="ignore"):
        return _mix_np(_u32(index) + _mix_np(_u32(stream) ^ np.uint32(0x9E3779B9)))


def advance_np(state):
    """advance() on the host."""
    with np.errstate(over="ignore"):
        return _u32(state) * np.uint32(747796405) + np.uint32(2891336453)


def uniform_np(state):
    """uniform() on the host: float32 values, bit-identical to kernels."""
    return (_permute_np(state) >> np.uint32(8)).astype(np.float32) * np.float32(_INV_2_24)


def normal_np(state):
    """normal() on the host, in NumPy's float32 arithmetic."""
    u1, u2 = uniform_np(state), uniform_np(_mix_np(state))
    r = np.sqrt(np.float32(-2.0) * np.log(np.float32(1.0) - u1))
    return r * np.cos(np.float32(_TWO_PI) * u2)


def direction2_np(state):
    """direction2() on the host: a tuple of two float32 arrays."""
    a = np.float32(_TWO_PI) * uniform_np(state)
    return np.cos(a), np.sin(a)


def direction3_np(state):
    """direction3() on the host: a tuple of three float32 arrays."""
    u1, u2 = uniform_np(state), uniform_np(_mix_np(state))
    z = np.float32(1.0) - np.float32(2.0) * u1
    r = np.sqrt(np.maximum(np.float32(1.0) - z * z, np.float32(0.0)))
    a = np.float32(_TWO_PI) * u2
    return r * np.cos(a), r * np.sin(a), z
