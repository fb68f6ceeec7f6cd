"""Autotuning of tack.tile.matmul's tile sizes on the CPU.

The first matmul of a shape class (each extent rounded up to a power of two,
capped at _CAP) ranks the candidate family (FAMILY: tile sizes, B packed or
not) by a cost model (cost()), compiles the best ranked (measured()), runs
each on random data of the first call's shape (each extent capped at
_CHECK_CAP, where the interpreter's time allows) and of a small ragged
shape, checks its output bit for bit against the TileIR interpreter's (the
correctness oracle), times the correct ones on the first call's shape
(each extent capped at _CAP; best of a few runs) and keeps the fastest for
the class. A candidate whose output differs, or that
fails to compile or run, can never win. The interpreter runs in a thread
while the candidates compile (their first launches, on the small ragged
shape); timing starts once both are done.

Why a bitwise check is the right one: every candidate's kernel adds the
products of an output element over k in increasing order, each step a
fused multiply-add rounded once (the k-tile pipeline runs in order and mma
accumulates k in order inside a tile, in the interpreter and in the CPU
lowering alike); ragged k tiles load -0 for A and +0 for B, and adding
their product, -0, changes no accumulator (-0 included). So every candidate means the same f32
sums, and one interpretation of the default kernel is the oracle for all of
them (tests/python/test_tile_autotune.py checks that interpretations of
different tiles agree).

Winners are kept in this process and in a small JSON file in Tack's cache
folder (python/tack/_cache.py's cache_dir(), subfolder "tile-tuning"),
written to a temporary file and renamed into place, keyed by the kernel, the
shape class, the candidate set, the device's target description (the CPU's
triple, CPU name and features) and Tack's version. Another process with the
same key reads the winner instead of tuning. A file that cannot be read or
parsed counts as absent; a folder that cannot be written keeps the winner
in process only.

TACK_TILE_AUTOTUNE=0 turns tuning off (the fixed 16x16x16 tiles);
TACK_DISABLE_DISK_CACHE=1 keeps winners in process only. Shape classes below
_MIN_VOLUME multiply-adds use the default: tuning them cannot pay back.
"""

import hashlib
import itertools
import json
import os
import tempfile
import threading
import time

import numpy as np

from . import _cache, _core

DEFAULT = (16, 16, 16)

# The candidate family: (tile_m, tile_n, tile_k) over {8, 16, 32, 64}^3,
# each also with B packed first (a fourth element 1, PackedMatmul), with
# the block rows in the SIMD lanes (a fifth element 1, ROWS_IN_LANES), and
# packed with its launch tiled (a sixth element, LAUNCH_TILE): 256
# candidates. Every one is legal (its tiles fit the CPU's private scratch);
# the cost model below ranks them and only the best ranked are compiled,
# checked and timed. The CPU runs whole groups of lanes only within one row
# of the launch's innermost dimension: by default the block columns (each
# lane its own B tile, A's shared), with the block rows in the lanes the
# launch's nest runs in the other order (CompileOptions::nest_order, each
# lane its own A tile, B's shared), which pays for products of fewer block
# columns than lanes (docs/tile/compile.md, "Binding"). A launch-tiled
# candidate runs B's panels in groups of LAUNCH_TILE, each group over all
# block rows before the next (the panel level split, its outer part
# outermost: CompileOptions::nest_split and nest_order), so that a group's
# panels stay in cache while A's block rows stream past them; measured on
# a 2-core AMD EPYC (Zen 4, AVX-512), 64x8x64 tiles packed ran 2048^3 in
# 95-99 ms tiled by 4 against 106-114 untiled, and 1024^3 at the same speed
# either way. The pipeline's schedule (stages in order) is fixed: it was
# measured to win for matmul on the CPU.
_SIZES = (8, 16, 32, 64)
_TILES = tuple(itertools.product(_SIZES, repeat=3))
LAUNCH_TILE = 4
FAMILY = (_TILES + tuple(t + (1,) for t in _TILES) + tuple(t + (0, 1) for t in _TILES) +
          tuple(t + (1, 0, LAUNCH_TILE) for t in _TILES))

# How many of the family's best ranked candidates tuning measures: the
# packed forms of the six best ranked and the two best unpacked ones.
# Packed candidates were the fastest of the whole family at 512^3, 2048^3
# and 1000x777x333 on a 2-core Zen 3 (AVX2) once B's panels were read as
# vectors (bench/tile_cost_model.py); the unpacked ones stay measured for
# targets where packing would not pay.
_MEASURED_PACKED = 6
_MEASURED_UNPACKED = 2

# The cost of one B element loaded into a lane's tile, in lane
# multiply-adds: each lane gathers its own B tile (tile_k x tile_n elements
# per step, against tile_m x tile_n x tile_k multiply-adds), while A's tile
# is shared by the lanes. Fitted to every unpacked candidate's time at
# 512^3, 1024^3 and 1000x777x333 on a 2-core AMD EPYC (Zen 3, AVX2);
# bench/tile_cost_model.py measures the family again and reports how far
# the model's choice is from the fastest.
_GATHERED_B = 3.2


def lanes(device):
    """f32 lanes of the CPU's SIMD registers, from its target features."""
    features = _core.target_description(device)
    if "+avx512f" in features:
        return 16
    if "+avx" in features:
        return 8
    return 4


def cost(tiles, m, k, n, lanes):
    """The modelled time of a candidate on (M, K) @ (K, N), in lane
    multiply-adds: the multiply-adds its blocks execute, partial edge tiles
    padded, with each block row's block columns in groups of `lanes` (a
    group of fewer runs one column at a time, at a group's cost each), times
    1 + _GATHERED_B / tile_m for the B tiles the lanes load. With the block
    rows in the lanes (rows_in_lanes()) the same with rows and columns
    exchanged: each block column's rows in groups, and the A tiles the
    lanes load, 1 + _GATHERED_B / tile_n. Packing does not change the model
    (its effect depends on the cache, which the model does not see): tuning
    measures the packed forms of the best ranked."""
    tm, tn, tk = tiles[:3]
    rows, columns, steps = -(-m // tm), -(-n // tn), -(-k // tk)
    if rows_in_lanes(tiles):
        groups = rows // lanes + rows % lanes
        return columns * groups * steps * tm * tn * tk * lanes * (1 + _GATHERED_B / tn)
    groups = columns // lanes + columns % lanes
    return rows * groups * steps * tm * tn * tk * lanes * (1 + _GATHERED_B / tm)


def ranked(family, klass, lanes):
    """`family` best first by the cost model on the class's shape; equal
    costs in the family's order, except that candidates with the block rows
    in the lanes come after the others and, among themselves, deepest
    tile_k first: the model does not see tile_k's effect on them, and the
    deepest measured fastest (at 4096x256x16 on a 2-core Zen 3, 16x16x64
    and 8x16x64 against 8x16x8's 2x: bench/tile_cost_model.py)."""
    def key(t):
        swapped = rows_in_lanes(t)
        return (cost(t, *klass, lanes), swapped, -t[2] if swapped else 0)
    return sorted(family, key=key)


def measured(family, klass, lanes):
    """The candidates tuning compiles, checks and times: the packed forms
    (those in `family`) of the best ranked unpacked candidates, then the
    best ranked unpacked ones (the best ranked of a family without unpacked
    candidates, up to the same number) and the untuned DEFAULT, so that
    tuning never keeps tiles slower than no tuning where it measures (at
    4096x256x16 on a 2-core Zen 4 with AVX-512, 16x16x16 ran in 0.49 ms
    against 0.71 for the best ranked, rows in lanes), then the launch-tiled
    forms of those packed ones, of which tune() measures only the first
    pass's winner's: the model cannot tell a tiled launch from an untiled
    one."""
    order = ranked(family, klass, lanes)
    unpacked = [tuple(t) for t in order if not packed(t)]
    if not unpacked:
        return tuple(order[:_MEASURED_PACKED + _MEASURED_UNPACKED])
    chosen = [t[:3] + (1,) for t in unpacked if t[:3] + (1,) in family and not rows_in_lanes(t)][:_MEASURED_PACKED]
    tiled = [t + (0, LAUNCH_TILE) for t in chosen if t + (0, LAUNCH_TILE) in family]
    plain = unpacked[:_MEASURED_UNPACKED]
    if DEFAULT in family and DEFAULT not in plain:
        plain.append(DEFAULT)
    return tuple(chosen + plain + tiled)


_CAP = 2048  # a class extent above this tunes at this extent
# The oracle's shape: the class's, each extent capped here (the interpreter
# takes about 4 s at 1024^3 on a 2-core x86-64, 30 s at 2048^3).
_CHECK_CAP = 1024
_BUDGET_S = 1.0  # a candidate's further runs in one settling stop once they took this long
_MIN_VOLUME = 128 * 128 * 128  # classes below tune not at all
_RAGGED = (37, 29, 43)  # the edge-tile check's shape (M, K, N)
_RUNS = 3  # timed runs per candidate (its first, then the rest in each settling); the best counts
# ... and more, until the runs took this long: a product of a fraction of a
# millisecond is timed over many runs, whose best is not one disturbed run
# (at 2048x256x16 three runs once ranked 8x16x64 rows-in-lanes, 0.46 ms,
# above 16x16x16, 0.25 ms, on a 2-core Zen 4 with NumPy's threads busy).
_MIN_TIMED_S = 0.05
# Only candidates whose first timed run came within this factor of the
# fastest first run get the further runs; the others keep their first.
# At 2048^3 on a 2-core AMD EPYC (AVX-512) the first runs of the ten
# candidates took 122-427 ms, four of them above 1.3 times the fastest,
# and their further runs had been 2 s of the class's 10.4 s of tuning.
_RETIMED = 1.3
_FORMAT = 6  # the winner file's format (4: B packed in panels of lanes; 5: block rows in the lanes; 6: tiled launches)

# key -> (tm, tn, tk), (tm, tn, tk, 1) for B packed, (tm, tn, tk, 0, 1) for
# the block rows in the lanes, (tm, tn, tk, 1, 0, LAUNCH_TILE) packed with its
# launch tiled
# (and (device, class, candidate family) -> the same, for the calls after the first)
_winners: dict[object, tuple[int, ...]] = {}
_tunings = 0  # how many classes this process tuned (for tests)


def enabled():
    return os.environ.get("TACK_TILE_AUTOTUNE", "1") != "0"


def shape_class(m, k, n):
    """(M, K, N) rounded up to powers of two, each capped at _CAP."""
    return tuple(min(1 << max(int(x) - 1, 0).bit_length(), _CAP) for x in (m, k, n))


def _key(device, klass, candidates):
    return {
        "format": _FORMAT,
        "kernel": "matmul",
        "dtype": "f32",
        "class": list(klass),
        "candidates": [list(c) for c in candidates],
        "device": device,
        "target": _core.target_description(device),
        # The build, not only the version: another build may lower the
        # candidates differently, and its winner was checked on its code.
        "tack": _core._build_identity(),
    }


def _file(key):
    root = _cache.cache_dir()
    if root is None or os.environ.get("TACK_DISABLE_DISK_CACHE") == "1":
        return None
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]
    return os.path.join(root, "tile-tuning", digest + ".json")


def _load(path, key):
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        tiles = tuple(int(x) for x in record["tiles"])
        if record["key"] == key and list(tiles) in key["candidates"]:
            return tiles
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _store(path, key, tiles, report):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"key": key, "tiles": list(tiles), "timings_ms": report}, f, indent=1)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # the winner stays in this process


def packed(tiles):
    """Whether a candidate runs with B packed first (a fourth element 1)."""
    return len(tiles) > 3 and bool(tiles[3])


def rows_in_lanes(tiles):
    """Whether a candidate runs its block rows in the SIMD lanes (a fifth
    element 1): the launch nest's levels swapped."""
    return len(tiles) > 4 and bool(tiles[4])


def launch_tile(tiles):
    """How many of B's panels a packed candidate's launch runs together over
    all block rows (a sixth element; 0: untiled)."""
    return tiles[5] if len(tiles) > 5 else 0


def binding(tiles, batched=False):
    """How a candidate's launch nest binds to the launch, as tile_compile's
    keyword arguments (docs/tile/compile.md, "Binding"): unpacked, its two
    levels (block rows, block columns) swapped for rows in the lanes;
    packed (block rows, panel, lane), the panel level split by the launch
    tile, its outer part outermost. A batch of products (`batched`: the
    batch a level before those) keeps its batch level outermost."""
    first = 1 if batched else 0
    outer = list(range(first))
    if rows_in_lanes(tiles):
        return {"nest_order": outer + [first + 1, first]}
    if launch_tile(tiles):
        return {"nest_split": [0] * (first + 1) + [launch_tile(tiles)],
                "nest_order": outer + [first + 1, first, first + 2, first + 3]}
    return {}


# The largest packed B a PackedMatmul keeps between launches. A fresh one
# per launch maps and faults in its pages: at 2048^2 on a 2-core Intel Xeon
# packing took 3.8-7.8 ms into a fresh array against 1.5-1.7 into the kept
# one (the product itself about 78 ms).
_KEPT_PANEL_BYTES = 64 << 20


class PackedMatmul:
    """matmul with its B operand packed first: lib::pack_panels copies B
    (K x N) into Bp (G x K x tn x L, Bp[g, k, j, l] = B[k, (g*L + l)*tn + j],
    zeros past N; L = lanes(device), G = ceil(ceil(N / tn) / L)), where the
    tiles of L consecutive block columns lie interleaved in one contiguous
    panel: the CPU's SIMD lanes load them as vectors instead of gathering,
    and each lane group's B streams through memory in order. The products
    and their order are the unpacked kernel's, so are the bits. launch()
    takes what the unpacked kernel's does. Bp is kept for the next launch
    of the same shape where it has at most _KEPT_PANEL_BYTES (packing
    writes every element of it, the padding's zeros included); launches
    of one PackedMatmul run one at a time.

    `batched`: a batch of products in one launch (lib::batched_matmul;
    launch() takes 3-D views, the batch first): each product's B packed
    into its own panels, (batch * G) x K x tn x L, or, where B's batch
    stride is 0, one B's panels that every product reads (shared_b)."""

    def __init__(self, tiles, device, batched=False):
        self.tiles, self.tn, self.lanes, self.device, self.batched = tiles, tiles[1], lanes(device), device, batched
        # One element at a time: in lanes its loads would gather (measured
        # 2x slower at 2048^2 on AVX2).
        self.pack = _core.tile_compile(_core.tile_pack_panels(self.tn, self.lanes, batched=batched), device,
                                       simd_lanes=False)
        self.matmul = self._product(shared_b=False)
        self._shared = None  # the batched product over one shared B, compiled on first use
        self._kept = None  # the last launch's Bp, where small enough
        self._one_at_a_time = threading.Lock()

    def _product(self, shared_b):
        kernel = _core.tile_matmul(*self.tiles[:3], panel_lanes=self.lanes, batched=self.batched, shared_b=shared_b)
        return _core.tile_compile(kernel, self.device, **binding(self.tiles, self.batched))

    def launch(self, args):
        from ._arrays import empty

        a, b, c = args
        k, n = b[1][-2:]
        g = -(-n // (self.tn * self.lanes))
        panels, matmul = g, self.matmul
        if self.batched:
            products = b[1][0]
            if products > 1 and b[2][0] == 0:  # one B for every product
                b = (b[0], [1] + b[1][1:]) + tuple(b[2:])
                if self._shared is None:
                    self._shared = self._product(shared_b=True)
                products, matmul = 1, self._shared
            panels *= products
        shape = (panels, k, self.tn, self.lanes)
        with self._one_at_a_time:
            bp = self._kept if self._kept is not None and self._kept.shape == shape else empty(shape, device=self.device)
            packed = (bp, list(shape), [k * self.tn * self.lanes, self.tn * self.lanes, self.lanes, 1], 0)
            self.pack.launch([b, packed + (True,)])
            matmul.launch([a, packed + (False,), c])
            self._kept = bp if 4 * bp.size <= _KEPT_PANEL_BYTES else None


def _compile(tiles):
    if packed(tiles):
        return PackedMatmul(tiles, "cpu")
    return _core.tile_compile(_core.tile_matmul(*tiles[:3]), "cpu", **binding(tiles))


def matmul_tiles(m, k, n, device, *, candidates=None, min_volume=None, compile_candidate=None):
    """The MatmulTiles for a (M, K) @ (K, N) matmul on `device`. The keyword
    arguments are for tests: a restricted candidate set, a lower tuning
    threshold, and `compile_candidate(tiles)` in place of compiling
    _core.tile_matmul(*tiles) (to inject a wrong candidate)."""
    plain = candidates is None and min_volume is None and compile_candidate is None
    if plain:
        # A shape seen before, under the same family, threshold and switch:
        # one lookup of a small key (the family's hash alone, recomputed
        # for every lookup of a key that holds it, costs a few microseconds;
        # the switch is read only where it matters).
        seen = _by_shape.get((m, k, n, device))
        if (seen is not None and seen[0] is FAMILY and seen[1] is _winners and seen[2] == _MIN_VOLUME and
                (seen[3] is None or seen[3] == enabled())):
            return seen[4]
    on = enabled()
    tunable = _tunable(m, k, n, device, _MIN_VOLUME if min_volume is None else min_volume)
    tiles = _tiles(m, k, n, device, candidates, compile_candidate) if on and tunable else DEFAULT
    if plain:
        if len(_by_shape) >= _BY_SHAPE_LIMIT:
            _by_shape.clear()
        _by_shape[(m, k, n, device)] = (FAMILY, _winners, _MIN_VOLUME, on if tunable else None, tiles)
    return tiles


# matmul_tiles' answers by shape: (m, k, n, device) -> (the family, the
# winners' table, the threshold, whether tuning was on (None where the
# shape is never tuned), the tiles), an answer good while the first two are
# the same objects and the rest equal; forgotten all at once when it holds
# _BY_SHAPE_LIMIT shapes.
_by_shape: dict[object, tuple] = {}
_BY_SHAPE_LIMIT = 4096


def _tunable(m, k, n, device, min_volume):
    """Whether tuning (where it is on) tunes this shape's class: on the CPU,
    non-empty, of at least `min_volume` multiply-adds."""
    klass = shape_class(m, k, n)
    return device == "cpu" and 0 not in (m, k, n) and klass[0] * klass[1] * klass[2] >= min_volume


def _tiles(m, k, n, device, candidates, compile_candidate):
    """The tuned tiles of a tunable shape's class (tuning it first where no
    winner is known)."""
    klass = shape_class(m, k, n)
    # Every call after a class's first: one lookup, without ranking the
    # family again (which costs more than a small product).
    quick = (device, klass, FAMILY if candidates is None else tuple(candidates))
    tiles = _winners.get(quick)
    if tiles is not None:
        return tiles
    if candidates is None:
        candidates = measured(FAMILY, klass, lanes(device))
    candidates = tuple(candidates)
    key = _key(device, klass, candidates)
    memo = json.dumps(key, sort_keys=True)
    tiles = _winners.get(memo)
    if tiles is None:
        path = _file(key)
        tiles = _load(path, key) if path else None
        if tiles is None:
            shape = tuple(min(x, _CAP) for x in (m, k, n))
            tiles, report = tune(klass, candidates, compile_candidate or _compile, shape)
            if path:
                _store(path, key, tiles, report)
        _winners[memo] = tiles
    _winners[quick] = tiles
    return tiles


def _args(arrays):
    return [(a, list(a.shape), [s // a.dtype.itemsize for s in a.strides], 0, i == len(arrays) - 1)
            for i, a in enumerate(arrays)]


def tune(klass, candidates, compile_candidate, shape=None):
    """(winner, {candidate: best ms or a failure}) over `candidates`, timed
    on `shape` (the first call's, each extent capped at _CAP; None: the
    class's). Falls back to DEFAULT when no candidate is correct."""
    global _tunings
    _tunings += 1
    from ._arrays import asarray, empty

    # The timed shape (capped at _CHECK_CAP) and a small ragged one, so
    # that partial tiles at every edge are checked too, each against the
    # interpreter; then the timed shape itself. It is the first call's
    # rather than the class's power of two: a ragged product wastes part of
    # its edge blocks, and which tiles waste least depends on the extents
    # (1000x777x333 ran 3.75 ms in 64x8x16 packed tiles and 5.1 ms in
    # 64x16x16, which were within 5 % of each other at 1024x1024x512).
    rng = np.random.default_rng(0)
    timed_shape = klass if shape is None else tuple(shape)
    check = tuple(min(x, _CHECK_CAP) for x in timed_shape)
    shapes = (check, _RAGGED) if check == timed_shape else (check, _RAGGED, timed_shape)
    cases, oracles = [], []
    for m, k, n in shapes:
        a = asarray(rng.standard_normal((m, k)).astype(np.float32))
        b = asarray(rng.standard_normal((k, n)).astype(np.float32))
        out = empty((m, n))
        want = None
        if (m, k, n) != timed_shape or check == timed_shape:
            want = empty((m, n))
            oracles.append(_args([a, b, want]))
        cases.append((_args([a, b, out]), out, want))
    timed = 0 if check == timed_shape else 2
    args = cases[timed][0]

    # The interpreter (seconds at the check cap) runs in a thread while the
    # first pass's candidates compile: the CPU compiles a kernel at its
    # first launch for the arguments' stride pattern, which the small ragged
    # case shares with the others. Nothing is timed until both are done.
    failed = []

    def interpret():
        try:
            for oracle_args in oracles:
                _core.tile_interpret(_core.tile_matmul(*DEFAULT), oracle_args)
        except BaseException as e:  # raised again below, in the caller's thread
            failed.append(e)

    oracle_thread = threading.Thread(target=interpret, name="tack-tile-tuning-oracle")
    oracle_thread.start()
    compiled = {}
    try:
        for tiles in candidates:
            if not launch_tile(tiles):
                try:
                    compiled[tuple(tiles)] = kernel = compile_candidate(tiles)
                    kernel.launch(cases[1][0])
                except (RuntimeError, ValueError) as e:
                    compiled[tuple(tiles)] = e
    finally:
        oracle_thread.join()
    if failed:
        raise failed[0]
    cases = [(case_args, out, None if want is None else want.numpy().view(np.uint32))
             for case_args, out, want in cases]

    report = {}
    runs = {}  # candidate -> (its kernel, its timed runs on the class's shape)

    def first_run(tiles):
        """Checks a candidate on every case and times its first run on the
        class's shape (report: why not, where it failed or was wrong)."""
        name = "x".join(map(str, tiles))
        times = []
        try:
            kernel = compiled.get(tuple(tiles))
            if kernel is None:
                kernel = compile_candidate(tiles)
            elif isinstance(kernel, Exception):
                raise kernel
            wrong = False
            for case_args, out, want in cases:
                out.numpy()[...] = np.nan
                start = time.perf_counter()
                kernel.launch(case_args)
                times.append(time.perf_counter() - start)
                wrong = wrong or (want is not None and not np.array_equal(out.numpy().view(np.uint32), want))
        except (RuntimeError, ValueError) as e:
            report[name] = f"failed: {e}"
            return
        if wrong:
            report[name] = "wrong output"
            return
        # The class's shape: its first run, unless that run compiled the code
        # for the arguments' strides (the CPU compiles it at the first launch
        # of each stride pattern); then one more.
        times = times[timed:timed + 1]
        if timed == 0:
            start = time.perf_counter()
            kernel.launch(args)
            times = [time.perf_counter() - start]
        runs[tuple(tiles)] = (kernel, times)
        report[name] = round(times[0] * 1e3, 3)

    def settle(group):
        """More runs for the candidates of `group` whose first run came within
        _RETIMED of the fastest first run among them, in rounds: each round
        runs every one of them once, so that a stretch of the host running
        slower (another process, a frequency change) falls on all of them
        alike instead of on the one being timed when it came. Rounds go on
        until each has run _RUNS - 1 more times and for _MIN_TIMED_S in all,
        or for _BUDGET_S in this settling."""
        quickest = min((runs[t][1][0] for t in group if t in runs), default=None)
        contenders = [t for t in group if t in runs and runs[t][1][0] <= _RETIMED * quickest]
        if len(contenders) < 2:
            return  # nothing to compare it with
        more = {t: [] for t in contenders}  # this settling's runs
        while True:
            due = [t for t in contenders
                   if (len(more[t]) < _RUNS - 1 or sum(runs[t][1]) < _MIN_TIMED_S) and sum(more[t]) < _BUDGET_S]
            if not due:
                break
            for tiles in due:
                kernel, times = runs[tiles]
                start = time.perf_counter()
                kernel.launch(args)
                times.append(time.perf_counter() - start)
                more[tiles].append(times[-1])
        for tiles in contenders:
            report["x".join(map(str, tiles))] = round(min(runs[tiles][1]) * 1e3, 3)

    def fastest():
        return min(runs, key=lambda t: min(runs[t][1]), default=DEFAULT)

    untiled = [tuple(t) for t in candidates if not launch_tile(t)]
    for tiles in untiled:
        first_run(tiles)
    settle(untiled)
    # Then the winner so far with its launch tiled, where that is a
    # candidate.
    winner = fastest()
    for tiles in candidates:
        if launch_tile(tiles) and packed(winner) and not launch_tile(winner) and tuple(tiles[:4]) == winner[:4]:
            first_run(tiles)
            if tuple(tiles) in runs:
                settle([winner, tuple(tiles)])
    winner = fastest()
    return winner, report
