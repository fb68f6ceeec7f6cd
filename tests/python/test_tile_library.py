"""tack.tile: the compiled reference tile library against NumPy.

Oracles: NumPy in float64 with an error bound derived per kernel below
(u = 2**-24, the f32 unit roundoff), or bit for bit where the kernel's
order is one NumPy computes (matmul's k-order fold of fused multiply-adds
in f32, fma32 below, checked against the C library's fmaf; cumsum, stable
sort, gathers). Outputs are NaN-filled views into larger arrays whose other
elements hold a sentinel that must survive."""

import itertools

import numpy as np
import pytest

import tack
import tack.tile as T
from tack import _tile_tuning
from float_bits import identical, ulp_distance

U = 2.0**-24
SENTINEL = np.float32(-12345.5)
ISENTINEL = np.int64(-777)


def rng(seed=0):
    return np.random.default_rng(seed)


def strided(x):
    """x as a tack view that is not contiguous: every other element of the
    last axis of a larger array (the gaps hold NaN, which must not leak)."""
    big = np.full(x.shape[:-1] + (2 * x.shape[-1] + 1,), np.nan, dtype=x.dtype)
    big[..., 1::2] = x
    view = big[..., 1::2]
    return tack.asarray(view), big


class Guarded:
    """An output view (every other column, one row and column of margin)
    inside a sentinel-filled array; the view starts NaN (or the i64
    sentinel's negation)."""

    def __init__(self, shape, dtype=np.float32):
        fill = SENTINEL if dtype == np.float32 else ISENTINEL
        big_shape = tuple(n + 2 for n in shape[:-1]) + (2 * shape[-1] + 3,) if shape else ()
        self.big = np.full(big_shape, fill, dtype=dtype)
        index = tuple(slice(1, 1 + n) for n in shape[:-1]) + (slice(2, 2 + 2 * shape[-1], 2),)
        self.index = index
        self.view = self.big[index]
        self.view[...] = np.nan if dtype == np.float32 else -ISENTINEL
        self.fill = fill
        self.array = tack.asarray(self.view)

    def value(self):
        mask = np.ones(self.big.shape, bool)
        mask[self.index] = False
        assert np.array_equal(self.big[mask], np.full(mask.sum(), self.fill, self.big.dtype)), "a sentinel changed"
        return self.view.copy()


def bits(x):
    x = np.ascontiguousarray(x)
    return x.view(np.uint32 if x.dtype == np.float32 else np.uint64)


# ---------------------------------------------------------------------------
# matmul and einsum


def fma32(x, y, z):
    """x * y + z rounded once to f32, elementwise (IEEE fusedMultiplyAdd),
    from NumPy's f64 arithmetic: the product of two f32 is exact in f64; the
    f64 sum s and its error e (TwoSum) hold the exact value s + e; rounding
    s to f32 is the correct rounding except where s lies exactly halfway
    between two f32, where e's sign decides."""
    x, y, z = np.broadcast_arrays(*(np.asarray(v, np.float32) for v in (x, y, z)))
    p = x.astype(np.float64) * y.astype(np.float64)
    c = z.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + c
        bp = s - p
        e = (p - (s - bp)) + (c - bp)
        r = s.astype(np.float32)
        r64 = r.astype(np.float64)
        toward = np.nextafter(r, np.where(s > r64, np.float32(np.inf), np.float32(-np.inf)))
        mid = (r64 + toward.astype(np.float64)) / 2
        tie = (s == mid) & (s != r64) & np.isfinite(s) & (e != 0)
        # At a tie the exact value lies on e's side of s.
        up = np.maximum(r, toward)
        down = np.minimum(r, toward)
    return np.where(tie, np.where(e > 0, up, down), r)


def fold_matmul(a, b):
    """The kernel's documented order: for each output, products added over
    k in increasing order, each step a fused multiply-add rounded once to
    f32."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = fma32(a[:, k:k + 1], b[k:k + 1, :], acc)
    return acc


def fold_matmul_rounded(a, b):
    """Products added over k in increasing order, each product and each sum
    rounded to f32 (a kernel written with mul and add rather than mma)."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = acc + (a[:, k:k + 1] * b[k:k + 1, :])
    return acc


def test_the_fma_oracle_is_the_c_librarys_fmaf():
    # fma32 is the oracle of every matmul below; the C library's fmaf
    # (correctly rounded in glibc) checks it on random triples and on
    # triples built to land exactly halfway between two f32 in f64.
    import ctypes
    import ctypes.util

    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    libm.fmaf.restype = ctypes.c_float
    libm.fmaf.argtypes = [ctypes.c_float] * 3
    r = rng(99)
    x = r.standard_normal(3000).astype(np.float32)
    y = r.standard_normal(3000).astype(np.float32)
    z = (r.standard_normal(3000) * 4).astype(np.float32)
    # Halfway cases: z = 2^e (1 + k 2^-23) with k odd, x * y = z's half ulp
    # less 2^-46 of it, so the exact sum lies just below the midpoint above
    # z, and its f64 rounding lands on the midpoint (where ties-to-even would
    # round up, away from the exact value).
    k = np.arange(1, 401, 2)
    scale = 2.0 ** (np.arange(k.size) % 7 - 3)
    hz = (scale * (1 + k * 2.0**-23)).astype(np.float32)
    hx = np.full(k.size, 1 + 2.0**-23, np.float32)
    hy = (scale * 2.0**-24 * (1 - 2.0**-23)).astype(np.float32)
    xs = np.concatenate([x, hx, -hx])
    ys = np.concatenate([y, hy, hy])
    zs = np.concatenate([z, hz, -hz])
    got = fma32(xs, ys, zs)
    want = np.array([libm.fmaf(float(a), float(b), float(c)) for a, b, c in zip(xs, ys, zs)], np.float32)
    assert np.array_equal(bits(got), bits(want))
    # The halfway triples do differ from the f64 sum rounded to f32.
    naive = (xs.astype(np.float64) * ys + zs).astype(np.float32)
    assert not np.array_equal(bits(naive), bits(want))


def product_bound(a, b, terms):
    """|fl(sum of K products) - exact| <= gamma_K * sum |a||b| (gamma_K =
    K*u/(1 - K*u): K roundings of products and sums in any order), plus the
    float64 reference's own error, K * 2**-53 * sum |a||b|."""
    k = max(terms, 1)
    magnitude = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    return (k * U / (1 - k * U) + k * 2.0**-53) * magnitude


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (100, 77, 33), (37, 129, 18), (16, 16, 16), (0, 5, 3), (4, 0, 3), (3, 5, 0)])
def test_matmul_guarded_out(m, k, n):
    r = rng(m * 1000 + k * 10 + n)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    out = Guarded((m, n))
    result = T.matmul(tack.array(a), tack.array(b), out=out.array)
    assert result is out.array
    c = out.value()
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - exact) <= product_bound(a, b, k))
    assert np.array_equal(bits(c), bits(fold_matmul(a, b)))


@pytest.mark.parametrize("tiles", [(16, 16, 16), (8, 4, 2), (4, 12, 5), (6, 5, 3), (5, 8, 1), (12, 2, 7)])
def test_matmul_tiles_of_every_shape_compile_to_the_documented_fold(tiles):
    # The CPU lowering blocks mma in 4x4 groups of accumulators where the
    # tile allows and loops element by element where it does not: both
    # keep each output's k order and fuse each step, so every tile shape
    # gives the f32 fold of fused multiply-adds.
    from tack import _core

    r = rng(sum(tiles))
    a = r.standard_normal((37, 29)).astype(np.float32)
    b = r.standard_normal((29, 43)).astype(np.float32)
    out = np.full((37, 43), np.nan, np.float32)
    views = [tack.asarray(x) for x in (a, b, out)]
    args = [(v, list(v.shape), [st // 4 for st in x.strides], 0, i == 2) for i, (v, x) in enumerate(zip(views, (a, b, out)))]
    _core.tile_compile(_core.tile_matmul(*tiles), "cpu").launch(args)
    assert np.array_equal(bits(out), bits(fold_matmul(a, b)))


def product_case(seed):
    """A 70x45 @ 45x53 product: a, b, the bits of their f32 fold of fused
    multiply-adds, and matmul's kernel in 16x8x16 tiles compiled for the CPU."""
    from tack import _core

    r = rng(seed)
    a = r.standard_normal((70, 45)).astype(np.float32)
    b = r.standard_normal((45, 53)).astype(np.float32)
    return a, b, bits(fold_matmul(a, b)), _core.tile_compile(_core.tile_matmul(16, 8, 16), "cpu")


def test_one_compiled_kernel_on_unit_and_other_strides_gives_the_same_bits():
    # The CPU compiles a second variant for arguments whose rows are
    # adjacent (last-axis stride 1), at its first launch, and copies the
    # tiles of windows wholly inside the operands without a test per
    # element. Row-major operands, windows of larger arrays, transposed and
    # every-other-column views must all give the f32 fold of fused
    # multiply-adds, launched through the same compiled kernel in turn.
    a, b, want, kernel = product_case(31)

    def arg(base, view, writes):
        # A view of a C-contiguous NumPy array, as the launch takes it.
        offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 4
        return (tack.asarray(base), list(view.shape), [st // 4 for st in view.strides], offset, writes)

    for layout in ("row-major", "windows", "transposed", "every other column", "row-major again"):
        if layout in ("row-major", "row-major again"):
            ab, bb, base = a.copy(), b.copy(), np.full((70, 53), np.nan, np.float32)
            av, bv, ov = ab, bb, base
        elif layout == "windows":
            ab = np.full((80, 60), 7.0, np.float32)
            ab[3:73, 5:50] = a
            bb = np.full((50, 70), 7.0, np.float32)
            bb[2:47, 4:57] = b
            base = np.full((75, 60), -3.0, np.float32)
            av, bv, ov = ab[3:73, 5:50], bb[2:47, 4:57], base[2:72, 3:56]
            ov[...] = np.nan
        elif layout == "transposed":
            ab, bb, base = a.T.copy(), b.T.copy(), np.full((53, 70), np.nan, np.float32)
            av, bv, ov = ab.T, bb.T, base.T
        else:
            ab = np.zeros((70, 90), np.float32)
            ab[:, ::2] = a
            bb = np.zeros((45, 106), np.float32)
            bb[:, ::2] = b
            base = np.full((70, 106), np.nan, np.float32)
            av, bv, ov = ab[:, ::2], bb[:, ::2], base[:, ::2]
        kernel.launch([arg(ab, av, False), arg(bb, bv, False), arg(base, ov, True)])
        assert np.array_equal(bits(np.array(ov)), want), layout
        if layout == "windows":
            margin = base.copy()
            margin[2:72, 3:56] = -3.0
            assert np.all(margin == -3.0), "a store outside the window"


def test_a_launch_takes_whole_arrays_as_they_are():
    # A bare tack.Array is the parameter's view of its whole self, strides
    # and offset included; a read-only one the kernel stores to is refused
    # before anything runs, as a tuple saying writes=True is.
    a, b, want, kernel = product_case(32)
    window = np.full((80, 60), 7.0, np.float32)
    window[3:73, 5:50] = a
    transposed = b.T.copy()
    base = np.full((75, 60), -3.0, np.float32)
    out = base[2:72, 3:56]
    out[...] = np.nan
    kernel.launch([tack.asarray(window[3:73, 5:50]), tack.asarray(transposed.T), tack.asarray(out)])
    assert np.array_equal(bits(out), want)
    margin = base.copy()
    margin[2:72, 3:56] = -3.0
    assert np.all(margin == -3.0), "a store outside the window"

    frozen = np.full((70, 53), np.nan, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="argument 2 .* is read-only"):
        kernel.launch([tack.asarray(a), tack.asarray(b), tack.asarray(frozen)])
    assert np.all(np.isnan(frozen))
    # An input may be read-only.
    a_frozen = a.copy()
    a_frozen.flags.writeable = False
    c = tack.empty((70, 53))
    kernel.launch([tack.asarray(a_frozen), tack.asarray(b), c])
    assert np.array_equal(bits(c.numpy()), want)
    with pytest.raises(TypeError, match="argument 1 must be a tack.Array or"):
        kernel.launch([tack.asarray(a), b, c])
    from tack import _core

    nothing = (None, [70, 45], [45, 1], 0, False)
    with pytest.raises(TypeError, match="argument 0: the view's array is None"):
        kernel.launch([nothing, tack.asarray(b), c])
    with pytest.raises(TypeError, match="argument 0: the view's array is None"):
        _core.tile_interpret(_core.tile_matmul(16, 8, 16), [nothing, T._View.of(tack.asarray(b)).arg(),
                                                            T._View.of(c).arg(True)])


def test_a_launch_refuses_views_past_the_storage_whatever_their_numbers():
    # Views whose extents, strides or offset reach past the array, with
    # products and sums past 64 bits among them, are refused before the
    # kernel runs; views inside it (reversed rows, an empty view with any
    # offset, a huge stride over one element) run. The launch writes o
    # from x's rows, so a view that ran reads only x's zeros.
    from tack import _core

    kernel = _core.tile_compile(_core.tile_softmax(32), "cpu")
    x, o = tack.zeros((4, 4)), tack.zeros((4, 4))
    outside = [([3, 4], [2**62, 1], 0), ([4, 4], [4, 2**62], 0), ([2**40, 4], [4, 1], 0), ([4, 4], [4, 1], 2**62),
               ([4, 4], [4, 1], -1), ([2, 2], [2**63 - 1, 1], 0), ([4, 4], [-2**62, 1], 2**62),
               ([3, 3], [2**61, 2**61], 0), ([2**31, 2**31], [1, 1], 0), ([4, 4], [4, 1], 1), ([5, 4], [4, 1], 0)]
    for shape, strides, offset in outside:
        with pytest.raises(IndexError, match="reaches outside the array's storage"):
            kernel.launch([(x, shape, strides, offset, False), (o, [4, 4], [4, 1], 0, True)])
    inside = [([4, 4], [-4, 1], 12), ([0, 4], [2**62, 1], 2**62), ([1, 4], [2**62, 1], 0), ([4, 1], [4, 0], 3)]
    for shape, strides, offset in inside:
        out = tack.zeros(shape)
        kernel.launch([(x, shape, strides, offset, False), out])
        assert np.all(out.numpy() == np.float32(1.0) / max(shape[1], 1)), (shape, strides, offset)


def columns_matmul_text(tm, tn, tk):
    """C = A @ B with each column of a tm x tn block of C its own parallel
    iteration (the innermost one, so the CPU's SIMD lanes hold consecutive
    columns): the column's accumulators, a tm-row slice, take A's tile (the
    same for every column of the block) times one column of B's tile, k in
    increasing order."""
    return f"""kernel @matmul_columns(%a: view<?x?xf32>, %b: view<?x?xf32>, %c: view<?x?xf32>) {{
  %kdim = dim %a axis 1 : i64
  %m = dim %c axis 0 : i64
  %n = dim %c axis 1 : i64
  %tm = const {tm} : i64
  %tn = const {tn} : i64
  %tk = const {tk} : i64
  %one = const 1 : i64
  %m1 = sub %m, %one : i64
  %mp = add %m1, %tm : i64
  %mb = div %mp, %tm : i64
  %n1 = sub %n, %one : i64
  %np = add %n1, %tn : i64
  %nb = div %np, %tn : i64
  %k1 = sub %kdim, %one : i64
  %kp = add %k1, %tk : i64
  %kb = div %kp, %tk : i64
  parallel %bi < %mb {{
    parallel %bj < %nb {{
      parallel %j < %tn {{
        %zero = const 0.0 : tile<{tm}xf32>
        %acc = pipeline %kt < %kb iter(%c0 = %zero) {{
          %row = mul %bi, %tm : i64
          %k0 = mul %kt, %tk : i64
          %va = view %a[%row:{tm}, %k0:{tk}] : view<{tm}x{tk}xf32>
          %ta = load %va pad 0.0 : tile<{tm}x{tk}xf32>
          %col0 = mul %bj, %tn : i64
          %col = add %col0, %j : i64
          %vb = view %b[%k0:{tk}, %col] : view<{tk}xf32>
          %tb = load %vb pad 0.0 : tile<{tk}xf32>
          stage "mma"
          %ksteps = const {tk} : i64
          %next = serial %k < %ksteps iter(%s = %c0) {{
            %ak = extract %ta, %k axis 1 : tile<{tm}xf32>
            %bk = extract %tb, %k axis 0 : f32
            %bb = broadcast %bk : tile<{tm}xf32>
            %p = mul %ak, %bb : tile<{tm}xf32>
            %s2 = add %s, %p : tile<{tm}xf32>
            yield %s2
          }}
          yield %next
        }}
        %orow = mul %bi, %tm : i64
        %ocol0 = mul %bj, %tn : i64
        %ocol = add %ocol0, %j : i64
        %vc = view %c[%orow:{tm}, %ocol] : view<{tm}xf32>
        store %vc, %acc
      }}
    }}
  }}
}}
"""


@pytest.mark.parametrize("tiles", [(16, 16, 16), (8, 16, 4), (5, 3, 7)], ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("simd_lanes", [True, False])
def test_a_kernel_written_in_tileir_text_compiles_to_numpys_fold(tiles, simd_lanes):
    # A tile kernel from TileIR's text form (the parser verifies it): the
    # matrix product with a block's columns as parallel iterations. With
    # lanes, A's tile is the same in every lane (one shared copy) and B's
    # column varies; every output still adds its products over k in
    # increasing order, so the bits are NumPy's f32 fold, and the
    # interpreter's.
    from tack import _core

    kernel = _core.tile_parse(columns_matmul_text(*tiles))
    assert kernel.name == "matmul_columns" and str(kernel).startswith("kernel @matmul_columns(")
    r = rng(sum(tiles))
    a = r.standard_normal((37, 29)).astype(np.float32)
    b = r.standard_normal((29, 43)).astype(np.float32)
    want = bits(fold_matmul_rounded(a, b))
    for run in ("compiled", "interpreted"):
        out = np.full((37, 43), np.nan, np.float32)
        views = [tack.asarray(x) for x in (a, b, out)]
        args = [(v, list(v.shape), [st // 4 for st in x.strides], 0, i == 2) for i, (v, x) in enumerate(zip(views, (a, b, out)))]
        if run == "compiled":
            _core.tile_compile(kernel, "cpu", simd_lanes=simd_lanes).launch(args)
        else:
            _core.tile_interpret(kernel, args)
        assert np.array_equal(bits(out), want), run


def test_malformed_tileir_text_is_refused_with_the_reason():
    from tack import _core

    with pytest.raises(RuntimeError, match="frobnicate"):
        _core.tile_parse("kernel @k(%a: view<?xf32>) {\n  %x = frobnicate %a : f32\n}\n")


@pytest.mark.parametrize("make, outputs", [
    (lambda c: c.tile_matmul(16, 16, 16), "matmul"),
    (lambda c: c.tile_softmax(), "rows"),
    (lambda c: c.tile_scan(False), "rows"),
    (lambda c: c.tile_layer_norm(1e-5), "norm"),
    (lambda c: c.tile_sort(), "sort"),
    (lambda c: c.tile_sort_runs(32), "sort"),
], ids=["matmul", "softmax", "scan", "layer_norm", "sort", "sort_runs"])
@pytest.mark.parametrize("simd_lanes", [True, False])
def test_either_cpu_binding_gives_the_interpreters_bits(make, outputs, simd_lanes):
    # tack.tile picks per kernel whether the CPU runs consecutive iterations
    # in SIMD lanes; both bindings must compute what the interpreter does.
    from tack import _core

    r = rng(7)
    x = (r.standard_normal((37, 45)) * 3).astype(np.float32)
    if outputs == "matmul":
        inputs = [x, r.standard_normal((45, 29)).astype(np.float32)]
        shapes = [((37, 29), np.float32)]
    elif outputs == "norm":
        inputs = [x, r.standard_normal(45).astype(np.float32), r.standard_normal(45).astype(np.float32)]
        shapes = [((37, 45), np.float32)]
    elif outputs == "sort":
        inputs = [x]
        shapes = [((37, 45), np.float32), ((37, 45), np.int64)]
    else:
        inputs = [x]
        shapes = [((37, 45), np.float32)]

    def run(execute):
        outs = [np.full(shape, np.nan if dt == np.float32 else -1, dt) for shape, dt in shapes]
        arrays = inputs + outs
        views = [tack.asarray(a) for a in arrays]
        args = [(v, list(a.shape), [st // a.itemsize for st in a.strides], 0, i >= len(inputs))
                for i, (v, a) in enumerate(zip(views, arrays))]
        execute(args)
        return outs

    kernel = make(_core)
    compiled = _core.tile_compile(kernel, "cpu", simd_lanes=simd_lanes)
    got = run(compiled.launch)
    want = run(lambda args: _core.tile_interpret(kernel, args))
    for g, w in zip(got, want):
        assert np.array_equal(g.view(np.uint8), w.view(np.uint8))


def test_matmul_strided_and_transposed_operands():
    r = rng(1)
    a = r.standard_normal((45, 70)).astype(np.float32)
    b = r.standard_normal((70, 29)).astype(np.float32)
    ta, _ = strided(a)
    tb = tack.asarray(np.ascontiguousarray(b.T).T)  # column-major b
    c = T.matmul(ta, tb).numpy()
    assert np.array_equal(bits(c), bits(fold_matmul(a, b)))


def test_matmul_vectors_like_numpy():
    r = rng(2)
    a = r.standard_normal((9, 13)).astype(np.float32)
    v = r.standard_normal(13).astype(np.float32)
    w = r.standard_normal(9).astype(np.float32)
    assert T.matmul(tack.array(a), tack.array(v)).shape == (9,)
    assert np.array_equal(bits(T.matmul(tack.array(a), tack.array(v)).numpy()), bits(fold_matmul(a, v[:, None])[:, 0]))
    assert np.array_equal(bits(T.matmul(tack.array(w), tack.array(a)).numpy()), bits(fold_matmul(w[None, :], a)[0]))


@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 4, 5), (5, 6)), ((2, 1, 4, 5), (3, 5, 6)), ((5,), (2, 5, 6)), ((2, 3, 4, 5), (5,)), ((4, 5), (2, 5, 3)),
    ((2, 40, 37), (2, 37, 48)),  # products large enough to tune
    ((0, 4, 5), (5, 6)),
])
def test_matmul_batches_broadcast_as_numpy(a_shape, b_shape):
    # np.matmul's shapes; each batch index's product the fold (fma32).
    r = rng(sum(a_shape) + len(b_shape))
    a = r.standard_normal(a_shape).astype(np.float32)
    b = r.standard_normal(b_shape).astype(np.float32)
    want_shape = np.matmul(a, b).shape
    got = T.matmul(strided(a)[0], tack.array(b)).numpy()
    assert got.shape == want_shape
    a2, b2 = (a[None, :] if a.ndim == 1 else a), (b[:, None] if b.ndim == 1 else b)
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    a2 = np.broadcast_to(a2, batch + a2.shape[-2:])
    b2 = np.broadcast_to(b2, batch + b2.shape[-2:])
    want = np.zeros(batch + (a2.shape[-2], b2.shape[-1]), np.float32)
    for index in np.ndindex(*batch):
        want[index] = fold_matmul(a2[index], b2[index])
    assert np.array_equal(bits(got), bits(want.reshape(want_shape)))


def _batch_of(x, order):
    """x (a batch of matrices) as a tack view whose batch axes lie in memory
    in `order` (a permutation of them): strides that need not merge."""
    lead = x.ndim - 2
    stored = np.ascontiguousarray(x.transpose(tuple(order) + (lead, lead + 1)))
    return tack.asarray(stored.transpose(tuple(np.argsort(order)) + (lead, lead + 1)))


@pytest.mark.parametrize("tiles", [(16, 16, 16), (16, 8, 16, 1), (16, 16, 8, 0, 1), (16, 8, 16, 1, 0, 4)],
                         ids=["unpacked", "packed", "rows_in_lanes", "launch_tiled"])
@pytest.mark.parametrize("a_shape,a_order,b_shape,b_order,launches", [
    ((5, 37, 29), (0,), (5, 29, 43), (0,), [(37, 29, 43, True)]),  # a batch: one launch
    ((5, 37, 29), (0,), (29, 43), (), [(185, 29, 43, False)]),  # one B, rows merged: one product
    ((5, 37, 29), (0,), (1, 29, 43), (0,), [(185, 29, 43, False)]),
    ((2, 3, 37, 29), (0, 1), (2, 3, 29, 43), (0, 1), [(37, 29, 43, True)]),  # (2, 3) merged
    ((2, 3, 37, 29), (0, 1), (3, 29, 43), (0,), [(37, 29, 43, True)] * 2),  # B broadcast over 2: not one axis
    ((2, 3, 37, 29), (1, 0), (29, 43), (), [(37, 29, 43, True)] * 2),  # unmerged: a launch per index of the first
    ((4, 37, 29), (0,), (4, 29, 1), (0,), [(37, 29, 1, True)]),
    ((3, 1, 37, 29), (0, 1), (1, 4, 29, 43), (0, 1), [(37, 29, 43, True)] * 3),  # each broadcast over one axis
])
def test_matmul_batches_run_in_one_launch(tiles, a_shape, a_order, b_shape, b_order, launches, monkeypatch):
    # Batch axes whose strides merge run as one launch of matmul's batched
    # kernel (a shared B, stride 0, packed once when packed); a shared B
    # whose rows merge with the batch runs as one product; axes that do not
    # merge are looped over. Every product is the fold, for every form of
    # the kernel (tiles forced through the tuner's family).
    monkeypatch.setattr(_tile_tuning, "FAMILY", (tiles,))
    monkeypatch.setattr(_tile_tuning, "_MIN_VOLUME", 1)
    r = rng(sum(a_shape) + 3 * sum(b_shape))
    a = r.standard_normal(a_shape).astype(np.float32)
    b = r.standard_normal(b_shape).astype(np.float32)
    calls = matmul_kernel_calls(monkeypatch)
    small_products_through_matmul(monkeypatch)
    ta = _batch_of(a, a_order)
    tb = _batch_of(b, b_order) if b.ndim > 2 else tack.array(b)
    got = T.matmul(ta, tb).numpy()
    assert calls == launches
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a2, b2 = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    want = np.zeros(batch + (a.shape[-2], b.shape[-1]), np.float32)
    for index in np.ndindex(*batch):
        want[index] = fold_matmul(a2[index], b2[index])
    assert np.array_equal(bits(got), bits(want))


def test_matmul_refuses_batches_that_do_not_broadcast():
    with pytest.raises(ValueError, match="batch axes of .* do not broadcast"):
        T.matmul(tack.zeros((2, 3, 4)), tack.zeros((3, 4, 5)))
    with pytest.raises(ValueError, match="1 dimension or more"):
        T.matmul(tack.zeros(()), tack.zeros((3,)))


@pytest.mark.parametrize("through_matmul", [False, True])
def test_products_that_underflow_keep_the_sign_of_zero(through_matmul, monkeypatch):
    # Every product -1e-60 rounds to -0: the fold is -0. Ragged k tiles add
    # -0 * +0 (matmul.h), so matmul, and conv2d and einsum through it, keep
    # it; so does the einsum kernel that small products take by default.
    if through_matmul:
        small_products_through_matmul(monkeypatch)
    a = np.full((20, 5), -1e-30, np.float32)
    b = np.full((5, 24), 1e-30, np.float32)
    want = fold_matmul(a, b)
    assert np.all(np.signbit(want)) and not np.any(want)
    assert np.array_equal(bits(T.matmul(tack.array(a), tack.array(b)).numpy()), bits(want))
    big_a, big_b = np.full((64, 37), -1e-30, np.float32), np.full((37, 48), 1e-30, np.float32)
    got = T.einsum("ij,jk->ik", tack.array(big_a), tack.array(big_b)).numpy()
    assert np.array_equal(bits(got), bits(fold_matmul(big_a, big_b)))
    x, w = np.full((1, 9, 5, 6), -1e-30, np.float32), np.full((16, 9, 3, 3), 1e-30, np.float32)
    got = T.conv2d(tack.array(x), tack.array(w)).numpy()
    assert np.all(np.signbit(got)) and np.array_equal(bits(got), bits(fold_conv2d(x, w, 0)))


@pytest.mark.parametrize("fold_work", [None, 1000])
def test_small_untuned_products_take_the_einsum_kernels_fold(fold_work, monkeypatch):
    # Products whose class the tuner leaves untuned, below _FOLD_WORK, run
    # in the einsum kernel (a 2-D product and a batch); with the threshold
    # lowered below them, in matmul's kernel. The same bits either way.
    if fold_work is not None:
        monkeypatch.setattr(T, "_FOLD_WORK", {"cpu": fold_work})
    r = rng(77)
    a = r.standard_normal((4, 37, 29)).astype(np.float32)
    b = r.standard_normal((4, 29, 43)).astype(np.float32)
    calls = matmul_kernel_calls(monkeypatch)
    got2 = T.matmul(tack.array(a[0]), tack.array(b[0])).numpy()
    got3 = T.matmul(tack.array(a), tack.array(b)).numpy()
    assert [c[3] for c in calls] == ([] if fold_work is None else [False, True])
    assert np.array_equal(bits(got2), bits(fold_matmul(a[0], b[0])))
    for i in range(4):
        assert np.array_equal(bits(got3[i]), bits(fold_matmul(a[i], b[i])))


def test_matmul_out_overlapping_an_input_is_buffered():
    r = rng(3)
    a = r.standard_normal((20, 20)).astype(np.float32)
    b = r.standard_normal((20, 20)).astype(np.float32)
    ta = tack.array(a)
    T.matmul(ta, tack.array(b), out=ta)
    assert np.array_equal(bits(ta.numpy()), bits(fold_matmul(a, b)))


@pytest.mark.parametrize(
    "spec,shapes",
    [
        ("ij,jk->ik", [(13, 7), (7, 5)]),
        ("bij,bjk->bik", [(3, 4, 6), (3, 6, 2)]),
        ("ij,ij->i", [(5, 9), (5, 9)]),
        ("ij,jk", [(4, 3), (3, 6)]),
        ("ij->", [(17, 11)]),
        ("ij->j", [(17, 11)]),
        ("i,j->ij", [(4,), (6,)]),
        # Scalar results of rank-4 operands: the unit axis the kernel adds
        # goes on the operand of lower rank, or the sum runs in two steps.
        ("ijkl->", [(3, 4, 5, 6)]),
        ("ijkl,ijkl->", [(2, 3, 4, 5), (2, 3, 4, 5)]),
        ("ijkl,kl->", [(2, 3, 4, 5), (4, 5)]),
        # Scalar results of two operands of lower rank (the unit axis too).
        ("i,i", [(300,)] * 2),
        ("ij,ij->", [(40, 50)] * 2),
        ("ij,jk->", [(30, 40), (40, 50)]),
    ],
)
def test_einsum_against_float64(spec, shapes):
    r = rng(len(spec))
    ops = [r.standard_normal(s).astype(np.float32) for s in shapes]
    got = T.einsum(spec, *[tack.array(o) for o in ops]).numpy()
    exact = np.einsum(spec, *[o.astype(np.float64) for o in ops])
    magnitude = np.einsum(spec, *[np.abs(o.astype(np.float64)) for o in ops])
    full = spec.replace("->", ",").split(",")
    out_labels = spec.split("->")[1] if "->" in spec else None
    labels = set("".join(full[: len(ops)]))
    if out_labels is None:
        flat = "".join(full)
        out_labels = "".join(c for c in labels if flat.count(c) == 1)
    extent = {c: n for s, o in zip(full, ops) for c, n in zip(s, o.shape)}
    terms = int(np.prod([extent[c] for c in labels if c not in out_labels]))
    assert got.shape == exact.shape
    assert np.all(np.abs(got - exact) <= (terms * U / (1 - terms * U) + terms * 2.0**-53) * magnitude)


def matmul_kernel_calls(monkeypatch):
    """A list that records each product tack.tile runs through matmul's
    kernel as (m, k, n, batched)."""
    calls = []
    kernel = T._matmul_kernel

    def recording(m, k, n, device, batched=False):
        calls.append((m, k, n, batched))
        return kernel(m, k, n, device, batched=batched)

    monkeypatch.setattr(T, "_matmul_kernel", recording)
    return calls


def small_products_through_matmul(monkeypatch):
    """Products through matmul's kernel on the CPU as elsewhere: einsum's
    from 2**15 multiply-adds, matmul's always (by default, products of
    classes the tuner leaves untuned take the einsum kernel's fold below
    2**24)."""
    monkeypatch.setattr(T, "_FOLD_WORK", {})


def fold_einsum(spec, a, b):
    """The documented steps of a two-operand contraction: for each output,
    acc = fma(a[...], b[...], acc) in f32 from acc = 0 over the contracted
    labels' points in row-major order, the labels in the order they first
    appear in the spec."""
    inputs, out = spec.split("->")
    la, lb = inputs.split(",")
    contracted = list(dict.fromkeys(c for c in la + lb if c not in out))
    extent = {c: n for labels, x in ((la, a), (lb, b)) for c, n in zip(labels, x.shape)}

    def aligned(x, labels, point):
        rest = [c for c in labels if c not in point]
        x = x[tuple(point.get(c, slice(None)) for c in labels)]
        x = np.transpose(x, [rest.index(c) for c in out if c in rest])
        return x.reshape([extent[c] if c in rest else 1 for c in out])

    acc = np.zeros([extent[c] for c in out], np.float32)
    for values in itertools.product(*(range(extent[c]) for c in contracted)):
        point = dict(zip(contracted, values))
        acc = fma32(aligned(a, la, point), aligned(b, lb, point), acc)
    return acc


# (spec, shapes, whether einsum runs it through matmul): batches of matrix
# products of at least 2**15 multiply-adds go through matmul.
EINSUM_FOLDS = [
    ("ij,jk->ik", [(64, 40), (40, 48)], True),
    ("bij,bjk->bik", [(3, 40, 30), (3, 30, 33)], True),
    ("ij,kj->ik", [(50, 37), (45, 37)], True),
    ("ji,jk->ki", [(40, 35), (40, 30)], True),
    ("bhqd,bhkd->bhqk", [(2, 2, 33, 40), (2, 2, 31, 40)], True),
    ("i,ij->j", [(300,), (300, 120)], True),
    ("ij,j->i", [(120, 300), (300,)], True),
    ("ij,ij->i", [(3, 40000), (3, 40000)], True),
    ("bsd,de->bse", [(2, 30, 40), (40, 33)], True),  # rows b, s merged into one axis
    ("sbd,de->bse", [(30, 2, 40), (40, 33)], True),  # rows that do not merge: b looped
    ("ij,jk->ik", [(13, 7), (7, 5)], False),
    ("ijk,jkl->il", [(5, 4, 3), (4, 3, 6)], False),  # two contracted labels
    ("ij,ij->i", [(5, 9), (5, 9)], False),
    ("bij,bjk->bik", [(2000, 4, 4), (2000, 4, 4)], False),  # small products
]


@pytest.mark.parametrize("spec,shapes,through_matmul", EINSUM_FOLDS)
def test_einsum_contractions_are_the_fold_of_fused_steps(spec, shapes, through_matmul, monkeypatch):
    r = rng(len(spec) + shapes[0][0])
    a, b = (r.standard_normal(s).astype(np.float32) for s in shapes)
    products = matmul_kernel_calls(monkeypatch)
    small_products_through_matmul(monkeypatch)
    ta, _ = strided(a)  # any strides
    got = T.einsum(spec, ta, tack.array(b)).numpy()
    assert bool(products) == through_matmul
    assert np.array_equal(bits(got), bits(fold_einsum(spec, a, b)))


@pytest.mark.parametrize("spec,a_shape,through_matmul", [
    ("ikl,kln->in", (40, 6, 7), True),  # k, l one axis of 42 in both operands
    ("ilk,kln->in", (40, 7, 6), False),  # in another order in the first: not one axis
])
def test_einsum_merges_contracted_labels_where_the_strides_allow(spec, a_shape, through_matmul, monkeypatch):
    r = rng(75)
    a = r.standard_normal(a_shape).astype(np.float32)
    b = r.standard_normal((6, 7, 40)).astype(np.float32)
    calls = matmul_kernel_calls(monkeypatch)
    small_products_through_matmul(monkeypatch)
    got = T.einsum(spec, tack.array(a), tack.array(b)).numpy()
    assert [c[:3] for c in calls] == ([(40, 42, 40)] if through_matmul else [])
    assert np.array_equal(bits(got), bits(fold_einsum(spec, a, b)))


@pytest.mark.parametrize("tuned", [False, True])
def test_einsum_takes_matmul_where_its_tiles_are_tuned(tuned, monkeypatch):
    # Products of 64^3 by default: their class is not tuned and the fixed
    # tiles would be slower than the einsum kernel, which runs them. With
    # tuned tiles (the tuner's threshold lowered, its family one packed
    # candidate) the batch runs through matmul's batched kernel in one launch.
    if tuned:
        monkeypatch.setattr(_tile_tuning, "FAMILY", ((16, 8, 16, 1),))
        monkeypatch.setattr(_tile_tuning, "_MIN_VOLUME", 1)
    r = rng(76)
    a, b = (r.standard_normal((6, 64, 64)).astype(np.float32) for _ in range(2))
    calls = matmul_kernel_calls(monkeypatch)
    got = T.einsum("bij,bjk->bik", tack.array(a), tack.array(b)).numpy()
    assert calls == ([(64, 64, 64, True)] if tuned else [])
    assert np.array_equal(bits(got), bits(fold_einsum("bij,bjk->bik", a, b)))


def test_einsum_products_in_any_label_order(monkeypatch):
    # Random batches of matrix products: batch, row, column and contracted
    # labels (up to two of each kind) in random orders in each operand and
    # the output, extents that put some through matmul (merged axes, or
    # looped ones where strides do not merge) and some through the einsum
    # kernel, contiguous and strided operands; each against the fold.
    r = rng(74)
    routed, calls = [], matmul_kernel_calls(monkeypatch)
    small_products_through_matmul(monkeypatch)
    for case in range(30):
        batch, rows, cols, contracted = "", "", "", ""
        while not (batch + rows + cols) or max(map(len, (batch + rows + contracted, batch + cols + contracted,
                                                        batch + rows + cols))) > 4:  # ranks up to 4
            batch, rows, cols = ("", "b", "bc")[r.integers(0, 3)], ("", "m", "mp")[r.integers(0, 3)], \
                ("", "n", "nq")[r.integers(0, 3)]
            contracted = ("k", "kl")[r.integers(0, 2)]
        first = "".join(r.permutation(list(batch + rows + contracted)))
        second = "".join(r.permutation(list(batch + cols + contracted)))
        output = "".join(r.permutation(list(batch + rows + cols)))
        extent = {c: int(r.integers(1, 3)) for c in "bc"}
        extent.update({c: int(r.integers(24, 64)) for c in "mnk"})
        extent.update({c: int(r.integers(1, 4)) for c in "pql"})
        spec = f"{first},{second}->{output}"
        a = r.standard_normal([extent[c] for c in first]).astype(np.float32)
        b = r.standard_normal([extent[c] for c in second]).astype(np.float32)
        calls.clear()
        operands = (strided(a)[0], strided(b)[0]) if case % 2 else (tack.array(a), tack.array(b))
        got = T.einsum(spec, *operands).numpy()
        routed.append(bool(calls))
        assert np.array_equal(bits(got), bits(fold_einsum(spec, a, b))), (case, spec, extent)
    assert 5 <= sum(routed) <= len(routed) - 5, routed


def test_einsum_products_of_empty_batches_and_empty_sums():
    # No batch: nothing to compute; no contracted terms: zeros (np.einsum's).
    got = T.einsum("bij,bjk->bik", tack.zeros((0, 64, 64)), tack.zeros((0, 64, 64)))
    assert got.shape == (0, 64, 64)
    ones = np.ones((300, 0), np.float32)
    got = T.einsum("ij,jk->ik", tack.array(ones), tack.array(ones.T.copy())).numpy()
    assert np.array_equal(bits(got), bits(np.einsum("ij,jk->ik", ones, ones.T)))


@pytest.mark.parametrize("spec", ["ij->ji", "ii->i"])
def test_einsum_permutations_are_exact(spec):
    x = rng(4).standard_normal((6, 6)).astype(np.float32)
    tx, _ = strided(x)
    assert np.array_equal(bits(T.einsum(spec, tx).numpy()), bits(np.einsum(spec, x)))


# (spec, operand shapes, the spec with each ellipsis written out, whether
# matmul's kernel runs it where small products take it): the axes an
# ellipsis stands for, aligned from the right, and axes of extent 1
# broadcast (np.einsum's reading).
EINSUM_BROADCASTS = [
    ("...ij,jk->...ik", [(2, 3, 4), (4, 5)], "xij,jk->xik", False),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 6)], "xyij,yjk->xyik", False),
    ("ij,jk->ik", [(2, 1), (3, 4)], "ij,jk->ik", False),  # a contracted label broadcast
    ("...i,...i", [(2, 1, 3), (4, 3)], "xyi,yi->xy", False),
    ("ki...,k...->i...", [(3, 2, 4), (3, 4)], "kix,kx->ix", False),
    ("i,i", [(1,), (300,)], "i,i->", False),
    ("bij,bjk->bik", [(1, 64, 64), (6, 64, 64)], "bij,bjk->bik", True),  # one A for every product
    ("ij,jk->ik", [(256, 256), (1, 256)], "ij,jk->ik", True),  # B's rows all one row
    ("ij,ij->ij", [(1, 3), (2, 3)], "ij,ij->ij", False),  # no sum: one rounding
    ("...,...->...", [(4, 1), (5,)], "xy,y->xy", False),
    ("...ij->...ji", [(2, 3, 4)], "xij->xji", False),
    ("i...i", [(3, 2, 3)], "ixi->x", False),
]


@pytest.mark.parametrize("spec,shapes,written,routed", EINSUM_BROADCASTS)
def test_einsum_ellipsis_and_broadcasts_as_numpy(spec, shapes, written, routed, monkeypatch):
    # Oracles: a contraction of two operands is the fold of fused steps
    # over the operands NumPy broadcasts to the written-out spec's extents;
    # a product without a sum, a permutation or a diagonal NumPy's own f32
    # result, bit for bit; shapes np.einsum's. Each spec by default and
    # with small products through matmul's kernel (its operands' views
    # then read a broadcast axis at stride 0).
    r = rng(len(spec) + len(shapes[0]))
    ops = [r.standard_normal(s).astype(np.float32) for s in shapes]
    inputs, output = written.split("->")
    terms = inputs.split(",")
    if len(ops) == 2 and set(inputs) - set(output) - {","}:
        extent = {}
        for labels, o in zip(terms, ops):
            for c, n in zip(labels, o.shape[len(o.shape) - len(labels):]):
                extent[c] = max(extent.get(c, 1), n)
        full = [np.broadcast_to(o.reshape(o.shape[len(o.shape) - len(t):]), [extent[c] for c in t])
                for t, o in zip(terms, ops)]
        want = fold_einsum(written, *full)
    else:
        want = np.einsum(spec, *ops)
    assert want.shape == np.einsum(spec, *ops).shape
    calls = matmul_kernel_calls(monkeypatch)
    for small_through_matmul in (False, True):
        if small_through_matmul:
            small_products_through_matmul(monkeypatch)
        calls.clear()
        got = T.einsum(spec, *[tack.array(o) for o in ops]).numpy()
        assert got.shape == want.shape and np.array_equal(bits(got), bits(want)), small_through_matmul
        if small_through_matmul:
            assert bool(calls) == routed


def test_einsum_refuses_mismatched_extents_and_bad_ellipses():
    a = tack.zeros((3, 4))
    with pytest.raises(ValueError, match="label 'j' has extents 4 and 5"):
        T.einsum("ij,jk->ik", a, tack.zeros((5, 2)))
    with pytest.raises(ValueError, match="label 'i' has extents 1 and 3 in one operand"):
        T.einsum("ii->i", tack.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"'\.\.\.j->j': the output has no '\.\.\.'"):
        T.einsum("...j->j", a)
    with pytest.raises(ValueError, match="not one ellipsis"):
        T.einsum("i.j", a)
    with pytest.raises(ValueError, match="not one ellipsis"):
        T.einsum("...i...", a)
    with pytest.raises(ValueError, match="'...ijk' names more axes than an operand of rank 2 has"):
        T.einsum("...ijk", a)
    with pytest.raises(ValueError, match="operand and output ranks must be 1 to 4"):
        T.einsum("...ij,jk->...ik", tack.zeros((2, 2, 2, 3, 4)), tack.zeros((4, 5)))
    with pytest.raises(TypeError, match="the spec must be a string, not list"):
        T.einsum(["ij"], a)


# ---------------------------------------------------------------------------
# conv2d


# (x, w, the block tile.py picks: output columns by channels). Channel
# counts that leave the last block part empty.
# (x shape, w shape, how conv2d runs them at every padding below: the direct
# kernel's block, or "columns" through the matrix product).
CONV_SHAPES = [
    ((2, 3, 11, 37), (5, 3, 3, 2), (64, 4)),
    ((2, 4, 9, 29), (11, 4, 3, 3), (32, 4)),
    ((1, 5, 16, 12), (20, 5, 2, 3), (32, 4)),  # 20 filters of 30 products
    ((3, 2, 6, 6), (3, 2, 3, 3), (32, 4)),  # a partly empty channel block
    ((2, 3, 5, 40), (2, 3, 3, 3), (64, 2)),
    ((2, 8, 7, 9), (16, 8, 3, 3), "columns"),
    ((1, 20, 5, 70), (17, 20, 2, 2), "columns"),  # ragged matrix product tiles
]


def fold_conv2d(x, w, padding, stride=1, dilation=1, groups=1):
    """The documented steps: for each output, acc = fma(w[f, c, ky, kx],
    x[n, c, y*sh + ky*dh - ph, x*sw + kx*dw - pw], acc) in f32 over taps in
    the order (c, ky, kx), from acc = 0 (zeros in the padding); padding,
    stride and dilation an int or a pair (rows, columns); with groups, each
    group's filters over the group's channels."""
    if groups > 1:
        cg, fg = x.shape[1] // groups, w.shape[0] // groups
        return np.concatenate([fold_conv2d(x[:, g * cg:(g + 1) * cg], w[g * fg:(g + 1) * fg], padding, stride, dilation)
                               for g in range(groups)], axis=1)
    (ph, pw), (sh, sw), (dh, dw) = (v if isinstance(v, tuple) else (v, v) for v in (padding, stride, dilation))
    (n, c, h, wd), (f, _, kh, kw) = x.shape, w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh, ow = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    acc = np.zeros((n, f, oh, ow), np.float32)
    for ci in range(c):
        for ky in range(kh):
            for kx in range(kw):
                taps = xp[:, None, ci, ky * dh:ky * dh + (oh - 1) * sh + 1:sh, kx * dw:kx * dw + (ow - 1) * sw + 1:sw]
                acc = fma32(w[None, :, ci, ky, kx, None, None], taps, acc)
    return acc


def conv2d_bound(x, w, padding):
    """(exact, bound) in float64 for conv2d(x, w, padding): each output a sum
    of c*kh*kw products in any order, |fl - exact| <= gamma_K * sum |x||w|
    plus the float64 reference's own error (product_bound's)."""
    _, c, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # n c y x ky kx
    # optimize=True: the contraction through BLAS (the benchmark's shapes
    # take seconds otherwise); any float64 order is within the bound's
    # float64 term.
    exact = np.einsum("ncyxab,fcab->nfyx", windows, w.astype(np.float64), optimize=True)
    magnitude = np.einsum("ncyxab,fcab->nfyx", np.abs(windows), np.abs(w.astype(np.float64)), optimize=True)
    terms = c * kh * kw
    return exact, (terms * U / (1 - terms * U) + terms * 2.0**-53) * magnitude


@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("x_shape,w_shape,path", CONV_SHAPES)
def test_conv2d_is_the_fold_of_fused_steps(padding, x_shape, w_shape, path, monkeypatch):
    r = rng(10 + padding + x_shape[3])
    x = r.standard_normal(x_shape).astype(np.float32)
    w = r.standard_normal(w_shape).astype(np.float32)
    (n, c, h, wd), (f, _, kh, kw) = x_shape, w_shape
    oh, ow = h + 2 * padding - kh + 1, wd + 2 * padding - kw + 1
    by_columns = []
    columns = T._conv2d_by_columns
    monkeypatch.setattr(T, "_conv2d_by_columns", lambda *a: by_columns.append(1) or columns(*a))
    out = Guarded((n, f, oh, ow))
    T.conv2d(tack.array(x), tack.array(w), padding=padding, out=out.array)
    assert bool(by_columns) == (path == "columns")
    if path != "columns":
        assert T._conv_block(ow, f) == path
    got = out.value()
    assert np.array_equal(bits(got), bits(fold_conv2d(x, w, padding)))
    exact, bound = conv2d_bound(x, w, padding)
    assert np.all(np.abs(got - exact) <= bound)
    # The direct kernel in a block of one channel by 32 columns: the same
    # steps whatever the block and whichever way conv2d ran.
    from tack import _core

    single = np.full((n, f, oh, ow), np.nan, np.float32)
    _core.tile_compile(_core.tile_conv2d(padding, 32, 1), "cpu").launch(
        [T._View.of(tack.asarray(x)).arg(), T._View.of(tack.asarray(w)).arg(), T._View.of(tack.asarray(single)).arg(True)])
    assert np.array_equal(bits(got), bits(single))


@pytest.mark.parametrize("w_shape,padding", [((3, 4, 3, 3), 1), ((16, 4, 5, 5), 2)])
def test_conv2d_strided_filters_into_a_contiguous_output(w_shape, padding):
    # Images and filters that are strided views (the matrix product takes a
    # copy of the filters) and an output written where it is, directly and
    # through the product.
    r = rng(13)
    x = r.standard_normal((2, 4, 9, 9)).astype(np.float32)
    w = r.standard_normal(w_shape).astype(np.float32)
    (tx, _), (tw, _) = strided(x), strided(w)
    want = fold_conv2d(x, w, padding)
    out = tack.empty(want.shape)
    assert T.conv2d(tx, tw, padding=padding, out=out) is out
    assert np.array_equal(bits(out.numpy()), bits(want))


# (x shape, w shape, padding, stride, dilation): every one through the
# matrix product (strides, dilations and padding that differs between the
# axes), with few filters and many.
CONV_WINDOWS = [
    ((2, 3, 11, 12), (4, 3, 3, 3), 1, 2, 1),
    ((1, 4, 13, 9), (17, 4, 3, 2), 0, (2, 3), 1),
    ((2, 2, 10, 11), (3, 2, 3, 3), 2, 1, 2),
    ((1, 3, 12, 12), (5, 3, 2, 3), (1, 0), 1, (2, 1)),
    ((1, 2, 9, 16), (2, 2, 3, 3), (0, 2), (3, 1), (1, 3)),
    ((2, 5, 8, 8), (16, 5, 1, 1), 0, 2, 1),  # ResNet's downsampling 1x1
]


@pytest.mark.parametrize("x_shape,w_shape,padding,stride,dilation", CONV_WINDOWS)
def test_conv2d_strides_and_dilations_are_the_fold(x_shape, w_shape, padding, stride, dilation):
    r = rng(15 + x_shape[2])
    x = r.standard_normal(x_shape).astype(np.float32)
    w = r.standard_normal(w_shape).astype(np.float32)
    want = fold_conv2d(x, w, padding, stride, dilation)
    out = Guarded(want.shape)
    T.conv2d(tack.array(x), tack.array(w), padding=padding, stride=stride, dilation=dilation, out=out.array)
    assert np.array_equal(bits(out.value()), bits(want))
    # PyTorch's extents: an input only as large as one dilated window.
    (_, _, kh, kw) = w_shape
    pair = [v if isinstance(v, tuple) else (v, v) for v in (padding, dilation)]
    h, wd = (pair[1][0] * (kh - 1) + 1 - 2 * pair[0][0]), (pair[1][1] * (kw - 1) + 1 - 2 * pair[0][1])
    if h > 0 and wd > 0:
        small = r.standard_normal((1, x_shape[1], h, wd)).astype(np.float32)
        got = T.conv2d(tack.array(small), tack.array(w), padding=padding, stride=stride, dilation=dilation).numpy()
        assert got.shape[2:] == (1, 1)
        assert np.array_equal(bits(got), bits(fold_conv2d(small, w, padding, stride, dilation)))


# (x shape, w shape, groups, padding, stride): depthwise (a group per
# channel) and grouped, directly and through the matrix product.
CONV_GROUPS = [
    ((2, 6, 9, 10), (6, 1, 3, 3), 6, 1, 1),  # depthwise, direct
    ((2, 6, 9, 10), (12, 1, 3, 3), 6, 1, 2),  # two filters per channel, strided
    ((1, 8, 7, 9), (4, 4, 3, 3), 2, 0, 1),
    ((1, 32, 6, 7), (32, 8, 3, 3), 4, 1, 1),  # 8 filters of 72 products per group: direct
    ((2, 16, 6, 7), (64, 8, 3, 3), 2, 1, 1),  # 32 filters of 72 products per group: the product
    ((1, 130, 5, 6), (130, 1, 2, 2), 130, 1, 1),  # more groups than the direct kernel's launches pay for
]


@pytest.mark.parametrize("x_shape,w_shape,groups,padding,stride", CONV_GROUPS)
def test_conv2d_groups_are_the_fold(x_shape, w_shape, groups, padding, stride):
    r = rng(16 + x_shape[1])
    x = r.standard_normal(x_shape).astype(np.float32)
    w = r.standard_normal(w_shape).astype(np.float32)
    want = fold_conv2d(x, w, padding, stride, groups=groups)
    out = Guarded(want.shape)
    T.conv2d(tack.array(x), tack.array(w), padding=padding, stride=stride, groups=groups, out=out.array)
    assert np.array_equal(bits(out.value()), bits(want))


@pytest.mark.parametrize("through_matmul", [False, True])
def test_conv2d_groups_are_one_batch_of_products(through_matmul, monkeypatch):
    # 4 groups of 16 filters: each image's groups are one batch of products,
    # one launch of matmul's batched kernel (the threshold lowered) or of the
    # einsum kernel's fold (by default: the class is not tuned). The fold's
    # bits either way.
    if through_matmul:
        small_products_through_matmul(monkeypatch)
    r = rng(17)
    x = r.standard_normal((2, 64, 9, 9)).astype(np.float32)
    w = r.standard_normal((64, 16, 3, 3)).astype(np.float32)
    calls = matmul_kernel_calls(monkeypatch)
    got = T.conv2d(tack.array(x), tack.array(w), padding=1, groups=4).numpy()
    assert calls == ([(16, 144, 81, True)] * 2 if through_matmul else [])
    assert np.array_equal(bits(got), bits(fold_conv2d(x, w, 1, groups=4)))


def test_conv2d_refuses_bad_windows():
    x, w = tack.zeros((1, 2, 5, 5)), tack.zeros((3, 2, 3, 3))
    with pytest.raises(ValueError, match="stride must be >= 1, not 0"):
        T.conv2d(x, w, stride=0)
    with pytest.raises(ValueError, match=r"dilation must be >= 1, not \(1, 0\)"):
        T.conv2d(x, w, dilation=(1, 0))
    with pytest.raises(ValueError, match="padding must be an integer or a pair of integers"):
        T.conv2d(x, w, padding=(1, 1, 1))
    with pytest.raises(TypeError, match="stride must be an integer, not 1.5"):
        T.conv2d(x, w, stride=(1.5, 1))
    with pytest.raises(ValueError, match=r"a 3x3 filter \(dilation 3x3\) is larger than the padded 5x5 input"):
        T.conv2d(x, w, dilation=3)
    with pytest.raises(ValueError, match="the filters are 0x3: a window needs at least one tap"):
        T.conv2d(x, tack.zeros((3, 2, 0, 3)))
    with pytest.raises(ValueError, match="groups=2 must be positive and divide the 2 channels and the 3 filters"):
        T.conv2d(x, tack.zeros((3, 1, 3, 3)), groups=2)
    with pytest.raises(ValueError, match="x has 2 channels, w 2 per group of 2"):
        T.conv2d(x, tack.zeros((4, 2, 3, 3)), groups=2)
    # No channels: every output an empty sum, +0 (np.einsum's too).
    out = tack.array(np.full((2, 4, 2, 2), np.nan, np.float32))
    T.conv2d(tack.zeros((2, 0, 5, 5)), tack.zeros((4, 0, 3, 3)), stride=2, out=out)
    assert np.array_equal(bits(out.numpy()), bits(np.zeros((2, 4, 2, 2), np.float32)))


def test_conv2d_into_its_own_input():
    # 16 channels in, 16 filters, the same extent out: out=x is computed
    # into a buffer (the matrix product reads every window) and copied.
    r = rng(14)
    x = r.standard_normal((1, 16, 6, 6)).astype(np.float32)
    w = r.standard_normal((16, 16, 3, 3)).astype(np.float32)
    tx = tack.array(x)
    assert T.conv2d(tx, tack.array(w), padding=1, out=tx) is tx
    assert np.array_equal(bits(tx.numpy()), bits(fold_conv2d(x, w, 1)))


# ---------------------------------------------------------------------------
# softmax, layer_norm, rms_norm


def softmax_bound(x, axis):
    """Each term exp(fl(x - m)): the subtraction's rounding moves the exponent
    by |x - m|*u, expf adds at most 1 ulp (2u): e_i <= (|x_i - m| + 2)u. The
    sum of n positive terms in any order: (n - 1)u plus the largest e_j; the
    division: u. Relative to the exact value, times 1.01 for second-order
    terms."""
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    exact = e / e.sum(axis=axis, keepdims=True)
    term = (np.abs(x - m) + 2) * U
    n = x.shape[axis]
    rel = term + term.max(axis=axis, keepdims=True) + (n - 1) * U + U
    return exact, 1.01 * rel * exact


@pytest.mark.parametrize("shape,axis", [((1, 1), -1), ((7, 333), -1), ((5, 6, 70), 1), ((40, 3, 2), 0), ((129,), 0)])
def test_softmax_against_float64(shape, axis):
    x = (rng(20).standard_normal(shape) * 4).astype(np.float32)
    out = Guarded(shape)
    T.softmax(tack.array(x), axis=axis, out=out.array)
    exact, bound = softmax_bound(x, axis)
    assert np.all(np.abs(out.value() - exact) <= bound)


def test_softmax_in_place_and_strided_input():
    x = (rng(21).standard_normal((9, 50)) * 3).astype(np.float32)
    tx, _ = strided(x)
    expected = T.softmax(tx).numpy()
    exact, bound = softmax_bound(x, -1)
    assert np.all(np.abs(expected - exact) <= bound)
    inplace = tack.array(x)
    T.softmax(inplace, out=inplace)
    assert np.array_equal(bits(inplace.numpy()), bits(expected))


# Row length -> (block width, in SIMD lanes) that tile.py's _row_block picks.
NARROW = {1: (1, True), 3: (4, True), 4: (4, True), 7: (8, True), 15: (16, True), 16: (16, True), 17: (32, True),
          31: (32, True), 32: (32, False)}
SOFTMAX_NARROW = {**NARROW, 17: (32, False), 31: (32, False)}
RMS_NORM_NARROW = {**SOFTMAX_NARROW, 16: (16, False)}


@pytest.mark.parametrize("fn", ["softmax", "layer_norm", "rms_norm"])
@pytest.mark.parametrize("cols", list(NARROW))
def test_narrow_rows_give_the_interpreters_bits(fn, cols):
    # Rows of at most 16 columns run in one block as wide as the row
    # rounded up to a power of two, consecutive rows in the CPU's SIMD lanes
    # (tile.py, _row_block), except rms_norm's of 16; layer_norm's rows of
    # 17 to 31 columns in one block of 32 in the lanes, softmax's and
    # rms_norm's one row at a time; 32 one row at a time. No choice changes
    # a bit of the 32-column kernel's result, which the interpreter gives.
    from tack import _core

    r = rng(33 + cols)
    x = (r.standard_normal((301, cols)) * 3).astype(np.float32)
    g = r.standard_normal(cols).astype(np.float32)
    b = r.standard_normal(cols).astype(np.float32)
    eps = float(np.float32(1e-5))
    want = np.full((301, cols), np.nan, np.float32)
    views = [tack.asarray(x)] + ([tack.asarray(g)] if fn != "softmax" else []) + ([tack.asarray(b)] if fn == "layer_norm" else [])
    views.append(tack.asarray(want))
    kernel = {"softmax": _core.tile_softmax, "layer_norm": lambda: _core.tile_layer_norm(eps),
              "rms_norm": lambda: _core.tile_rms_norm(eps)}[fn]()
    _core.tile_interpret(kernel, [(v, list(v.shape), [s // 4 for s in v.numpy().strides], 0, i == len(views) - 1)
                                  for i, v in enumerate(views)])
    got = {"softmax": lambda: T.softmax(tack.array(x)),
           "layer_norm": lambda: T.layer_norm(tack.array(x), tack.array(g), tack.array(b), eps=1e-5),
           "rms_norm": lambda: T.rms_norm(tack.array(x), tack.array(g), eps=1e-5)}[fn]().numpy()
    assert np.array_equal(bits(got), bits(want))
    width, lanes = {"softmax": SOFTMAX_NARROW, "layer_norm": NARROW, "rms_norm": RMS_NORM_NARROW}[fn][cols]
    assert any(key[0][0] == fn and key[0][-1] == width and key[1] == lanes for key in T._compiled), (width, lanes)


def _row_call(fn, x, r):
    """tack.tile's `fn` over the rows of x (weights from r), as a function
    of nothing, and the float64 result with its error bound."""
    n = x.shape[-1]
    g, b = (r.standard_normal(n).astype(np.float32) for _ in range(2))
    tx, tg, tb, out = tack.array(x), tack.array(g), tack.array(b), tack.empty(x.shape)
    call = {"softmax": lambda: T.softmax(tx, out=out), "layer_norm": lambda: T.layer_norm(tx, tg, tb, out=out),
            "rms_norm": lambda: T.rms_norm(tx, tg, out=out)}[fn]
    eps = np.float64(np.float32(1e-5))
    exact = softmax_bound(x, -1) if fn == "softmax" else norm_bound(x, g, b, eps, rms=fn == "rms_norm")
    return (lambda: call().numpy().copy()), exact


@pytest.mark.parametrize("fn", ["softmax", "layer_norm", "rms_norm"])
@pytest.mark.parametrize("lanes_cost", [1.0, 3.0])
def test_narrow_rows_take_the_form_measured_faster(fn, lanes_cost, monkeypatch):
    # The first call over narrow rows of at least _ROW_FORM_TIMED elements
    # runs both forms (in the SIMD lanes, one row at a time) and times them
    # (tile.py, _row_form); that function and row width then run the faster
    # one. The clock is scripted: each launch costs `lanes_cost` in the
    # lanes, 2 one row at a time. Both forms give the same bits.
    r = rng(91)
    x = (r.standard_normal((600, 8)) * 3).astype(np.float32)
    monkeypatch.setattr(T, "_ROW_FORM_TIMED", 4096)
    monkeypatch.setattr(T, "_row_forms", {})
    now = [0.0]
    monkeypatch.setattr(T, "_clock", lambda: now[0])
    chosen = []
    kernel = T._kernel

    def costed(fn_, device, key, make, binding=None, lanes=None):
        chosen.append(lanes)
        now[0] += lanes_cost if lanes else 2.0
        return kernel(fn_, device, key, make, binding, lanes)

    monkeypatch.setattr(T, "_kernel", costed)
    call, (exact, bound) = _row_call(fn, x, r)
    first = call()
    assert np.all(np.abs(first - exact) <= bound)
    faster = lanes_cost < 2.0
    # Each form once untimed (compiling), then twice each, alternating.
    assert sorted(chosen) == [False] * 3 + [True] * 3, chosen
    assert T._row_forms == {(fn, 8): faster}
    chosen.clear()
    second = call()
    assert chosen == [faster]
    assert np.array_equal(bits(first), bits(second))
    # The other form, forced, gives the same bits.
    T._row_forms[(fn, 8)] = not faster
    assert np.array_equal(bits(call()), bits(first))
    # Rows side by side run in the lanes whatever was measured.
    chosen.clear()
    T._row_forms[(fn, 8)] = False
    getattr(T, fn)(*([tack.array(np.ascontiguousarray(x.T))] + ([tack.array(np.ones(8, np.float32))] if fn != "softmax" else [])), axis=0)
    assert chosen == [True]


@pytest.mark.parametrize("fn", ["softmax", "layer_norm", "rms_norm"])
def test_narrow_rows_in_place_are_not_timed(fn, monkeypatch):
    # An out over its input would be computed again from its own result by
    # each timed run: such a call takes the rule's form once, and gives the
    # bits of the same call into a separate out.
    monkeypatch.setattr(T, "_ROW_FORM_TIMED", 4096)
    monkeypatch.setattr(T, "_row_forms", {})
    r = rng(93)
    x = (r.standard_normal((600, 8)) * 3).astype(np.float32)
    g, b = (r.standard_normal(8).astype(np.float32) for _ in range(2))
    weights = [tack.array(w) for w in [g, b][:{"softmax": 0, "rms_norm": 1}.get(fn, 2)]]
    f = getattr(T, fn)
    apart = f(tack.array(x), *weights).numpy()
    eps = np.float64(np.float32(1e-5))
    exact, bound = softmax_bound(x, -1) if fn == "softmax" else norm_bound(x, g, b, eps, rms=fn == "rms_norm")
    assert np.all(np.abs(apart - exact) <= bound)
    assert (fn, 8) in T._row_forms  # a call of this size apart is timed...
    monkeypatch.setattr(T, "_row_forms", {})
    inplace = tack.array(x)
    f(inplace, *weights, out=inplace)
    assert T._row_forms == {}  # ...but not the one in place
    assert np.array_equal(bits(inplace.numpy()), bits(apart))


@pytest.mark.parametrize("autotune", ["1", "0"])
def test_narrow_rows_below_the_timed_size_or_untuned_take_the_rule(autotune, monkeypatch):
    # Fewer elements than _ROW_FORM_TIMED, or TACK_TILE_AUTOTUNE=0: the
    # rule's form (_row_block), nothing timed or kept.
    monkeypatch.setenv("TACK_TILE_AUTOTUNE", autotune)
    monkeypatch.setattr(T, "_row_forms", {})
    if autotune == "0":
        monkeypatch.setattr(T, "_ROW_FORM_TIMED", 16)
    r = rng(92)
    x = (r.standard_normal((300, 16)) * 3).astype(np.float32)
    for fn in ("softmax", "layer_norm", "rms_norm"):
        call, (exact, bound) = _row_call(fn, x, r)
        assert np.all(np.abs(call() - exact) <= bound)
    assert T._row_forms == {}


@pytest.mark.parametrize("fn", ["softmax", "layer_norm", "rms_norm", "scan"])
def test_rows_side_by_side_run_in_the_lanes(fn, monkeypatch):
    # Along axis 0 of a row-major array a row's elements are a row length
    # apart and consecutive rows are neighbours: the rows run in the CPU's
    # SIMD lanes (tile.py, _rows_side_by_side), with the bits of the same
    # rows made contiguous and run one at a time (np.cumsum's for scan).
    r = rng(71)
    x = (r.standard_normal((45, 70)) * 3).astype(np.float32)
    f = getattr(T, fn)
    chosen = []
    kernel = T._kernel

    def recording(fn_, device, key, make, binding=None, lanes=None):
        chosen.append(lanes)
        return kernel(fn_, device, key, make, binding, lanes)

    monkeypatch.setattr(T, "_kernel", recording)
    got = f(tack.array(x), axis=0).numpy()
    assert chosen == [True], chosen
    f(tack.array(x), axis=1)
    assert chosen[1] is False, chosen
    if fn == "scan":
        assert np.array_equal(bits(got), bits(np.cumsum(x, axis=0, dtype=np.float32)))
    want = f(tack.array(np.ascontiguousarray(x.T)), axis=1).numpy().T
    assert np.array_equal(bits(got), bits(want))
    # A transposed view is the same case; its rows along axis 1 are apart.
    view = f(tack.asarray(np.ascontiguousarray(x.T).T), axis=0).numpy()
    assert np.array_equal(bits(view), bits(want))
    assert T._rows_side_by_side(tack.asarray(x.T), 1, "cpu") and not T._rows_side_by_side(tack.asarray(x), 1, "cpu")


def norm_bound(x, g, b, eps, rms):
    """Row by row, in float64: the mean's error dm <= (n + 1)u * mean|x|
    (n - 1 sums, a division); d = x - mean errs by dd <= dm + u|d|; the sum
    of squares by sum(2|d|dd + dd**2) + (n + 1)u * sum d**2; var + eps by
    that / n plus 2u(var + eps); scale = 1/sqrt(.) by half its relative
    error plus 2u; y = d*scale*g + b by |scale*g|*dd + |d*scale*g|(rel(scale)
    + 2u) + u|y|. Times 1.1 for second-order terms. rms_norm: the mean is 0
    and d = x."""
    x = x.astype(np.float64)
    n = x.shape[1]
    mean = np.zeros((x.shape[0], 1)) if rms else x.mean(axis=1, keepdims=True)
    dm = np.zeros_like(mean) if rms else (n + 1) * U * np.abs(x).mean(axis=1, keepdims=True)
    d = x - mean
    dd = dm + (0 if rms else U * np.abs(d))
    squares = (d * d).sum(axis=1, keepdims=True)
    dsq = (2 * np.abs(d) * dd + dd * dd).sum(axis=1, keepdims=True) + (n + 1) * U * squares
    var = squares / n
    dvar = dsq / n + 2 * U * (var + eps)
    scale = 1 / np.sqrt(var + eps)
    rel_scale = 0.5 * dvar / (var + eps) + 2 * U
    y = d * scale * g + (0 if rms else b)
    err = np.abs(scale * g) * dd + np.abs(d * scale * g) * (rel_scale + 2 * U) + U * np.abs(y)
    return y, 1.1 * err


@pytest.mark.parametrize("shape", [(1, 1), (13, 777), (4, 31), (0, 5)])
def test_layer_norm_against_float64(shape):
    r = rng(30)
    x = (r.standard_normal(shape) * 3 + 5).astype(np.float32)
    g = r.standard_normal(shape[1]).astype(np.float32)
    b = r.standard_normal(shape[1]).astype(np.float32)
    out = Guarded(shape)
    T.layer_norm(tack.array(x), tack.array(g), tack.array(b), eps=1e-5, out=out.array)
    exact, bound = norm_bound(x, g, b, np.float64(np.float32(1e-5)), rms=False)
    assert np.all(np.abs(out.value() - exact) <= bound)


def test_layer_norm_along_axis_0_with_defaults():
    x = rng(31).standard_normal((50, 6)).astype(np.float32)
    got = T.layer_norm(tack.array(x), axis=0).numpy()
    exact, bound = norm_bound(x.T, np.ones(50), np.zeros(50), np.float64(np.float32(1e-5)), rms=False)
    assert np.all(np.abs(got - exact.T) <= bound.T)


@pytest.mark.parametrize("shape", [(1, 1), (13, 777), (3, 2, 40)])
def test_rms_norm_against_float64(shape):
    r = rng(32)
    x = r.standard_normal(shape).astype(np.float32)
    g = r.standard_normal(shape[-1]).astype(np.float32)
    tx, _ = strided(x)
    out = Guarded(shape)
    T.rms_norm(tx, tack.array(g), eps=1e-6, out=out.array)
    rows = x.reshape(-1, shape[-1])
    exact, bound = norm_bound(rows, g, None, np.float64(np.float32(1e-6)), rms=True)
    assert np.all(np.abs(out.value().reshape(rows.shape) - exact) <= bound)


# Rows along one axis of an array with axes of one element beside it: the
# other axes merge into one run of rows where the strides allow (an axis of
# one element merges with any), the run stepping by the stride of its
# innermost axis of more than one. Taking the stride of an axis of one
# element instead read overlapping rows: softmax over (6, 61, 1) along
# axis 1 gave values near 1e36.
@pytest.mark.parametrize("base,index,axis", [
    ((6, 61, 1), (), 1),
    ((7, 1, 2), (), 2),
    ((7, 1, 2), (), 1),
    ((7, 1, 2), (), 0),
    ((6, 1, 5, 4), (slice(None, None, 2),), 3),
    ((4, 3, 1, 9), (slice(None), slice(None, None, -1)), 1),
])
def test_rows_beside_axes_of_one_element(base, index, axis):
    x0 = (rng(60).standard_normal(base) * 3).astype(np.float32)
    x, tx = x0[index], tack.array(x0)[index]
    n = x.shape[axis]
    assert np.array_equal(T.scan(tx, axis=axis).numpy(), np.cumsum(x, axis=axis, dtype=np.float32))
    order = np.argsort(x, axis=axis, kind="stable")
    assert np.array_equal(T.argsort(tx, axis=axis).numpy(), order)
    assert np.array_equal(bits(T.sort(tx, axis=axis).numpy()), bits(np.take_along_axis(x, order, axis=axis)))
    k = min(n, 3)
    values, positions = T.topk(tx, k, axis=axis)
    largest = np.take(np.argsort(-x, axis=axis, kind="stable"), range(k), axis=axis)
    assert np.array_equal(positions.numpy(), largest)
    assert np.array_equal(bits(values.numpy()), bits(np.take_along_axis(x, largest, axis=axis)))
    exact, bound = softmax_bound(x, axis)
    assert np.all(np.abs(T.softmax(tx, axis=axis).numpy() - exact) <= bound)
    rows = np.moveaxis(x, axis, -1).reshape(-1, n)
    eps = np.float64(np.float32(1e-5))
    for rms in (False, True):
        got = (T.rms_norm(tx, axis=axis) if rms else T.layer_norm(tx, axis=axis)).numpy()
        exact, bound = norm_bound(rows, np.ones(n), None if rms else np.zeros(n), eps, rms=rms)
        assert np.all(np.abs(np.moveaxis(got, axis, -1).reshape(rows.shape) - exact) <= bound)


# ---------------------------------------------------------------------------
# scan


@pytest.mark.parametrize("shape,axis", [((1, 1), -1), ((6, 1000), -1), ((300, 7), 0), ((3, 4, 5), 1), ((0, 3), 1)])
def test_scan_is_cumsum_bit_for_bit(shape, axis):
    x = rng(40).standard_normal(shape).astype(np.float32)
    out = Guarded(shape)
    T.scan(tack.array(x), axis=axis, out=out.array)
    # Left to right in f32, as np.cumsum's accumulate; the kernel starts at
    # +0, so a leading -0 becomes +0 (equal as values, which is compared).
    assert np.array_equal(out.value(), np.cumsum(x, axis=axis, dtype=np.float32))


def test_axis_none_runs_over_the_elements_in_row_major_order():
    # np.sort, np.argsort and np.cumsum read axis=None as the flattened
    # array, a transposed or stepped view in its own (logical) order.
    x = tricky_rows(6, 45, 52).reshape(3, 2, 45)
    finite = np.nan_to_num(x, nan=1.5, posinf=2.5, neginf=-2.5)
    views = (lambda a: a, lambda a: a.transpose(2, 0, 1), lambda a: a[:, ::-1, 1::3])
    for view in views:
        v, t = view(x), view(tack.array(x))
        order = np.argsort(v, axis=None, kind="stable")
        assert np.array_equal(T.argsort(t, axis=None).numpy(), order)
        assert np.array_equal(bits(T.sort(t, axis=None).numpy()), bits(v.reshape(-1)[order]))
        want = np.cumsum(view(finite), axis=None, dtype=np.float32)
        assert np.array_equal(T.scan(view(tack.array(finite)), axis=None).numpy(), want)
    positions = Guarded((270,), np.int64)
    T.argsort(tack.array(x), axis=None, out=positions.array)
    assert np.array_equal(positions.value(), np.argsort(x, axis=None, kind="stable"))


def test_exclusive_scan():
    x = rng(41).standard_normal((4, 65)).astype(np.float32)
    got = T.scan(tack.array(x), exclusive=True).numpy()
    inclusive = np.cumsum(x, axis=1, dtype=np.float32)
    assert np.array_equal(got[:, 1:], inclusive[:, :-1]) and np.all(got[:, 0] == 0)


# ---------------------------------------------------------------------------
# sort, argsort, topk (NaN above everything, -0 == +0, ties by position)


def tricky_rows(rows, cols, seed):
    r = rng(seed)
    x = r.integers(-4, 5, size=(rows, cols)).astype(np.float32)  # many ties
    x[r.random((rows, cols)) < 0.1] = np.nan
    x[r.random((rows, cols)) < 0.1] = -0.0
    x[r.random((rows, cols)) < 0.05] = np.inf
    x[r.random((rows, cols)) < 0.05] = -np.inf
    return x


# Rows of one run (up to 32), of exact and ragged multiples of it, and of
# 4097 (eight merge passes over a row padded to 8192).
@pytest.mark.parametrize("shape,axis", [((1, 1), -1), ((9, 100), -1), ((70, 5), 0), ((2, 3, 33), -1), ((3, 32), -1),
                                        ((3, 64), -1), ((2, 65), -1), ((2, 1000), -1), ((1, 4097), -1)])
def test_sort_and_argsort_are_stable_numpy_sorts(shape, axis):
    x = tricky_rows(int(np.prod(shape[:-1])), shape[-1], 50).reshape(shape)
    order = np.argsort(x, axis=axis, kind="stable")
    values = Guarded(shape)
    positions = Guarded(shape, np.int64)
    T.sort(tack.asarray(x), axis=axis, out=values.array)
    T.argsort(tack.asarray(x), axis=axis, out=positions.array)
    assert np.array_equal(positions.value(), order)
    assert np.array_equal(bits(values.value()), bits(np.take_along_axis(x, order, axis=axis)))



def test_sort_of_distinct_values_in_many_passes_is_numpys():
    # Distinct normal values, rows strided inside a larger array: every
    # element's place comes from the binary searches alone (no ties).
    r = rng(77)
    base = r.standard_normal((5, 2 * 3000)).astype(np.float32)
    x = base[:, ::2]
    got = T.sort(tack.asarray(x))
    assert np.array_equal(bits(got.numpy()), bits(np.sort(x, axis=1, kind="stable")))
    assert np.array_equal(T.argsort(tack.asarray(x)).numpy(), np.argsort(x, axis=1, kind="stable"))

def topk_oracle(x, k):
    """Per row: NaN first, then decreasing value (-0 == +0), ties by lower
    position (lexsort is stable); rows shorter than k padded with
    (-inf, 2**63 - 1)."""
    values = np.full((x.shape[0], k), -np.inf, np.float32)
    positions = np.full((x.shape[0], k), np.iinfo(np.int64).max, np.int64)
    for r, row in enumerate(x):
        nan = np.isnan(row)
        order = np.lexsort((np.where(nan, 0, -row.astype(np.float64)), ~nan))[:k]
        values[r, : len(order)] = row[order]
        positions[r, : len(order)] = order
    return values, positions


# Both of topk's algorithms: the reference kernel's bitonic networks over 1,
# 4, 8, 16 and 32 entries for k <= 32 (lib::topk), and above the tournament of
# descending runs of 32 merged in pairs keeping 32, 64, 128 or 256 entries
# (tile.py, _TopKTournament): one run, several passes, rows shorter than k,
# rows not a multiple of a run.
@pytest.mark.parametrize("rows,cols,k", [(1, 1, 1), (6, 200, 5), (3, 4, 7), (5, 0, 2), (4, 33, 1), (7, 130, 3),
                                         (5, 77, 4), (3, 300, 8), (2, 123, 12), (2, 99, 20), (3, 10, 40),
                                         (4, 16, 9), (3, 1000, 16), (2, 1000, 33), (3, 4999, 100), (2, 0, 17),
                                         (3, 700, 32), (2, 31, 24), (2, 200, 64), (2, 1000, 65),
                                         (3, 10, 70)])
def test_topk_with_ties_nan_and_short_rows(rows, cols, k):
    x = tricky_rows(rows, cols, 60 + k)
    values, positions = Guarded((rows, k)), Guarded((rows, k), np.int64)
    T.topk(tack.asarray(x), k, out=(values.array, positions.array))
    want_v, want_i = topk_oracle(x, k)
    assert np.array_equal(positions.value(), want_i)
    assert np.array_equal(bits(values.value()), bits(want_v))


# The tournament's prefilter (tile.py, _TopKTournament; lib/topk.h): rows
# wide against k keep only the entries at or above a threshold, compacted
# in order, before the merges. Distinct values, sorted rows both ways,
# rows of ties, NaN and infinities take it; rows of one value leave every
# entry at the threshold and run the tournament on the whole row instead,
# and rows narrower than 4 times the tournament's `keep` never try. Rows
# of more than 1024 columns take it from k = 5, of more than 512 from k =
# 9, of more than 128 from k = 17; the narrower ones, and k up to 4, the
# reference kernel's networks, except fewer than 16 rows of 16384 columns
# or more from k = 2. The threshold's rank (tile.py, _topk_rank)
# is 1 here at k = 5 to 8, 2 at k = 9 to 16 on rows of 2048 and more, 4
# at k = 20 (4096 columns) and k = 12 (1024), 8 at k = 64 (2048), 16 at
# k = 40 (1000) and 65 to 130, 32 at k = 300.
@pytest.mark.parametrize("kind,rows,cols,k,prefiltered", [
    ("normal", 5, 3000, 70, True), ("normal", 3, 5000, 300, True), ("normal", 2, 1100, 100, True),
    ("ascending", 3, 2000, 65, True), ("descending", 3, 2000, 65, True), ("tricky", 3, 4999, 130, True),
    ("nan", 3, 2500, 80, True), ("-inf", 2, 2000, 90, True), ("equal", 3, 2000, 100, False),
    ("normal", 2, 250, 65, False), ("normal", 3, 4096, 20, True), ("descending", 2, 2048, 64, True),
    ("normal", 3, 1000, 40, True), ("normal", 3, 200, 20, True), ("normal", 3, 100, 20, False),
    ("strided", 3, 3000, 100, True), ("normal", 3, 2048, 12, True), ("ascending", 2, 3000, 9, True),
    ("descending", 2, 5000, 16, True), ("nan", 3, 3000, 10, True), ("tricky", 2, 4096, 15, True),
    ("normal", 3, 1024, 12, True), ("equal", 2, 2048, 16, False), ("normal", 2, 500, 16, False),
    ("normal", 2, 4096, 8, True), ("descending", 2, 2100, 5, True), ("tricky", 3, 3000, 7, True),
    ("normal", 2, 4096, 4, False), ("normal", 3, 1024, 6, False), ("normal", 1, 20000, 3, True),
    ("tricky", 4, 16384, 2, True), ("normal", 16, 16384, 4, False), ("normal", 3, 20000, 1, False)])
def test_topk_prefilter_keeps_the_first_k(kind, rows, cols, k, prefiltered):
    r = rng(cols + k)
    x = r.standard_normal((rows, cols)).astype(np.float32)
    if kind in ("ascending", "descending"):
        x = np.sort(x, axis=1)
        if kind == "descending":
            x = x[:, ::-1].copy()
    elif kind == "tricky":
        x = tricky_rows(rows, cols, 5)
    elif kind == "nan":
        x[r.random((rows, cols)) < 0.3] = np.nan  # more NaNs than k
    elif kind == "-inf":
        x[r.random((rows, cols)) < 0.5] = -np.inf
    elif kind == "equal":
        x[:] = 2.5
    elif kind == "strided":  # reversed and every other column of a wider array
        x = r.standard_normal((rows, 2 * cols)).astype(np.float32)[:, ::-2]
    values, positions = Guarded((rows, k)), Guarded((rows, k), np.int64)
    before = T._TopKTournament.prefiltered
    T.topk(tack.asarray(x), k, out=(values.array, positions.array))
    assert (T._TopKTournament.prefiltered > before) == prefiltered
    want_v, want_i = topk_oracle(x, k)
    assert np.array_equal(positions.value(), want_i)
    assert np.array_equal(bits(values.value()), bits(want_v))


@pytest.mark.parametrize("kind,k,narrowed", [("normal", 256, True), ("nan", 256, True), ("tricky", 250, None),
                                             ("normal", 200, False), ("normal", 128, False)])
def test_topk_threshold_narrowed_at_a_higher_rank(kind, k, narrowed):
    # 300 rows of 4096 normal values: at k = 256 the threshold at rank 16
    # leaves some row more than 512 entries (rows of 1024 for the
    # tournament) and the one at rank 64 fewer than 512 in every row; at
    # k = 200 rank 16 leaves rows of 512 already, and at k = 128 (keep 128)
    # no second threshold is tried. Rows of ties and infinities (tricky)
    # take either. Every way the first k are NumPy's.
    r = rng(k + len(kind))
    x = r.standard_normal((300, 4096)).astype(np.float32)
    if kind == "tricky":
        x = tricky_rows(300, 4096, 9)
    elif kind == "nan":
        x[r.random(x.shape) < 0.02] = np.nan  # 80 NaNs a row, among the first k
    before, prefiltered = T._TopKTournament.narrowed, T._TopKTournament.prefiltered
    values, positions = T.topk(tack.asarray(x), k)
    assert T._TopKTournament.prefiltered == prefiltered + 1
    assert narrowed is None or (T._TopKTournament.narrowed > before) == narrowed
    want_v, want_i = topk_oracle(x, k)
    assert np.array_equal(positions.numpy(), want_i)
    assert np.array_equal(bits(values.numpy()), bits(want_v))


def test_topk_compiles_one_kernel_per_network(monkeypatch):
    # k = 17 .. 32 run the 32-entry network's kernel, k = 9 .. 16 the
    # 16-entry one's, k = 5 .. 8 the 8-entry one's; k = 33 .. 64 the
    # tournament (the 64-entry network is not run: tile.py, _TOPK_NETWORK);
    # each k's result is NumPy's.
    tournament = []
    launch = T._TopKTournament.launch
    monkeypatch.setattr(T._TopKTournament, "launch", lambda self, args: (tournament.append(self.k), launch(self, args))[1])
    x = tricky_rows(4, 70, 3)
    for k in (9, 13, 16, 5, 8, 17, 29, 32, 33, 64):
        v, i = T.topk(tack.asarray(x), k)
        want_v, want_i = topk_oracle(x, k)
        assert np.array_equal(i.numpy(), want_i) and np.array_equal(bits(v.numpy()), bits(want_v)), k
    networks = {key[0][1] for key in T._compiled if key[0][0] == "topk" and key[-1] == "cpu"}
    assert {8, 16, 32} <= networks and not networks & {5, 9, 13, 17, 29, 33, 64}, networks
    assert tournament == [33, 64]


def test_topk_along_axis_0_and_argpartition_agreement():
    x = rng(61).standard_normal((500, 3)).astype(np.float32)  # distinct values
    v, i = T.topk(tack.array(x), 10, axis=0)
    assert v.shape == (10, 3) and i.shape == (10, 3)
    for c in range(3):
        top = np.argpartition(-x[:, c], 10)[:10]
        assert set(i.numpy()[:, c]) == set(top)
        assert np.array_equal(v.numpy()[:, c], np.sort(x[top, c])[::-1])


def test_topk_of_a_long_vector():
    # One row: k = 1 by the network, k = 2 to 4 by the tournament (a single
    # row would run the network in one lane), above as for any wide row.
    x = rng(62).standard_normal(100_000).astype(np.float32)
    x[::997] = np.nan
    for k in (1, 3, 4, 8, 40):
        v, i = T.topk(tack.array(x), k)
        want_v, want_i = topk_oracle(x[None], k)
        assert np.array_equal(i.numpy(), want_i[0]) and np.array_equal(bits(v.numpy()), bits(want_v[0])), k


def test_topk_k_zero():
    v, i = T.topk(tack.zeros((3, 4)), 0)
    assert v.shape == (3, 0) and i.shape == (3, 0)


# ---------------------------------------------------------------------------
# gather and scatter


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_like_take_with_out_of_range_zeros(axis):
    a = rng(70).standard_normal((12, 45)).astype(np.float32)
    n = a.shape[axis]
    idx = np.array([3, 0, n - 1, n, -1, 7, 3], np.int64)
    shape = list(a.shape)
    shape[axis] = len(idx)
    out = Guarded(tuple(shape))
    ta, _ = strided(a)
    T.gather(ta, idx, axis=axis, out=out.array)
    inside = (idx >= 0) & (idx < n)
    expected = np.take(a, np.where(inside, idx, 0), axis=axis)
    mask_shape = [1, 1]
    mask_shape[axis] = len(idx)
    expected = np.where(inside.reshape(mask_shape), expected, 0)
    assert np.array_equal(bits(out.value()), bits(expected.astype(np.float32)))


def scattered(out, src, idx, axis):
    """NumPy's out[idx] = src along `axis` of a copy of out, indices outside
    the axis skipped."""
    expected = out.copy()
    for s, i in enumerate(idx):
        if 0 <= i < out.shape[axis]:
            if axis == 0:
                expected[i] = src[s]
            else:
                expected[:, i] = src[:, s]
    return expected


@pytest.mark.parametrize("order", ["C", "F"])
def test_gathers_along_the_inner_axis_copy_blocks_across_the_rows(order, monkeypatch):
    # Along a matrix's inner axis gather's and scatter's rows are strided
    # columns; on the CPU they run with the launch nest swapped, a block of
    # every row at a time (tile.py, _across_rows). np.take and NumPy's fancy
    # assignment are the oracles, in both forms.
    r = rng(72)
    a = np.asarray(r.standard_normal((21, 30)).astype(np.float32), order=order)
    inner = 1 if order == "C" else 0
    chosen = []
    kernel = T._kernel

    def recording(fn_, device, key, make, binding=None, lanes=None):
        chosen.append("across" in key)
        return kernel(fn_, device, key, make, binding, lanes)

    monkeypatch.setattr(T, "_kernel", recording)
    for axis in (0, 1):
        n = a.shape[axis]
        idx = np.array([5, 0, n - 1, n, 2, 17, -3, 9, 11], np.int64)
        inside = (idx >= 0) & (idx < n)
        shape = list(a.shape)
        shape[axis] = len(idx)
        gathered = np.full(shape, np.nan, np.float32, order=order)  # laid out as a
        T.gather(tack.asarray(a), idx, axis=axis, out=tack.asarray(gathered))
        got = gathered
        want = np.take(a, np.where(inside, idx, 0), axis=axis)
        want = np.where(inside.reshape([-1, 1] if axis == 0 else [1, -1]), want, 0)
        assert np.array_equal(bits(got), bits(want)), axis
        target = np.asarray(r.standard_normal(a.shape).astype(np.float32), order=order)
        src = np.take(a, np.arange(len(idx)) % 3, axis=axis)
        expected = scattered(target, src, idx, axis)
        out = tack.asarray(target)
        T.scatter(tack.asarray(np.asarray(src, order=order)), idx, out, axis=axis)
        assert np.array_equal(bits(out.numpy()), bits(expected)), axis
        assert chosen[-2:] == [axis == inner] * 2, (axis, chosen)


def test_gather_1d():
    a = np.arange(10, dtype=np.float32)
    assert np.array_equal(T.gather(tack.array(a), tack.array(np.array([9, 2, 2], np.int64))).numpy(), [9, 2, 2])


@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_leaves_unnamed_elements(axis):
    r = rng(71)
    out_np = r.standard_normal((10, 8)).astype(np.float32)
    idx = np.array([4, 0, 12, -2, 7], np.int64)
    shape = [10, 8]
    shape[axis] = len(idx)
    src = r.standard_normal(shape).astype(np.float32)
    expected = scattered(out_np, src, idx, axis)
    out = tack.array(out_np)
    assert T.scatter(tack.array(src), idx, out, axis=axis) is out
    assert np.array_equal(bits(out.numpy()), bits(expected))


def test_scatter_refuses_duplicate_indices():
    with pytest.raises(ValueError, match="twice"):
        T.scatter(tack.zeros((2, 3)), [1, 1], tack.zeros((4, 3)))


# ---------------------------------------------------------------------------
# The Python layer: caching, dtypes, devices


def test_second_call_does_not_recompile():
    x = tack.array(rng(80).standard_normal((5, 9)).astype(np.float32))
    T.softmax(x)
    before = T._cache_size()
    T.softmax(x)
    T.softmax(tack.array(np.ones((31, 12), np.float32)))  # rows of 9 and 12: one block of 16
    assert T._cache_size() == before
    T.layer_norm(x, eps=0.00123)  # a configuration no other test compiles
    assert T._cache_size() == before + 1
    T.layer_norm(tack.array(np.ones((300, 12), np.float32)), tack.array(np.ones(12, np.float32)), eps=0.00123)
    assert T._cache_size() == before + 1
    # Rows of 32 columns or more run one at a time in blocks of 32: one more
    # form, once.
    T.layer_norm(tack.array(np.ones((3, 300), np.float32)), tack.array(np.ones(300, np.float32)), eps=0.00123)
    T.layer_norm(tack.array(np.ones((7, 32), np.float32)), tack.array(np.ones(32, np.float32)), eps=0.00123)
    assert T._cache_size() == before + 2


def test_dtype_and_shape_errors():
    with pytest.raises(TypeError, match="matmul: a is .*f64"):
        T.matmul(tack.zeros((2, 2), dtype=tack.f64), tack.zeros((2, 2)))
    with pytest.raises(ValueError, match="do not align"):
        T.matmul(tack.zeros((2, 3)), tack.zeros((2, 3)))
    with pytest.raises(ValueError, match="out has shape"):
        T.softmax(tack.zeros((2, 3)), out=tack.zeros((3, 2)))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        T.scan(tack.zeros((2, 3)), axis=2)
    # Arrays of vectors are refused by their element type, as f64 is.
    with pytest.raises(TypeError, match=r"softmax: x is tack.array\[vec3 of f32, \(4,\)\]; the reference kernel takes f32"):
        T.softmax(tack.zeros(4, dtype=tack.vec3f))
    with pytest.raises(TypeError, match=r"softmax: out is tack.array\[vec3 of f32, \(4,\)\]; it must hold f32"):
        T.softmax(tack.zeros(4), out=tack.zeros(4, dtype=tack.vec3f))
    with pytest.raises(TypeError, match=r"topk: out\[1\] is .*f32.*; it must hold i64"):
        T.topk(tack.zeros((2, 4)), 2, out=(tack.zeros((2, 2)), tack.zeros((2, 2))))
    # What is not an array, or not a pair, named with the function.
    with pytest.raises(TypeError, match="tack.tile.scatter: out: asarray: a NoneType has no memory to share"):
        T.scatter(tack.zeros((3, 5)), [0, 1, 2], None)
    with pytest.raises(TypeError, match=r"tack.tile.topk: out must be a \(values, positions\) pair, not tack.array"):
        T.topk(tack.zeros((2, 4)), 2, out=tack.zeros((2, 2)))
    with pytest.raises(TypeError, match=r"tack.tile.topk: out must be a \(values, positions\) pair, not \(1, 2, 3\)"):
        T.topk(tack.zeros((2, 4)), 2, out=(1, 2, 3))
    # k beyond 64 bits: an extent no array can have.
    with pytest.raises(ValueError, match="an array extent must be an integer below 2"):
        T.topk(tack.zeros((2, 4)), 2**63)


def test_integer_arguments_are_not_truncated():
    # k, axis and padding are integers (operator.index, as NumPy takes
    # axes): a float is refused, not truncated to the int below it.
    x = tack.zeros((3, 4))
    with pytest.raises(TypeError, match=r"topk: k must be an integer, not 2.5"):
        T.topk(x, 2.5)
    with pytest.raises(TypeError, match=r"softmax: axis must be an integer, not 1.0"):
        T.softmax(x, axis=1.0)
    with pytest.raises(TypeError, match=r"gather: axis must be an integer, not '0'"):
        T.gather(x, [0], axis="0")
    with pytest.raises(TypeError, match=r"conv2d: padding must be an integer, not 1.5"):
        T.conv2d(tack.zeros((1, 1, 4, 4)), tack.zeros((1, 1, 3, 3)), padding=1.5)
    # NumPy integers are integers.
    values, positions = T.topk(tack.array(np.array([[1, 5, 3]], np.float32)), np.int32(2), axis=np.int64(-1))
    assert values.numpy().tolist() == [[5, 3]] and positions.numpy().tolist() == [[1, 2]]


def test_einsum_of_a_scalar():
    # "->" over a 0-d operand is the operand (np.einsum's answer).
    assert T.einsum("->", tack.array(np.float32(-2.5))).numpy() == np.einsum("->", np.float32(-2.5))


def test_read_only_out_is_refused():
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        T.softmax(tack.zeros((2, 3)), out=tack.asarray(ro))


# The devices besides the CPU that compile tile kernels, each a test case
# whose id names it (scripts/device-check.sh selects `-k cuda`).
GPU_DEVICES = [
    pytest.param(d, marks=pytest.mark.skipif(d not in tack.available_devices(), reason=f"no {d} device here"))
    for d in ("opencl", "cuda", "hip")
]


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_devices_run_every_function_as_the_cpu_does(device):
    # The second backend is the oracle: the same lowered kernel IR, printed
    # as OpenCL C, must give the CPU's bits (IEEE f32 arithmetic, correctly
    # rounded division and square root on both, no contraction), except
    # where the math library differs (softmax's exp, below).
    r = rng(60)
    x = r.standard_normal((13, 77)).astype(np.float32)
    a = r.standard_normal((37, 23)).astype(np.float32)
    b = r.standard_normal((23, 19)).astype(np.float32)
    w = r.standard_normal(77).astype(np.float32)
    idx = np.array([3, 0, 12, 5], np.int64)
    images = r.standard_normal((2, 8, 7, 9)).astype(np.float32)

    def both(f, *arrays, **kw):
        cpu = f(*(tack.array(v) for v in arrays), **kw)
        cl = f(*(tack.array(v, device=device) for v in arrays), **kw)
        cpu, cl = (cpu if isinstance(cpu, tuple) else (cpu,)), (cl if isinstance(cl, tuple) else (cl,))
        for c, g in zip(cpu, cl):
            assert g.device == device
            yield c.numpy(), g.numpy()

    # The norms of rows wider than 32 columns run a group per row on CUDA
    # and HIP, merging sums in another order (the next test's oracle).
    per_lane = device not in T._GROUP_DEVICES
    cases = [
        (T.matmul, (a, b), {}),
        (T.matmul, (images[:, :3, :5], r.standard_normal((2, 1, 9, 6)).astype(np.float32)), {}),  # a batch
        (T.einsum, ("ij,jk->ik", a, b), {}),
    ] + [
        (T.layer_norm, (x, w, w), {}),
        (T.rms_norm, (x, w), {}),
    ] * per_lane + [
        (T.scan, (x,), {"axis": 1}),
        (T.sort, (x,), {"axis": 1}),
        (T.argsort, (x,), {"axis": 1}),
        (T.topk, (x, 5), {}),
        (T.topk, (x, 20), {}),  # the 32-entry network
        (T.topk, (x, 80), {}),  # the tournament of merges
        (T.gather, (x, idx), {"axis": 0}),
        (T.conv2d, (images, r.standard_normal((5, 8, 3, 3)).astype(np.float32)), {"padding": 1}),  # direct
        (T.conv2d, (images, r.standard_normal((16, 8, 3, 3)).astype(np.float32)), {"padding": 1}),  # columns
        (T.conv2d, (images, r.standard_normal((5, 8, 3, 2)).astype(np.float32)),
         {"padding": (1, 2), "stride": (2, 3), "dilation": (1, 2)}),  # windows one column at a time
        (T.conv2d, (images, r.standard_normal((8, 1, 3, 3)).astype(np.float32)), {"padding": 1, "groups": 8}),
    ]
    for f, args, kw in cases:
        arrays = [v for v in args if isinstance(v, np.ndarray) and v.dtype != np.int64]
        if f is T.einsum:
            # The einsum kernel, and a product that the GPU runs through
            # matmul (the CPU, below its threshold, in the einsum kernel:
            # the same fold).
            for p, q in ((a, b), (r.standard_normal((64, 40)), r.standard_normal((40, 48)))):
                p, q = p.astype(np.float32), q.astype(np.float32)
                cpu = T.einsum(args[0], tack.array(p), tack.array(q)).numpy()
                cl = T.einsum(args[0], tack.array(p, device=device), tack.array(q, device=device)).numpy()
                assert identical(cl, cpu)
            continue
        if f is T.topk:
            pairs = both(lambda v: T.topk(v, args[1]), x)
        elif f is T.gather:
            pairs = both(lambda v: T.gather(v, tack.array(idx, device=v.device), axis=0), x)
        else:
            pairs = both(lambda *v: f(*v, **kw), *arrays)
        for cpu, cl in pairs:
            assert cl.dtype == cpu.dtype and identical(cl, cpu), f.__name__
    # Wide rows: the tournament's prefilter (its counts read back from the
    # device), from k = 5 (thresholds of rank 1, 2, 8 and 16 here).
    wide = r.standard_normal((5, 2100)).astype(np.float32)
    for k in (6, 12, 40, 70):
        before = T._TopKTournament.prefiltered
        for cpu, cl in both(lambda v: T.topk(v, k), wide):
            assert identical(cl, cpu), k
        assert T._TopKTournament.prefiltered == before + 2, k
    # einsum's ellipsis and broadcast axes (operand views at stride 0), in
    # the einsum kernel and through matmul.
    for spec, shapes in (("...ij,jk->...ik", [(2, 3, 4), (4, 5)]), ("ij,jk->ik", [(7, 1), (3, 6)]),
                         ("bij,bjk->bik", [(1, 64, 40), (3, 40, 48)])):
        operands = [r.standard_normal(s).astype(np.float32) for s in shapes]
        for cpu, cl in both(lambda *v: T.einsum(spec, *v), *operands):
            assert identical(cl, cpu), spec



@pytest.mark.parametrize("device", GPU_DEVICES)
def test_devices_meet_oracles_that_need_no_cpu_backend(device):
    # The functions on the device against oracles independent of Tack's
    # CPU backend (which a build without LLVM, as on a GPU machine, lacks):
    # the fold of fused steps for the products (the same kernels' order
    # on every device), NumPy for sorts, Top-K, copies and the cumulative
    # sum, float64 bounds for softmax and the norms.
    r = rng(64)

    def on(v):
        return tack.array(v, device=device)

    def f32(*shape):
        return r.standard_normal(shape).astype(np.float32)

    a, b = f32(37, 23), f32(23, 19)
    assert identical(T.matmul(on(a), on(b)).numpy(), fold_matmul(a, b))
    big_a, big_b = f32(70, 130), f32(130, 90)  # ragged tiles, through matmul's kernel on every device
    assert identical(T.matmul(on(big_a), on(big_b)).numpy(), fold_matmul(big_a, big_b))
    batch_a, batch_b = f32(3, 20, 17), f32(3, 17, 12)
    got = T.matmul(on(batch_a), on(batch_b)).numpy()
    assert all(identical(got[i], fold_matmul(batch_a[i], batch_b[i])) for i in range(3))
    for spec, p, q in (("ij,jk->ik", a, b), ("bij,bkj->bik", batch_a, f32(3, 12, 17)), ("...ij,jk", f32(2, 3, 4), f32(4, 5))):
        written = spec if "..." not in spec else "xij,jk->xik"
        assert identical(T.einsum(spec, on(p), on(q)).numpy(), fold_einsum(written, p, q)), spec
    images = f32(2, 8, 7, 9)
    for w, kw in ((f32(5, 8, 3, 3), {"padding": 1}), (f32(16, 8, 3, 3), {"padding": 1}),
                  (f32(5, 8, 3, 2), {"padding": (1, 2), "stride": (2, 3), "dilation": (1, 2)}),
                  (f32(8, 1, 3, 3), {"padding": 1, "groups": 8})):
        assert identical(T.conv2d(on(images), on(w), **kw).numpy(), fold_conv2d(images, w, **kw)), w.shape
    x = tricky_rows(13, 77, 65)
    order = np.argsort(x, axis=1, kind="stable")
    assert np.array_equal(T.argsort(on(x)).numpy(), order)
    assert identical(T.sort(on(x)).numpy(), np.take_along_axis(x, order, axis=1))
    for k, rows in ((5, x), (20, x), (80, x), (40, tricky_rows(5, 2100, 66))):  # networks; the tournament, prefiltered
        v, i = T.topk(on(rows), k)
        want_v, want_i = topk_oracle(rows, k)
        assert np.array_equal(i.numpy(), want_i) and identical(v.numpy(), want_v), k
    y = f32(13, 77)
    assert np.array_equal(T.scan(on(y)).numpy(), np.cumsum(y, axis=1, dtype=np.float32))
    idx = np.array([3, 0, 12, 5, -1, 13], np.int64)
    inside = (idx >= 0) & (idx < 13)
    assert identical(T.gather(on(y), idx, axis=0).numpy(), np.where(inside[:, None], y[np.where(inside, idx, 0)], 0))
    out = on(np.zeros((13, 77), np.float32))
    T.scatter(on(y[:4]), idx[:4], out, axis=0)
    assert identical(out.numpy(), scattered(np.zeros((13, 77), np.float32), y[:4], idx[:4], 0))
    wide = (f32(6, 300) * 4)
    exact, bound = softmax_bound(wide, 1)
    assert np.all(np.abs(T.softmax(on(wide)).numpy() - exact) <= bound)
    g, beta = f32(300), f32(300)
    exact, bound = norm_bound(wide, g, beta, np.float64(np.float32(1e-5)), rms=False)
    assert np.all(np.abs(T.layer_norm(on(wide), on(g), on(beta)).numpy() - exact) <= bound)
    exact, bound = norm_bound(wide, g, None, np.float64(np.float32(1e-6)), rms=True)
    assert np.all(np.abs(T.rms_norm(on(wide), on(g), eps=1e-6).numpy() - exact) <= bound)


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_a_gpu_runs_a_row_kernel_in_a_group_per_row(device, monkeypatch):
    # On CUDA and HIP rows of more than 32 columns run softmax and the norms
    # in one workgroup per row, in blocks of its 256 lanes whose sums and
    # maxima merge over the lanes as the ordered tree (tile.py, _row_block);
    # gather and scatter copy rows of more than 64 in such blocks.
    # OpenCL, whose device may be the CPU, keeps a row per lane unless told:
    # here it is told, to run the form on PoCL. Oracles: the interpreter
    # running the same 256-column kernel with the workgroups' grouping
    # (scalar_trees) for the norms, bit for bit; for softmax, whose exp is
    # the device's, float64 within the proved bound.
    from tack import _core

    monkeypatch.setattr(T, "_GROUP_DEVICES", T._GROUP_DEVICES | {device})
    eps = float(np.float32(1e-5))
    for cols in (33, 256, 300, 700):
        r = rng(90 + cols)
        x = (r.standard_normal((7, cols)) * 3).astype(np.float32)
        g = r.standard_normal(cols).astype(np.float32)
        b = r.standard_normal(cols).astype(np.float32)
        got = T.softmax(tack.array(x, device=device)).numpy()
        exact, bound = softmax_bound(x, -1)
        assert np.all(np.abs(got - exact) <= bound), cols
        for fn, kernel, vectors in [(T.layer_norm, _core.tile_layer_norm(eps, 256), [g, b]),
                                    (T.rms_norm, _core.tile_rms_norm(eps, 256), [g])]:
            want = np.full((7, cols), np.nan, np.float32)
            views = [tack.asarray(v) for v in [x] + vectors + [want]]
            _core.tile_interpret(kernel, [(v, list(v.shape), [s // 4 for s in v.numpy().strides], 0, i == len(views) - 1)
                                          for i, v in enumerate(views)], scalar_trees=True)
            got = fn(*(tack.array(v, device=device) for v in [x] + vectors), eps=1e-5).numpy()
            assert np.array_equal(bits(got), bits(want)), (fn.__name__, cols)
    # Row copies of more than 64 columns in blocks of the group's lanes: np.take
    # and NumPy's fancy assignment are exact.
    for cols in (65, 300):
        x = rng(95 + cols).standard_normal((9, cols)).astype(np.float32)
        idx = np.array([4, 0, 8, 8, 2, -1], np.int64)
        got = T.gather(tack.array(x, device=device), tack.array(idx, device=device)).numpy()
        want = np.take(x, np.where(idx >= 0, idx, 0), axis=0)
        want[idx < 0] = 0  # an index outside the rows reads zeros
        assert identical(got, want), cols
        out = np.full((9, cols), 7.0, np.float32)
        dst = np.array([3, 8, 0], np.int64)
        scattered = T.scatter(tack.array(x[:3], device=device), tack.array(dst, device=device),
                              tack.array(out, device=device)).numpy()
        out[dst] = x[:3]
        assert identical(scattered, out), cols
    for fn in ("softmax", "layer_norm", "rms_norm", "gather_rows", "scatter_rows"):
        assert any(key[0][0] == fn and key[0][-1] == 256 and key[-1] == device for key in T._compiled), fn


def test_a_view_is_cleared_of_self_overlap_only_where_its_elements_are_distinct():
    # Oracle: every element's offset enumerated. The test may call a view
    # with distinct elements overlapping (it is then staged), never the
    # reverse; row-major and transposed views are always cleared.
    r = rng(73)
    for _ in range(3000):
        ndim = int(r.integers(1, 4))
        shape = [int(r.integers(0, 5)) for _ in range(ndim)]
        strides = [int(r.integers(-7, 8)) for _ in range(ndim)]
        offsets = [sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*shape)]
        distinct = len(set(offsets)) == len(offsets)
        claimed = T._View(None, shape, strides, 0).may_overlap_itself()
        assert distinct or claimed, (shape, strides)
    for shape in [(3, 4, 5), (1, 7), (6,), (0, 3)]:
        c = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
        assert not T._View(None, list(shape), c, 0).may_overlap_itself()
        assert not T._View(None, list(shape[::-1]), c[::-1], 0).may_overlap_itself()


def test_whole_arrays_clash_where_their_elements_may_meet():
    # Oracle: every element's offset enumerated. An out must be staged where
    # it shares an element with an input or another out or two of its own
    # elements share memory; the test stages exactly where the spans from
    # its lowest to its highest element meet another's or the view test
    # claims its own elements may meet (either only costs a copy).
    from numpy.lib.stride_tricks import as_strided
    from tack import _core

    r = rng(75)
    buffer = np.zeros(64, np.float32)
    for _ in range(1500):
        arrays, footprints = [], []
        for _ in range(int(r.integers(2, 5))):
            ndim = int(r.integers(1, 3))
            shape = [int(r.integers(0, 4)) for _ in range(ndim)]
            strides = [int(r.integers(-5, 6)) for _ in range(ndim)]
            offsets = [sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*shape)]
            start = -min(offsets, default=0) + int(r.integers(0, 24))
            if max(offsets, default=0) + start >= 64:
                start = -min(offsets, default=0)
            if max(offsets, default=0) + start >= 64:
                continue
            view = as_strided(buffer[start:], shape=shape, strides=[4 * s for s in strides])
            arrays.append(tack.asarray(view))
            footprints.append(({start + o for o in offsets}, len(set(offsets)) != len(offsets)))
        if len(arrays) < 2:
            continue
        cut = int(r.integers(1, len(arrays)))
        ins, outs = arrays[:cut], arrays[cut:]
        got = _core._tile_clashes(outs, ins)
        for i, (elements, repeats) in enumerate(footprints[cut:]):
            me = cut + i
            shares = any(elements & other for j, (other, _) in enumerate(footprints) if j != me)
            if shares or repeats:
                assert got[i], (i, shares, repeats)
            spans_meet = any(elements and other and min(elements) <= max(other) and min(other) <= max(elements)
                             for j, (other, _) in enumerate(footprints) if j != me)
            claimed = T._View.of(arrays[me]).may_overlap_itself()
            assert got[i] == (bool(elements) and (spans_meet or claimed)), (i, spans_meet, claimed)
    for outs, ins in (([None], []), ([tack.zeros(3)], [None]), ([np.zeros(3)], [])):
        with pytest.raises(TypeError, match="takes tack.Array objects"):
            _core._tile_clashes(outs, ins)


def test_an_out_whose_elements_share_memory_gets_numpys_copy_order():
    # An as_strided out whose rows overlap: the kernel computes into a
    # buffer and the copy into out is NumPy's copyto, so the memory ends as
    # np.copyto of NumPy's result leaves it (np.sort and np.take are exact).
    from numpy.lib.stride_tricks import as_strided

    x = rng(74).standard_normal((6, 8)).astype(np.float32)
    idx = np.array([5, 0, 3, 3, 1, 2], np.int64)
    for f, expected in [(lambda o: T.sort(tack.asarray(x), out=o), np.sort(x, axis=-1, kind="stable")),
                        # by columns: the kernel writes a column at a time
                        (lambda o: T.sort(tack.asarray(x), axis=0, out=o), np.sort(x, axis=0, kind="stable")),
                        (lambda o: T.gather(tack.asarray(x), idx, out=o), np.take(x, idx, axis=0))]:
        got, want = np.zeros(48, np.float32), np.zeros(48, np.float32)
        f(tack.asarray(as_strided(got, shape=(6, 8), strides=(12, 4))))  # rows 3 elements apart
        np.copyto(as_strided(want, shape=(6, 8), strides=(12, 4)), expected)
        assert identical(got, want)
    with pytest.raises(ValueError, match="share memory"):
        out = np.zeros(48, np.float32)
        T.scatter(tack.asarray(x[:2]), [0, 1], tack.asarray(as_strided(out, shape=(6, 8), strides=(12, 4))))


@pytest.mark.parametrize("device", [pytest.param("cpu")] + GPU_DEVICES)
def test_gather_and_scatter_take_numpy_indices_and_overlaps_on_the_arrays_device(device):
    # Indices given as NumPy or Python integers are copied onto the data's
    # device, and scatter's copy of a src that overlaps out is made there
    # too; the oracle is NumPy's take and fancy assignment.
    a_np = rng(72).standard_normal((6, 5)).astype(np.float32)
    a = tack.array(a_np, device=device)
    for idx in (np.array([4, 0, 4], np.int32), [5, 1]):
        got = T.gather(a, idx, axis=0)
        assert got.device == device
        assert identical(got.numpy(), np.take(a_np, np.asarray(idx), axis=0))
    # out[perm] = out: src is out itself.
    perm = [5, 3, 1, 0, 2, 4]
    T.scatter(a, np.array(perm), a, axis=0)
    expected = a_np.copy()
    expected[perm] = a_np
    assert identical(a.numpy(), expected)


@pytest.mark.parametrize("device", [pytest.param("cpu")] + GPU_DEVICES)
@pytest.mark.parametrize("tiles", [(16, 16, 16), (8, 8, 4)], ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("workgroups", ["fill", "always", "never"])
def test_overlapped_pipeline_stages_give_the_interpreters_bits(device, tiles, workgroups):
    # overlap_stages runs matmul's tile loads for step k + 1 before the mma
    # of step k, each tile in two versions (docs/tile/compile.md,
    # "Pipelines"); the products and their order do not change, so neither
    # do the bits, on any device. K = 45 with k tiles of 4 and 16: 12 and 3
    # steps, the last one ragged; K = 3: a single step. On a GPU backend in
    # workgroups too (`always`: the versioned buffers in shared memory,
    # which the lowering's first line confirms), and one iteration per lane.
    from tack import _core

    if device == "cpu" and workgroups != "fill":
        pytest.skip("the CPU has no workgroups")
    if workgroups == "always":
        plan = _core.tile_lowered_ir(_core.tile_matmul(*tiles), workgroups=True, overlap_stages=True).splitlines()[0]
        assert plan.startswith("; in workgroups"), plan

    for m, k, n in ((37, 45, 29), (5, 3, 70)):
        r = rng(m + k + n)
        a = r.standard_normal((m, k)).astype(np.float32)
        b = r.standard_normal((k, n)).astype(np.float32)
        kernel = _core.tile_matmul(*tiles)

        def run(execute, on):
            out = tack.array(np.full((m, n), np.nan, np.float32), device=on)
            arrays = [tack.array(a, device=on), tack.array(b, device=on), out]
            execute([(v, list(v.shape), [v.shape[1], 1], 0, i == 2) for i, v in enumerate(arrays)])
            return out.numpy()

        got = run(_core.tile_compile(kernel, device, overlap_stages=True, workgroups=workgroups).launch, device)
        want = run(lambda args: _core.tile_interpret(kernel, args), "cpu")
        assert identical(got, want), (m, k, n)
        assert identical(want, fold_matmul(a, b))

BINDINGS = {
    "per_level": {},
    "swapped": {"nest_order": [1, 0]},
    "fused": {"nest_fuse": [2]},
    "swapped_fused": {"nest_order": [1, 0], "nest_fuse": [2]},
    # Block columns split by 4 (11 = 3 * 4 - 1: one point past the level),
    # the outer part outermost: the launch tiled 4 block columns at a time.
    "tiled": {"nest_split": [0, 4], "nest_order": [1, 0, 2]},
    # Both levels split and the four parts fused in pairs: a reshape.
    "reshaped": {"nest_split": [3, 5], "nest_order": [2, 0, 3, 1], "nest_fuse": [2, 2]},
}


@pytest.mark.parametrize("device", [pytest.param("cpu")] + GPU_DEVICES)
@pytest.mark.parametrize("binding", list(BINDINGS))
def test_every_binding_of_the_launch_nest_gives_the_documented_fold(device, binding):
    # nest_split, nest_order and nest_fuse move matmul's block iterations to
    # other launch dimensions (docs/tile/compile.md, "Binding"); each block
    # still folds k in order with fused steps, so every binding gives the f32
    # fold of fused multiply-adds. 4x4 tiles on 37x29x43: 10 x 11 blocks,
    # so a fused index crosses block rows inside SIMD groups.
    from tack import _core

    kernel = _core.tile_matmul(4, 4, 4)
    options = BINDINGS[binding]
    plan = _core.tile_lowered_ir(kernel, **options).splitlines()[1]
    if options:
        assert "is a bijection onto [0, " in plan, plan
    r = rng(43)
    a = r.standard_normal((37, 29)).astype(np.float32)
    b = r.standard_normal((29, 43)).astype(np.float32)
    out = tack.array(np.full((37, 43), np.nan, np.float32), device=device)
    arrays = [tack.array(a, device=device), tack.array(b, device=device), out]
    compiled = _core.tile_compile(kernel, device, **options)
    compiled.launch([(v, list(v.shape), [v.shape[1], 1], 0, i == 2) for i, v in enumerate(arrays)])
    assert identical(out.numpy(), fold_matmul(a, b))


def test_binding_options_that_do_not_fit_the_nest_are_refused():
    from tack import _core

    matmul = _core.tile_matmul(16, 16, 16)
    for order in ([0, 0], [1], [0, 1, 2]):
        with pytest.raises(RuntimeError, match=r"compile @matmul: CompileOptions::nest_order .* is not an order of "
                                               r"its launch nest's 2 levels"):
            _core.tile_compile(matmul, "cpu", nest_order=order)
    with pytest.raises(RuntimeError, match=r"compile @matmul: CompileOptions::nest_split splits level 1 by -1"):
        _core.tile_compile(matmul, "cpu", nest_split=[0, -1])
    with pytest.raises(RuntimeError, match=r"compile @matmul: CompileOptions::nest_fuse \(2, 1\) does not fuse its "
                                           r"launch nest's 2 levels"):
        _core.tile_compile(matmul, "cpu", nest_fuse=[2, 1])


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_device_softmax_within_the_math_library_bound(device):
    # exp is each backend's own (8 ulp each at most, docs/numerics.md); the
    # normalized result moves by the two exps' errors, the sum's and one
    # division: 8 + 8 + 16 + 1 units in the last place at most.
    x = rng(61).standard_normal((13, 77)).astype(np.float32) * 4
    cpu = T.softmax(tack.array(x)).numpy()
    cl = T.softmax(tack.array(x, device=device)).numpy()
    assert np.max(ulp_distance(cl, cpu)) <= 33


def test_arrays_of_two_devices_are_refused():
    if "opencl" not in tack.available_devices():
        pytest.skip("no OpenCL device (PoCL) installed")
    with pytest.raises(ValueError):
        T.matmul(tack.zeros((2, 2)), tack.zeros((2, 2), device="opencl"))


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_large_private_tiles_run_one_iteration_per_lane(device):
    # 64x64 tiles one iteration per lane: 20 KiB of private tiles per work
    # item, 5 MiB for a group of 256 on a CPU device (PoCL), whose group
    # shares one thread's stack: past its 4 MiB budget, so the launch runs
    # groups of 128. The interpreter is the oracle, bit for bit.
    from tack import _core

    m, k, n = 67, 19, 130
    r = rng(67)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    kernel = _core.tile_matmul(64, 64, 8)

    def run(execute, on):
        out = tack.array(np.full((m, n), np.nan, np.float32), device=on)
        arrays = [tack.array(a, device=on), tack.array(b, device=on), out]
        execute([(v, list(v.shape), [v.shape[1], 1], 0, i == 2) for i, v in enumerate(arrays)])
        return out.numpy()

    got = run(_core.tile_compile(kernel, device, workgroups="never").launch, device)
    want = run(lambda args: _core.tile_interpret(kernel, args), "cpu")
    assert identical(got, want)
