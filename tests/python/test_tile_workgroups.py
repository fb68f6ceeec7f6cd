"""Tile kernels in workgroups on every GPU backend present (OpenCL on PoCL
in CI, CUDA on a lent GPU through scripts/device-check.sh, HIP): a region
bound to exec::thread whose iterations the group's lanes take, and a chain
of tiles each lane keeps in its registers (docs/tile/compile.md,
"Workgroups"). The kernels are TileIR text. Oracle: the tile interpreter
with the workgroups' grouping of unordered reductions (scalar_trees), bit
for bit, but for exp, which is the device's own (within 8 ulp,
docs/numerics.md). The same forms run in C++ on OpenCL
(compile_workgroups_test.cpp); these cases also put them through each
GPU dialect's compiler in CI's compile check."""

import numpy as np
import pytest

import tack
from tack import _core
from float_bits import identical

GPU_DEVICES = [
    pytest.param(d, marks=pytest.mark.skipif(d not in tack.available_devices(), reason=f"no {d} device here"))
    for d in ("opencl", "cuda", "hip")
]

# Per row, the row's first 256 elements' maximum (merged over the lanes);
# then per column j, on a lane of its own, the 2x2 product of the four
# elements from j with itself, summed, less the maximum.
THREAD_REGIONS = """
kernel @thread_regions(%0: view<?x?xf32>, %1: view<?x?xf32>) {
  %2 = dim %0 axis 0 : i64
  %3 = dim %0 axis 1 : i64
  parallel %4 < %2 exec block {
    %5 = const 0 : i64
    %6 = view %0[%4, %5:256] : view<256xf32>
    %7 = load %6 pad 0.0 : tile<256xf32>
    %8 = const 256 : i64
    %9 = const -inf : f32
    %10 = reduce %11 < %8 unordered_tree init(%9) merge(max) {
      %12 = extract %7, %11 axis 0 : f32
      yield %12
    }
    parallel %13 < %3 exec thread {
      %14 = view %0[%4, %13:4] : view<4xf32>
      %15 = load %14 pad 0.0 : tile<4xf32>
      %16 = reshape %15 : tile<2x2xf32>
      %17 = const 0.0 : tile<2x2xf32>
      %18 = mma %16, %16, %17 : tile<2x2xf32>
      %19 = reshape %18 : tile<4xf32>
      %20 = const 4 : i64
      %21 = const -0.0 : f32
      %22 = reduce %23 < %20 unordered_tree init(%21) merge(add) {
        %24 = extract %19, %23 axis 0 : f32
        yield %24
      }
      %25 = view %1[%4, %13] : view<f32>
      %26 = sub %22, %10 : f32
      store %25, %26
    }
  }
}
"""

# 300-element tiles (two slots a lane) through a load, products, casts, a
# remainder, comparisons, iota, exp and a select into a store, all in the
# lanes' registers; then a tile reshaped twice (read across lanes, so
# shared) plus one into a second store.
LANE_CHAIN = """
kernel @lane_chain(%0: view<?x?xf32>, %1: view<?x?xf32>) {
  %2 = dim %0 axis 0 : i64
  parallel %3 < %2 exec block {
    %4 = const 0 : i64
    %5 = view %0[%3, %4:300] : view<300xf32>
    %6 = load %5 pad 0.0 : tile<300xf32>
    %7 = const 0 : i64
    %8 = view %1[%3, %7:300] : view<300xf32>
    %9 = const 10.0 : f32
    %10 = broadcast %9 : tile<300xf32>
    %11 = mul %6, %10 : tile<300xf32>
    %12 = cast %11 : tile<300xi32>
    %13 = const 2 : i32
    %14 = broadcast %13 : tile<300xi32>
    %15 = rem %12, %14 : tile<300xi32>
    %16 = const 0 : i32
    %17 = broadcast %16 : tile<300xi32>
    %18 = eq %15, %17 : tile<300xi1>
    %19 = iota axis 0 : tile<300xi64>
    %20 = const 200 : i64
    %21 = broadcast %20 : tile<300xi64>
    %22 = lt %19, %21 : tile<300xi1>
    %23 = and %18, %22 : tile<300xi1>
    %24 = const 0.5 : f32
    %25 = broadcast %24 : tile<300xf32>
    %26 = mul %6, %25 : tile<300xf32>
    %27 = exp %26 : tile<300xf32>
    %28 = cast %3 : f32
    %29 = broadcast %28 : tile<300xf32>
    %30 = sub %27, %29 : tile<300xf32>
    %31 = neg %6 : tile<300xf32>
    %32 = select %23, %30, %31 : tile<300xf32>
    store %8, %32
    %33 = const 300 : i64
    %34 = view %1[%3, %33:300] : view<300xf32>
    %35 = reshape %32 : tile<20x15xf32>
    %36 = reshape %35 : tile<300xf32>
    %37 = const 1.0 : f32
    %38 = broadcast %37 : tile<300xf32>
    %39 = add %36, %38 : tile<300xf32>
    store %34, %39
  }
}
"""

# Per row, the first 3 of its 4 elements, picked as Top-K's last step picks
# its first k entries: element j of row i of the 3x4 grid is x[j] where
# i == j, else the broadcast constant -0.0, and the grid summed along its
# rows. The constant's broadcast is a lane register every lane assigns
# (PoCL 3.1 lost it when only the grid's 12 lanes did, and every sum was 0).
FIRST_ENTRIES = """
kernel @first_entries(%0: view<?x?xf32>, %1: view<?x?xf32>) {
  %2 = dim %0 axis 0 : i64
  parallel %3 < %2 exec block {
    %4 = const 0 : i64
    %5 = view %0[%3, %4:4] : view<4xf32>
    %6 = load %5 pad 0.0 : tile<4xf32>
    %7 = iota axis 0 : tile<3x4xi64>
    %8 = iota axis 1 : tile<3x4xi64>
    %9 = eq %7, %8 : tile<3x4xi1>
    %10 = reshape %6 : tile<1x4xf32>
    %11 = broadcast %10 : tile<3x4xf32>
    %12 = const -0.0 : f32
    %13 = broadcast %12 : tile<3x4xf32>
    %14 = select %9, %11, %13 : tile<3x4xf32>
    %15 = const 4 : i64
    %16 = const -0.0 : tile<3xf32>
    %17 = reduce %18 < %15 unordered_tree init(%16) merge(add) {
      %19 = extract %14, %18 axis 1 : tile<3xf32>
      yield %19
    }
    %20 = view %1[%3, %4:3] : view<3xf32>
    store %20, %17
  }
}
"""

# FIRST_ENTRIES with 0.25 * 2.0 in place of -0.0: a product of two
# broadcast constants, each lane's register the same value, which every
# lane assigns too; each row's sum is x[j] + 3 * 0.5.
UNIFORM_PRODUCT = FIRST_ENTRIES.replace("@first_entries", "@uniform_product").replace(
    "    %12 = const -0.0 : f32\n    %13 = broadcast %12 : tile<3x4xf32>\n",
    "    %12 = const 0.25 : f32\n    %21 = broadcast %12 : tile<3x4xf32>\n"
    "    %22 = const 2.0 : f32\n    %23 = broadcast %22 : tile<3x4xf32>\n"
    "    %13 = mul %21, %23 : tile<3x4xf32>\n")


# A reduced random program (tests/cpp/tile/compile_random_test.cpp, seed
# 3057): lane registers (tiles of 16 elements, one per lane) assigned in an
# element loop of at most one trip per lane and read in the next. While
# the body returned past the count before its first barrier, PoCL's default
# work-group method (loopvec) gave 0s for Y's first 16 columns when those
# were loops; without that return its `loops` method crashed on such
# loops. An element loop over at most a group's lanes is now an `if`
# (docs/tile/compile.md, "Workgroups").
LANE_REGISTERS = """
kernel @lane_registers(%0: view<?x?xf32>, %1: view<?x?xf32>) {
  %2 = dim %0 axis 0 : i64
  %3 = dim %0 axis 1 : i64
  parallel %4 < %2 {
    %5 = const 0 : i64
    %6 = view %0[%4, %5:16] : view<16xf32>
    %7 = load %6 pad 0.0 : tile<16xf32>
    %8 = const 16 : i64
    %9 = view %0[%4, %8:16] : view<16xf32>
    %10 = load %9 pad -1.5 : tile<16xf32>
    %11 = const 15 : i64
    %12 = add %3, %11 : i64
    %13 = const 16 : i64
    %14 = div %12, %13 : i64
    %15 = const -0.0 : tile<16xf32>
    %16 = reduce %17 < %14 ordered_tree init(%15) merge(add) {
      %18 = const 16 : i64
      %19 = mul %17, %18 : i64
      %20 = view %0[%4, %19:16] : view<16xf32>
      %21 = load %20 pad 0.0 : tile<16xf32>
      yield %21
    }
    %27 = const 0 : i64
    %28 = view %1[%4, %27:16] : view<16xf32>
    %29 = reshape %16 : tile<4x4xf32>
    %30 = const 0 : i64
    %31 = extract %29, %30 axis 1 : tile<4xf32>
    %32 = reshape %31 : tile<4x1xf32>
    %33 = broadcast %32 : tile<4x4xf32>
    %34 = reshape %33 : tile<16xf32>
    %35 = add %10, %34 : tile<16xf32>
    %36 = const 0.5 : f32
    %37 = broadcast %36 : tile<16xf32>
    %38 = mul %35, %37 : tile<16xf32>
    %39 = const -0.0 : tile<16xf32>
    %40 = add %38, %39 : tile<16xf32>
    store %28, %40
    %41 = const 16 : i64
    %42 = view %1[%4, %41:16] : view<16xf32>
    %43 = const 0.0 : f32
    %44 = broadcast %43 : tile<16xf32>
    %45 = add %44, %44 : tile<16xf32>
    %46 = gt %7, %45 : tile<16xi1>
    %47 = abs %16 : tile<16xf32>
    %48 = sqrt %47 : tile<16xf32>
    %49 = reshape %48 : tile<4x2x2xf32>
    %50 = reshape %49 : tile<16xf32>
    %51 = select %46, %50, %45 : tile<16xf32>
    %52 = mul %51, %10 : tile<16xf32>
    store %42, %52
    %97 = reshape %40 : tile<4x4xf32>
  }
}
"""

def run(kernel, device, x, out_shape, interpret=False):
    arrays = [tack.array(x, device="cpu" if interpret else device),
              tack.full(out_shape, np.nan, device="cpu" if interpret else device)]
    args = [(a, list(a.shape), [a.shape[1], 1], 0, i == 1) for i, a in enumerate(arrays)]
    if interpret:
        _core.tile_interpret(kernel, args, scalar_trees=True)
    else:
        _core.tile_compile(kernel, device, workgroups="always").launch(args)
    return arrays[1].numpy()


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_a_thread_region_runs_an_iteration_per_lane(device):
    kernel = _core.tile_parse(THREAD_REGIONS)
    plan = _core.tile_lowered_ir(kernel, workgroups=True)
    assert plan.startswith("; in workgroups"), plan.splitlines()[0]
    assert "(exec::thread): its iterations over the group's lanes" in plan
    for shape in [(3, 300), (5, 7), (2, 600)]:
        x = np.random.default_rng(shape[1]).uniform(-3, 3, shape).astype(np.float32)
        assert identical(run(kernel, device, x, shape), run(kernel, device, x, shape, interpret=True)), shape


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_tiles_only_their_own_lane_touches_stay_in_registers(device):
    kernel = _core.tile_parse(LANE_CHAIN)
    plan = _core.tile_lowered_ir(kernel, workgroups=True)
    assert plan.startswith("; in workgroups"), plan.splitlines()[0]
    assert "local $tile" in plan and "array[f32, (2)]" in plan and "shared $tile" in plan
    for shape in [(3, 600), (2, 650), (4, 310)]:
        x = np.random.default_rng(shape[1]).uniform(-3, 3, shape).astype(np.float32)
        got, want = run(kernel, device, x, shape), run(kernel, device, x, shape, interpret=True)
        # exp(x / 2) < e^1.5 < 4.5 within 8 ulp (< 3.9e-6), then a
        # subtraction and an addition rounding once each (< 2.5e-7 apiece).
        differ = ~np.equal(got.view(np.uint32), want.view(np.uint32))
        assert np.all(np.abs(got[differ] - want[differ]) <= 4.4e-6), shape


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_a_scalar_broadcast_in_a_lane_register_reaches_every_lane(device):
    kernel = _core.tile_parse(FIRST_ENTRIES)
    assert _core.tile_lowered_ir(kernel, workgroups=True).startswith("; in workgroups")
    x = np.random.default_rng(5).uniform(1, 3, (4, 4)).astype(np.float32)
    got = run(kernel, device, x, (4, 3))
    # -0.0 + x[j] + (-0.0) ... is x[j] exactly: the oracle is x itself.
    assert identical(got, x[:, :3]), got
    assert identical(got, run(kernel, device, x, (4, 3), interpret=True))
    kernel = _core.tile_parse(UNIFORM_PRODUCT)
    x = np.random.default_rng(6).integers(1, 9, (4, 4)).astype(np.float32)
    # Integers and halves: every order of the sum is exact.
    assert identical(run(kernel, device, x, (4, 3)), x[:, :3] + np.float32(1.5))


@pytest.mark.parametrize("device", GPU_DEVICES)
def test_lane_registers_read_in_the_next_element_loop(device):
    kernel = _core.tile_parse(LANE_REGISTERS)
    assert _core.tile_lowered_ir(kernel, workgroups=True).startswith("; in workgroups")
    x = np.random.default_rng(7).uniform(-3, 3, (5, 27)).astype(np.float32)
    got = run(kernel, device, x, (5, 32))
    assert identical(got, run(kernel, device, x, (5, 32), interpret=True))
    # The first store's oracle from x itself: the row's two blocks of 16
    # (the second padded with 0s) summed by the ordered tree of two, column
    # 0 of its 4x4 form broadcast along rows, added to the second block
    # (padded with -1.5), halved; each step one f32 rounding, exact here
    # but for the sum and the addition, which NumPy rounds the same way.
    blocks = np.zeros((5, 32), np.float32)
    blocks[:, :27] = x
    total = np.float32(-0.0) + (blocks[:, :16] + blocks[:, 16:])
    column = np.repeat(total.reshape(5, 4, 4)[:, :, 0], 4, axis=1)
    second = np.full((5, 16), -1.5, np.float32)
    second[:, :11] = x[:, 16:27]
    assert identical(got[:, :16], (second + column) * np.float32(0.5) + np.float32(-0.0))
