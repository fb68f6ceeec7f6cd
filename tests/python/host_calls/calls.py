"""Random calls of Tack's host API for one seed: array creation, host
indexing and views, conversions, reductions, kernel calls (debug mode, so
an index outside an array is an IndexError rather than a write past it),
tack.tile's functions and the process settings, with arguments drawn from
arrays of every dtype, shape and stride (tack's and NumPy's), numbers at
the ends of their types and objects that are no number or array at all.

Each call is a `Call`: a description that reproduces it by hand and a
thunk. What the call may do is the runner's oracle (runner.py): return, or
raise one of the exceptions Python's own functions raise for bad
arguments; a host index must select what NumPy's basic indexing selects.
"""

import math
import random
from dataclasses import dataclass
from typing import Callable

import numpy as np

import tack
import tack.tile as T

SCALARS = [tack.f32, tack.f64, tack.i8, tack.i16, tack.i32, tack.i64, tack.u8, tack.u16, tack.u32, tack.u64]
ELEMENTS = [tack.vec2f, tack.vec3f, tack.vec4i, tack.mat22d, tack.mat33f]
NUMPY_DTYPES = [np.float32, np.float64, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.bool_, np.float16,
                np.complex64, np.str_, object]
ODD = [None, "x", b"ab", 1 + 2j, (1, 2), [1, 2], [[1, 2], [3]], {1: 2}, range(3), slice(None), Ellipsis,
       np.complex64(1), np.str_("1"), np.datetime64("2020-01-01"), np.zeros(3, np.complex64), object(),
       float("nan"), float("inf"), 2**63, -(2**63) - 1, 2**64, True, np.float16(1.5), np.int8(-128)]


class _ElementGrid:
    """NumPy's values of an array of vector or matrix elements, indexed as
    Tack indexes the element grid (the element's own axes are never
    indexed): x[index] for the grid's axes, the element's axes whole."""

    def __init__(self, values, element_axes):
        self.values, self.element_axes = values, element_axes

    def __getitem__(self, index):
        parts = index if isinstance(index, tuple) else (index,)
        return self.values[parts + (slice(None),) * self.element_axes]


@dataclass
class Call:
    what: str  # the call, written out
    run: Callable[[], object]
    numpy_index: object = None  # (NumPy array, index) where NumPy's basic indexing is the oracle
    check: object = None  # after a call that returned: () -> what is wrong, or None


@tack.kernel
def scale_into(a, b, s):
    for i in range(len(a)):
        b[i] = a[i] * s + 1


@tack.kernel
def double_elements(p, q):
    for i in range(len(p)):
        q[i] = p[i] * 2


@tack.kernel
def shift_grid(g):
    for i, j in tack.ndindex(g.shape[0], g.shape[1]):
        g[i, j] = g[i, j] + i - j


@tack.kernel
def add_all(a, total):
    for i in range(len(a)):
        tack.atomic_add(total, 0, a[i])


@tack.kernel
def write_range(a, r0, r1, r2):
    for i in range(r0, r1, r2):
        a[i] = i


class Draw:
    """The random choices of one seed, written out as they are made."""

    def __init__(self, seed, devices):
        self.r = random.Random(seed)
        self.devices = devices

    def shape(self, touched=True):
        """A shape, sometimes one no array can have; an array of 8 GiB and
        more (which an allocation leaves untouched) only where `touched` is
        false: filling it would take the host's memory."""
        if self.r.random() < 0.1:
            large = [(1 << 31, 2)] if not touched else []
            return self.r.choice([(), 0, -1, (0,), (2, 0), (1 << 62,), 2.5, "3", None, (3, -2), (1,) * 9,
                                  (np.int8(2), 3), np.array([2, 2])] + large)
        return tuple(self.r.randint(0, 5) for _ in range(self.r.randint(0, 4)))

    def numpy_array(self):
        shape = tuple(self.r.randint(0, 6) for _ in range(self.r.randint(0, 3)))
        dtype = self.r.choice(NUMPY_DTYPES)
        values = np.asarray(np.random.default_rng(self.r.randrange(1 << 30)).standard_normal(shape) * 100)
        a = values.astype(dtype)
        text = f"(np.random.default_rng(...).standard_normal({shape}) * 100).astype({getattr(dtype, '__name__', dtype)})"
        if a.ndim and self.r.random() < 0.3:
            a, text = a[::-1], text + "[::-1]"
        if a.ndim > 1 and self.r.random() < 0.3:
            a, text = a.T, text + ".T"
        if a.ndim and self.r.random() < 0.2:
            a, text = a[::2], text + "[::2]"
        return a, text

    def tack_array(self):
        """(array, NumPy twin holding its values, text): a tack array of a
        scalar dtype made from a NumPy array, sometimes a view of it."""
        dtype = self.r.choice(SCALARS)
        shape = tuple(self.r.randint(0, 5) for _ in range(self.r.randint(0, 3)))
        rng = np.random.default_rng(self.r.randrange(1 << 30))
        x = np.asarray(rng.standard_normal(shape) * 100).astype(dtype.numpy)
        device = self.r.choice(self.devices)
        a = tack.array(x, device=device)
        text = f"tack.array(<{dtype.name} {shape}>, device={device!r})"
        c = self.r.random()
        if x.ndim and c < 0.2:
            step = self.r.choice([2, -1, -2, 3])
            a, x, text = a[::step], x[::step], text + f"[::{step}]"
        elif x.ndim > 1 and c < 0.35:
            a, x, text = a.T, x.T, text + ".T"
        return a, x, text

    def f32(self, shape, device=None, dtype=None):
        """(array, text): a tack array of `shape` (f32 unless `dtype`) with
        random values, on `device` (random where None), sometimes a
        stepped, reversed or transposed view of a larger array."""
        dtype = dtype or tack.f32
        device = device or self.r.choice(self.devices)
        rng = np.random.default_rng(self.r.randrange(1 << 30))
        c = self.r.random()
        text = f"<{dtype.name} {tuple(shape)} on {device}"
        if shape and c < 0.2:
            base = np.asarray(rng.standard_normal(tuple(shape[:-1]) + (2 * shape[-1],)) * 10).astype(dtype.numpy)
            return tack.array(base, device=device)[..., ::2], text + ", every second of a row>"
        if shape and c < 0.35:
            return tack.array(np.asarray(rng.standard_normal(tuple(shape)) * 10).astype(dtype.numpy),
                              device=device)[::-1], text + ", reversed>"
        if len(shape) > 1 and c < 0.5:
            t = np.asarray(rng.standard_normal(tuple(reversed(shape))) * 10).astype(dtype.numpy)
            return tack.array(t, device=device).T, text + ", transposed>"
        return tack.array(np.asarray(rng.standard_normal(tuple(shape)) * 10).astype(dtype.numpy), device=device), \
            text + ">"

    def extents(self, ndim, low=0, high=6):
        return [self.r.randint(low, high) for _ in range(ndim)]

    def element_array(self):
        dtype = self.r.choice(ELEMENTS)
        n = self.r.randint(0, 4)
        layout = self.r.choice(["aos", "soa"])
        device = self.r.choice(self.devices)
        return tack.zeros(n, dtype=dtype, layout=layout, device=device), \
            f"tack.zeros({n}, dtype=tack.{dtype.name}, layout={layout!r}, device={device!r})"

    def value(self):
        """(value, text): any argument."""
        c = self.r.random()
        if c < 0.3:
            a, _, text = self.tack_array()
            return a, text
        if c < 0.4:
            return self.element_array()
        if c < 0.55:
            return self.numpy_array()
        v = self.r.choice(ODD + [0, 1, -1, 2, 3, 2.5, self.r.choice(SCALARS), self.r.choice(ELEMENTS)])
        return v, repr(v)

    def number(self):
        v = self.r.choice([0, 1, -1, 3, 2.5, 1 << 40, -(1 << 63), (1 << 64) - 1, np.uint64(5), np.int8(-128),
                           np.float32(0.5), True, None, float("nan")])
        return v, repr(v)

    def index(self, n):
        """One index of an axis of n elements: basic (integers of any kind,
        slices of any step, None, ...) and sometimes advanced or no index."""
        c = self.r.random()
        if c < 0.35:
            return self.r.randint(-n - 2, n + 1) if self.r.random() < 0.9 else \
                self.r.choice([np.int64(1), np.uint8(0), np.int8(-1), 1 << 63, np.array(0)])
        if c < 0.75:
            def bound():
                return self.r.choice([None, self.r.randint(-n - 3, n + 3)])
            return slice(bound(), bound(), self.r.choice([None, 1, 2, 3, -1, -2, -3, 0]))
        if c < 0.85:
            return None
        if c < 0.9:
            return Ellipsis
        return self.r.choice([1.0, "a", [0], np.array([0]), slice(1.5), True, np.bool_(False)])


def _host_calls(d):
    """(weight, maker) pairs: maker() -> Call."""

    def call(what, run, numpy_index=None, check=None):
        return Call(what, run, numpy_index, check)

    def indexing():
        a, x, text = d.tack_array()
        k = d.r.randint(0, x.ndim + 1)
        idx = tuple(d.index(x.shape[min(j, x.ndim - 1)] if x.ndim else 1) for j in range(k))
        if len(idx) == 1 and d.r.random() < 0.4:
            idx = idx[0]
        return call(f"{text}[{idx!r}]", lambda: a[idx], (x, idx))

    def unary(name, f):
        def make():
            a, text = d.value()
            return call(f"{name}({text})", lambda: f(a))
        return make

    def creation():
        f = d.r.choice(["empty", "zeros", "ones", "full"])
        shape, dtype, device = d.shape(f != "empty"), d.r.choice(SCALARS + ELEMENTS), d.r.choice(d.devices + [None])
        v, vt = d.value() if d.r.random() < 0.5 else d.number()
        if f == "full":
            return call(f"tack.full({shape!r}, {vt}, dtype={dtype!r}, device={device!r})",
                        lambda: tack.full(shape, v, dtype=dtype, device=device))
        return call(f"tack.{f}({shape!r}, dtype={dtype!r}, device={device!r})",
                    lambda: getattr(tack, f)(shape, dtype=dtype, device=device))

    def from_values():
        v, vt = d.value()
        dtype = d.r.choice(SCALARS + ELEMENTS + [None])
        layout = d.r.choice(["aos", "soa", "x"])
        result = {}

        def run():
            result["array"] = tack.array(v, dtype=dtype, layout=layout)
            return result["array"]

        def converted():
            # A NumPy array of numbers: its astype's values (docs/arrays.md),
            # wherever NumPy's astype defines them (tack refuses the rest).
            if not (isinstance(v, np.ndarray) and v.dtype.kind in "biuf" and isinstance(dtype, tack.DType)):
                return None
            with np.errstate(all="ignore"):
                want = v.astype(dtype.numpy)
            have = result["array"].numpy()
            if have.shape != want.shape or not np.array_equal(have, want, equal_nan=True):
                return f"tack.array gave {have.ravel()[:6]}, NumPy's astype {want.ravel()[:6]}"
            return None

        return call(f"tack.array({vt}, dtype={dtype!r}, layout={layout!r})", run, check=converted)

    def ranges():
        args = [d.r.choice([0, 3, -2, 2.5, 0.0, 1 << 20, np.int8(5), None, "1"]) for _ in range(d.r.randint(1, 3))]
        if d.r.random() < 0.5:
            return call(f"tack.arange(*{args!r})", lambda: tack.arange(*args))
        n = d.r.choice([0, 1, 5, -1, 2.5])
        return call(f"tack.linspace(0, 1, {n!r})", lambda: tack.linspace(0, 1, n))

    def method():
        a, x, text = d.tack_array()
        name = d.r.choice(["reshape", "astype", "copy", "numpy", "fill", "transpose", "sum", "min", "max", "mean",
                           "item", "tolist", "__len__", "__repr__", "__float__", "__int__", "__bool__", "__iter__"])
        args = []
        if name == "reshape":
            shape = d.shape()
            args = list(shape) if isinstance(shape, tuple) and d.r.random() < 0.5 else [shape]
        elif name == "astype":
            args = [d.r.choice(SCALARS + ELEMENTS + [None, "f4", np.float16])]
        elif name == "fill":
            args = [d.value()[0] if d.r.random() < 0.5 else d.number()[0]]
        elif name == "transpose":
            args = [d.r.randint(-1, 3) for _ in range(d.r.randint(0, 3))]
        f = getattr(a, name, None)
        if f is None:
            return call(f"{text}.{name}", lambda: None)
        result = {}

        def run():
            result["value"] = list(f(*args)) if name == "__iter__" else f(*args)
            return result["value"]

        check = (lambda: _reduction_problem(name, x, result["value"])) if name in ("sum", "min", "max", "mean") else None
        return call(f"{text}.{name}(*{args!r})", run, check=check)

    def copy_to():
        dst, x, dt = d.tack_array()
        if d.r.random() < 0.6:
            dtype = dst.dtype if d.r.random() < 0.8 else d.r.choice(SCALARS)
            src, st = d.f32(list(x.shape), None, dtype)
            if d.r.random() < 0.3:
                src, st = src.numpy(), st + " as NumPy"
        else:
            src, st = d.value()

        def copied():
            # Every element the source's (NumPy's copyto, same dtype).
            want = src.numpy() if isinstance(src, tack.Array) else np.asarray(src)
            have = dst.numpy()
            if have.shape != want.shape or not np.array_equal(have, want.astype(have.dtype), equal_nan=True):
                return f"copyto left {have.ravel()[:6]}, the source holds {want.ravel()[:6]}"
            return None

        return call(f"tack.copyto({dt}, {st})", lambda: tack.copyto(dst, src), check=copied)

    def like():
        a, at = d.value()
        f = d.r.choice(["empty_like", "zeros_like", "ones_like", "full_like"])
        if f == "full_like":
            v, vt = d.number()
            return call(f"tack.full_like({at}, {vt})", lambda: tack.full_like(a, v))
        return call(f"tack.{f}({at})", lambda: getattr(tack, f)(a))

    def kernel():
        if d.r.random() < 0.6:
            return plausible_kernel()
        which = d.r.randrange(5)
        if which == 0:
            (a, at), (b, bt), (s, st) = d.value(), d.value(), d.number()
            return call(f"scale_into({at}, {bt}, {st})", lambda: scale_into(a, b, s))
        if which == 1:
            (p, pt), (q, qt) = d.element_array(), d.value()
            return call(f"double_elements({pt}, {qt})", lambda: double_elements(p, q))
        if which == 2:
            g, gt = d.value()
            return call(f"shift_grid({gt})", lambda: shift_grid(g))
        if which == 3:
            (a, at), (t, tt) = d.value(), d.value()
            return call(f"add_all({at}, {tt})", lambda: add_all(a, t))
        a, _, at = d.tack_array()
        bounds = [d.r.choice([0, 1, -1, 3, 7, np.uint64(5), np.int8(-128), 2.5, None, 1 << 24]) for _ in range(3)]
        return call(f"write_range({at}, *{bounds!r})", lambda: write_range(a, *bounds))

    def tile():
        if d.r.random() < 0.25:
            return odd_tile()
        device = d.r.choice(d.devices)
        f = d.r.choice(["matmul", "einsum", "softmax", "layer_norm", "rms_norm", "scan", "sort", "argsort", "topk",
                        "gather", "scatter", "conv2d"])

        def out_for(shape):
            """None, an out array of `shape`, or sometimes one of another
            shape, dtype or device."""
            c = d.r.random()
            if c < 0.5:
                return None, "None"
            if c < 0.9:
                return d.f32(shape, device)
            return d.f32([n + 1 for n in shape] or [1], device, d.r.choice([tack.f32, tack.f64]))

        if f in ("matmul", "einsum"):
            m, k, n = d.extents(3, 0, 9)
            batch = d.extents(d.r.randint(0, 2), 1, 4)
            (a, at), (b, bt) = d.f32(batch + [m, k], device), d.f32(batch + [k, n], device)
            out, ot = out_for(batch + [m, n])
            if f == "matmul":
                return call(f"T.matmul({at}, {bt}, out={ot})", lambda: T.matmul(a, b, out=out))
            spec = "...ij,...jk->...ik" if batch else d.r.choice(["ij,jk->ik", "ij,jk->ki", "ij,kj->ik"])
            if spec == "ij,kj->ik":
                b, bt = d.f32([n, k], device)
            return call(f"T.einsum({spec!r}, {at}, {bt})", lambda: T.einsum(spec, a, b))
        shape = d.extents(d.r.randint(1, 3), 0, 7)
        x, xt = d.f32(shape, device)
        axis = d.r.choice([-1, 0, len(shape) - 1, None]) if f in ("scan", "sort", "argsort") else -1
        if f in ("softmax", "scan", "sort", "argsort"):
            return call(f"T.{f}({xt}, axis={axis!r})", lambda: getattr(T, f)(x, axis=axis))
        if f in ("layer_norm", "rms_norm"):
            w, wt = d.f32([shape[-1]], device) if d.r.random() < 0.7 else (None, "None")
            eps = d.r.choice([1e-5, 0.0, 1.0])
            if f == "rms_norm":
                return call(f"T.rms_norm({xt}, {wt}, eps={eps})", lambda: T.rms_norm(x, w, eps=eps))
            return call(f"T.layer_norm({xt}, {wt}, {wt}, eps={eps})", lambda: T.layer_norm(x, w, w, eps=eps))
        if f == "topk":
            k = d.r.randint(0, shape[-1] + 2)
            return call(f"T.topk({xt}, {k})", lambda: T.topk(x, k))
        if f in ("gather", "scatter"):
            rows = shape[0]
            picks = [d.r.randint(-rows, max(rows - 1, 0)) for _ in range(d.r.randint(0, 6))] if rows else []
            indices = tack.array(np.array(picks, dtype=d.r.choice([np.int64, np.int32, np.uint8])), device=device) \
                if d.r.random() < 0.7 else np.array(picks, dtype=np.int64)
            it = f"{picks!r}"
            if f == "gather":
                return call(f"T.gather({xt}, {it})", lambda: T.gather(x, indices))
            src, st = d.f32([len(picks)] + shape[1:], device)
            return call(f"T.scatter({st}, {it}, {xt})", lambda: T.scatter(src, indices, x))
        groups = d.r.choice([1, 1, 2])
        c_in, f_out = groups * d.r.randint(1, 3), groups * d.r.randint(1, 3)
        kh, kw = d.r.randint(1, 3), d.r.randint(1, 3)
        images, it = d.f32([d.r.randint(1, 2), c_in, d.r.randint(0, 6), d.r.randint(0, 6)], device)
        filters, ft = d.f32([f_out, c_in // groups, kh, kw], device)
        padding, stride, dilation = d.r.choice([0, 1, (1, 0)]), d.r.choice([1, 2]), d.r.choice([1, 2])
        return call(f"T.conv2d({it}, {ft}, padding={padding!r}, stride={stride}, dilation={dilation}, "
                    f"groups={groups})",
                    lambda: T.conv2d(images, filters, padding=padding, stride=stride, dilation=dilation,
                                     groups=groups))

    def odd_tile():
        (x, xt), (y, yt) = d.value(), d.value()
        out = d.r.choice([None, d.value()[0]])
        axis = d.r.choice([-1, 0, 1, 2, None, 2.5])
        f = d.r.choice(["matmul", "einsum", "softmax", "layer_norm", "rms_norm", "scan", "sort", "argsort", "topk",
                        "gather", "scatter", "conv2d"])
        if f == "matmul":
            return call(f"T.matmul({xt}, {yt}, out=...)", lambda: T.matmul(x, y, out=out))
        if f == "einsum":
            spec = d.r.choice(["ij,jk->ik", "ii->i", "i,i->", "...ij,...jk->...ik", "ij->ji", "ab,bc", "ij,jk->ikk",
                               "i->", "", ",->"])
            return call(f"T.einsum({spec!r}, {xt}, {yt})", lambda: T.einsum(spec, x, y))
        if f in ("softmax", "scan", "sort", "argsort"):
            return call(f"T.{f}({xt}, axis={axis!r})", lambda: getattr(T, f)(x, axis=axis))
        if f == "layer_norm":
            return call(f"T.layer_norm({xt}, {yt})", lambda: T.layer_norm(x, y))
        if f == "rms_norm":
            return call(f"T.rms_norm({xt}, {yt})", lambda: T.rms_norm(x, y))
        if f == "topk":
            k = d.r.choice([0, 1, 3, 5, 40, -1, 2.5, 1 << 40])
            return call(f"T.topk({xt}, {k!r})", lambda: T.topk(x, k))
        if f == "gather":
            return call(f"T.gather({xt}, {yt})", lambda: T.gather(x, y))
        if f == "scatter":
            return call(f"T.scatter({xt}, {yt}, <out>)", lambda: T.scatter(x, y, out))
        padding, stride = d.r.choice([0, 1, -1, (1, 2)]), d.r.choice([1, 2, 0, -1])
        return call(f"T.conv2d({xt}, {yt}, padding={padding!r}, stride={stride!r})",
                    lambda: T.conv2d(x, y, padding=padding, stride=stride))

    def plausible_kernel():
        device = d.r.choice(d.devices)
        which = d.r.randrange(4)
        n = d.r.randint(0, 40)
        if which == 0:
            (a, at), (b, bt) = d.f32([n], device, d.r.choice(SCALARS)), d.f32([n + d.r.randint(0, 2)], device,
                                                                               d.r.choice(SCALARS))
            s_, st = d.number()
            return call(f"scale_into({at}, {bt}, {st})", lambda: scale_into(a, b, s_))
        if which == 1:
            dtype, layout = d.r.choice(ELEMENTS), d.r.choice(["aos", "soa"])
            p = tack.full(n, 1.5, dtype=dtype, layout=layout, device=device)
            q = tack.zeros(n, dtype=dtype, layout=d.r.choice(["aos", "soa"]), device=device)
            return call(f"double_elements(<{n} {dtype.name} {layout}>, <...>)", lambda: double_elements(p, q))
        if which == 2:
            g, gt = d.f32(d.extents(2, 0, 9), device, d.r.choice(SCALARS))
            return call(f"shift_grid({gt})", lambda: shift_grid(g))
        (a, at), (t, tt) = d.f32([n], device, d.r.choice(SCALARS)), d.f32([1], device, d.r.choice(SCALARS))
        return call(f"add_all({at}, {tt})", lambda: add_all(a, t))

    def shared():
        """A NumPy view of random strides (stepped, reversed, transposed,
        read-only, of any dtype, one or none of its bytes aligned to its
        dtype) shared by asarray, from_dlpack or array_from_ptr (strides in
        bytes), or a tack array pickled and loaded: the values are NumPy's."""
        rng = np.random.default_rng(d.r.randrange(1 << 30))
        dtype = d.r.choice([np.float32, np.float64, np.int8, np.uint16, np.int32, np.uint64, np.bool_, np.float16])
        shape = d.extents(d.r.randint(0, 3), 0, 5)
        base = np.asarray(rng.standard_normal([2 * n + 1 for n in shape]) * 100).astype(dtype)
        view = base[tuple(slice(None, None, d.r.choice([1, 2, -1, -2])) for _ in shape)]
        text = f"<{np.dtype(dtype).name} {view.shape} strides {view.strides}"
        if view.ndim > 1 and d.r.random() < 0.3:
            view, text = view.T, text + " transposed"
        if d.r.random() < 0.2:
            view.flags.writeable = False
            text += " read-only"
        way = d.r.choice(["asarray", "from_dlpack", "array_from_ptr", "pickle"])
        text += ">"
        if way == "asarray":
            run = lambda: tack.asarray(view)  # noqa: E731
        elif way == "from_dlpack":
            run = lambda: tack.from_dlpack(view)  # noqa: E731
        elif way == "array_from_ptr":
            address = view.__array_interface__["data"][0]
            run = lambda: tack.array_from_ptr(address, view.shape, view.dtype, strides=view.strides,  # noqa: E731
                                              owner=view)
        else:
            import pickle

            made = tack.array(np.array(view, order="C")) if view.dtype != np.bool_ else None
            run = lambda: pickle.loads(pickle.dumps(made))  # noqa: E731
        result = {}

        def kept():
            have = result["array"].numpy()
            if have.shape != view.shape or not np.array_equal(have, view.astype(have.dtype)):
                return f"the shared array holds {have.ravel()[:6]}, NumPy's view {view.ravel()[:6]}"
            return None

        def shared_call():
            result["array"] = run()
            return result["array"]

        return call(f"{way}({text})", shared_call, check=lambda: kept() if result.get("array") is not None else None)

    def producer():
        """An object sharing memory through a protocol whose answers may be
        odd: __dlpack__ giving no capsule or raising, __dlpack_device__ no
        (type, id) pair, a __cuda_array_interface__ or __array_interface__
        dict with fields missing or of other kinds."""
        data = np.arange(6, dtype=d.r.choice([np.float32, np.int64, np.float16]))
        odd = [None, 3, "cpu", (1,), (1, 0, 0), (1.5, 0), (99, 0), (2, 0), (10, 0), {}, data]
        protocol = d.r.choice(["dlpack", "cuda", "array"])
        if protocol == "dlpack":
            answer = d.r.choice(odd + [lambda: data.__dlpack__(), lambda: data.__dlpack__()])
            device = d.r.choice(odd + [(1, 0), (1, 0)])

            class Producer:
                def __dlpack__(self, **kwargs):
                    return answer() if callable(answer) else answer

                def __dlpack_device__(self):
                    return device

            text = f"<__dlpack__ {answer!r}, __dlpack_device__ {device!r}>"
        else:
            interface = {"shape": d.r.choice([(6,), (2, 3), (7,), None, "6", (-1,)]),
                         "typestr": d.r.choice(["<f4", "<i8", "<f2", "|b1", "f4", None, 3]),
                         "data": d.r.choice([(0, False), (data.ctypes.data, False), None, (1.5, True), 7]),
                         "version": d.r.choice([2, 3, None])}
            for key in list(interface):
                if d.r.random() < 0.15:
                    del interface[key]
            if protocol == "array":
                interface["data"] = (data.ctypes.data, d.r.random() < 0.5)  # NumPy reads it: no wild pointer
                interface["shape"], interface["typestr"] = (6,), np.dtype(data.dtype).str

            class Producer:
                pass

            setattr(Producer, "__cuda_array_interface__" if protocol == "cuda" else "__array_interface__",
                    property(lambda self: interface))
            text = f"<{protocol} interface {interface!r}>"
        return call(f"tack.asarray({text})", lambda: tack.asarray(Producer()))

    def element_indexing():
        """An array of vector or matrix elements made from NumPy values,
        indexed on the host: one element is a NumPy copy of it, anything
        else a view whose elements are NumPy's."""
        dtype, layout = d.r.choice(ELEMENTS), d.r.choice(["aos", "soa"])
        n = d.r.randint(0, 5)
        x = np.asarray(np.random.default_rng(d.r.randrange(1 << 30)).standard_normal((n,) + dtype.shape) * 10)
        x = x.astype(dtype.dtype.numpy)
        a = tack.array(x, dtype=dtype, layout=layout, device=d.r.choice(d.devices))
        index = d.index(n)
        if index is Ellipsis:
            index = slice(None)
        return call(f"tack.array(<{n} {dtype.name}>, layout={layout!r})[{index!r}]", lambda: a[index],
                    check=None, numpy_index=(_ElementGrid(x, len(dtype.shape)), index))

    def setting():
        c = d.r.randrange(3)
        if c == 0:
            n = d.r.choice([0, 1, 2, -1, 1 << 40, 2.5, None, "2"])
            return call(f"tack.set_num_threads({n!r})", lambda: tack.set_num_threads(n))
        if c == 1:
            name = d.r.choice(d.devices + ["cuda", "gpu", "cpu:0", None, 3, ""])
            return call(f"tack.set_default_device({name!r})", lambda: tack.set_default_device(name))
        kind = d.r.choice(["vector", "matrix"])
        n, m, dtype = d.r.choice([0, 1, 2, 3, 4, 5, -1, 2.5]), d.r.choice([0, 2, 3, 5]), d.r.choice(SCALARS)
        if kind == "vector":
            return call(f"tack.vector({n!r}, {dtype!r})", lambda: tack.vector(n, dtype))
        return call(f"tack.matrix({n!r}, {m!r}, {dtype!r})", lambda: tack.matrix(n, m, dtype))

    return [(6, indexing), (3, shared), (2, element_indexing), (2, producer), (3, creation), (2, from_values), (1, ranges), (5, method), (1, copy_to), (1, like),
            (3, kernel), (3, tile), (1, setting),
            (1, unary("tack.asarray", tack.asarray)), (1, unary("np.asarray", np.asarray)),
            (1, unary("tack.from_dlpack", tack.from_dlpack))]


def calls(seed, count, devices):
    """`count` Calls of one seed on `devices` (names of available backends).
    Making a call draws its arguments (creating arrays), so each is made
    just before it runs: iterate, do not list."""
    d = Draw(seed, devices)
    makers = _host_calls(d)
    weights = [w for w, _ in makers]
    for _ in range(count):
        (_, make), = d.r.choices(makers, weights)
        try:
            yield make()
        except Exception as e:  # drawing an argument failed: the call is that failure
            yield Call(f"<drawing arguments: {type(e).__name__}: {e}>", lambda e=e: _raise(e))


def _reduction_problem(name, x, got):
    """What is wrong with `got`, a.sum(), a.min(), a.max() or a.mean() of
    an array holding NumPy's `x`, by docs/arrays.md's rules (a Python
    float; integer sums exact modulo 2**64 in i64 or u64; float sums within
    gamma_n * sum|x| of the exact sum; min and max exact; mean sum() / n;
    an empty array's min and max refused); None where nothing is."""
    if type(got) is not float:
        return f"{name}() gave {got!r}, not a Python float"
    n = x.size
    if name in ("min", "max"):
        if n == 0:
            return f"{name}() of an empty array gave {got!r} (a ValueError is due)"
        want = float(getattr(np, name)(x))
        return None if got == want else f"{name}() gave {got!r}, NumPy {want!r}"
    if x.dtype.kind in "iu":
        total = sum(int(v) for v in x.ravel()) % (1 << 64)
        if x.dtype.kind == "i" and total >= 1 << 63:
            total -= 1 << 64
        want = float(total) if name == "sum" else (float(total) / n if n else float("nan"))
        return None if got == want or (want != want and got != got) else f"{name}() gave {got!r}, due {want!r}"
    exact = math.fsum(float(v) for v in x.ravel())
    u = 2.0**-24 if x.dtype == np.float32 else 2.0**-53
    bound = n * u / (1 - n * u) * math.fsum(abs(float(v)) for v in x.ravel())
    if name == "mean":
        if n == 0:
            return None if got != got else f"mean() of an empty array gave {got!r}, not NaN"
        got = got * n  # mean() is sum() / n in binary64
        bound += abs(got) * 2.0**-52
    return None if abs(got - exact) <= bound else f"{name}() gave {got!r}, the exact sum {exact!r} (bound {bound!r})"


def _raise(e):
    raise e
