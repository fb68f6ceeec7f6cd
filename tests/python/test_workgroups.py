"""Workgroup primitives (contract, "Workgroups and synchronization"):
tack.shared, shared_like, barrier, thread_id and the block reductions.

A backend with workgroups (OpenCL here; CUDA, HIP and Metal in the
contract) runs them in groups of 256 lanes: block reductions and shared
tiles are compared with NumPy over the same groups, a launch whose count
leaves a group incomplete is refused when the kernel has a barrier or a
block reduction, and the participation proof refuses collectives that not
every lane of a group is proven to reach together. A backend without
workgroups (the CPU) refuses any kernel that contains a primitive before
anything compiles or runs, wherever the primitive is (a nested branch, an
inlined device function, code that never runs), naming the kernel, the
backend and the primitive at its source position."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tack

from backends import WORKGROUPS
from test_tackc import tackc

BACKEND_NAMES = {"cpu": "CPU", "opencl": "OpenCL"}
FILE = __file__
GROUP = 256
WITH_WORKGROUPS = [d for d in tack.available_devices() if WORKGROUPS[d]]
WITHOUT_WORKGROUPS = [d for d in tack.available_devices() if not WORKGROUPS[d]]


def line_of(marker):
    for number, text in enumerate(Path(FILE).read_text().splitlines(), start=1):
        if text.rstrip().endswith(f"# {marker}"):
            return number
    raise AssertionError(marker)


@pytest.fixture(params=WITH_WORKGROUPS or [pytest.param(None, marks=pytest.mark.skip(
    reason="no device with workgroups is available (install PoCL for OpenCL: pocl-opencl-icd)"))])
def gpu(request):
    """Each available backend with workgroups, as the default device."""
    tack.set_default_device(request.param)
    yield request.param
    tack.set_default_device("cpu")


@pytest.fixture(params=WITHOUT_WORKGROUPS)
def plain(request):
    """Each available backend without workgroups, as the default device."""
    tack.set_default_device(request.param)
    yield request.param
    tack.set_default_device("cpu")


# ------------------------------------------------------------ the kernels

@tack.func
def barrier_when_huge(x):
    if x > 1e30:
        tack.barrier()  # W-inlined
    return x


@tack.kernel
def barrier_in_a_branch(a):
    for i in range(len(a)):
        if i > 1000000000:
            a[i] = barrier_when_huge(a[i])


@tack.kernel
def every_primitive(a):
    for i in range(len(a)):
        s = tack.shared(256, tack.f32)  # W-shared
        s[tack.thread_id()] = a[i]
        tack.barrier()
        a[i] = tack.block_sum(s[0]) + tack.block_min(a[i]) + tack.block_max(a[i])


@tack.kernel
def thread_index_only(a):
    for i in range(len(a)):
        a[i] = tack.f32(tack.thread_id())  # W-thread-id


@tack.kernel
def shared_copy(a):
    for i in range(len(a)):
        s = tack.local_array(4, tack.f32)
        t = tack.shared_like(s)  # W-shared-like
        t[0] = a[i]


@tack.kernel
def block_reductions(x, sums, mins, maxs):
    for i in range(len(x)):
        sums[i] = tack.block_sum(x[i])
        mins[i] = tack.block_min(x[i])
        maxs[i] = tack.block_max(x[i])


@tack.kernel
def transpose_tiles(a, out, n):
    # One 16 x 16 tile per workgroup: lane (ty, tx) loads a[row, col] into
    # the tile, and after the barrier writes the transposed element.
    for i in range(n * n):
        tile = tack.shared(256, tack.f32)
        lane = tack.thread_id()
        ty = lane // 16
        tx = lane % 16
        per_row = n // 16
        t = i // 256
        by = t // per_row
        bx = t % per_row
        tile[ty * 16 + tx] = a[(by * 16 + ty) * n + bx * 16 + tx]
        tack.barrier()
        out[(bx * 16 + ty) * n + by * 16 + tx] = tile[tx * 16 + ty]


@tack.kernel
def stencil_tiles(a, out):
    # out[i] = a[i - 1] + 2 a[i] + a[i + 1] (zero outside), reading
    # neighbours from the group's shared tile and across tile edges from a.
    for i in range(len(a)):
        tile = tack.shared(256, tack.f32)
        lane = tack.thread_id()
        tile[lane] = a[i]
        tack.barrier()
        left = 0.0
        right = 0.0
        if lane > 0:
            left = tile[lane - 1]
        elif i > 0:
            left = a[i - 1]
        if lane < 255:
            right = tile[lane + 1]
        elif i + 1 < len(a):
            right = a[i + 1]
        out[i] = left + 2.0 * tile[lane] + right


@tack.kernel
def reverse_through_shared_like(a, out):
    for i in range(len(a)):
        shape = tack.local_array(256, tack.f32)
        tile = tack.shared_like(shape)
        lane = tack.thread_id()
        tile[lane] = a[i]
        tack.barrier()
        out[i] = tile[255 - lane]


@tack.kernel
def lane_numbers(lanes, start: int):
    for i in range(start, start + 2 * len(lanes), 2):
        lanes[(i - start) // 2] = tack.thread_id()


@tack.kernel
def lane_numbers_2d(lanes):
    for i, j in tack.ndindex(lanes.shape[0], lanes.shape[1]):
        lanes[i, j] = tack.thread_id()


@tack.kernel
def group_sum_2d(x, out):
    for i, j in tack.ndindex(x.shape[0], x.shape[1]):
        out[i, j] = tack.block_sum(x[i, j])


@tack.kernel
def group_sums_of_a_loaded_length(lengths, x, out):
    # The count reads an array, so the device computes it.
    n = lengths[0]
    for i in range(n):
        out[i] = tack.block_sum(x[i])


@tack.kernel
def block_sum_of_integers(a, out):
    for i in range(len(a)):
        out[i] = tack.block_sum(a[i] * 2)  # W-integer-sum


@tack.kernel
def shift_through_shared(a, out):
    for i in range(len(a)):
        tile = tack.shared(256, tack.f32)
        tile[tack.thread_id() + 1] = a[i]  # W-past-the-tile
        tack.barrier()
        out[i] = tack.block_sum(a[i])


@tack.kernel
def count_and_publish(a, counter, positives, mirrored):
    # Atomics from every group, tail included; a lane-dependent atomic
    # branch; and a global write published to the group by the barrier.
    for i in range(len(a)):
        tack.atomic_add(counter, 0, 1)
        if a[i] > 0:
            tack.atomic_add(positives, 0, 1)
        mirrored[i] = a[i] * 2.0
        tack.barrier()
        lane = tack.thread_id()
        a[i] = mirrored[i - lane + 255 - lane]


@tack.kernel
def tail_atomics(counter, n: int):
    for i in range(n):
        if tack.thread_id() % 2 == 0:
            tack.atomic_add(counter, 0, 1)


# Accepted participation patterns, each checked numerically.

@tack.kernel
def barrier_under_a_uniform_branch(a, out, n: int):
    for i in range(len(a)):
        tile = tack.shared(256, tack.f32)
        lane = tack.thread_id()
        tile[lane] = a[i]
        if n > 0:
            tack.barrier()
        out[i] = tile[255 - lane]


@tack.kernel
def barriers_in_a_uniform_loop(a, out, rounds: int):
    for i in range(len(a)):
        tile = tack.shared(256, tack.f32)
        lane = tack.thread_id()
        tile[lane] = a[i]
        tack.barrier()
        for r in range(rounds):
            v = tile[(lane + 1) % 256]
            tack.barrier()
            tile[lane] = v
            tack.barrier()
        out[i] = tile[lane]


@tack.kernel
def varying_update_then_barrier(a, out):
    for i in range(len(a)):
        tile = tack.shared(256, tack.f32)
        lane = tack.thread_id()
        tile[lane] = 0.0
        if a[i] > 0:
            tile[lane] = a[i]
        x = 0.0
        k = 0
        while k < lane % 3:
            x = x + 1.0
            k = k + 1
        tack.barrier()
        out[i] = tile[255 - lane] + x


@tack.kernel
def block_sums_in_a_uniform_loop(x, out, rounds: int):
    for i in range(len(x)):
        total = 0.0
        for r in range(rounds):
            total = total + tack.block_sum(x[i] * tack.f32(r + 1))
        out[i] = total


# Refused participation patterns: (kernel, primitive, marker).

@tack.kernel
def barrier_under_a_loaded_condition(a):
    for i in range(len(a)):
        if a[i] > 0:
            tack.barrier()  # P-loaded


@tack.kernel
def barrier_under_the_lane_parity(a):
    for i in range(len(a)):
        if i % 2 == 0:
            tack.barrier()  # P-parity


@tack.kernel
def barrier_under_the_group_number(a):
    for i in range(len(a)):
        if i // 256 == 0:
            tack.barrier()  # P-group-number


@tack.kernel
def barrier_in_a_loaded_while(a):
    for i in range(len(a)):
        while a[i] > 0:
            tack.barrier()  # P-while
            a[i] = a[i] - 1.0


@tack.kernel
def barrier_before_a_varying_break(a, n: int):
    for i in range(len(a)):
        for k in range(n):
            tack.barrier()  # P-break
            if a[i] > tack.f32(k):
                break


@tack.kernel
def barrier_after_a_varying_continue(a):
    for i in range(len(a)):
        if a[i] > 0:
            continue
        tack.barrier()  # P-continue


@tack.kernel
def barrier_under_a_loop_carried_load(a, n: int):
    for i in range(len(a)):
        go = 1.0
        for k in range(n):
            if go > 0:
                tack.barrier()  # P-carried
            go = a[i]


@tack.kernel
def block_sum_in_a_conditional_expression(a, n: int):
    for i in range(len(a)):
        a[i] = tack.block_sum(a[i]) if n > 0 else 0.0  # P-ternary


@tack.kernel
def block_sum_in_a_short_circuit(a, n: int):
    for i in range(len(a)):
        if n > 0 and tack.block_sum(a[i]) > 0:  # P-and
            a[i] = 1.0


@tack.kernel
def block_sum_in_a_while_condition(a, n: int):
    for i in range(len(a)):
        k = 0
        while tack.block_sum(a[i]) > tack.f32(k) and k < n:  # P-while-condition
            k = k + 1


@tack.kernel
def barrier_before_the_loop(a):
    tack.barrier()  # P-prologue
    for i in range(len(a)):
        a[i] = 0.0


# (kernel, its name, the primitive refused, the marker of its line, whether
# it takes the scalar n after its array)
REFUSED = [
    (barrier_under_a_loaded_condition, "barrier_under_a_loaded_condition", "barrier", "P-loaded", False),
    (barrier_under_the_lane_parity, "barrier_under_the_lane_parity", "barrier", "P-parity", False),
    (barrier_under_the_group_number, "barrier_under_the_group_number", "barrier", "P-group-number", False),
    (barrier_in_a_loaded_while, "barrier_in_a_loaded_while", "barrier", "P-while", False),
    (barrier_before_a_varying_break, "barrier_before_a_varying_break", "barrier", "P-break", True),
    (barrier_after_a_varying_continue, "barrier_after_a_varying_continue", "barrier", "P-continue", False),
    (barrier_under_a_loop_carried_load, "barrier_under_a_loop_carried_load", "barrier", "P-carried", True),
    (block_sum_in_a_conditional_expression, "block_sum_in_a_conditional_expression", "block_sum", "P-ternary", True),
    (block_sum_in_a_short_circuit, "block_sum_in_a_short_circuit", "block_sum", "P-and", True),
    (block_sum_in_a_while_condition, "block_sum_in_a_while_condition", "block_sum", "P-while-condition", True),
]


def groups(x):
    return x.reshape(-1, GROUP)


# ------------------------------------------ backends without workgroups

def refusal(kernel, *args):
    with pytest.raises(tack.UnsupportedError) as error:
        kernel(*args)
    return error.value


@pytest.mark.parametrize(
    "kernel, marker, primitive, function",
    [
        (barrier_in_a_branch, "W-inlined", "barrier", ("barrier_when_huge", "device function")),
        (every_primitive, "W-shared", "shared", ("every_primitive", "kernel")),
        (thread_index_only, "W-thread-id", "thread_id", ("thread_index_only", "kernel")),
        (shared_copy, "W-shared-like", "shared_like", ("shared_copy", "kernel")),
    ],
    ids=["barrier-inlined", "shared", "thread_id", "shared_like"],
)
def test_a_backend_without_workgroups_refuses_the_kernel_before_running_it(plain, kernel, marker, primitive,
                                                                           function):
    a = tack.array(np.arange(8, dtype=np.float32))
    e = refusal(kernel, a)
    assert e.line == line_of(marker)
    assert e.construct == primitive
    assert f"tack.{primitive}() needs workgroups, which the {BACKEND_NAMES[plain]} backend does not have" in e.message
    assert (e.function, e.function_kind) == function
    np.testing.assert_array_equal(a.numpy(), np.arange(8, dtype=np.float32))  # nothing ran
    # The contract's NotImplementedError, which dispatch raises as a RuntimeError.
    assert isinstance(e, NotImplementedError) and isinstance(e, RuntimeError)


def test_the_message_lists_every_primitive_the_kernel_uses(plain):
    e = refusal(every_primitive, tack.zeros(4))
    listed = re.search(r"\(the kernel uses (.*)\)", e.message).group(1)
    assert listed == "tack.shared(), tack.thread_id(), tack.barrier(), tack.block_sum(), tack.block_min(), tack.block_max()"


def test_cpu_hint_names_the_cpu_alternatives():
    e = refusal(thread_index_only, tack.zeros(4, device="cpu"))
    assert "local_array and atomics" in e.hint


@pytest.mark.parametrize("mode", ["ir", "llvm", "opencl", "cuda", "hip", "metal"])
def test_inspection_refuses_in_every_mode(plain, mode):
    with pytest.raises(tack.UnsupportedError, match=r"tack\.shared\(\) needs workgroups"):
        every_primitive.inspect(mode, tack.zeros(4))


def test_tackc_refuses_for_the_cpu_and_prints_every_dialect():
    r = subprocess.run([str(tackc()), FILE, "--kernel", "every_primitive"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert f"{FILE}:{line_of('W-shared')}:" in r.stderr and "which the CPU backend does not have" in r.stderr
    spelled = {"opencl": "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)", "cuda": "__syncthreads()",
               "hip": "__syncthreads()", "metal": "threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device)"}
    for dialect, barrier in spelled.items():
        r = subprocess.run([str(tackc()), FILE, "--kernel", "every_primitive", "--sig", "f32[1]", f"--emit={dialect}"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert barrier in r.stdout and "tk_block_sum" in r.stdout, r.stdout


def test_tackc_refuses_an_unproven_barrier_for_every_dialect():
    for dialect in ("opencl", "cuda", "hip", "metal"):
        r = subprocess.run([str(tackc()), FILE, "--kernel", "barrier_under_a_loaded_condition", "--sig", "f32[1]",
                            f"--emit={dialect}"], capture_output=True, text=True)
        assert r.returncode == 1, r.stdout
        assert f"{FILE}:{line_of('P-loaded')}:" in r.stderr and "tack.barrier()" in r.stderr, r.stderr


# ----------------------------------------------- block reductions on devices

def test_block_reductions_of_integer_values_are_exact(gpu):
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, 8 * GROUP).astype(np.float32)
    out = [tack.zeros(x.size) for _ in range(3)]
    block_reductions(tack.array(x), *out)
    g = groups(x)
    for got, want in zip(out, (g.sum(axis=1), g.min(axis=1), g.max(axis=1))):
        np.testing.assert_array_equal(groups(got.numpy()), np.repeat(want[:, None], GROUP, axis=1))


@pytest.mark.parametrize("dtype", [tack.i32, tack.i64, tack.f64])
def test_block_reductions_refuse_other_types_than_f32(gpu, dtype):
    # Refused, not narrowed: the remedy is an explicit conversion.
    with pytest.raises(tack.KernelTypeError) as error:
        block_sum_of_integers(tack.zeros(GROUP, dtype), tack.zeros(GROUP))
    e = error.value
    assert e.line == line_of("W-integer-sum") and e.construct == "block_sum"
    assert "tack.block_sum() reduces f32 values, not" in e.message and "tack.f32(...)" in e.hint


def test_block_sums_stay_within_the_addition_bound(gpu):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(16 * GROUP) * 1e3).astype(np.float32)
    sums = tack.zeros(x.size)
    block_reductions(tack.array(x), sums, tack.zeros(x.size), tack.zeros(x.size))
    g = groups(x).astype(np.float64)
    exact = g.sum(axis=1)  # each group's 256 f32 terms, summed exactly enough in f64
    u = 2.0 ** -24
    gamma = GROUP * u / (1 - GROUP * u)
    bound = gamma * np.abs(g).sum(axis=1)
    got = groups(sums.numpy()).astype(np.float64)
    assert np.all(np.abs(got - exact[:, None]) <= bound[:, None])
    assert np.all(got == got[:, :1])  # every lane receives the same result


def test_block_extrema_follow_the_nan_and_zero_rules(gpu):
    x = np.ones((4, GROUP), dtype=np.float32)
    x[0, 17] = np.nan  # any NaN wins
    x[1] = 0.0
    x[1, ::3] = -0.0  # mixed zeros: min -0.0, max +0.0
    x[2] = -0.0  # all negative zeros: max stays -0.0
    x[3] = np.linspace(-3e38, 3e38, GROUP, dtype=np.float32)  # the infinities and the finite range
    x[3, 100], x[3, 200] = -np.inf, np.inf
    sums, mins, maxs = (tack.zeros(x.size) for _ in range(3))
    block_reductions(tack.array(x.reshape(-1)), sums, mins, maxs)
    mins, maxs = groups(mins.numpy()), groups(maxs.numpy())
    assert np.isnan(mins[0]).all() and np.isnan(maxs[0]).all()
    assert (mins[1] == 0).all() and np.signbit(mins[1]).all()
    assert (maxs[1] == 0).all() and not np.signbit(maxs[1]).any()
    assert (maxs[2] == 0).all() and np.signbit(maxs[2]).all()
    assert (mins[3] == -np.inf).all() and (maxs[3] == np.inf).all()


def test_block_sums_over_an_ndindex_group_complete_groups(gpu):
    x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    out = tack.zeros((8, 64))
    group_sum_2d(tack.array(x), out)
    flat = x.reshape(-1, GROUP)
    np.testing.assert_array_equal(out.numpy().reshape(-1, GROUP), np.repeat(flat.sum(axis=1)[:, None], GROUP, axis=1))


# ------------------------------------------------ shared tiles and barriers

def test_a_tiled_transpose_matches_numpy(gpu):
    n = 64
    a = np.arange(n * n, dtype=np.float32) * 0.5 - 7
    out = tack.zeros(n * n)
    transpose_tiles(tack.array(a), out, n)
    np.testing.assert_array_equal(out.numpy().reshape(n, n), a.reshape(n, n).T)


def test_a_shared_tile_stencil_matches_numpy(gpu):
    a = np.random.default_rng(7).integers(-50, 50, 4 * GROUP).astype(np.float32)
    out = tack.zeros(a.size)
    stencil_tiles(tack.array(a), out)
    padded = np.concatenate([[0], a, [0]]).astype(np.float32)
    want = padded[:-2] + np.float32(2) * padded[1:-1] + padded[2:]
    np.testing.assert_array_equal(out.numpy(), want)


@tack.kernel
def reverse_even_groups(a, out, groups: int):
    # ndindex(groups, 256): group g runs the 256 iterations of row g, so g is
    # the same on every lane of it and may guard a barrier.
    for g, lane in tack.ndindex(groups, 256):
        tile = tack.shared(256, tack.f32)
        tile[lane] = a[g * 256 + lane]
        if g % 2 == 0:
            tack.barrier()
            out[g * 256 + lane] = tile[255 - lane]
        else:
            out[g * 256 + lane] = -a[g * 256 + lane]


def test_the_outer_index_of_a_group_wide_ndindex_may_guard_a_barrier(gpu):
    a = np.arange(5 * GROUP, dtype=np.float32)
    out = tack.zeros(a.size)
    reverse_even_groups(tack.array(a), out, 5)
    rows = a.reshape(5, GROUP)
    want = np.where((np.arange(5) % 2 == 0)[:, None], rows[:, ::-1], -rows)
    np.testing.assert_array_equal(out.numpy().reshape(5, GROUP), want)


@tack.kernel
def private_scratch_at_the_limits(a, out):
    # One local array at the 64 KiB cap and fifteen more of it: 1 MiB in
    # all, the most a work item may hold.
    for i in range(len(a)):
        big = tack.local_array(16384, tack.f32)
        for j in range(16384):
            big[j] = a[i] + float(j)
        t0 = tack.local_array(16384, tack.f32)
        t1 = tack.local_array(16384, tack.f32)
        t2 = tack.local_array(16384, tack.f32)
        t3 = tack.local_array(16384, tack.f32)
        t4 = tack.local_array(16384, tack.f32)
        t5 = tack.local_array(16384, tack.f32)
        t6 = tack.local_array(16384, tack.f32)
        t7 = tack.local_array(16384, tack.f32)
        t8 = tack.local_array(16384, tack.f32)
        t9 = tack.local_array(16384, tack.f32)
        t10 = tack.local_array(16384, tack.f32)
        t11 = tack.local_array(16384, tack.f32)
        t12 = tack.local_array(16384, tack.f32)
        t13 = tack.local_array(16384, tack.f32)
        t14 = tack.local_array(16384, tack.f32)
        t0[16383] = big[16383]
        t14[7] = t0[16383] + big[100]
        t1[0] = t14[7]
        out[i] = t1[0] + t2[0] * 0.0 + t3[0] * 0.0 + t4[0] * 0.0 + t5[0] * 0.0 + t6[0] * 0.0 + t7[0] * 0.0 \
            + t8[0] * 0.0 + t9[0] * 0.0 + t10[0] * 0.0 + t11[0] * 0.0 + t12[0] * 0.0 + t13[0] * 0.0 \
            if i < 0 else t1[0]


def test_local_arrays_at_their_limits_run_on_every_backend(backend):
    # On a CPU OpenCL device (PoCL) a group's work items share one thread's
    # stack: 256 items of 64 KiB overflowed it and killed the process.
    # Launches without workgroups run in groups small enough instead.
    a = np.arange(300, dtype=np.float32)
    out = tack.zeros(300)
    private_scratch_at_the_limits(tack.array(a), out)
    np.testing.assert_array_equal(out.numpy(), (a + np.float32(16383)) + (a + np.float32(100)))


@tack.kernel
def barrier_beside_a_large_local_array(a):
    for i in range(len(a)):
        scratch = tack.local_array(8192, tack.f32)
        scratch[0] = a[i]
        tack.barrier()
        a[i] = scratch[0] + 1.0


def test_a_workgroup_kernel_whose_items_overflow_a_cpu_device_is_refused(gpu):
    from tack import _core

    if "PoCL" not in _core.target_description(gpu):
        pytest.skip("a GPU gives each work item memory of its own")
    a = tack.zeros(GROUP)
    with pytest.raises(ValueError, match="groups of 256 lanes, but this .* device's groups hold at most 128 lanes"):
        barrier_beside_a_large_local_array(a)
    assert (a.numpy() == 0).all()


def test_shared_like_makes_a_shared_array_of_the_same_shape(gpu):
    a = np.arange(3 * GROUP, dtype=np.float32)
    out = tack.zeros(a.size)
    reverse_through_shared_like(tack.array(a), out)
    np.testing.assert_array_equal(out.numpy(), groups(a)[:, ::-1].reshape(-1))


def test_debug_mode_checks_shared_indices_and_keeps_the_collectives(gpu):
    was = tack.debug_enabled()
    tack.set_debug(True)
    try:
        square = np.arange(32 * 32, dtype=np.float32)
        transposed = tack.zeros(square.size)
        transpose_tiles(tack.array(square), transposed, 32)
        np.testing.assert_array_equal(transposed.numpy().reshape(32, 32), square.reshape(32, 32).T)
        x = np.arange(2 * GROUP, dtype=np.float32)
        out = tack.zeros(x.size)
        with pytest.raises(IndexError, match=r"index \(256,\) is out of bounds for shared array 'tile' with shape "
                                             r"\(256,\)") as error:
            shift_through_shared(tack.array(x), out)
        assert f":{line_of('W-past-the-tile')}" in str(error.value)
        # The failing lane skipped its store and still reached the barrier
        # and the block sum with the rest of its group.
        np.testing.assert_array_equal(out.numpy(), np.repeat(groups(x).sum(axis=1), GROUP))
    finally:
        tack.set_debug(was)


def test_thread_id_is_the_flat_index_within_its_group(gpu):
    # No collective: partial final groups stay allowed.
    lanes = tack.zeros(1000, tack.i32)
    lane_numbers(lanes, 7)
    np.testing.assert_array_equal(lanes.numpy(), np.arange(1000) % GROUP)
    grid = tack.zeros((9, 37), tack.i32)
    lane_numbers_2d(grid)
    np.testing.assert_array_equal(grid.numpy().reshape(-1), np.arange(9 * 37) % GROUP)


def test_atomics_across_groups_and_a_barrier_publishes_global_writes(gpu):
    a_values = np.linspace(-2, 2, 4 * GROUP, dtype=np.float32)
    a = tack.array(a_values)
    counter, positives = tack.zeros(1, tack.i32), tack.zeros(1, tack.i32)
    mirrored = tack.zeros(a_values.size)
    count_and_publish(a, counter, positives, mirrored)
    assert counter.numpy()[0] == a_values.size
    assert positives.numpy()[0] == np.count_nonzero(a_values > 0)
    want = groups(a_values * np.float32(2))[:, ::-1].reshape(-1)
    np.testing.assert_array_equal(a.numpy(), want)


def test_atomics_in_a_partial_final_group(gpu):
    counter = tack.zeros(1, tack.i32)
    tail_atomics(counter, 1000)
    assert counter.numpy()[0] == np.count_nonzero(np.arange(1000) % GROUP % 2 == 0)


# --------------------------------------------------- complete groups only

def test_a_partial_group_is_refused_before_anything_runs(gpu):
    x = np.arange(1000, dtype=np.float32)
    a = tack.array(x)
    out = [tack.zeros(1000) for _ in range(3)]
    with pytest.raises(ValueError, match=r"kernel 'block_reductions': the launch has 1000 iterations, which is not "
                                         r"a multiple of 256"):
        block_reductions(a, *out)
    for o in out:
        np.testing.assert_array_equal(o.numpy(), np.zeros(1000, dtype=np.float32))


def test_a_cached_variant_rechecks_every_count(gpu):
    out = [tack.zeros(2 * GROUP) for _ in range(3)]
    block_reductions(tack.array(np.ones(2 * GROUP, dtype=np.float32)), *out)
    np.testing.assert_array_equal(out[0].numpy(), np.full(2 * GROUP, GROUP, dtype=np.float32))
    for n in (2 * GROUP - 1, GROUP + 1, 3):
        out = [tack.zeros(n) for _ in range(3)]
        with pytest.raises(ValueError, match=rf"the launch has {n} iterations, which is not a multiple of 256"):
            block_reductions(tack.array(np.ones(n, dtype=np.float32)), *out)
        np.testing.assert_array_equal(out[0].numpy(), np.zeros(n, dtype=np.float32))


def test_a_count_read_from_an_array_is_checked_on_the_device(gpu):
    x = tack.ones(1024)
    out = tack.zeros(1024)
    with pytest.raises(ValueError, match=r"the launch has 300 iterations, which is not a multiple of 256"):
        group_sums_of_a_loaded_length(tack.array(np.array([300], dtype=np.int32)), x, out)
    np.testing.assert_array_equal(out.numpy(), np.zeros(1024, dtype=np.float32))
    group_sums_of_a_loaded_length(tack.array(np.array([512], dtype=np.int32)), x, out)
    np.testing.assert_array_equal(out.numpy(), np.r_[np.full(512, 256, dtype=np.float32), np.zeros(512, np.float32)])


def test_ndindex_and_stepped_counts_count_logical_iterations(gpu):
    with pytest.raises(ValueError, match=r"the launch has 320 iterations"):
        group_sum_2d(tack.zeros((16, 20)), tack.zeros((16, 20)))
    out = tack.zeros((16, 32))
    group_sum_2d(tack.ones((16, 32)), out)
    np.testing.assert_array_equal(out.numpy(), np.full((16, 32), GROUP, dtype=np.float32))


@pytest.mark.skipif("opencl" not in tack.available_devices() or not Path("/etc/OpenCL/vendors/pocl.icd").exists(),
                    reason="needs PoCL, whose POCL_MAX_WORK_GROUP_SIZE lowers the device's group limit")
def test_a_device_whose_groups_cannot_hold_256_lanes_is_refused(tmp_path):
    script = tmp_path / "small_groups.py"
    script.write_text(
        "import numpy as np\n"
        "import tack\n"
        "@tack.kernel\n"
        "def sums(x, out):\n"
        "    for i in range(len(x)):\n"
        "        out[i] = tack.block_sum(x[i])\n"
        "out = tack.zeros(512, device='opencl')\n"
        "try:\n"
        "    sums(tack.ones(512, device='opencl'), out)\n"
        "    print('ran')\n"
        "except ValueError as e:\n"
        "    print(e)\n"
        "print(out.numpy().sum())\n")
    env = dict(os.environ, POCL_MAX_WORK_GROUP_SIZE="128", POCL_CACHE_DIR=str(tmp_path / "pocl"),
               TACK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(Path(tack.__file__).resolve().parent.parent))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    message, total = r.stdout.strip().splitlines()
    assert message == ("kernel 'sums': workgroup primitives run in groups of 256 lanes, but this OpenCL device's "
                       "groups hold at most 128 lanes for this kernel")
    assert float(total) == 0.0  # nothing ran


def test_an_empty_launch_runs_nothing(gpu):
    out = [tack.zeros(0) for _ in range(3)]
    block_reductions(tack.zeros(0), *out)


# ------------------------------------------------- the participation proof

def test_collectives_under_uniform_control_run(gpu):
    x = np.arange(2 * GROUP, dtype=np.float32)
    out = tack.zeros(x.size)
    barrier_under_a_uniform_branch(tack.array(x), out, 1)
    np.testing.assert_array_equal(out.numpy(), groups(x)[:, ::-1].reshape(-1))

    out = tack.zeros(x.size)
    barriers_in_a_uniform_loop(tack.array(x), out, 5)
    np.testing.assert_array_equal(out.numpy(), np.roll(groups(x), -5, axis=1).reshape(-1))

    a = np.linspace(-3, 3, 2 * GROUP, dtype=np.float32)
    out = tack.zeros(a.size)
    varying_update_then_barrier(tack.array(a), out)
    tile = np.where(a > 0, a, np.float32(0))
    lane = np.arange(a.size) % GROUP
    np.testing.assert_array_equal(out.numpy(), groups(tile)[:, ::-1].reshape(-1) + (lane % 3).astype(np.float32))

    ones = np.ones(GROUP, dtype=np.float32)
    out = tack.zeros(GROUP)
    block_sums_in_a_uniform_loop(tack.array(ones), out, 3)
    np.testing.assert_array_equal(out.numpy(), np.full(GROUP, GROUP * (1 + 2 + 3), dtype=np.float32))


@pytest.mark.parametrize("kernel, name, primitive, marker, takes_n", REFUSED, ids=[r[3] for r in REFUSED])
def test_unproven_participation_is_refused_before_anything_runs(gpu, kernel, name, primitive, marker, takes_n):
    a = tack.array(np.linspace(-1, 1, GROUP, dtype=np.float32))
    with pytest.raises(ValueError) as error:
        kernel(a, 3) if takes_n else kernel(a)
    e = error.value
    assert isinstance(e, tack.KernelValueError)
    assert e.line == line_of(marker)
    assert e.construct == primitive
    assert f"tack.{primitive}() is " in e.message and "every lane of a workgroup must reach it together" in e.message
    assert f"'{name}'" in str(e)
    np.testing.assert_array_equal(a.numpy(), np.linspace(-1, 1, GROUP, dtype=np.float32))


def test_a_collective_before_the_parallel_loop_is_refused_on_every_backend(backend):
    # Statements outside the parallel loop may only bind locals and load
    # arrays (they may run any number of times per launch); lowering refuses
    # the barrier there before any backend is asked.
    with pytest.raises(tack.UnsupportedError) as error:
        barrier_before_the_loop(tack.zeros(GROUP))
    assert error.value.line == line_of("P-prologue")
    assert "barrier outside the parallel loop" in error.value.message


@pytest.mark.parametrize("mode", ["opencl", "cuda", "hip", "metal"])
def test_inspection_prints_workgroup_kernels_and_checks_participation(gpu, mode):
    text = every_primitive.inspect(mode, tack.zeros(GROUP))
    assert "tk_block_sum" in text and "tk_block_min" in text and "tk_block_max" in text
    with pytest.raises(tack.KernelValueError, match=r"tack\.barrier\(\)"):
        barrier_under_a_loaded_condition.inspect(mode, tack.zeros(GROUP))


def test_llvm_inspection_of_a_workgroup_kernel_names_the_cpu(gpu):
    with pytest.raises(tack.UnsupportedError, match=r"which the CPU backend does not have"):
        every_primitive.inspect("llvm", tack.zeros(GROUP))
