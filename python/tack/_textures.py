"""3D textures: tack.texture3d(array, shape=(W, H, D), interp='linear').

A texture is a snapshot: it copies the array's data when it is made, and
again at tex.update(); writes to the array in between are not visible to
it. Kernels sample it with tex.sample(u, v, w) (or tex.sample(p) for a
3-vector p) in normalized coordinates: texel i of an axis with N texels is
centered at (i + 0.5) / N, addressing clamps to the edge texels, and the
value is trilinear interpolation in f32 (docs/arrays.md gives the formula).
"""

from __future__ import annotations

from typing import Sequence

from . import _core
from ._arrays import Array, _shape

Texture3D = _core.Texture3D

_INTERPOLATIONS = ("linear",)


def texture3d(array: Array, shape: Sequence[int], interp: str = "linear") -> Texture3D:
    """A texture of shape (W, H, D) over a copy of `array`, an f32 tack.Array
    of exactly W*H*D elements in which x varies fastest (element
    x + W * (y + H * z) in row-major order)."""
    if interp not in _INTERPOLATIONS:
        raise ValueError(f"texture3d: interp={interp!r} is not implemented; only interp='linear' is")
    if not isinstance(array, Array):
        raise TypeError(f"texture3d: expected a tack.Array of f32, not {type(array).__name__}")
    try:
        extents = _shape(shape)  # integers only: 2.5, "2" or True is no extent
    except TypeError:
        raise TypeError(f"texture3d: shape must be three integer extents (W, H, D), not {shape!r}") from None
    if len(extents) != 3:
        raise ValueError(f"texture3d: shape must be three extents (W, H, D), not {shape!r}")
    width, height, depth = extents
    return Texture3D(array, width, height, depth)
