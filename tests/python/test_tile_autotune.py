"""tack.tile.matmul's autotuned tile sizes (python/tack/_tile_tuning.py).

The oracle for every output is NumPy folding the products over k in
increasing order in f32, each step a fused multiply-add
(test_tile_library.fold_matmul), and for the claim
that one interpretation serves every candidate, the interpreter on each
candidate's own kernel. Candidate sets are restricted and shapes small, so
each tuning takes well under a second.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tack
import tack.tile as T
from tack import _core, _tile_tuning
from test_tile_library import bits, fold_matmul

SMALL = ((16, 16, 16), (32, 32, 16), (8, 32, 8))


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    """Each test: its own cache folder, no winners in process, tuning on."""
    monkeypatch.setenv("TACK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TACK_DISABLE_DISK_CACHE", raising=False)
    monkeypatch.setenv("TACK_TILE_AUTOTUNE", "1")
    monkeypatch.setattr(_tile_tuning, "_winners", {})
    yield tmp_path


def _args(*arrays):
    return [(a, list(a.shape), [s // 4 for s in a.strides], 0, i == len(arrays) - 1) for i, a in enumerate(arrays)]


@pytest.mark.parametrize("m, k, n", [(37, 29, 43), (64, 64, 64), (1, 70, 5)])
def test_interpretations_of_every_candidate_agree_bit_for_bit(m, k, n):
    # What makes one interpretation the oracle for all candidates: each
    # candidate's kernel, interpreted, gives NumPy's in-order fold exactly
    # (a packed candidate: its packing kernel, then its product, both
    # interpreted).
    r = np.random.default_rng(1)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    want = bits(fold_matmul(a, b))
    for tiles in _tile_tuning.FAMILY:
        if _tile_tuning.launch_tile(tiles):
            continue  # the packed candidate's kernels, bound to the launch otherwise
        out = tack.empty((m, n))
        b_operand = tack.array(b)
        lanes = 0
        if _tile_tuning.packed(tiles):
            tn, lanes = tiles[1], _tile_tuning.lanes("cpu")
            b_operand = tack.empty((-(-n // (tn * lanes)), k, tn, lanes))
            _core.tile_interpret(_core.tile_pack_panels(tn, lanes), _args(tack.array(b), b_operand))
        kernel = _core.tile_matmul(*tiles[:3], panel_lanes=lanes)
        _core.tile_interpret(kernel, _args(tack.array(a), b_operand, out))
        assert np.array_equal(bits(out.numpy()), want), tiles


def test_shape_class_rounds_up_to_powers_of_two_and_caps():
    cap = _tile_tuning._CAP
    assert _tile_tuning.shape_class(1, 100, 128) == (1, 128, 128)
    assert _tile_tuning.shape_class(129, 3, cap + 1) == (256, 4, cap)
    assert _tile_tuning.shape_class(2048, 2048, 2048) == (cap, cap, cap)


def test_tuning_picks_a_correct_candidate_and_matmul_uses_it(monkeypatch):
    monkeypatch.setattr(_tile_tuning, "FAMILY", SMALL)
    monkeypatch.setattr(_tile_tuning, "_MIN_VOLUME", 1)
    before = _tile_tuning._tunings
    r = np.random.default_rng(2)
    a = r.standard_normal((50, 40)).astype(np.float32)
    b = r.standard_normal((40, 30)).astype(np.float32)
    c = T.matmul(tack.array(a), tack.array(b))
    assert np.array_equal(bits(c.numpy()), bits(fold_matmul(a, b)))
    assert _tile_tuning._tunings == before + 1
    tiles = _tile_tuning.matmul_tiles(50, 40, 30, "cpu")
    assert tiles in SMALL
    # Another shape of the same class reuses the winner without tuning.
    c = T.matmul(tack.array(a[:33, :35]), tack.array(b[:35, :17]))
    assert np.array_equal(bits(c.numpy()), bits(fold_matmul(a[:33, :35], b[:35, :17])))
    assert _tile_tuning._tunings == before + 1


def test_a_packed_winner_runs_packed(monkeypatch):
    # A candidate whose fourth element is 1 packs B before the product, in
    # tuning and in the calls that use it; ragged shapes give the same bits.
    packed = (16, 8, 16, 1)
    monkeypatch.setattr(_tile_tuning, "FAMILY", (packed,))
    monkeypatch.setattr(_tile_tuning, "_MIN_VOLUME", 1)
    r = np.random.default_rng(12)
    a = r.standard_normal((57, 31)).astype(np.float32)
    b = r.standard_normal((31, 45)).astype(np.float32)
    c = T.matmul(tack.array(a), tack.array(b))
    assert np.array_equal(bits(c.numpy()), bits(fold_matmul(a, b)))
    assert _tile_tuning.matmul_tiles(57, 31, 45, "cpu") == packed
    runner = T._compiled[(("matmul",) + packed + (False,), "f32", "cpu")]
    assert isinstance(runner, _tile_tuning.PackedMatmul)


@pytest.mark.parametrize("tiles", [(16, 8, 16), (32, 8, 32), (8, 16, 4)], ids=lambda t: "x".join(map(str, t)))
def test_packing_b_gives_the_same_bits_on_any_layout(tiles):
    # B packed (Bp[g, k, j, l] = B[k, (g*L + l)*tn + j], zeros past N) and read from
    # there: the same products in the same order, so the f32 fold of fused
    # multiply-adds; B a whole array, a window of a larger one, transposed,
    # and with N, K not multiples of the tiles.
    from tack import _core

    runner = _tile_tuning.PackedMatmul(tiles, "cpu")
    r = np.random.default_rng(sum(tiles))
    a = r.standard_normal((45, 37)).astype(np.float32)
    b = r.standard_normal((37, 29)).astype(np.float32)
    want = bits(fold_matmul(a, b))
    bw = np.full((41, 35), 5.0, np.float32)
    bw[2:39, 3:32] = b
    for name, base, view in (("whole", b, b), ("window", bw, bw[2:39, 3:32]), ("transposed", b.T.copy(), None)):
        view = base.T if view is None else view
        offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 4
        out = np.full((45, 29), np.nan, np.float32)
        ta, tb, tc = tack.asarray(a), tack.asarray(base), tack.asarray(out)
        runner.launch([(ta, [45, 37], [37, 1], 0, False),
                       (tb, list(view.shape), [s // 4 for s in view.strides], offset, False),
                       (tc, [45, 29], [29, 1], 0, True)])
        assert np.array_equal(bits(out), want), name
    # The packed operand itself, against NumPy's padding and transposition.
    tn, lanes = tiles[1], _tile_tuning.lanes("cpu")
    g = -(-29 // (tn * lanes))
    bp = np.full((g, 37, tn, lanes), np.nan, np.float32)
    _core.tile_compile(_core.tile_pack_panels(tn, lanes), "cpu").launch(
        [(tack.asarray(b), [37, 29], [29, 1], 0, False),
         (tack.asarray(bp), list(bp.shape), [s // 4 for s in bp.strides], 0, True)])
    padded = np.zeros((37, g * lanes * tn), np.float32)
    padded[:, :29] = b
    assert np.array_equal(bp, padded.reshape(37, g, lanes, tn).transpose(1, 0, 3, 2))



def test_a_packed_product_repacks_the_panels_it_keeps(monkeypatch):
    # A PackedMatmul keeps its packed B for the next launch of the same
    # shape; each launch packs its own B into it (padding included), so a
    # second B of that shape gives its own product, and a B past the size
    # limit is not kept. Oracle: NumPy's in-order f32 fold.
    runner = _tile_tuning.PackedMatmul((16, 8, 16), "cpu")
    r = np.random.default_rng(61)
    a = r.standard_normal((33, 21)).astype(np.float32)
    kept = None
    for trial in range(3):
        b = (r.standard_normal((21, 19)) * (trial + 1)).astype(np.float32)
        out = np.full((33, 19), np.nan, np.float32)
        runner.launch(_args(tack.asarray(a), tack.asarray(b), tack.asarray(out)))
        assert np.array_equal(bits(out), bits(fold_matmul(a, b))), trial
        assert runner._kept is not None and (kept is None or runner._kept is kept)
        kept = runner._kept
    monkeypatch.setattr(_tile_tuning, "_KEPT_PANEL_BYTES", 4 * kept.size - 1)
    b = r.standard_normal((21, 19)).astype(np.float32)
    out = np.full((33, 19), np.nan, np.float32)
    runner.launch(_args(tack.asarray(a), tack.asarray(b), tack.asarray(out)))
    assert np.array_equal(bits(out), bits(fold_matmul(a, b)))
    assert runner._kept is None


def test_a_packed_product_runs_its_launches_one_at_a_time():
    # Launches of one PackedMatmul from several threads (the GIL is
    # released while a kernel runs) share its kept panels one launch at a
    # time: every product is its own operands'.
    import threading

    runner = _tile_tuning.PackedMatmul((16, 8, 16), "cpu")
    r = np.random.default_rng(62)
    cases = [(r.standard_normal((40, 30)).astype(np.float32), r.standard_normal((30, 50)).astype(np.float32))
             for _ in range(4)]
    wrong = []

    def work(i):
        a, b = cases[i]
        want = bits(fold_matmul(a, b))
        for _ in range(20):
            out = np.full((40, 50), np.nan, np.float32)
            runner.launch(_args(tack.asarray(a), tack.asarray(b), tack.asarray(out)))
            if not np.array_equal(bits(out), want):
                wrong.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_the_family_holds_every_tile_size_packed_unpacked_with_rows_in_lanes_and_launch_tiled():
    sizes = (8, 16, 32, 64)
    family = set(_tile_tuning.FAMILY)
    assert len(_tile_tuning.FAMILY) == len(family) == 4 * len(sizes) ** 3
    tile = _tile_tuning.LAUNCH_TILE
    for tm in sizes:
        for tn in sizes:
            for tk in sizes:
                assert {(tm, tn, tk), (tm, tn, tk, 1), (tm, tn, tk, 0, 1), (tm, tn, tk, 1, 0, tile)} <= family
    assert _tile_tuning.binding((8, 8, 8, 0, 1)) == {"nest_order": [1, 0]}
    assert _tile_tuning.binding((8, 8, 8, 1)) == {} == _tile_tuning.binding((8, 8, 8))
    # Packed, the nest is (block rows, panel, lane): the panel level split,
    # its outer part outermost.
    assert _tile_tuning.binding((8, 8, 8, 1, 0, 4)) == {"nest_split": [0, 4], "nest_order": [1, 0, 2, 3]}


def test_a_rows_in_lanes_winner_runs_its_nest_swapped(monkeypatch):
    # A candidate whose fifth element is 1 runs matmul's block rows in the
    # innermost launch dimension (nest_order [1, 0]), in tuning and in the
    # calls that use it; a narrow product (one block column) and a ragged
    # one give the f32 fold of fused multiply-adds.
    swapped = (8, 16, 8, 0, 1)
    monkeypatch.setattr(_tile_tuning, "FAMILY", (swapped,))
    monkeypatch.setattr(_tile_tuning, "_MIN_VOLUME", 1)
    r = np.random.default_rng(14)
    for m, k, n in ((203, 31, 9), (57, 31, 45)):
        a = r.standard_normal((m, k)).astype(np.float32)
        b = r.standard_normal((k, n)).astype(np.float32)
        c = T.matmul(tack.array(a), tack.array(b))
        assert np.array_equal(bits(c.numpy()), bits(fold_matmul(a, b))), (m, k, n)
        assert _tile_tuning.matmul_tiles(m, k, n, "cpu") == swapped
    plan = _core.tile_lowered_ir(_core.tile_matmul(8, 16, 8), **_tile_tuning.binding(swapped))
    assert "levels (1, 0) outermost first" in plan.splitlines()[1]


@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_the_cost_model_counts_multiply_adds_padded_edges_and_lane_groups(lanes):
    # Where the tiles divide the shape and the block columns fill whole
    # groups of lanes, the modelled multiply-adds are the product's own,
    # M * N * K (Python integers), times the gathered-B factor.
    g = _tile_tuning._GATHERED_B
    m, k, n = 128, 96, 64 * lanes
    for tm, tn, tk in ((16, 8, 32), (64, 64, 8), (32, 16, 96 // 3)):
        assert _tile_tuning.cost((tm, tn, tk), m, k, n, lanes) == pytest.approx(m * n * k * (1 + g / tm), rel=1e-12)
        # B packed or not, the model is the same.
        assert _tile_tuning.cost((tm, tn, tk, 1), m, k, n, lanes) == _tile_tuning.cost((tm, tn, tk), m, k, n, lanes)
        # The block rows in the lanes: the transposed product's cost, rows
        # and columns exchanged (the lanes gather A's tiles, tm x tk per
        # lane, instead of B's).
        assert _tile_tuning.cost((tm, tn, tk, 0, 1), n, k, m, lanes) == pytest.approx(
            _tile_tuning.cost((tn, tm, tk), m, k, n, lanes), rel=1e-12)
        assert _tile_tuning.cost((tm, tn, tk, 0, 1), m, k, n, lanes) == pytest.approx(
            -(-m // tm) // lanes * lanes * n * k * tm * (1 + g / tn) + (m // tm % lanes) * lanes * n * k * tm * (1 + g / tn),
            rel=1e-12)
    # Ragged edges count as whole tiles: one more row of A costs a block row.
    whole = _tile_tuning.cost((16, 8, 32), m, k, n, lanes)
    assert _tile_tuning.cost((16, 8, 32), m + 1, k, n, lanes) == pytest.approx(whole * (m + 16) / m)
    # A block row of lanes + 1 block columns: one full group, and one column
    # alone at a group's cost.
    assert _tile_tuning.cost((16, 8, 32), m, k, 8 * (lanes + 1), lanes) == pytest.approx(
        _tile_tuning.cost((16, 8, 32), m, k, 8 * lanes, lanes) * 2)


@pytest.mark.parametrize("klass", [(2048, 256, 16), (512, 512, 512), (1024, 1024, 512)])
def test_equal_costs_rank_rows_in_lanes_last_and_deepest_k_first(klass):
    # The model cannot tell the rows-in-lanes candidates' tile_k apart, nor
    # them from the transposed ordinary ones: at equal cost the ordinary
    # ones keep the family's order and come first, then rows-in-lanes ones,
    # deepest tile_k first.
    lanes = _tile_tuning.lanes("cpu")
    order = _tile_tuning.ranked(_tile_tuning.FAMILY, klass, lanes)
    family_index = {t: i for i, t in enumerate(_tile_tuning.FAMILY)}
    for a, b in zip(order, order[1:]):
        if _tile_tuning.cost(a, *klass, lanes) != _tile_tuning.cost(b, *klass, lanes):
            continue
        ra, rb = _tile_tuning.rows_in_lanes(a), _tile_tuning.rows_in_lanes(b)
        assert not (ra and not rb), (a, b)
        if ra and rb:
            assert a[2] >= b[2], (a, b)
        if not ra and not rb:
            assert family_index[a] < family_index[b], (a, b)
    if klass == (2048, 256, 16):
        # One block column of 16: the ranked unpacked slots go to rows in
        # lanes, k deep; the untuned tiles come after them.
        chosen = _tile_tuning.measured(_tile_tuning.FAMILY, klass, lanes)
        unpacked = [t for t in chosen if not _tile_tuning.packed(t)]
        assert unpacked[-1] == _tile_tuning.DEFAULT
        assert len(unpacked) == 3 and all(_tile_tuning.rows_in_lanes(t) and t[2] == 64 for t in unpacked[:-1]), unpacked


def test_tuning_measures_the_models_best_ranked_candidates():
    klass = (64, 64, 64)
    lanes = _tile_tuning.lanes("cpu")
    chosen = _tile_tuning.measured(_tile_tuning.FAMILY, klass, lanes)
    order = _tile_tuning.ranked(_tile_tuning.FAMILY, klass, lanes)
    assert sorted(order) == sorted(_tile_tuning.FAMILY)
    costs = [_tile_tuning.cost(t, *klass, lanes) for t in order]
    assert costs == sorted(costs)
    unpacked = [t for t in order if not _tile_tuning.packed(t)]
    best_plain = [t for t in unpacked if len(t) == 3]
    first_packed = [t for t in chosen if _tile_tuning.packed(t) and not _tile_tuning.launch_tile(t)]
    assert first_packed == [t + (1,) for t in best_plain[:6]]
    # The two best ranked unpacked ones and the untuned tiles.
    assert [t for t in chosen if not _tile_tuning.packed(t)] == unpacked[:2] + [
        t for t in [_tile_tuning.DEFAULT] if t not in unpacked[:2]]
    first = [t for t in chosen if not _tile_tuning.launch_tile(t)]
    assert [t for t in chosen if _tile_tuning.launch_tile(t)] == [t + (1, 0, 4) for t in best_plain[:6]]
    compiled = []

    def compile_candidate(tiles):
        compiled.append(tuple(tiles))
        return _tile_tuning._compile(tiles)

    tiles = _tile_tuning.matmul_tiles(*klass, "cpu", min_volume=1, compile_candidate=compile_candidate)
    # Every candidate of the first pass, then its winner launch-tiled where
    # that winner is packed.
    assert compiled[:len(first)] == first and tiles in chosen
    if len(compiled) > len(first):
        (tiled,) = compiled[len(first):]
        assert _tile_tuning.launch_tile(tiled) == 4 and _tile_tuning.packed(tiled)
        assert tiles in (tiled, tiled[:4])
    else:
        assert not _tile_tuning.packed(tiles)
    # The winner computes the in-order fold on a ragged shape of the class.
    r = np.random.default_rng(5)
    a = r.standard_normal((61, 64)).astype(np.float32)
    b = r.standard_normal((64, 50)).astype(np.float32)
    c = tack.empty((61, 50))
    _tile_tuning._compile(tiles).launch(_args(tack.array(a), tack.array(b), c))
    assert np.array_equal(bits(c.numpy()), bits(fold_matmul(a, b)))

class _Zeros:
    """A compiled 'candidate' that writes zeros: faster than any matmul, and wrong."""

    def launch(self, args):
        out = args[-1][0]
        out.numpy()[...] = 0.0


def test_a_wrong_candidate_never_wins():
    def compile_candidate(tiles):
        return _Zeros() if tiles == (8, 8, 8) else _tile_tuning._compile(tiles)

    winner, report = _tile_tuning.tune((64, 64, 64), ((8, 8, 8), (16, 16, 16)), compile_candidate)
    assert report["8x8x8"] == "wrong output"
    assert winner == (16, 16, 16)
    tiles = _tile_tuning.matmul_tiles(64, 64, 64, "cpu", candidates=((8, 8, 8), (32, 32, 16)), min_volume=1,
                                      compile_candidate=compile_candidate)
    assert tiles == (32, 32, 16)


class _Scripted:
    """A real candidate whose n-th launch first sleeps sleeps[n] seconds (the
    last entry for every launch after): a long first sleep stands in for the
    code the CPU compiles at the first launch of a stride pattern, longer
    ones for a slower kernel."""

    def __init__(self, tiles, sleeps):
        self.kernel, self.sleeps, self.launches = _tile_tuning._compile(tiles), sleeps, 0

    def launch(self, args):
        import time

        time.sleep(self.sleeps[min(self.launches, len(self.sleeps) - 1)])
        self.launches += 1
        self.kernel.launch(args)


def test_the_first_launchs_compile_is_not_timed():
    # At a class no larger than the check shape, the first run on the timed
    # arguments is also the correctness check; its time includes compiling
    # for their strides, so the timing starts after it.
    def compile_candidate(tiles):
        return _Scripted(tiles, [0.3, 0.0]) if tiles == (8, 8, 8) else _Scripted(tiles, [0.02])

    winner, report = _tile_tuning.tune((64, 64, 64), ((16, 16, 16), (8, 8, 8)), compile_candidate)
    assert winner == (8, 8, 8), report
    assert report["8x8x8"] < 100, report


def test_only_candidates_near_the_fastest_first_run_are_timed_again():
    # Launches 0 to 2 compile and check (the ragged shape, the class's, the
    # ragged again), 3 is the first timed run. 8x8x8's first run, disturbed,
    # is within _RETIMED of the fastest (16x16x16's), so it runs again and
    # wins; 32x32x16's is over 3x the fastest and runs no more.
    scripts = {(8, 8, 8): [0, 0, 0, 0.1, 0.01], (16, 16, 16): [0, 0, 0, 0.09], (32, 32, 16): [0, 0, 0, 0.3]}
    made = {}

    def compile_candidate(tiles):
        made[tiles] = _Scripted(tiles, scripts[tiles])
        return made[tiles]

    winner, report = _tile_tuning.tune((64, 64, 64), tuple(scripts), compile_candidate)
    assert winner == (8, 8, 8), report
    assert made[(32, 32, 16)].launches == 4, report
    assert made[(8, 8, 8)].launches >= 3 + _tile_tuning._RUNS and made[(16, 16, 16)].launches >= 3 + _tile_tuning._RUNS
    assert report["32x32x16"] > 250 and report["8x8x8"] < 50, report



def test_candidates_timed_again_take_turns(monkeypatch):
    # Each candidate's launches 0 to 3 compile, check and time its first
    # run, all of one candidate's before the next's; the further runs go in
    # rounds, one run of each candidate a round, so that a slower stretch of
    # the host falls on every candidate alike. Every candidate is timed
    # again whatever its first run took: on a loaded host a 10 ms sleep can
    # run 3 ms long, which would leave it out (_RETIMED, tested above).
    monkeypatch.setattr(_tile_tuning, "_RETIMED", float("inf"))
    order = []

    class Logged(_Scripted):
        def launch(self, args):
            order.append(self.tiles)
            super().launch(args)

    def compile_candidate(tiles):
        kernel = Logged(tiles, [0, 0, 0, 0.01])
        kernel.tiles = tiles
        return kernel

    candidates = ((8, 8, 8), (16, 16, 16), (16, 8, 8))
    _tile_tuning.tune((64, 64, 64), candidates, compile_candidate)
    first = len(candidates) * 4
    assert order[:first] == list(candidates) + [t for t in candidates for _ in range(3)], order
    rounds = order[first:]
    assert len(rounds) >= len(candidates) * (_tile_tuning._RUNS - 1), order
    assert rounds == list(candidates) * (len(rounds) // len(candidates)), order

def test_a_candidate_that_fails_to_run_never_wins():
    class Raises:
        def launch(self, args):
            raise RuntimeError("no")

    def compile_candidate(tiles):
        return Raises() if tiles == (8, 8, 8) else _tile_tuning._compile(tiles)

    winner, report = _tile_tuning.tune((32, 32, 32), ((8, 8, 8), (32, 32, 16)), compile_candidate)
    assert report["8x8x8"].startswith("failed") and winner == (32, 32, 16)


def test_turned_off_keeps_the_default(monkeypatch):
    monkeypatch.setenv("TACK_TILE_AUTOTUNE", "0")
    before = _tile_tuning._tunings
    assert _tile_tuning.matmul_tiles(512, 512, 512, "cpu", candidates=SMALL, min_volume=1) == _tile_tuning.DEFAULT
    assert _tile_tuning._tunings == before


def test_small_classes_are_not_tuned():
    before = _tile_tuning._tunings
    assert _tile_tuning.matmul_tiles(20, 20, 20, "cpu", candidates=SMALL) == _tile_tuning.DEFAULT
    assert _tile_tuning._tunings == before


def _winner_files(folder):
    sub = os.path.join(folder, "tile-tuning")
    return [os.path.join(sub, f) for f in os.listdir(sub)] if os.path.isdir(sub) else []


CHILD = """
import sys
from tack import _tile_tuning
tiles = _tile_tuning.matmul_tiles(60, 60, 60, "cpu", candidates={candidates!r}, min_volume=1)
print(_tile_tuning._tunings, *tiles)
"""


def _child(folder, candidates):
    env = dict(os.environ, TACK_CACHE_DIR=str(folder), TACK_TILE_AUTOTUNE="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.dirname(__file__), "..", "..", "python"),
                                         env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", CHILD.format(candidates=candidates)], env=env,
                          capture_output=True, text=True, check=True)
    tunings, *tiles = done.stdout.split()
    return int(tunings), tuple(int(t) for t in tiles)


def test_a_second_process_reuses_the_winner_from_disk(fresh):
    tunings, tiles = _child(fresh, SMALL)
    assert tunings == 1 and tiles in SMALL
    (path,) = _winner_files(fresh)
    record = json.load(open(path))
    assert record["key"]["class"] == [64, 64, 64]
    assert record["key"]["target"] == _core.target_description("cpu")
    assert tuple(record["tiles"]) == tiles
    assert not [f for f in os.listdir(os.path.dirname(path)) if f.endswith(".tmp")]
    assert _child(fresh, SMALL) == (0, tiles)
    # A different candidate set is a different question: tuned afresh.
    assert _child(fresh, SMALL[:2])[0] == 1


def test_a_winner_for_another_target_or_a_corrupt_file_is_not_used(fresh):
    tunings, tiles = _child(fresh, SMALL)
    (path,) = _winner_files(fresh)
    record = json.load(open(path))
    record["key"]["target"] = "some other cpu"
    json.dump(record, open(path, "w"))
    assert _child(fresh, SMALL)[0] == 1
    # Another build of Tack (same version) lowers the candidates with its
    # own code: its winner was checked on that code, not on this build's.
    record = json.load(open(path))
    assert record["key"]["tack"] == _core._build_identity()
    record["key"]["tack"] = record["key"]["tack"].replace("build-id", "build-id 0")
    json.dump(record, open(path, "w"))
    assert _child(fresh, SMALL)[0] == 1
    open(path, "w").write("{ not json")
    assert _child(fresh, SMALL)[0] == 1
    assert _child(fresh, SMALL)[0] == 0  # rewritten whole by the last tuning


def test_a_class_above_the_check_cap_is_checked_at_the_cap_and_timed_at_its_shape(monkeypatch):
    monkeypatch.setattr(_tile_tuning, "_CHECK_CAP", 32)
    seen = []

    class Recording:
        def __init__(self, kernel, wrong):
            self.kernel, self.wrong = kernel, wrong

        def launch(self, args):
            seen.append(tuple(args[-1][1]))
            self.kernel.launch(args)
            if self.wrong:
                args[-1][0].numpy()[0, 0] += 1.0

    def compile_candidate(tiles):
        return Recording(_tile_tuning._compile(tiles), tiles == (8, 8, 16))

    winner, report = _tile_tuning.tune((64, 64, 64), ((8, 8, 16), (16, 16, 16)), compile_candidate)
    assert report["8x8x16"] == "wrong output" and winner == (16, 16, 16)
    assert (32, 32) in seen and (37, 43) in seen and (64, 64) in seen


def test_tuning_times_the_first_calls_shape_and_keeps_the_winner_for_its_class(monkeypatch):
    # A ragged first call (50x64x40, class 64^3) is checked at the check
    # cap and the ragged shape, and timed at its own shape, not the class's.
    monkeypatch.setattr(_tile_tuning, "_CHECK_CAP", 32)
    monkeypatch.setattr(_tile_tuning, "_winners", {})
    monkeypatch.delenv("TACK_TILE_AUTOTUNE", raising=False)
    monkeypatch.setenv("TACK_DISABLE_DISK_CACHE", "1")
    seen = []

    class Recording:
        def __init__(self, kernel):
            self.kernel = kernel

        def launch(self, args):
            seen.append(tuple(args[-1][1]))
            self.kernel.launch(args)

    def compile_candidate(tiles):
        return Recording(_tile_tuning._compile(tiles))

    candidates = ((8, 8, 16), (16, 16, 16))
    tiles = _tile_tuning.matmul_tiles(50, 64, 40, "cpu", candidates=candidates, min_volume=1,
                                      compile_candidate=compile_candidate)
    assert tiles in candidates
    assert set(seen) == {(32, 32), (37, 43), (50, 40)}
    # Another shape of the class uses the winner without tuning.
    seen.clear()
    assert _tile_tuning.matmul_tiles(60, 33, 64, "cpu", candidates=candidates, min_volume=1,
                                     compile_candidate=compile_candidate) == tiles
    assert seen == []


def test_clear_cache_deletes_the_winners_and_nothing_else(fresh):
    _child(fresh, SMALL)
    (path,) = _winner_files(fresh)
    folder = os.path.dirname(path)
    foreign = os.path.join(folder, "notes.json")
    open(foreign, "w").write("a user's file")
    size = os.path.getsize(path)
    assert tack.clear_cache() >= size
    assert not os.path.exists(path)
    assert os.path.exists(foreign)  # not a name Tack writes: kept, and so is the folder
    os.unlink(foreign)
    _child(fresh, SMALL)
    tack.clear_cache()
    assert not os.path.exists(folder)
