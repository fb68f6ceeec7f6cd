"""Tack's reference tile library, compiled, on Tack arrays (see tile.py)."""

from typing import Optional, Sequence, Tuple, Union

import numpy as np

from ._arrays import Array

_Indices = Union[Array, np.ndarray, Sequence[int]]
_IntPair = Union[int, Tuple[int, int]]

__all__: list[str]

def matmul(a: Array, b: Array, out: Optional[Array] = None) -> Array: ...
def einsum(spec: str, *operands: Array, out: Optional[Array] = None) -> Array: ...
def conv2d(
    x: Array,
    w: Array,
    padding: _IntPair = 0,
    stride: _IntPair = 1,
    dilation: _IntPair = 1,
    groups: int = 1,
    out: Optional[Array] = None,
) -> Array: ...
def softmax(x: Array, axis: int = -1, out: Optional[Array] = None) -> Array: ...
def layer_norm(
    x: Array,
    weight: Optional[Array] = None,
    bias: Optional[Array] = None,
    eps: float = 1e-5,
    axis: int = -1,
    out: Optional[Array] = None,
) -> Array: ...
def rms_norm(
    x: Array, weight: Optional[Array] = None, eps: float = 1e-5, axis: int = -1, out: Optional[Array] = None
) -> Array: ...
def scan(x: Array, axis: Optional[int] = -1, exclusive: bool = False, out: Optional[Array] = None) -> Array: ...
def sort(x: Array, axis: Optional[int] = -1, out: Optional[Array] = None) -> Array: ...
def argsort(x: Array, axis: Optional[int] = -1, out: Optional[Array] = None) -> Array: ...
def topk(
    x: Array, k: int, axis: int = -1, out: Optional[Tuple[Array, Array]] = None
) -> Tuple[Array, Array]: ...
def gather(a: Array, indices: _Indices, axis: int = 0, out: Optional[Array] = None) -> Array: ...
def scatter(src: Array, indices: _Indices, out: Array, axis: int = 0) -> Array: ...
