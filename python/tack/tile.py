"""Tack's reference tile library, compiled, on Tack arrays.

    import numpy as np, tack, tack.tile

    a = tack.array(np.random.rand(300, 200).astype(np.float32))
    b = tack.array(np.random.rand(200, 100).astype(np.float32))
    c = tack.tile.matmul(a, b)                  # a new tack.Array
    tack.tile.softmax(c, axis=0, out=c)         # in place, through a buffer

Each function runs one kernel of the C++ reference tile library
(tack/tile/lib.h) compiled for the arrays' device by tile::compile. Arrays
on the CPU are used where they are: a kernel parameter is a view of the
array's storage with its offset and strides (any strides, negative ones
included, as tack.asarray of a NumPy view gives), so no input is copied
and `out=` is written in place. An `out=` that overlaps an input is
computed into a buffer first and then copied, as NumPy does.

Element types: the reference kernels are f32 (values), with i64 positions
(topk, sort's argsort, gather/scatter indices). Other dtypes raise
TypeError: nothing is converted silently. Index arguments given as NumPy
or Python integers are converted to i64 (a copy on the data's device).

Compiled kernels are cached in this process per (kernel, configuration,
dtype, device), and on the CPU their code in the disk cache for other
processes (docs/caching.md); the shapes are run-time values, so a second call with any
shape does not recompile. matmul's tile sizes are autotuned per shape class
on the CPU (python/tack/_tile_tuning.py; TACK_TILE_AUTOTUNE=0 keeps the
fixed 16x16x16), which compiles one kernel per winner; softmax, layer_norm
and rms_norm over narrow rows time their two forms at the first large call
(_row_form). Devices: every
backend that compiles kernel IR (the CPU, and OpenCL, CUDA and HIP through
the C-family generator): the arrays are used in place on their device. A
backend without tile kernels raises NotImplementedError naming the device
and the function; nothing falls back to the CPU silently.

Reductions follow the reference library's policies (docs/tile/python.md
states each kernel's order and what it means for rounding).
"""

import functools as _functools
import itertools
import math as _math
import operator as _operator
import time as _time

import numpy as np

from . import _core, _tile_tuning
from ._arrays import Array, array, asarray, copyto, empty, full
from ._dtypes import f32, i64

__all__ = [
    "argsort",
    "conv2d",
    "einsum",
    "gather",
    "layer_norm",
    "matmul",
    "rms_norm",
    "scan",
    "scatter",
    "softmax",
    "sort",
    "topk",
]

# ---------------------------------------------------------------------------
# Compiled kernels, cached per (kernel, configuration, dtype, device).

_compiled = {}

# How each reference kernel's parallel iterations bind to the CPU: in SIMD
# lanes (consecutive iterations in one vector) for the kernels of small
# tiles, matrix products and sort's merge passes (a binary search per
# element); one iteration at a time for the kernels that walk long rows or
# windows, whose loops LLVM vectorizes. Measured on a 2-core x86-64 with
# AVX-512 (docs/performance.md): lanes make matmul and einsum 2-5x faster,
# and rms_norm 4x, scan 7x, gathers 2.5x, layer_norm 2-3x and conv2d 2x
# slower; softmax and topk are about even (no lanes). Sort's passes, on a
# 2-core Zen 3 with AVX2 at 256x1024, 16x65536 and 4096x64: merge_runs
# 1.1-1.5x faster in lanes, sort_runs 1.3-1.6x slower; merge_path, which
# replaced merge_runs, 1.1-1.2x faster in lanes (and 1x2^20). Top-K's blocks, on
# the same host once launches divided into whole SIMD groups: 1.2-1.4x
# faster in lanes at 1024x4096, 64x65536 and 4096x256 with k = 8 and 4;
# on a 2-core Zen 4 (AVX-512), the 32-entry network 2.9x (k = 32 at
# 1024x4096: 23 ms against 67) and sort_runs_bitonic's runs of 32 about
# 3x (Top-K's tournament at k = 64: 62 ms against 114).
_SIMD_LANES = {"matmul", "einsum", "sort_runs", "sort_runs_bitonic", "merge_path", "topk"}

# Rows of at most 16 columns run softmax, layer_norm and rms_norm in one
# block as wide as the row rounded up to a power of two (rows of 17 to 31,
# the reference kernels' block of 32), instead of blocks of 32 columns most
# of which such a row leaves empty. layer_norm runs rows narrower than 32
# with consecutive rows in the CPU's SIMD lanes, softmax rows of at most 16
# and rms_norm rows of at most 15: one
# row at a time, a narrow row's sums are a short chain of dependent
# additions and a ragged block tests each element, where in the lanes 16
# rows (8 with AVX2) take each step together. A row is one block whose
# elements past the row add exact zeros (exp(-inf) to softmax's sum, 0 to
# the norms'), so every width and form gives the 32-column kernel's bits.
# On a 2-core Intel Xeon (AVX-512), 2^23 elements, softmax / layer_norm /
# rms_norm in ms, in the lanes against one row at a time (same block), one
# row's element loops vectorized (docs/backends.md):
#   1 column (block 1)   25 / 8.3 / 5.3    against 24 / 27 / 20
#   3 (4)                27 / 7.2 / 6.2    against 39 / 21 / 15
#   8 (8)                23 / 6.5 / 5.7    against 23 / 16 / 8.5-8.9
#   14 (16)              27 / 7.9 / 6.5    against 32 / 14 / 7.7
#   16 (16)              25 / 6.8-7.1 / 5.8  against 24-26 / 8.7-9.8 / 4.9-5.0
#   24 (32)              29 / 11 / 8.9     against 29 / 14 / 5.3-5.6
# so rms_norm takes rows from 16 columns one at a time, the others from 17
# (softmax) and 32 (layer_norm). (docs/tile/python.md has the table as it
# was before the element loops were vectorized.)
_NARROW_ROW = 16  # rows of at most this many columns take a block of their own width
_SOFTMAX_LANES = 16  # softmax's widest row in the lanes; layer_norm's: _ROW_WIDTH - 1
_RMS_NORM_LANES = 15  # rms_norm's
_ROW_WIDTH = 32  # the reference kernels' block


# Which of the two forms is faster for narrow rows depends on the host:
# on a 2-core AMD EPYC (AVX-512), 2^23 elements, ms in the lanes against one
# row at a time, layer_norm over 16 columns 13.7 / 7.8 and rms_norm over 8
# 9.7 / 8.1, where the Intel Xeon above ran them faster in the lanes (the
# lanes gather each step's elements from 16 rows, probably the slow part on
# that AMD). So on
# the CPU the first call over rows narrower than _ROW_WIDTH of at least
# _ROW_FORM_TIMED elements runs both forms (each compiled first; the bits
# are the same either way) and times them, twice each, alternating; that
# function and row width then run the faster form in this process. Smaller
# calls, before any is timed, take the rule above. TACK_TILE_AUTOTUNE=0
# keeps the rule.
_ROW_FORM_TIMED = 1 << 18
_row_forms = {}  # (function, row width) -> whether the lanes measured faster
_clock = _time.perf_counter  # what _row_form times with (tests script it)


def _row_form(fn, x, axis, device, lanes, run, inputs, out):
    """Runs a row kernel over `axis` of x: run(in_lanes) launches it in one
    form, reading `inputs` (x first) and writing `out`. `lanes` is
    _row_block's rule; rows side by side in memory run in the lanes
    (_rows_side_by_side); other rows narrower than _ROW_WIDTH on the CPU
    take the form measured faster on this host (_ROW_FORM_TIMED). A call
    whose out overlaps an input is not timed: each run would read what the
    one before wrote."""
    if _rows_side_by_side(x, axis, device):
        return run(True)
    n, size = x.shape[axis], x.size
    if device != "cpu" or n >= _ROW_WIDTH or not _tile_tuning.enabled():
        return run(lanes)
    measured = _row_forms.get((fn, n))
    if measured is not None:
        return run(measured)
    if size < _ROW_FORM_TIMED or _clashes([out], inputs)[0]:
        return run(lanes)
    run(lanes)  # each form compiled (or read from the disk cache) before timing
    run(not lanes)
    best = {}
    for form in (lanes, not lanes, lanes, not lanes):
        start = _clock()
        run(form)
        best[form] = min(best.get(form, _math.inf), _clock() - start)
    _row_forms[(fn, n)] = best[True] < best[False]


def _power_of_two_at_least(n, start=1):
    """The least start * 2**i at or above n."""
    p = start
    while p < n:
        p *= 2
    return p


# On a GPU (CUDA, HIP) a row of more than _ROW_WIDTH columns runs in one
# workgroup, in blocks of the group's lanes (tile::workgroup_target(): 256):
# the block's elements one per lane, their sum and maximum merged over the
# lanes as a tree, instead of a row per lane through 32-column tiles in
# private memory. OpenCL keeps the row per lane: its device may be the CPU
# (PoCL), where a row per lane is the faster form.
_GROUP_DEVICES = {"cuda", "hip"}
_GROUP_LANES = 256


def _rows_side_by_side(x, axis, device):
    """Whether x's rows along `axis` lie side by side in memory on the CPU:
    a step along `axis` is not one element, but a step along the innermost
    other axis is (a transposed view's rows, or softmax(x, axis=0) of a
    row-major x). Consecutive rows then run in the SIMD lanes, which read
    one element of each of them as one vector, instead of one row at a time
    striding through memory. On a 2-core Intel Xeon (AVX-512), axis 0 of a
    row-major 4096x4096, ms one row at a time against in the lanes: scan
    179 / 30, softmax 365 / 94, rms_norm 248 / 47, layer_norm 333 / 52
    (along axis 1: 10 and 43 one row at a time, 37 and 104 in the lanes).
    Gathers and scatters of columns stay as they are: their rows are the
    indexed columns, side by side only where the indices are consecutive."""
    if device != "cpu":
        return False
    size, strides = x.dtype.itemsize, x.strides  # in bytes
    others = [s for d, (n, s) in enumerate(zip(x.shape, strides)) if d != axis and n > 1]
    return abs(strides[axis]) != size and bool(others) and abs(others[-1]) == size


def _row_block(n, device="cpu", widest_in_lanes=_ROW_WIDTH - 1):
    """(block width, in SIMD lanes) for a row kernel over rows of n columns
    on `device`, rows of at most `widest_in_lanes` columns in the lanes."""
    if n > _ROW_WIDTH and device in _GROUP_DEVICES:
        return _GROUP_LANES, False
    width = _power_of_two_at_least(n) if n <= _NARROW_ROW else _ROW_WIDTH
    return width, n <= widest_in_lanes


# Columns per block of gather's and scatter's row copies. On a 2-core Zen 4
# (AVX-512), one iteration at a time, in ms for 32 / 64 / 128: gather of
# 4096 rows of 4096, 6.3 / 4.1 / 4.2; of 65536 rows of 100, 6.7 / 3.9 / 4.3;
# scatter of the same, 6.1 / 3.6 / 4.0 and 6.1 / 1.7 / 2.1. On a GPU (CUDA,
# HIP) rows of more than 64 columns copy in blocks of a workgroup's 256
# lanes, an element per lane, each kept in its lane's registers between
# the load and the store.
_ROW_COPY_WIDTH = 64


def _row_copy_width(n, device):
    """Columns per block of a row copy over rows of n columns on `device`."""
    return _GROUP_LANES if n > _ROW_COPY_WIDTH and device in _GROUP_DEVICES else _ROW_COPY_WIDTH


# gather's and scatter's rows are strided columns where they run along the
# arrays' inner axis (axis 1 of a row-major matrix): each row copy then
# touches a cache line per element, and one row after another walks the
# whole matrix per row. On the CPU such copies run with the launch nest's
# two levels swapped (blocks of the copied span outermost: each block of
# _ACROSS_ROWS[fn] elements of every row, then the next block), which
# keeps the cache lines of a block's elements in use for all the rows. On
# a 2-core Intel Xeon (AVX-512), a 4096x4096 matrix along axis 1 by a
# random permutation, ms, rows in order / swapped by block of 4 / 8 / 16 /
# 64: gather 204 / 14.3 / 12.7 / 33 / 47 (NumPy's take 42), scatter 320 /
# 20 / 27 / 35 / 66 (one iteration at a time; in the SIMD lanes gather
# took 11.2-13.5 by blocks of 1 to 8).
_ACROSS_ROWS = {"gather": 8, "scatter": 4}


def _across_rows(views, device):
    """Whether gather's or scatter's 2-D (row, span) views copy strided
    columns: on the CPU, where every view steps further along the span than
    from one row to the next."""
    return device == "cpu" and all(abs(v.strides[1]) > abs(v.strides[0]) for v in views if v.shape[0] > 1)


def _row_copies(fn, views, device):
    """gather's or scatter's kernel for its 2-D views."""
    name = fn + "_rows"
    make = getattr(_core, "tile_" + name)
    if _across_rows(views, device):
        width = _ACROSS_ROWS[fn]
        return _kernel(fn, device, (name, "across", width), lambda: make(width), {"nest_order": [1, 0]})
    width = _row_copy_width(views[0].shape[1], device)
    return _kernel(fn, device, (name, width), lambda: make(width))


# conv2d runs one of two ways, with the same bits (lib/conv.h): where the
# filters are at least _CONV_COLUMNS_FILTERS and each output sums at least
# _CONV_COLUMNS_TERMS products, each image's windows are copied into a
# matrix (conv2d_columns, im2col) that the filters multiply through the
# tuned matmul, as do strided or dilated windows and padding that differs
# between the axes (the direct kernel has none of them); otherwise the
# direct kernel runs blocks of output columns
# by output channels, each tap's input row loaded once for the block's
# channels. On a 2-core Intel Xeon (AVX-512), padding 1, ms direct /
# through the matrix product:
#   8x32x64x64 by 64x32x3x3          19.2 / 13.5
#   16x64x28x28 by 128x64x3x3        168 / 17.6
#   4x128x14x14 by 256x128x3x3       37.5 / 3.6
#   8x8x32x32 by 16x8x3x3            1.8 / 0.55
#   1x3x224x224 by 32x3x3x3          1.5 / 2.1   (27 products)
#   8x64x32x32 by 4x64x3x3           1.1 / 3.0   (4 filters)
#   2x4x64x64 by 8x4x5x5             0.23 / 0.49 (8 filters)
# The direct kernel's block, one iteration at a time: 4 channels (fewer
# where there are fewer filters) by 64 columns, 32 where the output row has
# at most 32. On that host (ms), by block (64, 4) / (32, 4) / (32, 8) /
# (16, 16) / (16, 4):
#   1x3x224x224 by 32x3x3x3          1.45 / 2.13 / 6.3 / 5.9 / 12.8
#   8x64x32x32 by 4x64x3x3           1.29 / 1.00 / 5.9 / 10.7 / 5.7
#   16x3x14x14 by 32x3x3x3           0.45 / 0.37 / 1.0 / 0.44 / 1.1
_CONV_COLUMNS_FILTERS = 16
_CONV_COLUMNS_TERMS = 64
# Grouped convolutions: the direct kernel runs once per group, the matrix
# product's way runs one copy of the windows per image and, with fewer
# than _CONV_COLUMNS_FILTERS filters a group, every group's product in one
# einsum launch. Depthwise 3x3, padding 1, ms direct / that way: 8x256x28x28
# (256 groups) 16.4 / 11.9; 8x64x56x56 (64 groups) 4.0 / 7.8; 8x32x28x28 by
# 64x8x3x3 in 4 groups 2.74 / 2.70. Past _CONV_DIRECT_GROUPS groups the
# matrix product's way runs.
_CONV_DIRECT_GROUPS = 64


def _conv_block(ow, f):
    """(output columns, output channels) of the direct conv2d kernel's block
    for output rows of ow columns and f filters."""
    return (32 if ow <= 32 else 64), min(4, _power_of_two_at_least(f))


def _conv_by_columns(f, terms):
    """Whether conv2d with f filters of `terms` products each runs through
    the matrix product."""
    return f >= _CONV_COLUMNS_FILTERS and terms >= _CONV_COLUMNS_TERMS


def _kernel(fn, device, key, make, binding=None, lanes=None):
    """The compiled kernel for `key` on `device`, compiling `make()` once,
    its launch nest bound as `binding` says (tile_compile's nest_split,
    nest_order and nest_fuse; none: the nest's own levels in order), in
    the CPU's SIMD lanes where `lanes` says (None: for the functions in
    _SIMD_LANES)."""
    if lanes is None:
        lanes = key[0] in _SIMD_LANES
    full_key = (key, lanes, "f32", device)
    k = _compiled.get(full_key)
    if k is None:
        try:
            k = _core.tile_compile(make(), device, simd_lanes=lanes, **(binding or {}))
        except RuntimeError as e:
            if "does not compile tile kernels" in str(e):
                raise NotImplementedError(f"tack.tile.{fn}: the arrays are on '{device}': {e}") from None
            raise ValueError(f"tack.tile.{fn}: {e}") from None
        _compiled[full_key] = k
    return k


def _packed_matmul(tiles, device, batched=False):
    """The matmul of a tuned candidate that packs B first
    (_tile_tuning.PackedMatmul), once per configuration and device."""
    full_key = (("matmul",) + tuple(tiles) + (batched,), "f32", device)
    k = _compiled.get(full_key)
    if k is None:
        try:
            k = _tile_tuning.PackedMatmul(tiles, device, batched)
        except RuntimeError as e:
            raise ValueError(f"tack.tile.matmul: {e}") from None
        _compiled[full_key] = k
    return k


def _matmul_kernel(m, k, n, device, batched=False):
    """matmul's kernel for an (m, k) @ (k, n) product on `device`, or with
    `batched` for a batch of them in one launch (3-D views, the batch
    first): the tiles tuned for its shape class (the first call of a class
    tunes them on the CPU), packing B where the winner does."""
    tiles = _tile_tuning.matmul_tiles(m, k, n, device)
    kernel = _matmul_kernels.get((tiles, batched, device))
    if kernel is None:
        if _tile_tuning.packed(tiles):
            kernel = _packed_matmul(tiles, device, batched)
        else:
            kernel = _kernel("matmul", device, ("matmul",) + tiles + (batched,),
                             lambda: _core.tile_matmul(*tiles[:3], batched=batched),
                             _tile_tuning.binding(tiles, batched))
        _matmul_kernels[(tiles, batched, device)] = kernel
    return kernel


_matmul_kernels = {}  # (tiles, batched, device) -> what _matmul_kernel returns


def _multiply(fn, m, k, n, launches, device):
    """Runs matrix products (m, k) @ (k, n): `launches` as _batches makes
    them, a launch of one product with _product_kernel's 2-D kernel, of
    more with its batched one."""
    for va, vb, vc in launches:
        if va.shape[0] == 1:
            _run(fn, _product_kernel(fn, m, k, n, device), [_matrix_at(va, (0,)), _matrix_at(vb, (0,))],
                 [_matrix_at(vc, (0,))])
        else:
            _run(fn, _product_kernel(fn, m, k, n, device, batched=True), [va, vb], [vc])


def _product_kernel(fn, m, k, n, device, batched=False):
    """The kernel of an (m, k) @ (k, n) product of `fn`, or with `batched`
    of a batch of them (3-D views, the batch first): the einsum kernel's
    fold where _by_the_fold says, matmul's kernel otherwise. The same
    steps, the same bits."""
    if _by_the_fold(fn, m, k, n, device):
        return _fold_kernel(device, 3 if batched else 2)
    return _matmul_kernel(m, k, n, device, batched=batched)


def _fold_kernel(device, rank):
    """The einsum kernel of a matrix product (rank 2) or a batch of them
    (rank 3): matmul's fold, one output per parallel iteration."""
    kernel = _fold_kernels.get((device, rank))
    if kernel is None:
        spec = "ij,jk->ik" if rank == 2 else "bij,bjk->bik"
        ranks = [rank] * 3
        kernel = _kernel("einsum", device, ("einsum", spec, tuple(ranks)), lambda: _core.tile_einsum(spec, ranks))
        _fold_kernels[(device, rank)] = kernel
    return kernel


_fold_kernels = {}  # (device, rank) -> what _fold_kernel returns


def _batch_split(extents, strides):
    """How many of the batch axes `extents` (outermost first) are looped
    over: those before the first from which every operand's strides
    (`strides`, one list per operand) merge the rest into one axis."""
    first = 0
    while first < len(extents) - 1 and any(_merged_axis(extents[first:], s[first:]) is None for s in strides):
        first += 1
    return first


def _batches(extents, operands):
    """A batch of matrix products as launches: `operands` are (the 2-D view
    of its matrix at batch index 0, its strides along the batch axes
    `extents`: 0 where it is broadcast or lacks the axis); each launch is a
    3-D view per operand, the batch first, with the batch axes from
    _batch_split's merged into that first axis and one launch per index of
    those before."""
    first = _batch_split(extents, [s for _, s in operands])
    launches = []
    for at in itertools.product(*(range(e) for e in extents[:first])):
        views = []
        for v, s in operands:
            count, stride = _merged_axis(extents[first:], s[first:])
            offset = v.offset + sum(i * step for i, step in zip(at, s))
            views.append(_View(v.array, [count] + v.shape, [stride or 0] + v.strides, offset))
        launches.append(views)
    return launches


def _cache_size():
    """Kernels compiled so far in this process (for tests)."""
    return len(_compiled)


# ---------------------------------------------------------------------------
# Views: (array, shape, element strides, element offset) of an array's storage.


class _View:
    """A view of an array's storage; `whole` where it is the array itself
    (of()), which a launch then takes as it is."""
    __slots__ = ("array", "shape", "strides", "offset", "whole")

    def __init__(self, array, shape, strides, offset, whole=False):
        self.array, self.shape, self.strides, self.offset, self.whole = array, list(shape), list(strides), offset, whole

    @staticmethod
    def of(a):
        return _View(a, a.shape, a._element_strides, 0, True)

    def moved(self, axis, to):
        order = list(range(len(self.shape)))
        order.insert(to % len(order), order.pop(axis))
        return _View(self.array, [self.shape[d] for d in order], [self.strides[d] for d in order], self.offset)

    def broadcast(self, shape):
        """The view with each axis of extent 1 that `shape` widens read again
        and again (stride 0)."""
        if shape == self.shape:
            return self
        strides = [0 if n != m else s for n, m, s in zip(shape, self.shape, self.strides)]
        return _View(self.array, shape, strides, self.offset)

    def with_axis(self, at, extent=1, stride=0):
        shape, strides = list(self.shape), list(self.strides)
        shape.insert(at, extent)
        strides.insert(at, stride)
        return _View(self.array, shape, strides, self.offset)

    def arg(self, writes=False):
        return (self.array, self.shape, self.strides, self.offset, writes)

    def may_overlap_itself(self):
        """Whether two of its elements may share memory (as np.lib.stride_tricks.
        as_strided views do): False where its axes, taken by growing |stride|,
        each step past every element the smaller ones reach. A view this
        test cannot clear is treated as overlapping."""
        return _core._tile_may_overlap_itself(self.shape, self.strides)


def _array(x, fn, what, dtype=f32):
    try:
        a = x if isinstance(x, Array) else asarray(x)
    except TypeError as e:
        raise TypeError(f"tack.tile.{fn}: {what}: {e}") from None
    # (Scalar dtypes are single objects; an array of vectors has an element
    # type, which no scalar dtype is.)
    if a.dtype is not dtype:
        raise TypeError(f"tack.tile.{fn}: {what} is {a!r}; the reference kernel takes {dtype.name} (convert explicitly)")
    return a


def _index_values(x):
    """Indices as NumPy holds them: a tack.Array's values (read back from
    its device), anything else as np.asarray reads it."""
    return np.asarray(x.numpy() if isinstance(x, Array) else x)


def _indices(x, fn, device):
    """Indices as a 1-D i64 array: an i64 tack.Array as it is, other
    integers converted (a copy on `device`, the data's)."""
    if isinstance(x, Array) and x.dtype == i64:
        a = x
    else:
        n = _index_values(x)
        if n.dtype.kind not in "iu":
            raise TypeError(f"tack.tile.{fn}: indices must be integers, not {n.dtype}")
        a = array(np.ascontiguousarray(n, dtype=np.int64), device=device)
    if a.ndim != 1:
        raise ValueError(f"tack.tile.{fn}: indices must be 1-D, not of shape {a.shape}")
    return a


def _device(fn, *arrays):
    device = arrays[0].device
    for a in arrays[1:]:
        if a.device != device:
            raise ValueError(f"tack.tile.{fn}: the arrays are on different devices {sorted({a.device for a in arrays})}")
    return device


def _integer(value, fn, what):
    """`value` as an int: Python and NumPy integers (and bools) are taken,
    anything else (2.5, "1", 1.0) raises TypeError rather than being
    truncated or parsed."""
    try:
        return _operator.index(value)
    except TypeError:
        raise TypeError(f"tack.tile.{fn}: {what} must be an integer, not {value!r} ({type(value).__name__})") from None


def _axis(axis, ndim, fn):
    axis = _integer(axis, fn, "axis")
    if not -ndim <= axis < ndim:
        raise ValueError(f"tack.tile.{fn}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def _one_axis_for_none(x, axis):
    """(x, axis), where axis None means the tack array x's elements in
    row-major order as one dimension, as NumPy's sort, argsort and cumsum
    read it (a copy where x is not contiguous)."""
    if axis is not None:
        return x, axis
    if not x.is_contiguous:
        x = x.copy()
    return x.reshape(-1), 0


def _output(out, shape, device, fn, what="out", dtype=f32):
    """`out` checked against `shape`, or a new array."""
    if out is None:
        return empty(tuple(shape), dtype, device=device)
    if not isinstance(out, Array):
        raise TypeError(f"tack.tile.{fn}: {what} must be a tack.Array, not {type(out).__name__}")
    if out.dtype is not dtype:
        raise TypeError(f"tack.tile.{fn}: {what} is {out!r}; it must hold {dtype.name}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"tack.tile.{fn}: {what} has shape {tuple(out.shape)}, the result has {tuple(shape)}")
    if out.device != device:
        raise ValueError(f"tack.tile.{fn}: {what} is on '{out.device}', the inputs on '{device}'")
    return out


def _run(fn, kernel, inputs, outputs):
    if type(kernel) is _core.CompiledTileKernel:
        # A whole view as its array, which the launch takes as it is (and
        # refuses where it is read-only and the kernel stores to it).
        kernel.launch([v.array if v.whole else v.arg() for v in inputs] +
                      [v.array if v.whole else v.arg(writes=True) for v in outputs])
    else:
        kernel.launch([v.arg() for v in inputs] + [v.arg(writes=True) for v in outputs])


def _staged(outs, ins):
    """The arrays to compute `outs` into: each out itself, or a fresh buffer
    where it overlaps an input, another out or itself (then _unstage copies,
    as NumPy's copyto does: a view whose elements share memory gets them in
    copyto's order, not in the kernel's parallel writes' order, which is
    none)."""
    return [empty(o.shape, o.dtype, device=o.device) if clash else o for o, clash in zip(outs, _clashes(outs, ins))]


def _clashes(outs, ins):
    """For each of `outs`, whether it overlaps an input, another out or
    itself (_staged computes it into a fresh buffer)."""
    return _core._tile_clashes(outs, ins)


def _unstage(outs, targets):
    for o, t in zip(outs, targets):
        if t is not o:
            copyto(o, t)


def _rows(views, axis, fn):
    """Runs of 2-D (rows, axis) views, one per launch: `axis` moved last in
    every view, the other axes merged into one where all views' strides
    allow and looped over otherwise. Yields lists of 2-D views."""
    lead = len(views[0].shape) - 1
    moved = views if axis == lead else [v.moved(axis, -1) for v in views]
    if lead == 0:
        yield [_View(v.array, [1, v.shape[0]], [0, v.strides[0]], v.offset) for v in moved]
        return
    if lead == 1:  # one run: the views themselves
        yield moved
        return

    # Merge leading axes from the innermost outwards while every view allows
    # (_merged_axis: axes of one element merge with any, and the merged
    # stride is that of the innermost axis of more than one).
    first = lead - 1
    while first > 0 and all(_merged_axis(v.shape[first - 1:lead], v.strides[first - 1:lead]) for v in moved):
        first -= 1
    merged = [_merged_axis(v.shape[first:lead], v.strides[first:lead]) for v in moved]
    for index in itertools.product(*(range(n) for n in moved[0].shape[:first])):
        out = []
        for v, (extent, stride) in zip(moved, merged):
            offset = v.offset + sum(i * s for i, s in zip(index, v.strides))
            out.append(_View(v.array, [extent, v.shape[-1]], [stride or 0, v.strides[-1]], offset))
        yield out


# ---------------------------------------------------------------------------
# Linear algebra


def matmul(a, b, out=None):
    """a @ b for f32 matrices (M, K) @ (K, N) -> (M, N); a 1-D `a` is a row
    (K,) and a 1-D `b` a column (K,), dropped from the result as NumPy
    does. Leading axes are batches, broadcast as np.matmul broadcasts them:
    (..., M, K) @ (..., K, N) -> (..., M, N), one product per batch index.
    Each element takes the products over k
    in increasing order in f32, each step a fused multiply-add rounded once
    (acc = fma(a[i, k], b[k, j], acc) from acc = 0, k = 0 .. K-1: the
    padding of ragged tiles adds -0, which changes no accumulator):
    |out - exact| <= K*u/(1 - K*u) * sum_k |a||b|, u = 2**-24.

    On the CPU the tile sizes are autotuned on the first call of each shape
    class (extents rounded up to powers of two): a dozen candidates are
    compiled, checked bit for bit against the tile interpreter and timed,
    and the fastest correct one is kept in this process and in Tack's cache
    folder; tuned shapes first copy B into a packed layout (one pass over
    B), from which the SIMD lanes load its tiles as vectors.
    TACK_TILE_AUTOTUNE=0 keeps the fixed 16x16x16 tiles, unpacked. A
    product whose class is not tuned (below 128**3 multiply-adds, or tuning
    off) with fewer than 2**24 multiply-adds runs in the einsum kernel
    instead, one output per SIMD lane, faster there than the fixed tiles. A
    batch whose axes' strides merge runs in one launch. The result is the
    same bits every way (every kernel takes the same steps in the same
    order)."""
    fn = "matmul"
    a, b = _array(a, fn, "a"), _array(b, fn, "b")
    device = _device(fn, a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"tack.tile.matmul: takes operands of 1 dimension or more, not {a.ndim}-D and {b.ndim}-D")
    va, vb = _View.of(a), _View.of(b)
    if a.ndim == 1:
        va = va.with_axis(0)
    if b.ndim == 1:
        vb = vb.with_axis(1)
    (m, k), (k2, n) = va.shape[-2:], vb.shape[-2:]
    if k != k2:
        raise ValueError(f"tack.tile.matmul: shapes {a.shape} and {b.shape} do not align ({k} != {k2})")
    try:
        batch = () if a.ndim <= 2 and b.ndim <= 2 else _broadcast_shapes(va.shape[:-2], vb.shape[:-2])
    except ValueError:
        raise ValueError(f"tack.tile.matmul: the batch axes of {a.shape} and {b.shape} do not broadcast") from None
    shape = list(batch) + ([m] if a.ndim >= 2 else []) + ([n] if b.ndim >= 2 else [])
    out = _output(out, shape, device, fn)
    if 0 in out.shape:
        return out
    (target,) = _staged([out], [a, b])
    vc = _View.of(target)
    if a.ndim == 1:
        vc = vc.with_axis(len(batch))
    if b.ndim == 1:
        vc = vc.with_axis(len(vc.shape))
    if not batch:
        _run(fn, _product_kernel(fn, m, k, n, device), [va, vb], [vc])
        _unstage([out], [target])
        return out
    extents = list(batch)
    strides = [_batch_strides(v, len(extents)) for v in (va, vb, vc)]
    rows = [_merged_axis(extents + [m], s + [v.strides[-2]]) for v, s in ((va, strides[0]), (vc, strides[2]))]
    if not any(strides[1]) and None not in rows:
        # One B for every product and rows that merge: one product of all
        # the rows.
        (rows_a, step_a), (_, step_c) = rows
        wide = [_View(v.array, [1, rows_a, v.shape[-1]], [0, step or 0, v.strides[-1]], v.offset)
                for v, step in ((va, step_a), (vc, step_c))]
        _multiply(fn, rows_a, k, n, [(wide[0], _matrix_at(vb, ()).with_axis(0), wide[1])], device)
    else:
        _multiply(fn, m, k, n, _batches(extents, [(_matrix_at(v, ()), s) for v, s in zip((va, vb, vc), strides)]),
                  device)
    _unstage([out], [target])
    return out


def _broadcast_shapes(x, y):
    """np.broadcast_shapes of two shapes (the same tuple, the same
    ValueError where they do not broadcast), at a tenth of its cost."""
    lead = len(x) - len(y)
    x, y = (1,) * -lead + tuple(x), (1,) * lead + tuple(y)
    if any(m != n and m != 1 and n != 1 for m, n in zip(x, y)):
        raise ValueError(f"shapes {x} and {y} do not broadcast")
    return tuple(n if m == 1 else m for m, n in zip(x, y))


def _batch_strides(v, count):
    """v's strides along the last `count` batch axes of a broadcast (v's
    batch axes aligned to its end, before its last two): 0 where v lacks
    the axis or has extent 1 there."""
    lead = len(v.shape) - 2
    own = [0 if extent == 1 else stride for extent, stride in zip(v.shape[:lead], v.strides[:lead])]
    return [0] * (count - lead) + own


def _matrix_at(v, index):
    """The 2-D view of v's last two axes at the batch `index`, v's batch
    axes aligned to its end and broadcast where their extent is 1."""
    lead = len(v.shape) - 2
    if not lead:
        return v
    at = index[len(index) - lead:]
    offset = v.offset + sum(i * s for i, s, extent in zip(at, v.strides, v.shape) if extent != 1)
    return _View(v.array, v.shape[-2:], v.strides[-2:], offset)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_ellipsis(spec, ranks):
    """spec with each "..." replaced by letters of its own, as NumPy reads an
    ellipsis: the axes of an operand that its letters do not name, aligned
    from the right across the operands (where they broadcast as any label
    does, einsum below); an implicit output is the ellipsis's axes, then
    the labels that appear once, sorted; an explicit output without "..."
    is refused where an ellipsis stands for any axis."""
    if "." not in spec:
        return spec
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    for t in terms + ([output] if arrow else []):
        if t.replace("...", "", 1).count("."):
            raise ValueError(f"tack.tile.einsum: '{spec}' has a '.' that is not one ellipsis ('...') of a term")
    covered = []
    for t, rank in zip(terms, ranks):
        n = rank - len(t.replace("...", "")) if "..." in t else 0
        if n < 0:
            raise ValueError(f"tack.tile.einsum: '{t}' names more axes than an operand of rank {rank} has")
        covered.append(n)
    fresh = [c for c in _LETTERS if c not in spec][: max(covered)]
    if len(fresh) < max(covered):
        raise ValueError(f"tack.tile.einsum: '{spec}' leaves too few letters for its ellipsis")
    terms = [t.replace("...", "".join(fresh[len(fresh) - n:])) for t, n in zip(terms, covered)]
    if not arrow:
        output = "".join(fresh) + "".join(c for c in _labels_once("".join(terms)) if c not in fresh)
    elif "..." in output:
        output = output.replace("...", "".join(fresh))
    elif fresh:
        raise ValueError(f"tack.tile.einsum: '{spec}': the output has no '...' to keep the axes an ellipsis stands for")
    return ",".join(terms) + "->" + output


def _einsum_spec(spec, ranks):
    """(input label strings, output labels) of a spec for operands of these
    ranks, checked; parsed once per spec and ranks."""
    if not isinstance(spec, str):
        raise TypeError(f"tack.tile.einsum: the spec must be a string, not {type(spec).__name__}")
    inputs, output = _einsum_parsed(spec, tuple(ranks))
    return list(inputs), output


def _labels_once(labels):
    """The labels that appear once, sorted: an implicit output's."""
    return "".join(sorted(c for c in set(labels) if labels.count(c) == 1))


@_functools.lru_cache(maxsize=256)
def _einsum_parsed(spec, ranks):
    spec = spec.replace(" ", "")
    named = spec.partition("->")[0].count(",") + 1
    if named != len(ranks):
        raise ValueError(f"tack.tile.einsum: '{spec}' names {named} operands, {len(ranks)} were given")
    spec = _einsum_ellipsis(spec, ranks)
    if "->" in spec:
        inputs, output = spec.split("->")
    else:
        inputs = spec
        output = _labels_once(inputs.replace(",", ""))
    inputs = inputs.split(",")
    for labels, rank in zip(inputs, ranks):
        if len(labels) != rank:
            raise ValueError(f"tack.tile.einsum: '{labels}' names {len(labels)} axes of an operand of rank {rank}")
        if labels and not labels.isalpha():
            raise ValueError(f"tack.tile.einsum: '{labels}' has a label that is not a letter")
    if len(set(output)) != len(output):
        raise ValueError(f"tack.tile.einsum: the output '{output}' repeats a label")
    for c in output:
        if not any(c in labels for labels in inputs):
            raise ValueError(f"tack.tile.einsum: output label '{c}' names no operand axis")
    return tuple(inputs), output


def einsum(spec, *operands, out=None):
    """Einstein summation over one or two f32 operands, e.g. "ij,jk->ik",
    "bij,bjk->bik", "ij->ji", "ii->i", "ij->" or implicit "ij,jk" (the
    output: labels that appear once, sorted). Operands have rank 1 to 4 (a
    0-d operand alone in "->"), the output rank 0 to 4, counting the axes
    an ellipsis stands for. As in NumPy, "..." stands for an operand's axes
    that its letters do not name ("...ij,jk->...ik"), aligned from the
    right across the operands (an implicit output puts them first), and an
    axis of extent 1 broadcasts against its label's extent in the other
    operand.

    Two operands with contracted labels: each output is matmul's fold,
    acc = fma(a[...], b[...], acc) in f32 from acc = 0 over the contracted
    labels' points in row-major order (the labels in the order they first
    appear in the spec); a scalar result of two rank-4 operands is the sum
    of such folds per index of the first label. One operand: each output is
    one sum over the contracted labels in an order the reference kernel's
    unordered_tree policy permits. Either way |out - exact| <= K*u/(1 -
    K*u) * sum |products|, K the number of contracted terms.

    Where the two operands are a batch of matrix products (every label of
    one operand in the other or in the output; the contracted labels one
    axis in both operands' memory, as in "bsd,de->bse" or "ikl,kln->in";
    each operand's own labels merged where their strides allow, looped
    over otherwise, like the labels of both) whose shape class matmul tunes
    (on the CPU; elsewhere products of at least 2**15 multiply-adds) or of
    at least 2**24 multiply-adds each, in at most 1024 launches, the
    products run through matmul, a batch of them in one launch where the
    batch labels' strides merge: the same steps, the same bits."""
    fn = "einsum"
    if not 1 <= len(operands) <= 2:
        raise ValueError(f"tack.tile.einsum: takes one or two operands, not {len(operands)}")
    arrays = [_array(x, fn, f"operand {i}") for i, x in enumerate(operands)]
    device = _device(fn, *arrays)
    inputs, output = _einsum_spec(spec, [a.ndim for a in arrays])
    # A label's extent is its axes' (equal within an operand); an axis of
    # extent 1 broadcasts to the other operand's, as in NumPy.
    extent = {}
    for labels, a in zip(inputs, arrays):
        own = {}
        for c, n in zip(labels, a.shape):
            if own.setdefault(c, n) != n:
                raise ValueError(f"tack.tile.einsum: label '{c}' has extents {own[c]} and {n} in one operand")
        for c, n in own.items():
            if extent.get(c, 1) == 1:
                extent[c] = n
            elif n not in (1, extent[c]):
                raise ValueError(f"tack.tile.einsum: label '{c}' has extents {extent[c]} and {n}")
    # A scalar result runs as a one-element vector: a unit label on an
    # operand of rank below 4 and on the output. Where every operand has
    # rank 4, first the sums per index of operand 0's first label, then
    # their sum: a regrouping of the one product sum that unordered_tree
    # permits.
    room = [i for i, a in enumerate(arrays) if a.ndim < 4]
    if not output and not room:
        _output(out, [], device, fn)
        partial = einsum(",".join(inputs) + "->" + inputs[0][0], *arrays)
        return einsum(inputs[0][0] + "->", partial, out=out)
    out = _output(out, [extent[c] for c in output], device, fn)
    (target,) = _staged([out], arrays)
    views = [_View.of(a).broadcast([extent[c] for c in labels]) for labels, a in zip(inputs, arrays)]
    vc = _View.of(target)
    if not output:
        unit = next(c for c in _LETTERS if c not in "".join(inputs))
        inputs[room[0]] += unit
        output = unit
        extent[unit] = 1
        views[room[0]] = views[room[0]].with_axis(len(views[room[0]].shape))
        vc = vc.with_axis(0)
    ranks = [len(v.shape) for v in views] + [len(vc.shape)]
    if any(not 1 <= r <= 4 for r in ranks):
        raise ValueError(f"tack.tile.einsum: operand and output ranks must be 1 to 4, here {ranks}")
    products = _einsum_products(inputs, output, views, vc, extent, device)
    if products is not None:
        (m, k, n), launches = products
        _multiply(fn, m, k, n, launches, device)
    else:
        text = ",".join(inputs) + "->" + output
        kernel = _kernel(fn, device, ("einsum", text, tuple(ranks)), lambda: _core.tile_einsum(text, ranks))
        _run(fn, kernel, views, [vc])
    _unstage([out], [target])
    return out


# einsum runs through matmul where its two operands' labels are a batch of
# matrix products (_einsum_products) in at most _EINSUM_PRODUCT_LAUNCHES
# launches. On a 2-core Intel Xeon (AVX-512), ms, the einsum kernel /
# through matmul (NumPy's einsum, optimize=True):
#   ij,jk->ik 1024x1024 by 1024x1024          115 / 12.3 (8.4)
#   bij,bjk->bik 16x256x256 by 16x256x256     10.2 / 5.0 (3.4)
#   ij,kj->ik 1024x512 by 1024x512            74 / 6.3 (4.2)
#   bhqd,bhkd->bhqk 4x8x256x64 by 4x8x256x64  17.3 / 4.2 (2.4)
#   bsd,de->bse 32x128x512 by 512x512         60.4 / 10.7 (8.7)
# (through matmul one launch per product; a batch in one launch of the
# batched kernel: bij 2.99, bhqd 2.38).
_EINSUM_PRODUCT_LAUNCHES = 1024

# A product takes the einsum kernel's fold (the same steps as matmul's)
# instead of matmul's kernel where its shape class has no tuned tiles and it
# has fewer multiply-adds than _FOLD_WORK says for the device (matmul's,
# einsum's and conv2d's products alike; other devices: _FOLD_WORK_ELSEWHERE,
# where matmul's and conv2d's always take matmul's kernel). Below that,
# matmul's fixed 16x16x16 tiles fill few of the CPU's SIMD lanes and the
# einsum kernel, its lanes consecutive outputs of a row, is faster. On the 2-core Intel Xeon (AVX-512), ms, the einsum
# kernel / matmul's (tuned tiles marked *): bij,bjk->bik 16x64x64x64 0.15 /
# 0.43, 16x128x128x64 0.53 / 1.46, 16x96x96x96 0.43 / 0.34*,
# 16x128x128x128 1.08 / 0.55*, 4x512x512x32 1.33 / 2.94 (0.61*),
# 4x256x256x256 2.50 / 1.20 (0.79*); ij,jk->ik 64^3 0.042 / 0.070,
# 64x256x64 0.075 / 0.183, 16x1024x16 0.048 / 0.068.
_FOLD_WORK = {"cpu": 1 << 24}
_FOLD_WORK_ELSEWHERE = {"einsum": 1 << 15}  # not measured on GPUs; matmul's and conv2d's: none


def _by_the_fold(fn, m, k, n, device):
    """Whether an (m, k) @ (k, n) product of `fn` (matmul, einsum or conv2d)
    runs in the einsum kernel rather than matmul's (above)."""
    least = _FOLD_WORK.get(device, _FOLD_WORK_ELSEWHERE.get(fn, 0))
    return m * k * n < least and _tile_tuning.matmul_tiles(m, k, n, device) == _tile_tuning.DEFAULT


def _einsum_products(inputs, output, views, vc, extent, device):
    """((m, k, n), the launches as _batches makes them) where einsum's two
    operands are a batch of matrix products: no operand repeats a label,
    every label of one operand is either in the other or in the output,
    and the products are large enough to pay (see above). The contracted
    labels are k, merged into one axis (row-major in the order they first
    appear, the einsum kernel's fold order) where both operands' strides
    allow, and None otherwise; the first operand's own labels are the rows
    m and the second's the columns n, merged in the output's order where
    the strides allow, and otherwise all but the innermost made batch
    labels, like the labels in both operands and the output (the batch:
    one launch of matmul's batched kernel, or one per index of the batch
    labels whose strides do not merge).
    Each output is then matmul's fold over k, the einsum kernel's steps:
    the same bits. None otherwise."""
    if len(inputs) != 2 or any(len(set(labels)) != len(labels) for labels in inputs):
        return None
    first, second = inputs
    if any(c not in output for c in first + second if (c in first) != (c in second)):
        return None  # a label summed within one operand
    va, vb = views
    contracted = [c for c in first if c in second and c not in output]
    looped = [c for c in output if c in first and c in second]
    rows = [c for c in output if c in first and c not in second]
    cols = [c for c in output if c in second and c not in first]
    if not contracted or _by_the_fold("einsum", *(_math.prod(extent[c] for c in labels)
                                                  for labels in (rows, contracted, cols)), device):
        return None  # (products of rows looped over would be smaller still)
    k_axis = _merged(contracted, extent, [(va, first), (vb, second)])
    if k_axis is None:
        return None
    m_axis = _merged(rows, extent, [(va, first), (vc, output)])
    if m_axis is None:
        looped, rows = looped + rows[:-1], rows[-1:]
        m_axis = _merged(rows, extent, [(va, first), (vc, output)])
    n_axis = _merged(cols, extent, [(vb, second), (vc, output)])
    if n_axis is None:
        looped, cols = looped + cols[:-1], cols[-1:]
        n_axis = _merged(cols, extent, [(vb, second), (vc, output)])
    (m, (ma, mc)), (k, (ka, kb)), (n, (nb, nc)) = m_axis, k_axis, n_axis
    if _by_the_fold("einsum", m, k, n, device):
        return None
    extents = [extent[c] for c in looped]
    operands = [(_View(view.array, shape, strides, view.offset),
                 [view.strides[labels.index(c)] if c in labels else 0 for c in looped])
                for view, labels, shape, strides in ((va, first, [m, k], [ma, ka]), (vb, second, [k, n], [kb, nb]),
                                                     (vc, output, [m, n], [mc, nc]))]
    launches = 1
    for count in extents[:_batch_split(extents, [s for _, s in operands])]:
        launches *= count
    if launches > _EINSUM_PRODUCT_LAUNCHES:
        return None
    return (m, k, n), _batches(extents, operands)


def _merged(labels, extent, views):
    """(extent, [stride in each view]) of `labels` merged into one axis,
    row-major in their order, where every (view, its labels) allows; None
    where a view's strides do not. No labels: one element, stride 0."""
    extents, strides = [extent[c] for c in labels], []
    for view, names in views:
        axis = _merged_axis(extents, [view.strides[names.index(c)] for c in labels])
        if axis is None:
            return None
        strides.append(0 if axis[1] is None else axis[1])
    total = 1
    for n in extents:
        total *= n
    return total, strides


def conv2d(x, w, padding=0, stride=1, dilation=1, groups=1, out=None):
    """2-D convolution (cross-correlation, as in deep learning libraries) of
    f32 x (N, C, H, W) with filters w (F, C, KH, KW): out (N, F, OH, OW),
    out[n, f, y, x] = sum over c, ky, kx of
    x[n, c, y*sh + ky*dh - ph, x*sw + kx*dw - pw] * w[f, c, ky, kx], zeros
    outside x, with OH = (H + 2*ph - dh*(KH - 1) - 1) // sh + 1 (OW alike).
    `padding` (ph, pw), `stride` (sh, sw) and `dilation` (dh, dw) are each an
    integer for both axes or a pair (rows, columns), as in PyTorch's
    conv2d. With `groups` g, the channels and the filters are g groups
    (w is (F, C/g, KH, KW)): filter f reads the channels of its group,
    f // (F/g). Each output adds its C/g*KH*KW products in the order (c, ky, kx),
    each step a fused multiply-add rounded once to f32 (acc =
    fma(w[f, c, ky, kx], x[...], acc) from acc = 0), as matmul does:
    |out - exact| <= K*u/(1 - K*u) * sum |x||w|, K = C/g*KH*KW, u = 2**-24.

    With 16 filters or more per group and K >= 64, or a stride or dilation
    other than 1, or padding that differs between the axes, each image's
    windows are copied into a C*KH*KW x (OH*OW) matrix whose rows of each
    group the group's filters, F/g x K, multiply through matmul (autotuned
    on the first call of a shape class); otherwise a direct kernel runs,
    once per group. Both take the same steps: the same bits."""
    fn = "conv2d"
    x, w = _array(x, fn, "x"), _array(w, fn, "w")
    device = _device(fn, x, w)
    padding = _pair(padding, fn, "padding", 0)
    stride, dilation = _pair(stride, fn, "stride", 1), _pair(dilation, fn, "dilation", 1)
    if x.ndim != 4 or w.ndim != 4:
        raise ValueError(f"tack.tile.conv2d: takes x (N, C, H, W) and w (F, C, KH, KW), not {x.shape} and {w.shape}")
    groups = _integer(groups, fn, "groups")
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    if groups < 1 or c % groups or f % groups:
        raise ValueError(f"tack.tile.conv2d: groups={groups} must be positive and divide the {c} channels and the "
                         f"{f} filters")
    if cg * groups != c:
        per_group = f" per group of {groups}" if groups > 1 else ""
        raise ValueError(f"tack.tile.conv2d: x has {c} channels, w {cg}{per_group}")
    if kh == 0 or kw == 0:
        raise ValueError(f"tack.tile.conv2d: the filters are {kh}x{kw}: a window needs at least one tap")
    span_h, span_w = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    if h + 2 * padding[0] < span_h or wd + 2 * padding[1] < span_w:
        raise ValueError(f"tack.tile.conv2d: a {kh}x{kw} filter (dilation {dilation[0]}x{dilation[1]}) is larger than "
                         f"the padded {h}x{wd} input")
    oh = (h + 2 * padding[0] - span_h) // stride[0] + 1
    ow = (wd + 2 * padding[1] - span_w) // stride[1] + 1
    out = _output(out, [n, f, oh, ow], device, fn)
    if 0 in out.shape:
        return out
    (target,) = _staged([out], [x, w])
    fg = f // groups
    uniform = padding[0] == padding[1] and stride == (1, 1) and dilation == (1, 1)
    if not uniform or groups > _CONV_DIRECT_GROUPS or _conv_by_columns(fg, cg * kh * kw):
        filters = _flattened(_View.of(w), 1) or _flattened(_View.of(_copy(w)), 1)
        images = _flattened(_View.of(target), 2)
        if images is None:
            target = empty(out.shape, f32, device=device)
            images = _flattened(_View.of(target), 2)
        windows = {"kernel": (kh, kw), "padding": padding, "stride": stride, "dilation": dilation}
        _conv2d_by_columns(_View.of(x), filters, images, windows, groups, (oh, ow), device)
    else:
        block = _conv_block(ow, fg)
        p = padding[0]
        kernel = _kernel(fn, device, ("conv2d", p) + block, lambda: _core.tile_conv2d(p, *block))
        vx, vw, vy = _View.of(x), _View.of(w), _View.of(target)
        for g in range(groups):
            _run(fn, kernel, [_group(vx, 1, g, cg), _group(vw, 0, g, fg)], [_group(vy, 1, g, fg)])
    _unstage([out], [target])
    return out


def _group(v, axis, g, size):
    """Group g of `size` along v's `axis`: [g * size, (g + 1) * size)."""
    shape = list(v.shape)
    shape[axis] = size
    return _View(v.array, shape, v.strides, v.offset + g * size * v.strides[axis])


def _pair(value, fn, what, least):
    """An integer or a pair of integers (rows, columns) as a pair, each at
    least `least`."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"tack.tile.{fn}: {what} must be an integer or a pair of integers, not {value!r}")
        pair = (_integer(value[0], fn, what), _integer(value[1], fn, what))
    else:
        pair = (_integer(value, fn, what),) * 2
    if min(pair) < least:
        raise ValueError(f"tack.tile.{fn}: {what} must be >= {least}, not {value!r}")
    return pair


def _copy(a):
    """A contiguous copy of `a` on its device."""
    c = empty(a.shape, a.dtype, device=a.device)
    copyto(c, a)
    return c


def _merged_axis(extents, strides):
    """(extent, stride) of axes merged into one, row-major in their order,
    or None where their strides do not allow it; no axis of more than one
    element: stride None."""
    base, inner = None, 1
    for extent, stride in zip(reversed(extents), reversed(strides)):
        if extent == 1:
            continue
        if base is None:
            base = stride
        elif stride != base * inner:
            return None
        inner *= extent
    total = 1
    for extent in extents:
        total *= extent
    return total, base


def _flattened(v, first):
    """v with its axes from `first` on merged into one (row-major), or None
    where their strides do not allow it."""
    axis = _merged_axis(v.shape[first:], v.strides[first:])
    if axis is None:
        return None
    extent, stride = axis
    return _View(v.array, v.shape[:first] + [extent], v.strides[:first] + [1 if stride is None else stride], v.offset)


def _conv2d_by_columns(vx, filters, images, windows, groups, extents, device):
    """conv2d as matrix products per image: the image's windows copied into
    a (C*KH*KW) x (OH*OW) matrix (conv2d_columns; `windows`: its kernel,
    padding, stride and dilation), then each group's filters, F/g x
    (C/g*KH*KW), times the group's rows of it into the image's outputs of
    the group, F/g x (OH*OW): the groups a batch of products (_multiply)."""
    fn = "conv2d"
    oh, ow = extents
    (kh, kw), n, c = windows["kernel"], vx.shape[0], vx.shape[1]
    k, p, fg = c * kh * kw, oh * ow, filters.shape[0] // groups
    kg = k // groups
    width = min(64, max(16, _power_of_two_at_least(ow)))
    key = ("conv2d_columns", width) + tuple(windows.values())
    columns = _kernel(fn, device, key, lambda: _core.tile_conv2d_columns(width=width, **windows))
    cols = empty((1, k, oh, ow), f32, device=device)
    weights, matrices = _by_group(filters, groups), _View(cols, [groups, kg, p], [kg * p, p, 1], 0)
    if groups > 1 and fg < _CONV_COLUMNS_FILTERS:
        # Few filters a group (depthwise): every group's product in one
        # launch of the einsum kernel, whose fold takes matmul's steps.
        product = _fold_kernel(device, 3)

        def multiply(out):
            _run(fn, product, [weights, matrices], [_by_group(out, groups)])
    else:
        # The groups a batch of products: one launch.
        def multiply(out):
            _multiply(fn, fg, kg, p, [(weights, matrices, _by_group(out, groups))], device)
    for i in range(n):
        _run(fn, columns, [_group(vx, 0, i, 1)], [_View.of(cols)])
        multiply(_matrix_at(images, (i,)))


def _by_group(v, groups):
    """A 2-D view (rows, columns) as (groups, rows / groups, columns)."""
    size = v.shape[0] // groups
    return _View(v.array, [groups, size, v.shape[1]], [size * v.strides[0]] + v.strides, v.offset)


# ---------------------------------------------------------------------------
# Row kernels: one axis, the others looped or merged.


def _along(fn, kernel, x, inputs_1d, outs, axis):
    """Launches a row kernel over `axis` of x (and outs, shaped like x along
    every other axis); `inputs_1d` are per-column vectors (weights)."""
    if any(0 in o.shape for o in outs):
        return
    targets = _staged(outs, [x] + inputs_1d)
    vecs = [_View.of(g) for g in inputs_1d]
    for run in _rows([_View.of(x)] + [_View.of(t) for t in targets], axis, fn):
        _run(fn, kernel, [run[0]] + vecs, run[1:])
    _unstage(outs, targets)


def softmax(x, axis=-1, out=None):
    """exp(x - max) / sum(exp(x - max)) along `axis` of an f32 array. The
    maximum is exact; each exp is the C library's expf; the sum is in f32 in
    an order the reference kernel's policy permits; then one division."""
    fn = "softmax"
    x = _array(x, fn, "x")
    device = _device(fn, x)
    if x.ndim == 0:
        raise ValueError("tack.tile.softmax: takes an array of at least one dimension")
    axis = _axis(axis, x.ndim, fn)
    out = _output(out, x.shape, device, fn)
    width, lanes = _row_block(x.shape[axis], device, _SOFTMAX_LANES)
    _row_form(fn, x, axis, device, lanes, lambda in_lanes: _along(
        fn, _kernel(fn, device, ("softmax", width), lambda: _core.tile_softmax(width), lanes=in_lanes),
        x, [], [out], axis), [x], out)
    return out


def _norm_vector(v, n, fn, what, device):
    v = _array(v, fn, what)
    if v.shape != (n,):
        raise ValueError(f"tack.tile.{fn}: {what} has shape {v.shape}, the normalized axis {n}")
    if v.device != device:
        raise ValueError(f"tack.tile.{fn}: {what} is on '{v.device}', x on '{device}'")
    return v


def _constant_vector(n, value, device):
    """An f32 vector of n `value`s on `device` (a norm's weight or bias left
    out), kept for the next call up to _CONSTANT_VECTOR_KEPT elements: the
    kernels only read it, and nothing else sees it. (Making two of them
    took half of a small layer_norm's call.)"""
    v = _constant_vectors.get((n, value, device))
    if v is None:
        v = full((n,), value, f32, device=device)
        if n <= _CONSTANT_VECTOR_KEPT:
            if len(_constant_vectors) >= _CONSTANT_VECTORS:
                _constant_vectors.clear()
            _constant_vectors[(n, value, device)] = v
    return v


_constant_vectors = {}  # (n, value, device) -> what _constant_vector returns
_CONSTANT_VECTORS = 64  # forgotten all at once when it holds this many
_CONSTANT_VECTOR_KEPT = 1 << 16


def layer_norm(x, weight=None, bias=None, eps=1e-5, axis=-1, out=None):
    """(x - mean) / sqrt(var + eps) * weight + bias along one `axis` of an
    f32 array (the biased variance, in two passes; eps rounded to f32).
    weight and bias are 1-D of the axis' length; None means ones and zeros.
    One axis only (torch's normalized_shape over several axes: reshape)."""
    fn = "layer_norm"
    x = _array(x, fn, "x")
    device = _device(fn, x)
    if x.ndim == 0:
        raise ValueError("tack.tile.layer_norm: takes an array of at least one dimension")
    axis = _axis(axis, x.ndim, fn)
    n = x.shape[axis]
    g = _constant_vector(n, 1.0, device) if weight is None else _norm_vector(weight, n, fn, "weight", device)
    b = _constant_vector(n, 0.0, device) if bias is None else _norm_vector(bias, n, fn, "bias", device)
    out = _output(out, x.shape, device, fn)
    eps = float(np.float32(eps))
    width, lanes = _row_block(n, device)
    _row_form(fn, x, axis, device, lanes, lambda in_lanes: _along(
        fn, _kernel(fn, device, ("layer_norm", eps, width), lambda: _core.tile_layer_norm(eps, width), lanes=in_lanes),
        x, [g, b], [out], axis), [x, g, b], out)
    return out


def rms_norm(x, weight=None, eps=1e-5, axis=-1, out=None):
    """x / sqrt(mean(x**2) + eps) * weight along one `axis` of an f32 array
    (eps rounded to f32); weight is 1-D of the axis' length, None for ones."""
    fn = "rms_norm"
    x = _array(x, fn, "x")
    device = _device(fn, x)
    if x.ndim == 0:
        raise ValueError("tack.tile.rms_norm: takes an array of at least one dimension")
    axis = _axis(axis, x.ndim, fn)
    n = x.shape[axis]
    g = _constant_vector(n, 1.0, device) if weight is None else _norm_vector(weight, n, fn, "weight", device)
    out = _output(out, x.shape, device, fn)
    eps = float(np.float32(eps))
    width, lanes = _row_block(n, device, _RMS_NORM_LANES)
    _row_form(fn, x, axis, device, lanes, lambda in_lanes: _along(
        fn, _kernel(fn, device, ("rms_norm", eps, width), lambda: _core.tile_rms_norm(eps, width), lanes=in_lanes),
        x, [g], [out], axis), [x, g], out)
    return out


def scan(x, axis=-1, exclusive=False, out=None):
    """Cumulative sum along `axis` of an f32 array (np.cumsum), added left
    to right in f32: bit for bit np.cumsum(x, axis, dtype=np.float32).
    exclusive=True starts each row at 0 and leaves out the element itself.
    axis=None runs over the elements in row-major order (a 1-D result)."""
    fn = "scan"
    x, axis = _one_axis_for_none(_array(x, fn, "x"), axis)
    device = _device(fn, x)
    if x.ndim == 0:
        raise ValueError("tack.tile.scan: takes an array of at least one dimension")
    axis = _axis(axis, x.ndim, fn)
    out = _output(out, x.shape, device, fn)
    exclusive = bool(exclusive)
    kernel = _kernel(fn, device, ("scan", exclusive), lambda: _core.tile_scan(exclusive),
                     lanes=_rows_side_by_side(x, axis, device))
    _along(fn, kernel, x, [], [out], axis)
    return out


# sort's first pass sorts runs of this many elements by rank; each later
# pass merges pairs of runs (merge_path), doubling their length, each
# parallel iteration filling this many places of a merged pair. Chosen on
# a 2-core Zen 3 (AVX2) over runs of 8, 16, 32 and blocks of 16 to 256 at
# 256x1024, 4096x64, 16x65536 and 1x2^20 (docs/tile/python.md, "Sorting").
_SORT_RUN = 16
_MERGE_BLOCK = 32
# Top-K's tournament sorts its first runs by a bitonic network
# (sort_runs_bitonic) of this many entries: on a 2-core Zen 4 (AVX-512),
# 1024x4096 at k = 64, 62 ms against 87 with sort_runs' runs of 16 (the
# runs' pass 22 ms against 35, and one merge pass fewer), 78 with networks
# of 16; at k = 256 99 against 140; 64x65536 the same. Its first call
# takes about 1.6 s against 0.4; sort keeps sort_runs, which compiles in a
# tenth of a second.
_BITONIC_RUN = 32
# Top-K up to this k runs the reference kernel (its bitonic networks of 1
# to 32 entries); above, _TopKTournament. The reference kernel also has a
# 64-entry network (lib::kTopKNetwork), which tack.tile does not use: its
# first call compiles for 8-10 s, and against the prefiltered tournament
# it ran up to 20 % faster on rows of 100 to 128 columns, about equal at
# 200 to 512, and 2-3x slower from 1000 (`bench/tile_topk.py --routes`, 2-core
# Xeon with AVX-512, network / tournament / NumPy in ms at k = 64:
# 16384x100 44 / 52 / 38, 8192x128 19 / 24 / 20, 8192x256 33 / 34 / 36,
# 8192x512 73 / 72 / 50, 1024x1000 21 / 8 / 12, 4096x1024 68 / 35 / 36).
_TOPK_NETWORK = 32

# The tournament prefilters rows whose padded width is at least this many
# times its `keep` (_TopKTournament); narrower rows leave too many entries
# at or above the threshold for it to pay.
_TOPK_PREFILTER = 4

# Up to k = _TOPK_NETWORK_ONLY Top-K always runs the reference kernel's
# networks; above, up to _TOPK_NETWORK, rows whose padded width is at least
# some multiple of the tournament's `keep` (_TOPK_WIDE_ROWS: up to k, the
# multiple) run the prefiltered tournament instead, which there is faster
# and compiles once for every k (the 32-entry network takes 2.5-4 s to
# compile). Network / tournament in ms on a 2-core AMD EPYC with AVX-512
# (`bench/tile_topk.py --routes`; docs/tile/python.md has the tables): at
# k = 4 2048x2048 to 64x65536 10 / 14-16; at k = 6 and 8 2048x2048 14-15 /
# 11-15, 1024x4096 16-21 / 9-15, 64x65536 17-21 / 9-13; at k = 12 and 16
# 8192x512 28 / 30-36, 4096x1024 20-21 / 13, 2048x2048 21-26 / 10-15,
# 1024x4096 21-24 / 9-12, 64x65536 21 / 7-9; at k = 17 to 32 (a 2-core
# Xeon with AVX-512) 16384x100 24-36 / 32-42, 8192x128 12-13 / 16-18,
# 8192x256 24-25 / 19-20, 8192x512 51-61 / 37-45, 1024x1000 12-15 / 5-6.
# Rows of 129 to 255 columns pad to 256 and take the tournament from k =
# 17, where the network can be faster (16384x160 at k = 17: 29 against 33).
_TOPK_NETWORK_ONLY = 4
_TOPK_WIDE_ROWS = ((8, 64), (16, 32), (32, 8))
# ... except that fewer rows than a group of the CPU's SIMD lanes run the
# network one row at a time (the launch's partial group), where the
# tournament's runs spread over the lanes: from k = 2, rows of at least
# _TOPK_LONG_ROW columns take it. Network / tournament in ms at k = 2 and
# 4: 1x1048576 9.0 / 5.3 and 14.1 / 4.2, 4x65536 2.3 / 1.4 and 3.5 / 1.1,
# 16x65536 2.3 / 5.2 and 3.7 / 4.2; at k = 1 the network stays the faster
# (1x1048576 6.0 / 8.4).
_TOPK_FEW_ROWS = 16
_TOPK_LONG_ROW = 16384
# The prefilter's threshold: the least over G = ceil(k / rank) column
# groups of each group's rank-th largest maximum of runs of up to
# _TOPK_RUN elements (lib::topk_threshold), the runs shorter where a group
# would have fewer than 4 * rank of them. A larger rank brings t closer to
# the row's k-th value (fewer, larger groups), but the kernel computes 16
# groups side by side in SIMD lanes, so few groups leave lanes idle. Up to
# k = _TOPK_RANK_DOUBLED the rank is the power of two at or above k /
# _TOPK_GROUPS (at most _TOPK_RANK; k / (_TOPK_GROUPS / 2) on rows
# padded to fewer than _TOPK_GROUPS_WIDE_ROWS columns, where the
# threshold's pass is short against the merges of what it keeps), above
# it 2 * _TOPK_RANK. Total ms at ranks 1 / 2 / 4 on a 2-core AMD EPYC with
# AVX-512: 1024x4096 at k = 5 8.0 / 9.7 / 12.0, k = 8 12.3 / 12.6 / 15.4;
# 64x65536 at k = 6 9.1 / 11.4 / 14.0. At ranks 2 / 4 / 8 / 16: 1024x4096
# at k = 16 9.3 / 9.4 / 15.0 / 23.6, k = 32 11.1 / 9.3 / 11.2 / 15.2, k =
# 64 18.4 / 17.5 / 12.9 / 15.3; 64x65536 at k = 16 7.3 / 8.8 / 13.4 /
# 24.3; 4096x1024 at k = 16 15.9 / 12.7 / 17.2 / 25.0, k = 32 27.1 / 26.0
# / 18.3 / 22.5; 8192x512 at k = 32 46.8 / 49.1 / 29.7 / 34.9. At rank 16
# for every k up to 256 (a 2-core Zen 4, one core busy) 1024x4096 at k =
# 128 took 45 ms against 50 at rank 32, k = 512 151 against 78, k = 1000
# 256 (the counts too high: whole rows) against 167.
_TOPK_RANK = 16
_TOPK_RANK_DOUBLED = 256
# Where the counts at the rank above leave the compacted rows at least
# _TOPK_NARROWED times the tournament's `keep` wide and `keep` is at least
# _TOPK_NARROWED_KEEP, the threshold runs again at _TOPK_NARROWED times the
# rank (at most _TOPK_RANK_MOST), and its counts are taken where they give
# a narrower width: the merges over rows twice as wide cost more than a
# second threshold. On a 2-core AMD EPYC (Zen 3), 1024x4096 normal values,
# ms at rank 16 / 64: k = 224 62 / 46, k = 256 62 / 46 (41 / 30 on a
# quieter run; the width 1024 / 512), where k = 140 and 180 (width 512
# either way) took 28 / 40 and 64x65536 at k = 256 11 / 19; at k = 128
# rank 64 narrowed the width from 512 to 256 and gained nothing (26.6-28 /
# 25.7-31.6 ms), whence the keep of 256 or more.
_TOPK_NARROWED = 4
_TOPK_NARROWED_KEEP = 256
_TOPK_RANK_MOST = 64
_TOPK_GROUPS = 8
_TOPK_GROUPS_WIDE_ROWS = 2048
_TOPK_RUN = 8


def _topk_takes_tournament(k, n, rows):
    """Whether Top-K of k over `rows` rows of n columns runs
    _TopKTournament rather than the reference kernel's network (topk)."""
    if k > _TOPK_NETWORK:
        return True
    if k <= _TOPK_NETWORK_ONLY:
        return 2 <= k and rows < _TOPK_FEW_ROWS and n >= _TOPK_LONG_ROW
    times = next(times for up_to, times in _TOPK_WIDE_ROWS if k <= up_to)
    return _power_of_two_at_least(n, _BITONIC_RUN) >= times * _power_of_two_at_least(k, _BITONIC_RUN)


def _topk_rank(k, padded):
    """The prefilter's rank for k over rows padded to `padded` columns."""
    if k > _TOPK_RANK_DOUBLED:
        return 2 * _TOPK_RANK
    groups = _TOPK_GROUPS if padded >= _TOPK_GROUPS_WIDE_ROWS else _TOPK_GROUPS // 2
    return min(_TOPK_RANK, _power_of_two_at_least(-(-k // groups)))


def _rows_arg(a, rows, used, width, writes):
    """The launch argument for the first `used` columns of `rows` rows of
    `width` elements each in the buffer `a` (row-major, from its start)."""
    return (a, [rows, used], [width, 1], 0, writes)


class _MergeSort:
    """Rows sorted in passes (docs/tile/python.md, "Sorting"): sort_runs
    ranks each element in its run of _SORT_RUN, then merge_path passes merge
    pairs of sorted runs (each block of _MERGE_BLOCK places from one binary
    search, then in order) until one run holds the row. Rows longer than one run are
    padded to _SORT_RUN * 2**passes with elements that come after every
    element of the row ((NaN, position) ascending, (-inf, position)
    descending), in scratch arrays the passes alternate between; the last
    pass writes the outputs' own rows. With `keep` above 0 (Top-K's
    tournament, descending) each merge keeps only the first `keep` of its
    pair, so a pass writes half the entries the one before did, down to
    `keep` a pair;
    launch then leaves the last run in scratch and returns it. Each pass is
    a launch of one of two kernels compiled once per device and order. With
    `bitonic` the first pass sorts runs of _BITONIC_RUN by a bitonic network
    (sort_runs_bitonic) instead."""

    def __init__(self, fn, device, descending=False, keep=0, bitonic=False):
        self.device, self.keep = device, keep
        self.run = _BITONIC_RUN if bitonic else _SORT_RUN
        if bitonic:
            self.runs = _kernel(fn, device, ("sort_runs_bitonic", self.run, descending),
                                lambda: _core.tile_sort_runs_bitonic(self.run, descending=descending),
                                binding={"nest_fuse": [2]})
        else:
            self.runs = _kernel(fn, device, ("sort_runs", self.run, descending),
                                lambda: _core.tile_sort_runs(self.run, descending=descending))
        self.merge = _kernel(fn, device, ("merge_path", _MERGE_BLOCK, descending, keep),
                             lambda: _core.tile_merge_path(_MERGE_BLOCK, descending=descending, keep=keep))

    def launch(self, args):
        """Sorts x into (values, positions), or with `keep` returns the last
        run as views of scratch (values, positions) of `keep` columns or
        fewer."""
        x, values, positions = args
        rows, n = x[1]
        passes, width = 0, self.run
        while width < n:
            passes, width = passes + 1, width * 2
        if passes == 0 and not self.keep:
            self.runs.launch(args)
            return None
        scratch = [(empty((rows, width), device=self.device), empty((rows, width), i64, device=self.device))
                   for _ in range(2)]

        # Pass 0 writes the scratch pair that the last pass does not read.
        source = scratch[passes % 2]
        self.runs.launch([x] + [_rows_arg(a, rows, width, width, True) for a in source])
        run, runs = self.run, width // self.run
        # The binary search's depth is the extent of this vector's view.
        depth = empty(((width // 2).bit_length(),), device=self.device)
        for p in range(1, passes + 1):
            pairs = runs // 2

            def paired(a):
                return (a, [rows, pairs, 2, run], [width, 2 * run, run, 1], 0, False)

            merged = 2 * run if not self.keep else min(2 * run, self.keep)
            last = p == passes and not self.keep
            target = (values, positions) if last else scratch[(passes - p) % 2]
            outs = [t if last else _rows_arg(t, rows, pairs * merged, width, True) for t in target]
            self.merge.launch([paired(source[0]), paired(source[1]), (depth, [run.bit_length()], [1], 0, False)] + outs)
            source, run, runs = target, merged, pairs
        return tuple(_rows_arg(a, rows, run, width, False) for a in source)


class _TopKTournament:
    """Top-K for k above the networks tack.tile runs (_TOPK_NETWORK), and
    from k = _TOPK_NETWORK_ONLY + 1 on wide rows, from k = 2 on few long
    rows (_topk_takes_tournament):
    the row's runs of _BITONIC_RUN sorted descending by a bitonic network
    and merged in pairs, each merge keeping its first `keep` entries (a
    power of two, at least k and the run), then topk_first takes the first
    k of the last run, padding's positions the sentinel's (lib/topk.h).
    O(n log keep) per row, with tiles of _BITONIC_RUN elements, where the
    reference kernel's blocks rank k x k tiles.

    Rows of at least _TOPK_PREFILTER * keep columns (padded) are first
    prefiltered (lib/topk.h, topk_threshold): each row's threshold t, the
    least over k / rank column groups (_topk_rank) of each group's rank-th
    largest run maximum, leaves at least k entries at or above it and
    every one of the row's first k among them (where the counts leave rows
    of at least _TOPK_NARROWED keeps, it is computed again at a higher rank
    and kept where the rows come out narrower). When the most such
    entries in any row fit a width W (a power of two, at least `keep`) below
    the padded row, topk_compact copies them (order kept, so ties still go
    to the lower column) into rows of W, the tournament runs on those, and
    topk_columns maps its places back to columns. Otherwise (many equal
    values at the threshold) the tournament runs on the whole rows. The
    width comes from the counts, which are read back to the host."""

    prefiltered = 0  # launches that took the prefilter (for tests)
    narrowed = 0  # launches whose threshold ran again at a higher rank (for tests)

    def __init__(self, fn, device, k):
        self.fn, self.device, self.k = fn, device, k
        self.keep = _power_of_two_at_least(k, _BITONIC_RUN)
        self.passes = _MergeSort(fn, device, descending=True, keep=self.keep, bitonic=True)
        self.first = _kernel(fn, device, ("topk_first",), _core.tile_topk_first)

    def launch(self, args):
        x, values, positions = args
        rows, n = x[1]
        padded = _power_of_two_at_least(n, _BITONIC_RUN)
        if padded >= _TOPK_PREFILTER * self.keep and self._prefiltered(args, rows, n, padded):
            return
        s, p = self.passes.launch([x, None, None])
        self.first.launch([x, s, p, values, positions])

    def _prefiltered(self, args, rows, n, padded):
        """Runs the prefiltered tournament over rows of n columns, `padded`
        for the merges, where the counts allow; returns whether it did."""
        x, values, positions = args
        fn, device = self.fn, self.device
        rank = _topk_rank(self.k, padded)
        t, width = self._threshold(x, rows, n, rank)
        higher = rank * _TOPK_NARROWED
        if width >= _TOPK_NARROWED * self.keep and self.keep >= _TOPK_NARROWED_KEEP and higher <= _TOPK_RANK_MOST:
            tighter, narrower = self._threshold(x, rows, n, higher)
            if narrower < width:
                t, width = tighter, narrower
                _TopKTournament.narrowed += 1
        if width >= padded:
            return False
        compact = _kernel(fn, device, ("topk_compact",), _core.tile_topk_compact)
        cv, cp = empty((rows, width), device=device), empty((rows, width), i64, device=device)

        def row_of(a, writes):
            return _rows_arg(a, rows, width, width, writes)

        compact.launch([x, (t, [rows], [1], 0, False), row_of(cv, True), row_of(cp, True)])
        s, q = self.passes.launch([row_of(cv, False), None, None])
        columns = _kernel(fn, device, ("topk_columns",), _core.tile_topk_columns)
        columns.launch([s, q, row_of(cp, False), values, positions])
        _TopKTournament.prefiltered += 1
        return True

    def _threshold(self, x, rows, n, rank):
        """Each row's threshold at `rank` (a vector of `rows`) and the width
        its largest count of entries at or above it takes (the power of two
        at or above it and `keep`); the counts are read back."""
        device = self.device
        # One row group at a time: with its element loops vectorized
        # (docs/backends.md) Top-K at k = 32 over 1024x4096 took 15.7-15.9
        # ms against 16.9-18.2 with the threshold in the SIMD lanes, over
        # 64x65536 11.7-12.2 against 13.7-14.1 (2-core Intel Xeon, AVX-512).
        threshold = _kernel(self.fn, device, ("topk_threshold", rank), lambda: _core.tile_topk_threshold(rank))
        t, count = empty((rows,), device=device), empty((rows,), i64, device=device)
        g = -(-self.k // rank)
        strides = -(-n // g)
        run = max(1, min(_TOPK_RUN, strides // (4 * rank)))
        # A view whose extents are the runs, their length and the groups.
        groups = (empty((1,), device=device), [-(-strides // run), run, g], [0, 0, 0], 0, False)
        threshold.launch([x, groups, (t, [rows], [1], 0, True), (count, [rows], [1], 0, True)])
        return t, _power_of_two_at_least(int(count.numpy().max()), self.keep)


def _sort(fn, x, axis, values, positions):
    x, axis = _one_axis_for_none(_array(x, fn, "x"), axis)
    device = _device(fn, x)
    if x.ndim == 0:
        raise ValueError(f"tack.tile.{fn}: takes an array of at least one dimension")
    axis = _axis(axis, x.ndim, fn)
    values = _output(values, x.shape, device, fn)
    positions = _output(positions, x.shape, device, fn, dtype=i64)
    _along(fn, _MergeSort(fn, device), x, [], [values, positions], axis)
    return values, positions


def sort(x, axis=-1, out=None):
    """x sorted along `axis` in increasing order (f32): NaN last, -0 equal to
    +0, equal values in their original order (a stable sort, as
    np.sort(kind="stable")). A merge sort in passes: runs of 32 sorted by
    rank, then pairs of runs merged by merge path, O(n log n) per row.
    axis=None sorts the elements in row-major order (a 1-D result)."""
    return _sort("sort", x, axis, out, None)[0]


def argsort(x, axis=-1, out=None):
    """The i64 positions that sort x along `axis`, under sort's order
    (np.argsort(kind="stable")); with axis=None, positions in x's elements
    in row-major order."""
    return _sort("argsort", x, axis, None, out)[1]


def topk(x, k, axis=-1, out=None):
    """(values, positions): the k largest elements along `axis` of an f32
    array, largest first, and their i64 positions. NaN ranks above +inf,
    -0 equals +0, equal values come by lower position. A row shorter than k
    ends with (-inf, 2**63 - 1) entries. `out` is a (values, positions)
    pair. Up to k = 32 by the reference kernel's bitonic networks, above
    (and on wide rows from k = 5: rows of more than 1024 columns up to k =
    8, more than 512 up to 16, more than 128 from 17; and from k = 2 for
    fewer than 16 rows of 16384 columns or more) by a tournament of sorted
    runs merged in pairs, on wide rows only the entries that a threshold
    keeps (docs/tile/python.md)."""
    fn = "topk"
    x = _array(x, fn, "x")
    device = _device(fn, x)
    if x.ndim == 0:
        raise ValueError("tack.tile.topk: takes an array of at least one dimension")
    k = _integer(k, fn, "k")
    if k < 0:
        raise ValueError(f"tack.tile.topk: k must be >= 0, not {k}")
    axis = _axis(axis, x.ndim, fn)
    shape = list(x.shape)
    shape[axis] = k
    if out is not None and not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"tack.tile.topk: out must be a (values, positions) pair, not {out!r}")
    values, positions = (None, None) if out is None else out
    values = _output(values, shape, device, fn, "out[0]")
    positions = _output(positions, shape, device, fn, "out[1]", dtype=i64)
    if _topk_takes_tournament(k, x.shape[axis], x.size // max(1, x.shape[axis])):
        _along(fn, _TopKTournament(fn, device, k), x, [], [values, positions], axis)
    elif k > 0:
        # One kernel per network: the kernel of n = the power of two at or
        # above k sorts the same blocks (lib::topk_block) and merges the
        # same states as k's; its store of n entries keeps the first k,
        # the out arrays' columns (a store writes inside its view only).
        n = _power_of_two_at_least(k)
        kernel = _kernel(fn, device, ("topk", n), lambda: _core.tile_topk(n))
        _along(fn, kernel, x, [], [values, positions], axis)
    return values, positions


# ---------------------------------------------------------------------------
# Gather and scatter of rows (axis 0) or columns (axis 1).


def _gather_views(a, fn, axis):
    """a's view with the gathered axis first, and a 2-D shape."""
    v = _View.of(a)
    if a.ndim == 1:
        return v.with_axis(1)
    if a.ndim != 2:
        raise ValueError(f"tack.tile.{fn}: takes 1-D or 2-D arrays, not {a.ndim}-D")
    return v.moved(_axis(axis, 2, fn), 0)


def gather(a, indices, axis=0, out=None):
    """np.take(a, indices, axis) for an f32 a of 1 or 2 dimensions and 1-D
    integer indices: out[i] = a[indices[i]] along `axis`. Unlike np.take, an
    index outside [0, n), negative ones included, reads zeros."""
    fn = "gather"
    a = _array(a, fn, "a")
    idx = _indices(indices, fn, a.device)
    device = _device(fn, a, idx)
    va = _gather_views(a, fn, axis)
    shape = list(a.shape)
    shape[_axis(axis, a.ndim, fn)] = idx.shape[0]
    out = _output(out, shape, device, fn)
    if 0 in out.shape:
        return out
    (target,) = _staged([out], [a, idx])
    vo = _gather_views(target, fn, axis)
    kernel = _row_copies(fn, [va, vo], device)
    _run(fn, kernel, [va, _View.of(idx)], [vo])
    _unstage([out], [target])
    return out


def scatter(src, indices, out, axis=0):
    """out[indices[i]] = src[i] along `axis` (NumPy: out[indices] = src for
    axis 0), for f32 out and src of 1 or 2 dimensions and 1-D integer
    indices; returns out. Elements not named keep their values. An index
    outside [0, n), negative ones included, writes nothing; in-range indices
    must be distinct, and out's elements may not share memory (ValueError
    otherwise: parallel writes to one place have no defined order)."""
    fn = "scatter"
    src = _array(src, fn, "src")
    out = _array(out, fn, "out")
    idx = _indices(indices, fn, out.device)
    device = _device(fn, src, idx, out)
    axis_s = _axis(axis, src.ndim, fn)
    if out.ndim != src.ndim or src.shape[axis_s] != idx.shape[0] or any(
        s != o for d, (s, o) in enumerate(zip(src.shape, out.shape)) if d != axis_s
    ):
        raise ValueError(
            f"tack.tile.scatter: src {src.shape} with {idx.shape[0]} indices does not fit out {out.shape} along axis {axis}"
        )
    # The indices as the caller gave them (given on the host, not read back
    # from idx's device copy, which would wait for the device's queued work).
    named = _index_values(indices)
    named = named[(named >= 0) & (named < out.shape[axis_s])]
    if len(np.unique(named)) != len(named):
        raise ValueError("tack.tile.scatter: the indices name one position twice")
    if _View.of(out).may_overlap_itself():
        raise ValueError("tack.tile.scatter: out's elements may share memory (its strides overlap), so parallel "
                         "writes to them have no defined order")
    if 0 in src.shape:
        return out
    # out keeps the elements not named, so an overlapping input is copied instead.
    # (out's own elements were cleared of overlap above.)
    if _clashes([out], [src])[0]:
        src = src.copy()
    if _clashes([out], [idx])[0]:
        idx = idx.copy()
    vs, vo = _gather_views(src, fn, axis), _gather_views(out, fn, axis)
    kernel = _row_copies(fn, [vs, vo], device)
    _run(fn, kernel, [vs, _View.of(idx)], [vo])
    return out
