"""The CPU's SPMD variant runs the same program as its scalar variant.

An SPMD variant compiles the body of the parallel loop once for W lanes:
consecutive iterations of the innermost parallel dimension share one lane
group, every chunk ends with one masked tail group, and varying control
flow runs under masks. Each case here

- runs its kernel twice on fresh inputs, under tack.set_cpu_spmd(False) and
  under tack.set_cpu_spmd("always"), and requires the two results to be equal
  bit for bit (integer views of every output), except where the contract
  leaves a result open (which duplicate store wins, the order of contended
  atomics), where each variant is checked against the set of results the
  contract allows;
- checks the SPMD result against an independent oracle: NumPy's typed
  arithmetic, Python integers, CPython running the same @tack.func source
  on every iteration, fractions, or the documented formulas (texture
  sampling, tack.random's NumPy mirrors); never against recorded output;
- reads the first line of kernel.inspect("llvm", ...): "; tack cpu code:
  spmd, <W> lanes" for the SPMD variant (W sizes the tails, inner extents
  and contention patterns), "; tack cpu code: scalar, <reason>" otherwise.
"""

import ctypes
import json
import math
import mmap
import os
import platform
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import tack

pytestmark = pytest.mark.cpu_only("SPMD is a variant of the CPU code generator")

# The lanes wherever the kernel allows them: these cases test the lanes,
# whether or not the compiler would choose them (lane_cost.h).
LANES = "always"

SPMD_HEADER = re.compile(r"; tack cpu code: spmd, (\d+) lanes")
SCALAR_HEADER = re.compile(r"; tack cpu code: scalar, (.+)")

F32, F64 = np.float32, np.float64
NAN, INF = float("nan"), float("inf")
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.fixture(autouse=True)
def spmd_on():
    """Every case starts on the CPU, outside debug mode, with the lanes
    always on, and leaves the settings as it found them. Debug variants with
    the race detector run the scalar program, so the cases that check the
    lanes' own debug checks run with it off."""
    device, debug, lanes = tack.get_default_device(), tack.debug_enabled(), tack.cpu_spmd_enabled()
    races = tack.debug_races_enabled()
    tack.set_default_device("cpu")
    tack.set_debug(False, races=False)
    tack.set_cpu_spmd(LANES)
    yield
    tack.set_cpu_spmd(lanes)
    tack.set_debug(debug, races=races)
    tack.set_default_device(device)


# ------------------------------------------------------------------ helpers


def header(kernel, args):
    return kernel.inspect("llvm", *args).split("\n", 1)[0]


def spmd_lanes(kernel, *args):
    """W of the kernel's SPMD variant for these argument types; fails unless
    the variant compiled as SPMD."""
    tack.set_cpu_spmd(LANES)
    assert tack.cpu_spmd_enabled() == LANES
    line = header(kernel, args)
    m = SPMD_HEADER.fullmatch(line)
    assert m, f"the SPMD variant did not compile as SPMD: {line!r}"
    w = int(m.group(1))
    assert w >= 2 and w & (w - 1) == 0, line
    return w


def scalar_reason(kernel, *args):
    line = header(kernel, args)
    m = SCALAR_HEADER.fullmatch(line)
    assert m, f"expected a scalar variant: {line!r}"
    return m.group(1)


def bits(x):
    x = np.ascontiguousarray(x)
    if x.dtype.kind in "iub":
        return x
    return x.view(UINT[x.dtype.itemsize])


def assert_same_bits(got, want, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    g, w = bits(got), bits(want)
    if not np.array_equal(g, w):
        where = np.argwhere(g != w)[:8].tolist()
        pairs = [(tuple(k), got[tuple(k)].tolist(), want[tuple(k)].tolist()) for k in where]
        raise AssertionError(f"{what}: {int(np.sum(g != w))} elements differ, first (index, got, want): {pairs}")


def assert_equal_to(got, want, what=""):
    """got (a Tack output) equals the oracle's values of the same dtype, bit
    for bit; NaN matches any NaN."""
    got = np.asarray(got)
    want = want.astype(got.dtype) if isinstance(want, np.ndarray) else np.array(want, dtype=got.dtype)
    if got.dtype.kind == "f":
        nan = np.isnan(got) & np.isnan(want)
        got, want = np.where(nan, 0, got).astype(got.dtype), np.where(nan, 0, want).astype(got.dtype)
    assert_same_bits(got, want, what)


class Both:
    """The kernel run on fresh arguments from make_args(), once scalar and
    once SPMD. outs[False] and outs[True] hold copies of the watched arrays
    (every tack.Array argument unless watch picks them), rets the return
    values; w is the SPMD variant's lane count."""

    def __init__(self, kernel, make_args, watch=None, check_header=True):
        self.outs, self.rets, self.w = {}, {}, None
        for spmd in (False, True):
            tack.set_cpu_spmd(LANES if spmd else False)
            args = make_args()
            if check_header:
                if spmd:
                    self.w = spmd_lanes(kernel, *args)
                else:
                    scalar_reason(kernel, *args)
            self.rets[spmd] = kernel(*args)
            arrays = watch(args) if watch else [a for a in args if isinstance(a, tack.Array)]
            self.outs[spmd] = [a.numpy().copy() for a in arrays]
        tack.set_cpu_spmd(LANES)

    @property
    def spmd(self):
        return self.outs[True]

    def variants(self):
        return [self.outs[False], self.outs[True]]

    def assert_identical(self, which=None, what=""):
        for k, (s, v) in enumerate(zip(self.outs[False], self.outs[True])):
            if which is None or k in which:
                assert_same_bits(v, s, f"{what} output {k}: SPMD against scalar")
        rs, rv = self.rets[False], self.rets[True]
        assert type(rs) is type(rv) and (rs == rv or (rs != rs and rv != rv)), (rs, rv)


def zeros(shape, dtype=tack.f32):
    return tack.zeros(shape, dtype=dtype)


def wrap(v, nbits, signed):
    v &= (1 << nbits) - 1
    return v - (1 << nbits) if signed and v >> (nbits - 1) else v


# ------------------------------------------------------ toggle and headers


@tack.kernel
def axpy(a, x, y):
    for i in range(len(x)):
        y[i] = a * x[i] + y[i]


def test_the_switch_is_part_of_the_variant_key():
    @tack.kernel
    def scale_add(a, x, y):
        for i in range(len(x)):
            y[i] = a * x[i] + y[i]

    x = tack.array(np.arange(100, dtype=F32))
    want = F32(2.0) * np.arange(100, dtype=F32)
    assert tack.cpu_spmd_enabled()
    y = tack.zeros(100)
    scale_add(2.0, x, y)
    assert scale_add.compiled_variants == 1
    tack.set_cpu_spmd(False)
    assert not tack.cpu_spmd_enabled()
    z = tack.zeros(100)
    scale_add(2.0, x, z)
    assert scale_add.compiled_variants == 2
    assert scalar_reason(scale_add, 2.0, x, z)
    tack.set_cpu_spmd(LANES)
    scale_add(2.0, x, z)
    assert scale_add.compiled_variants == 2
    assert spmd_lanes(scale_add, 2.0, x, z) >= 2
    # The default (lanes where they pay) is a third variant, which for this
    # body is the lanes too.
    tack.set_cpu_spmd(True)
    assert tack.cpu_spmd_enabled() is True
    scale_add(2.0, x, z)
    assert scale_add.compiled_variants == 3
    assert SPMD_HEADER.fullmatch(header(scale_add, (2.0, x, z)))
    assert_same_bits(y.numpy(), want)
    assert_same_bits(z.numpy(), want + want + want)


# ------------------------------------------- the lanes where they pay


@tack.kernel
def histogram(keys, counts):
    for i in range(len(keys)):
        tack.atomic_add(counts, keys[i], 1)


@tack.kernel
def gather_eight(idx, x, out):
    for i in range(len(out)):
        s = x[0] * 0.0
        for j in range(8):
            s += x[idx[i * 8 + j]]
        out[i] = s


@tack.kernel
def scale_and_add(a, x, y):
    for i in range(len(x)):
        y[i] = a * x[i] + y[i]


@tack.kernel
def poly_exp(x, out):
    for i in range(len(x)):
        v = x[i]
        s = v
        for j in range(8):
            s = s * v + 0.25
        out[i] = math.exp(v) + s


def _default_and_always(kernel, make_args):
    """The kernel's first header line and outputs under the default setting
    (True) and under "always", run on fresh arguments each."""
    lines, outs = {}, {}
    for setting in (True, LANES):
        tack.set_cpu_spmd(setting)
        args = make_args()
        lines[setting] = header(kernel, args)
        kernel(*args)
        outs[setting] = [a.numpy().copy() for a in args if isinstance(a, tack.Array)]
    return lines, outs


def test_a_body_of_atomics_runs_the_scalar_program_by_default():
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 300, 20000).astype(np.int32)
    lines, outs = _default_and_always(histogram, lambda: (tack.array(keys), zeros(300, tack.i32)))
    reason = SCALAR_HEADER.fullmatch(lines[True])
    assert reason and "the lanes would not pay" in reason.group(1), lines[True]
    assert "1 atomics or prints" in reason.group(1), lines[True]
    assert SPMD_HEADER.fullmatch(lines[LANES]), lines[LANES]
    want = np.bincount(keys, minlength=300).astype(np.int32)
    for setting in (True, LANES):
        assert_equal_to(outs[setting][1], want, f"set_cpu_spmd({setting!r})")


def test_a_body_of_gathers_runs_the_scalar_program_by_default():
    rng = np.random.default_rng(6)
    x = rng.standard_normal(5000).astype(F32)
    idx = rng.integers(0, len(x), 8 * 700).astype(np.int32)
    lines, outs = _default_and_always(gather_eight, lambda: (tack.array(idx), tack.array(x), zeros(700, tack.f32)))
    reason = SCALAR_HEADER.fullmatch(lines[True])
    assert reason and "gathers or scatters" in reason.group(1), lines[True]
    assert SPMD_HEADER.fullmatch(lines[LANES]), lines[LANES]
    # f32 sums in the kernel's order, by NumPy's typed arithmetic.
    want = np.zeros(700, F32)
    for j in range(8):
        want = want + x[idx[j::8]]
    for setting in (True, LANES):
        assert_equal_to(outs[setting][2], want, f"set_cpu_spmd({setting!r})")


@pytest.mark.parametrize("which", ["saxpy", "mandelbrot", "poly_exp"])
def test_arithmetic_bodies_keep_their_lanes_by_default(which):
    """Bodies that are mostly arithmetic on consecutive elements run in
    lanes under the default setting, one C library call among many
    operations included; their results are the scalar program's."""
    if which == "saxpy":
        x = np.linspace(-3, 3, 1000).astype(F32)
        kernel, make = scale_and_add, lambda: (F32(1.5), tack.array(x), tack.array(x[::-1].copy()))
        want = lambda: F32(1.5) * x + x[::-1]
        out = 1
    elif which == "mandelbrot":
        cx = np.linspace(-2.2, 0.8, 40).astype(F32)
        cy = np.linspace(-1.2, 1.2, 9).astype(F32)
        kernel, make = mandelbrot, lambda: (tack.array(cx), tack.array(cy), zeros((9, 40), tack.i32), 40)
        want = lambda: np.array([[escape(a, b, 40) for a in cx] for b in cy], np.int32)
        out = 2
    else:
        x = np.linspace(-2, 2, 333).astype(F32)
        kernel, make = poly_exp, lambda: (tack.array(x), zeros(333, tack.f32))
        out = 1
        want = None
    lines, outs = _default_and_always(kernel, make)
    assert SPMD_HEADER.fullmatch(lines[True]), lines[True]
    assert_same_bits(outs[True][out], outs[LANES][out], which)
    tack.set_cpu_spmd(False)
    args = make()
    kernel(*args)
    scalar = [a.numpy() for a in args if isinstance(a, tack.Array)]
    assert_same_bits(outs[True][out], scalar[out], f"{which}: default against scalar")
    if want is not None:
        assert_equal_to(outs[True][out], want(), which)
    else:
        # The polynomial by NumPy's f32 arithmetic; exp by the C library
        # (the same libm call in both programs), within a few ulp of NumPy.
        s = x.copy()
        for _ in range(8):
            s = s * x + F32(0.25)
        np.testing.assert_allclose(outs[True][out], np.exp(x) + s, rtol=4e-7 * 8)


def test_the_setting_takes_three_values_and_refuses_others():
    for setting in (True, False, "always"):
        tack.set_cpu_spmd(setting)
        assert tack.cpu_spmd_enabled() == setting
    with pytest.raises(ValueError, match="not True, False or 'always'"):
        tack.set_cpu_spmd("sometimes")
    assert tack.cpu_spmd_enabled() == "always"


@tack.kernel
def shifted_every_third(a, out, k: int):
    for i in range(len(out)):
        if i % 3 == 0:
            out[i] = a[i + k]
        else:
            out[i] = -1.0


@tack.kernel
def divide_where_odd(a, d, out):
    for i in range(len(out)):
        if i % 2 == 1:
            out[i] = a[i] // d[i]


def test_debug_mode_variants_run_in_lanes_and_report_what_the_scalar_program_reports():
    n, k = 37, 5
    a_np = np.arange(40, dtype=F32) + F32(0.5)
    x = tack.array(np.arange(10, dtype=F32))
    tack.set_debug(True)
    try:
        assert spmd_lanes(axpy, 2.0, x, tack.zeros(10)) >= 2
        y = tack.zeros(10)
        axpy(3.0, x, y)
        assert_same_bits(y.numpy(), F32(3.0) * np.arange(10, dtype=F32))
        # Iteration 36 (36 % 3 == 0) reads a[41] of 40 elements: the load is
        # skipped (gives 0), the rest runs, and the call names the access.
        messages, outs = [], []
        for spmd in (False, True):
            tack.set_cpu_spmd(LANES if spmd else False)
            out = tack.zeros(n)
            with pytest.raises(IndexError) as caught:
                shifted_every_third(tack.array(a_np), out, k)
            messages.append(str(caught.value))
            outs.append(out.numpy())
        assert spmd_lanes(shifted_every_third, tack.array(a_np), tack.zeros(n), k) >= 2
        assert "41" in messages[1] and "out of bounds" in messages[1], messages[1]
        assert messages[0] == messages[1]
        want = np.full(n, F32(-1.0))
        for i in range(0, n, 3):
            want[i] = a_np[i + k] if i + k < len(a_np) else F32(0)
        assert_same_bits(outs[0], want)
        assert_same_bits(outs[1], want)
        # An integer division by zero in one active lane (inactive lanes
        # divide by zero too, and must not report).
        a_i = np.arange(20, dtype=np.int32)
        d_i = np.where(np.arange(20) % 2 == 1, 3, 0).astype(np.int32)
        d_i[13] = 0
        for spmd in (False, True):
            tack.set_cpu_spmd(LANES if spmd else False)
            with pytest.raises(Exception) as caught:
                divide_where_odd(tack.array(a_i), tack.array(d_i), tack.zeros(20, dtype=tack.i32))
            messages.append(str(caught.value))
        assert "zero" in messages[-1].lower(), messages[-1]
        assert messages[-2] == messages[-1]
        d_i[13] = 3
        out = tack.zeros(20, dtype=tack.i32)
        divide_where_odd(tack.array(a_i), tack.array(d_i), out)
        want_i = np.zeros(20, dtype=np.int32)
        want_i[1::2] = a_i[1::2] // 3
        np.testing.assert_array_equal(out.numpy(), want_i)
    finally:
        tack.set_debug(False)
        tack.set_cpu_spmd(LANES)


def _run_script(tmp_path, script, **env):
    """Runs `script` in a fresh Python with `env` added to the environment:
    (exit code, lines of standard output, standard error)."""
    path = tmp_path / "script.py"
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], env=dict(os.environ, **env), capture_output=True, text=True,
                          timeout=120)
    return done.returncode, done.stdout.splitlines(), done.stderr


def test_the_environment_forces_scalar_at_import(tmp_path):
    script = (
        "import numpy as np, tack\n"
        "@tack.kernel\n"
        "def twice(x, y):\n"
        "    for i in range(len(x)):\n"
        "        y[i] = x[i] * 2.0\n"
        "x = tack.array(np.arange(40, dtype=np.float32)); y = tack.zeros(40)\n"
        "twice(x, y)\n"
        "print(tack.cpu_spmd_enabled())\n"
        "print(twice.inspect('llvm', x, y).split(chr(10), 1)[0])\n"
        "print(float(y.numpy().sum()))\n"
    )
    rc, lines, stderr = _run_script(tmp_path, script, TACK_CPU_SPMD="0")
    assert rc == 0, stderr
    enabled, line, total = lines
    assert enabled == "False"
    assert SCALAR_HEADER.fullmatch(line), line
    assert float(total) == 2.0 * sum(range(40))


def test_the_environment_keeps_the_lanes_always_at_import(tmp_path):
    script = (
        "import numpy as np, tack\n"
        "@tack.kernel\n"
        "def count(keys, counts):\n"
        "    for i in range(len(keys)):\n"
        "        tack.atomic_add(counts, keys[i], 1)\n"
        "keys = tack.array(np.arange(100, dtype=np.int32) % 7); counts = tack.zeros(7, dtype=tack.i32)\n"
        "count(keys, counts)\n"
        "print(tack.cpu_spmd_enabled())\n"
        "print(count.inspect('llvm', keys, counts).split(chr(10), 1)[0])\n"
        "print(counts.numpy().tolist())\n"
    )
    rc, lines, stderr = _run_script(tmp_path, script, TACK_CPU_SPMD="always")
    assert rc == 0, stderr
    setting, line, counts = lines
    assert setting == "always"
    assert SPMD_HEADER.fullmatch(line), line  # the default would run this body scalar
    assert json.loads(counts) == np.bincount(np.arange(100) % 7).tolist()


@pytest.mark.parametrize("value", ["1", "yes", "Always"])
def test_another_value_of_the_environment_fails_the_import(tmp_path, value):
    # As TACK_NUM_THREADS: a value Tack does not know is not ignored.
    rc, _, stderr = _run_script(tmp_path, "import tack\n", TACK_CPU_SPMD=value)
    assert rc == 1 and f"ValueError: TACK_CPU_SPMD={value!r}: expected 0 (the scalar program) or always" in stderr, \
        stderr


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the CPU names are x86's")
def test_the_environment_names_an_older_cpu_to_compile_for(tmp_path):
    """TACK_CPU_TARGET compiles for the CPU it names (here AVX2 without
    AVX-512: 8 lanes of f64), whose code runs on this host; a name LLVM does
    not know is refused when the first kernel compiles."""
    script = (
        "import numpy as np, tack\n"
        "@tack.kernel\n"
        "def twice(x, y):\n"
        "    for i in range(len(x)):\n"
        "        y[i] = x[i] * 2.0 + 0.5\n"
        "x = tack.array(np.arange(100, dtype=np.float64)); y = tack.zeros(100, dtype=tack.f64)\n"
        "twice(x, y)\n"
        "print(tack._core.target_description('cpu'))\n"
        "print(twice.inspect('llvm', x, y).split(chr(10), 1)[0])\n"
        "print(y.numpy().tolist())\n"
    )
    rc, lines, stderr = _run_script(tmp_path, script, TACK_CPU_TARGET="x86-64-v3")
    assert rc == 0, stderr
    description, line, values = lines
    assert "; cpu x86-64-v3; " in description and "+avx2" in description.split(",")
    assert "+avx512f" not in description.split(",")
    assert SPMD_HEADER.fullmatch(line).group(1) == "8", line
    assert json.loads(values) == (np.arange(100, dtype=np.float64) * 2.0 + 0.5).tolist()
    rc, _, stderr = _run_script(tmp_path, script, TACK_CPU_TARGET="no-such-cpu")
    assert rc != 0
    assert "ValueError: TACK_CPU_TARGET='no-such-cpu' is not a CPU that LLVM knows" in stderr, stderr
    # A CPU whose code this host cannot run is refused the same way, not run:
    # a 32-bit one (LLVM aborted the process), one with arithmetic the host
    # lacks (Piledriver's XOP, FMA4 and TBM, which no later x86 has: the
    # first such instruction would stop the process).
    rc, _, stderr = _run_script(tmp_path, script, TACK_CPU_TARGET="i686")
    assert rc == 1 and "ValueError: TACK_CPU_TARGET='i686' is a 32-bit CPU" in stderr, stderr
    rc, _, stderr = _run_script(tmp_path, script, TACK_CPU_TARGET="bdver2")
    assert rc == 1 and "ValueError: TACK_CPU_TARGET='bdver2' has instructions this host lacks (" in stderr, stderr
    assert "xop" in stderr.split("lacks (")[1].split(")")[0].split(", "), stderr


# ------------------------------------------------------- lane counts, tails


@tack.kernel
def tail_float(a, b, out, start, stop, step):
    for i in range(start, stop, step):
        out[i] = math.sqrt(abs(a[i])) * b[i] + a[i] / (b[i] + 10.0)


@tack.kernel
def tail_int(a, b, out, start, stop, step):
    for i in range(start, stop, step):
        out[i] = a[i] * b[i] + (a[i] ^ b[i]) - (a[i] & b[i])


TAIL_TYPES = {"f32": (tail_float, F32), "f64": (tail_float, F64), "i8": (tail_int, np.int8), "u8": (tail_int, np.uint8)}


def tail_inputs(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return (rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True),
                rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True))
    return (rng.standard_normal(n) * 50).astype(dtype), (rng.uniform(0.5, 4.0, n)).astype(dtype)


def tail_oracle(dtype, a, b):
    if np.issubdtype(dtype, np.integer):
        return a * b + (a ^ b) - (a & b)  # NumPy's fixed-width arithmetic wraps
    return np.sqrt(np.abs(a)) * b + a / (b + dtype(10.0))


def lanes_of(name):
    kernel, dtype = TAIL_TYPES[name]
    a = tack.array(np.zeros(4, dtype))
    return spmd_lanes(kernel, a, a, tack.array(np.zeros(4, dtype)), 0, 4, 1)


def test_lane_counts_follow_the_widest_type():
    w32, w64, w8 = lanes_of("f32"), lanes_of("f64"), lanes_of("i8")
    assert lanes_of("u8") == w8
    # Lanes are two registers of the widest type, at most 16.
    assert w64 >= 2 and w32 == min(16, 2 * w64), (w32, w64)
    assert w8 == w32, (w8, w32)


@pytest.mark.parametrize("start,step", [(0, 1), (5, 3), (1, 2), (7, 5)])
@pytest.mark.parametrize("name", list(TAIL_TYPES))
def test_every_tail_length_and_multiples_of_w(name, start, step):
    kernel, dtype = TAIL_TYPES[name]
    w = lanes_of(name)
    tack.set_cpu_spmd(False)
    scalar_reason(kernel, *(tack.array(np.zeros(4, dtype)) for _ in range(3)), 0, 4, 1)
    tack.set_cpu_spmd(LANES)
    # Past a few thousand iterations the runtime splits the launch into
    # chunks at boundaries that need not be multiples of W, each with its tail.
    counts = list(range(0, 2 * w + 2)) + [3 * w, 4 * w - 1, 5 * w + 3, 64 * w, 100 * w + w - 1, 40000 * w + 3]
    sentinel = dtype(-7) if dtype != np.uint8 else dtype(201)
    for count in counts:
        stop = start + step * count  # len(range(start, stop, step)) == count
        length = stop + 2 * w + 3  # room past the end, where nothing may be written
        a, b = tail_inputs(dtype, length, seed=count)
        visited = np.zeros(length, bool)
        visited[start:stop:step] = True
        assert visited.sum() == count
        want = np.full(length, sentinel, dtype)
        want[visited] = tail_oracle(dtype, a, b)[visited]

        def make():
            return tack.array(a), tack.array(b), tack.array(np.full(length, sentinel, dtype)), start, stop, step

        r = Both(kernel, make, check_header=False)
        r.assert_identical(what=f"count {count}")
        assert_equal_to(r.spmd[2], want, f"{name} count {count} (W={w})")
    # A reversed interval runs nothing.
    a, b = tail_inputs(dtype, 64, seed=1)
    r = Both(kernel, lambda: (tack.array(a), tack.array(b), tack.array(np.full(64, sentinel, dtype)), start + 9, start, step),
             check_header=False)
    assert_equal_to(r.spmd[2], np.full(64, sentinel, dtype), "reversed interval")


# ------------------------------------------------------------ 2-D ndindex


@tack.kernel
def stencil2d(a, out, r0, r1, c0, c1):
    for i, j in tack.ndindex((r0, r1), (c0, c1)):
        out[i, j] = a[i, j] * 3 + a[i, j + 1] - a[i - 1, j] + i * 1000 + j


@tack.kernel
def rows_f32(a, out):
    for i, j in tack.ndindex(a.shape[0], a.shape[1]):
        out[i, j] = a[i, j] * a[i, j] - tack.f32(j) / tack.f32(i + 1)


# Inner extents as (multiple of W, offset).
INNER = {"1": (0, 1), "2": (0, 2), "3": (0, 3), "W-1": (1, -1), "W": (1, 0), "W+1": (1, 1), "2W-1": (2, -1),
         "2W": (2, 0), "3W+2": (3, 2)}


@pytest.mark.parametrize("inner", list(INNER))
def test_ndindex_inner_extents_around_w(inner):
    w = spmd_lanes(stencil2d, zeros((3, 3), tack.i32), zeros((3, 3), tack.i32), 1, 2, 0, 1)
    times, offset = INNER[inner]
    cols = times * w + offset
    rows = 7
    rng = np.random.default_rng(cols)
    a = rng.integers(-1000, 1000, (rows, cols + 3), dtype=np.int32)
    c0, c1 = 1, cols + 1  # columns [1, cols + 1), so j + 1 stays inside
    r = Both(stencil2d, lambda: (tack.array(a), tack.full((rows, cols + 3), -1, dtype=tack.i32), 1, rows, c0, c1))
    r.assert_identical()
    want = np.full((rows, cols + 3), -1, np.int64)
    i, j = np.meshgrid(np.arange(1, rows), np.arange(c0, c1), indexing="ij")
    want[1:, c0:c1] = a[i, j].astype(np.int64) * 3 + a[i, j + 1] - a[i - 1, j] + i * 1000 + j
    assert_equal_to(r.spmd[1], want.astype(np.int32), f"inner extent {cols} (W={w})")

    b = rng.standard_normal((5, cols)).astype(F32)
    r = Both(rows_f32, lambda: (tack.array(b), tack.zeros((5, cols))))
    r.assert_identical()
    jj = np.arange(cols, dtype=F32)[None, :]
    ii = np.arange(1, 6, dtype=F32)[:, None]
    assert_equal_to(r.spmd[1], b * b - jj / ii)


@tack.kernel
def fill3d(out, d0, d1, d2):
    for i, j, k in tack.ndindex((1, d0), d1, (2, d2)):
        out[i, j, k] = i * 10000 + j * 100 + k * (1 + (i + j) % 2)


@pytest.mark.parametrize("inner", ["1", "W-1", "W+1", "3W+2"])
def test_ndindex_three_dimensions(inner):
    w = spmd_lanes(fill3d, zeros((2, 2, 2), tack.i32), 2, 2, 3)
    times, offset = INNER[inner]
    d2 = 2 + times * w + offset  # the innermost range is (2, d2)
    shape = (4, 3, d2 + 2)
    r = Both(fill3d, lambda: (tack.full(shape, -1, dtype=tack.i32), 4, 3, d2))
    r.assert_identical()
    want = np.full(shape, -1, np.int32)
    i, j, k = np.meshgrid(np.arange(1, 4), np.arange(3), np.arange(2, d2), indexing="ij")
    want[1:4, :, 2:d2] = i * 10000 + j * 100 + k * (1 + (i + j) % 2)
    assert_equal_to(r.spmd[0], want)


# ------------------------------------------------- divergent control flow


@tack.func
def escape(cx, cy, limit):
    x = cx * 0.0
    y = cy * 0.0
    n = 0
    while n < limit and x * x + y * y <= 4.0:
        x, y = x * x - y * y + cx, 2.0 * x * y + cy
        n += 1
    return n


@tack.kernel
def mandelbrot(cx, cy, out, limit):
    for r, c in tack.ndindex(len(cy), len(cx)):
        out[r, c] = escape(cx[c], cy[r], limit)


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_mandelbrot_escape_counts(dtype):
    cx = np.linspace(-2.2, 0.8, 45).astype(dtype)
    cy = np.linspace(-1.2, 1.2, 24).astype(dtype)
    limit = 60
    r = Both(mandelbrot, lambda: (tack.array(cx), tack.array(cy), zeros((24, 45), tack.i32), limit))
    r.assert_identical()
    # CPython runs the same source per point on NumPy scalars of the
    # kernel's type (NEP 50: the float literals take that type).
    want = np.array([[escape(x, y, limit) for x in cx] for y in cy], np.int32)
    assert_equal_to(r.spmd[2], want)
    assert len(set(want.ravel().tolist())) > 15  # lanes of one group leave the loop at different counts


def _has_mask_registers():
    """Whether the CPU the code is compiled for (the host, or the one
    TACK_CPU_TARGET names) has mask registers (AVX-512), from the features
    of its target description."""
    features = tack._core.target_description("cpu").split("; features ", 1)[1].split(";", 1)[0].split(",")
    return "+avx512f" in features


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_masks_around_loops_are_as_wide_as_the_compares_without_mask_registers(dtype):
    """Without mask registers, the active lanes that the escape loop carries
    from turn to turn are kept as wide as the host's compare results, not as
    bytes (widen_masks.cpp); the escape counts stay the scalar program's."""
    cx = np.linspace(-2.2, 0.8, 64).astype(dtype)
    cy = np.linspace(-1.2, 1.2, 8).astype(dtype)
    r = Both(mandelbrot, lambda: (tack.array(cx), tack.array(cy), zeros((8, 64), tack.i32), 60))
    r.assert_identical()
    want = np.array([[escape(x, y, 60) for x in cx] for y in cy], np.int32)
    assert_equal_to(r.spmd[2], want)
    # The masks' width is known only on an x86 host.
    if platform.machine() != "x86_64":
        return
    has_k = _has_mask_registers()
    ir = mandelbrot.inspect("llvm", tack.array(cx), tack.array(cy), zeros((8, 64), tack.i32), 60)
    w = int(SPMD_HEADER.match(ir).group(1))
    narrow = re.findall(rf"phi <{w} x i1>", ir)
    wide = re.findall(rf"\.wide = phi <{w} x i(\d+)>", ir)
    if has_k:
        assert narrow and not wide, "mask registers hold the <W x i1> as it is"
    else:
        assert not narrow, f"{len(narrow)} masks carried as <{w} x i1>"
        assert wide and all(int(bits) > 8 for bits in wide), wide


@tack.func
def jumpy(i, m):
    acc = 0
    for j in range(m):
        if (i + j) % 5 == 0:
            continue
        if j * j > i + 3:
            break
        acc += j * (i % 4 + 1)
    k = i
    while True:
        k += 3
        if k % 7 == 0:
            break
        if k % 2 == 0:
            continue
        acc += 1
    for a in range(i % 4):
        for b in range(6):
            if b == a + i % 3:
                break
            if (a + b) % 2 == 1:
                continue
            acc += 100
        if a == 2:
            continue
        acc += 1000
    t = 0
    while t < m + 2:
        t += 1
        if (t + i) % 3 == 0:
            continue
        acc += t
        if acc > 1050 + i % 50:
            break
    return acc


@tack.kernel
def jumps(m, out, out_uniform):
    for i in range(len(m)):
        out[i] = jumpy(i, m[i])
        out_uniform[i] = jumpy(i, 9)


def test_varying_break_and_continue_in_sequential_loops():
    n = 700
    m = np.random.default_rng(3).integers(0, 12, n).astype(np.int32)
    r = Both(jumps, lambda: (tack.array(m), zeros(n, tack.i64), zeros(n, tack.i64)))
    r.assert_identical()
    assert_equal_to(r.spmd[1], [jumpy(i, int(m[i])) for i in range(n)])
    assert_equal_to(r.spmd[2], [jumpy(i, 9) for i in range(n)])


@tack.kernel
def skip_some(x, out, seen, steps):
    for i in range(len(x)):
        seen[i] = 1
        if x[i] < 0.0:
            continue
        out[i] = math.sqrt(x[i])
        k = 0
        while k * k < x[i]:
            k += 1
        steps[i] = k
        if k % 3 == 0:
            continue
        out[i] = out[i] + 100.0


def test_parallel_loop_continue_under_a_varying_condition():
    n = 999
    x = (np.random.default_rng(4).standard_normal(n) * 30).astype(F32)
    r = Both(skip_some, lambda: (tack.array(x), tack.full(n, -1.0), zeros(n, tack.i32), tack.full(n, -1, dtype=tack.i32)))
    r.assert_identical()
    out, seen, steps = r.spmd[1:]
    assert (seen == 1).all()
    want_steps = np.array([-1 if v < 0 else next(k for k in range(1000) if k * k >= v) for v in x], np.int32)
    assert_equal_to(steps, want_steps)
    root = np.sqrt(np.maximum(x, F32(0)))
    want = np.where(x < 0, F32(-1.0), np.where(want_steps % 3 == 0, root, root + F32(100.0)))
    assert_equal_to(out, want.astype(F32))
    assert 0 < int((x < 0).sum()) < n


@tack.func
def classify(x, lo, hi):
    if x < lo:
        return -1
    if x > hi:
        if x > 2 * hi:
            return 2
        return 1
    if x == lo:
        return 10
    return 0


@tack.func
def split_sign(x):
    if x < 0:
        return -x, 1
    return x, 0


@tack.kernel
def early_returns(x, out, mag, neg, lo, hi, extra):
    for i in range(len(x)):
        acc = 0
        for j in range(3):
            acc = acc * 100 + classify(x[i] + j, lo, hi) + 1
        out[i] = acc
        m, s = split_sign(x[i] - lo)
        mag[i] = m
        neg[i] = s
        q = x[i] % 5
        total = 0
        while q < 9:  # a varying loop around the early returns
            total = total * 3 + classify(q, 2, 6)
            q += 1 + x[i] % 2
        extra[i] = total


def test_early_returns_taken_by_some_lanes():
    n = 500
    x = np.random.default_rng(5).integers(-40, 80, n).astype(np.int32)
    lo, hi = -10, 20
    r = Both(early_returns, lambda: (tack.array(x), *(zeros(n, tack.i32) for _ in range(3)), lo, hi, zeros(n, tack.i64)))
    r.assert_identical()

    def extra_of(v):
        q, total = v % 5, 0
        while q < 9:
            total = total * 3 + classify(q, 2, 6)
            q += 1 + v % 2
        return total

    assert_equal_to(r.spmd[4], [extra_of(int(v)) for v in x])

    def acc_of(v):
        acc = 0
        for j in range(3):
            acc = acc * 100 + classify(v + j, lo, hi) + 1
        return acc

    assert_equal_to(r.spmd[1], [acc_of(int(v)) for v in x])
    assert_equal_to(r.spmd[2], [split_sign(int(v) - lo)[0] for v in x])
    assert_equal_to(r.spmd[3], [split_sign(int(v) - lo)[1] for v in x])


@tack.func
def varying_loops(i, b, m, x):
    acc = 0
    for j in range(i % 7):
        acc += j * j
    for j in range(i % 3, i % 11, 1 + i % 2):
        acc = acc * 3 + j
    for j in range(i % 6, -1, -1 - i % 2):
        acc = acc * 2 - j
    if x > 0:
        for j in range(m):  # a uniform loop under a varying condition
            acc += b[j] * (j + 1)
    else:
        j = 0
        while j < m and b[j] != x:
            j += 1
        acc -= j
    for j in range(m):  # a varying condition inside a uniform loop
        if (b[j] + i) % 4 == 0:
            acc += 7
    return acc


@tack.kernel
def loops_with_varying_bounds(x, b, m, out):
    for i in range(len(x)):
        out[i] = varying_loops(i, b, m, x[i])


def test_sequential_loops_with_varying_bounds():
    n, m = 600, 13
    rng = np.random.default_rng(6)
    x = rng.integers(-5, 6, n).astype(np.int32)
    b = rng.integers(-5, 6, m + 2).astype(np.int32)
    r = Both(loops_with_varying_bounds, lambda: (tack.array(x), tack.array(b), m, zeros(n, tack.i64)))
    r.assert_identical()
    bl = b.tolist()
    assert_equal_to(r.spmd[2], [varying_loops(i, bl, m, int(x[i])) for i in range(n)])


@tack.kernel
def reassign_parameter(x, out, value):
    for i in range(len(x)):
        if x[i] > 0:
            value = value + x[i]
        for j in range(i % 3):
            value = value * 2
        out[i] = value


def test_an_assigned_scalar_parameter_is_per_lane():
    x = np.random.default_rng(7).integers(-3, 4, 300).astype(np.int32)
    r = Both(reassign_parameter, lambda: (tack.array(x), zeros(300, tack.i32), 5))
    r.assert_identical()
    assert_equal_to(r.spmd[1], [(5 + max(int(v), 0)) * 2 ** (i % 3) for i, v in enumerate(x)])


# --------------------------------------------- guards in inactive lanes


@tack.kernel
def guarded_div(x, d, q, r, s):
    for i in range(len(x)):
        q[i] = x[i] // d[i] if d[i] != 0 else -3  # Tack's x // 0 is 0: -3 tells them apart
        r[i] = x[i] % d[i] if d[i] != 0 else 7
        if d[i] != 0:
            s[i] = x[i] // d[i] + x[i] % d[i]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.int8])
def test_guarded_division_and_modulo_by_zero(dtype):
    info = np.iinfo(dtype)
    nbits, signed = info.bits, info.min < 0
    rng = np.random.default_rng(8)
    n = 900
    x = rng.integers(info.min + 1, info.max, n, dtype=dtype, endpoint=True)
    x[::17] = info.max
    d = rng.integers(-9 if signed else 0, 10, n).astype(dtype)
    d[rng.random(n) < 0.4] = 0
    d[5::23] = info.max
    if signed:
        x[3::29] = info.min
        d[3::29] = np.where(np.arange(len(d[3::29])) % 2 == 0, 3, -7).astype(dtype)
    t = tack_dtype(dtype)
    r = Both(guarded_div, lambda: (tack.array(x), tack.array(d), *(tack.full(n, 5, dtype=t) for _ in range(3))))
    r.assert_identical()
    q, rem, s = r.spmd[2:]
    xs, ds = x.astype(object).tolist(), d.astype(object).tolist()
    assert_equal_to(q, [wrap(a // b if b else -3, nbits, signed) for a, b in zip(xs, ds)])
    assert_equal_to(rem, [wrap(a % b, nbits, signed) if b else 7 for a, b in zip(xs, ds)])
    assert_equal_to(s, [wrap(a // b + a % b, nbits, signed) if b else 5 for a, b in zip(xs, ds)])


@tack.kernel
def unguarded_div(x, d, q, r):
    for i in range(len(x)):
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_out_of_domain_division_never_traps(dtype):
    # docs/numerics.md: outside the domain no result is promised, but the
    # process never traps; x // 0 and x % 0 give 0, and the minimum by -1
    # gives the wrapped quotient and 0, as NumPy computes them.
    info = np.iinfo(dtype)
    n = 203
    x = np.full(n, info.min, dtype)
    x[::3] = 7
    x[1::5] = -9
    d = np.full(n, -1, dtype)
    d[::4] = 0
    d[2::7] = 2
    t = tack_dtype(dtype)
    r = Both(unguarded_div, lambda: (tack.array(x), tack.array(d), zeros(n, t), zeros(n, t)))
    r.assert_identical()
    with np.errstate(all="ignore"):
        assert_equal_to(r.spmd[2], np.floor_divide(x, d))
        assert_equal_to(r.spmd[3], np.remainder(x, d))


@tack.func
def mark(marks, i):
    marks[i] = marks[i] + 1
    return 1


@tack.kernel
def short_circuits(x, d, out, marks_and, marks_or):
    for i in range(len(x)):
        a = d[i] != 0 and x[i] // d[i] > 2
        b = d[i] == 0 or x[i] % d[i] == 0
        c = 0
        if d[i] != 0 and (x[i] // d[i]) % 2 == 1 and mark(marks_and, i):
            c = 1
        if d[i] == 0 or x[i] < 0 or mark(marks_or, i):
            c += 2
        out[i] = a + 2 * b + 4 * c


def test_short_circuit_right_operands_run_only_where_selected():
    n = 800
    rng = np.random.default_rng(9)
    x = rng.integers(-50, 50, n).astype(np.int32)
    d = rng.integers(-4, 5, n).astype(np.int32)
    d[rng.random(n) < 0.3] = 0
    r = Both(short_circuits, lambda: (tack.array(x), tack.array(d), zeros(n, tack.i32), zeros(n, tack.i32), zeros(n, tack.i32)))
    r.assert_identical()
    out, marks_and, marks_or = r.spmd[2:]
    want_out, want_and, want_or = [], [], []
    for a_, b_ in zip(x.tolist(), d.tolist()):
        a = int(b_ != 0 and a_ // b_ > 2)
        b = int(b_ == 0 or a_ % b_ == 0)
        ran_and = b_ != 0 and (a_ // b_) % 2 == 1
        ran_or = not (b_ == 0 or a_ < 0)
        c = int(ran_and) + 2
        want_out.append(a + 2 * b + 4 * c)
        want_and.append(int(ran_and))
        want_or.append(int(ran_or))
    assert_equal_to(out, want_out)
    assert_equal_to(marks_and, want_and)
    assert_equal_to(marks_or, want_or)


@tack.func
def bump(marks, i, v):
    marks[i] = marks[i] + 1
    return v


@tack.kernel
def arms_and_chains(x, lo, hi, m1, m2, m3, out):
    for i in range(len(x)):
        a = bump(m1, i, x[i]) if x[i] > 0 else bump(m2, i, -x[i])
        ok = lo < bump(m3, i, x[i] * 2) < hi
        p, q = x[i], a
        if ok:
            p, q = q, p
        out[i] = p * 1000 + q * 10 + ok


def test_conditional_arms_and_chained_comparisons_run_once_per_lane():
    n = 500
    x = np.random.default_rng(29).integers(-30, 30, n).astype(np.int32)
    lo, hi = -20, 25
    r = Both(arms_and_chains, lambda: (tack.array(x), lo, hi, *(zeros(n, tack.i32) for _ in range(4))))
    r.assert_identical()
    m1, m2, m3, out = r.spmd[1:]
    assert_equal_to(m1, (x > 0).astype(np.int32))
    assert_equal_to(m2, (x <= 0).astype(np.int32))
    assert_equal_to(m3, np.ones(n, np.int32))
    want = []
    for v in x.tolist():
        a = v if v > 0 else -v
        ok = int(lo < v * 2 < hi)
        p, q = (a, v) if ok else (v, a)
        want.append(p * 1000 + q * 10 + ok)
    assert_equal_to(out, want)


# Loads that only the guard keeps in range. The input arrays sit against a
# page that may not be read (before their first element or after their
# last), so a load that a lane performs without its guard faults; they run
# in a child process so that a fault is reported instead of ending pytest.


@tack.kernel
def guarded_neighbours(a, out):
    for i in range(len(a)):
        n = len(a)
        out[i, 0] = a[i + 1] if i + 1 < n else -1
        out[i, 1] = a[i - 1] if i > 0 else -2
        s = 0
        if i + 2 < n:
            s = a[i + 2] - a[i]
        else:
            s = -a[i]
        out[i, 2] = s
        out[i, 3] = (i + 1 < n and a[i + 1] > a[i]) + 2 * (i == 0 or a[i - 1] <= a[i])
        j = i
        while j < n and a[j] % 5 != 0:
            j += 1
        out[i, 4] = j - i
        acc = 0
        for k in range(i, n):  # each lane's own trip count, up to the last element
            acc += a[k]
            if acc > 25:
                break
        out[i, 5] = acc
        u = 0
        if i >= n:  # never taken: a[n] is past the end
            u = a[n]
        out[i, 6] = u


@tack.kernel
def guarded_gather(a, idx, out):
    for i in range(len(idx)):
        n = len(a)
        j = idx[i]
        out[i, 0] = a[j] if j >= 0 and j < n else -7
        out[i, 1] = 0
        if 0 <= j < n:
            out[i, 1] = a[j] * 2
        out[i, 2] = (j < 0 or j >= n or a[j] > 0) + 0
        s = 0
        if j >= 0:
            for k in range(j, n):  # from the lane's index to the end, when it has one
                s += a[k]
        out[i, 3] = s
        out[i, 4] = 0
        out[i, 5] = 0
        out[i, 6] = 0


def guarded_oracle(case, a, idx):
    n = len(a)
    out = []
    if case == "neighbours":
        for i in range(n):
            j = i
            while j < n and a[j] % 5 != 0:
                j += 1
            acc = 0
            for k in range(i, n):
                acc += a[k]
                if acc > 25:
                    break
            out.append([
                a[i + 1] if i + 1 < n else -1,
                a[i - 1] if i > 0 else -2,
                a[i + 2] - a[i] if i + 2 < n else -a[i],
                int(i + 1 < n and a[i + 1] > a[i]) + 2 * int(i == 0 or a[i - 1] <= a[i]),
                j - i,
                acc,
                0,
            ])
    else:
        for j in idx:
            ok = 0 <= j < n
            out.append([a[j] if ok else -7, a[j] * 2 if ok else 0, int(not ok or a[j] > 0),
                        sum(a[j:]) if j >= 0 else 0, 0, 0, 0])
    return out


def guarded_inputs(n):
    rng = np.random.default_rng(n)
    a = rng.integers(-20, 20, n).astype(np.int32)
    idx = rng.integers(-300, n + 300, 3 * n + 5).astype(np.int32)
    idx[::4] = -1
    idx[1::4] = n
    return a, idx


def _guarded_child(sizes):
    """Runs in a child process: both cases at every size, with the input
    against a forbidden page on either side, under both variants. Prints
    the outputs as JSON."""
    page = mmap.PAGESIZE
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    keep = []

    def fenced(values, side):
        values = np.ascontiguousarray(values)
        assert values.nbytes <= page
        region = mmap.mmap(-1, 3 * page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(region))
        keep.append(region)
        start = base + page if side == "start" else base + 2 * page - values.nbytes
        ctypes.memmove(start, values.ctypes.data, values.nbytes)
        for p in (base, base + 2 * page):
            assert libc.mprotect(p, page, 0) == 0, ctypes.get_errno()
        return tack.array_from_ptr(start, values.shape, tack.i32)

    tack.set_default_device("cpu")
    tack.set_debug(False)
    results = {}
    for n in sizes:
        a, idx = guarded_inputs(n)
        for case in ("neighbours", "gather"):
            for side in ("start", "end"):
                for spmd in (False, True):
                    tack.set_cpu_spmd(LANES if spmd else False)
                    if case == "neighbours":
                        out = zeros((n, 7), tack.i32)
                        guarded_neighbours(fenced(a, side), out)
                    else:
                        out = tack.zeros((len(idx), 7), dtype=tack.i32)
                        guarded_gather(fenced(a, side), tack.array(idx), out)
                    results[f"{n} {case} {side} {int(spmd)}"] = out.numpy().tolist()
    print(json.dumps(results))


def test_guarded_loads_never_touch_memory_outside_the_array():
    w = spmd_lanes(guarded_neighbours, zeros(4, tack.i32), zeros((4, 7), tack.i32))
    assert spmd_lanes(guarded_gather, zeros(4, tack.i32), zeros(4, tack.i32), zeros((4, 7), tack.i32)) == w
    sizes = sorted({1, 2, 3, w - 1, w, w + 1, 2 * w + 3, 100, 1000})
    here = Path(__file__).resolve().parent
    code = f"import sys; sys.path.insert(0, {str(here)!r}); import test_spmd; test_spmd._guarded_child({sizes!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=dict(os.environ))
    rc = done.returncode
    assert rc == 0, f"the child ended with {rc} (-11: a segmentation fault): {done.stderr[-3000:]}"
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for n in sizes:
        a, idx = guarded_inputs(n)
        for case in ("neighbours", "gather"):
            want = np.array(guarded_oracle(case, a.tolist(), idx.tolist()), np.int32)
            for side in ("start", "end"):
                scalar = np.array(results[f"{n} {case} {side} 0"], np.int32)
                spmd = np.array(results[f"{n} {case} {side} 1"], np.int32)
                assert_same_bits(spmd, scalar, f"{case}, n={n}, fenced at the {side}: SPMD against scalar")
                assert_equal_to(spmd, want, f"{case}, n={n}, fenced at the {side}")


# ---------------------------------------------- gathers, scatters, atomics


@tack.kernel
def gather(a, b, idx, jdx, out):
    for i in range(len(out)):
        out[i] = a[idx[i]] * 3.0 + b[jdx[i], idx[i] % 4]


GATHER_PATTERNS = ["random", "all-same", "i//3", "reversed", "i%W"]


def index_pattern(pattern, n, m, w, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "random": rng.integers(0, m, n),
        "all-same": np.full(n, m // 2),
        "i//3": np.arange(n) // 3 % m,
        "i//W": np.arange(n) // w % m,
        "reversed": (m - 1 - np.arange(n) % m),
        "i%W": np.arange(n) % w % m,
        "i%3": np.arange(n) % 3,
        "one": np.zeros(n, np.int64),
        "pairs": np.arange(n) // 2 % m,
    }[pattern].astype(np.int32)


@pytest.mark.parametrize("pattern", GATHER_PATTERNS)
def test_gathers_with_duplicate_addresses(pattern):
    n, m = 777, 50
    w = spmd_lanes(gather, tack.zeros(4), tack.zeros((4, 4)), zeros(4, tack.i32), zeros(4, tack.i32), tack.zeros(4))
    rng = np.random.default_rng(10)
    a = rng.standard_normal(m).astype(F32)
    b = rng.standard_normal((m, 4)).astype(F32)
    idx = index_pattern(pattern, n, m, w)
    jdx = index_pattern("random", n, m, w, seed=1)
    r = Both(gather, lambda: (tack.array(a), tack.array(b), tack.array(idx), tack.array(jdx), tack.zeros(n)))
    r.assert_identical()
    assert_equal_to(r.spmd[4], a[idx] * F32(3.0) + b[jdx, idx % 4])


@tack.kernel
def scatter(perm, vals, out):
    for i in range(len(perm)):
        out[perm[i]] = vals[i] * 2.0 + 1.0


@pytest.mark.parametrize("pattern", ["permutation", "reversed", "stride8", "interleaved"])
def test_scatters_to_unique_addresses(pattern):
    n = 1001
    rng = np.random.default_rng(11)
    perm = {
        "permutation": rng.permutation(n),
        "reversed": np.arange(n)[::-1],
        "stride8": (np.arange(n) * 8) % n,  # 8 is coprime to 1001
        "interleaved": np.argsort(np.arange(n) % 5, kind="stable"),
    }[pattern].astype(np.int32)
    assert len(set(perm.tolist())) == n
    vals = rng.standard_normal(n).astype(F32)
    r = Both(scatter, lambda: (tack.array(perm), tack.array(vals), tack.full(n, -9.0)))
    r.assert_identical()
    want = np.full(n, F32(-9.0), F32)
    want[perm] = vals * F32(2.0) + F32(1.0)
    assert_equal_to(r.spmd[2], want)


@tack.kernel
def scatter_dup(idx, out_iter, out_key):
    for i in range(len(idx)):
        out_iter[idx[i]] = i * 3 + 1
        out_key[idx[i]] = idx[i] * 7 + 1


@pytest.mark.parametrize("pattern", ["random", "all-same", "pairs", "i%W", "i//W", "i%3"])
def test_scatters_with_duplicate_addresses_store_one_candidate(pattern):
    n, m = 640, 64
    w = spmd_lanes(scatter_dup, zeros(4, tack.i32), zeros(4, tack.i32), zeros(4, tack.i32))
    idx = index_pattern(pattern, n, m, w, seed=12)
    r = Both(scatter_dup, lambda: (tack.array(idx), tack.full(m, -1, dtype=tack.i32), tack.full(m, -1, dtype=tack.i32)))
    # Every candidate of a slot stores the same key: exact, and equal in both variants.
    r.assert_identical(which=[0, 2])
    want_key = np.full(m, -1, np.int32)
    want_key[idx] = idx * 7 + 1
    assert_equal_to(r.spmd[2], want_key)
    # Which iteration's value survives is open: one of the slot's candidates.
    candidates = {k: set() for k in range(m)}
    for i, k in enumerate(idx.tolist()):
        candidates[k].add(i * 3 + 1)
    for variant in r.variants():
        got = variant[1].tolist()
        for k in range(m):
            if candidates[k]:
                assert got[k] in candidates[k], (pattern, k, got[k])
            else:
                assert got[k] == -1, (pattern, k, got[k])


@tack.kernel
def contend_add(v, slot, acc, old, hits):
    for i in range(len(v)):
        old[i] = tack.atomic_add(acc, slot[i], v[i])
        if i % 3 != 1:
            tack.atomic_add(hits, 0, 1)


@tack.kernel
def contend_min(v, slot, acc, old):
    for i in range(len(v)):
        old[i] = tack.atomic_min(acc, slot[i], v[i])


@tack.kernel
def contend_max(v, slot, acc, old):
    for i in range(len(v)):
        if v[i] != 0:
            old[i] = tack.atomic_max(acc, slot[i], v[i])


def check_add_history(init, vals, olds, final):
    """Some order of the slot's additions produced exactly these old values:
    sorted, each old value plus its contribution is the next (values are
    positive), and the last plus its contribution is the final value."""
    assert final == init + sum(vals), (final, init, sum(vals))
    pairs = sorted(zip(olds, vals))
    expect = init
    for o, v in pairs:
        assert o == expect, (o, expect)
        expect = o + v
    assert expect == final


def check_extremum_history(init, vals, olds, final, key):
    """Some order of the slot's updates produced exactly these old values:
    the states run through the distinct old values from the worst (init) to
    the best; in each state exactly one update improves it, to the next
    state (or to the final value), and the others do not improve it."""
    best = min([init] + list(vals), key=key)
    assert final == best, (final, best)
    if not vals:
        return
    states = sorted(set(olds), key=key, reverse=True)
    assert states[0] == init, (states[0], init)
    for t, s in enumerate(states):
        nxt = states[t + 1] if t + 1 < len(states) else final
        here = [v for o, v in zip(olds, vals) if o == s]
        improving = [v for v in here if key(v) < key(s)]
        if key(nxt) == key(s):
            assert improving == [], (s, improving)
        else:
            assert improving == [nxt], (s, nxt, improving)


ATOMIC_TYPES = [np.int32, np.int64, np.uint32, np.float32, np.float64]
CONTENTION = ["one", "i%3", "i//W", "pairs"]


def tack_dtype(dtype):
    """tack.i8 ... tack.f64 for a NumPy dtype."""
    dtype = np.dtype(dtype)
    return getattr(tack, f"{dtype.kind}{8 * dtype.itemsize}")


@pytest.mark.parametrize("n", [40, 900])
@pytest.mark.parametrize("pattern", CONTENTION)
@pytest.mark.parametrize("dtype", ATOMIC_TYPES, ids=lambda d: np.dtype(d).name)
def test_contended_atomic_add(dtype, pattern, n):
    m = 8
    t = tack_dtype(dtype)
    w = spmd_lanes(contend_add, zeros(4, t), zeros(4, tack.i32), zeros(4, t), zeros(4, t), zeros(1, tack.i64))
    slot = index_pattern(pattern, n, m, w)
    v = (1 + np.arange(n) % 5).astype(dtype)
    init = np.arange(m).astype(dtype) * dtype(10)
    r = Both(contend_add, lambda: (tack.array(v), tack.array(slot), tack.array(init), zeros(n, t), zeros(1, tack.i64)))
    r.assert_identical(which=[0, 1, 2, 4])
    hits = r.spmd[4]
    assert hits[0] == sum(1 for i in range(n) if i % 3 != 1)
    exact = (lambda e: Fraction(float(e))) if np.dtype(dtype).kind == "f" else int  # small integers: exact sums
    for acc, old in ((o[2], o[3]) for o in r.variants()):
        for k in range(m):
            mine = slot == k
            check_add_history(exact(init[k]), [exact(e) for e in v[mine]], [exact(e) for e in old[mine]], exact(acc[k]))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
def test_contended_narrow_atomic_adds_wrap(dtype):
    n = 1000
    t = tack_dtype(dtype)
    slot = (np.arange(n) % 3).astype(np.int32)
    v = (np.arange(n) % 7 + 100).astype(dtype)
    r = Both(contend_add, lambda: (tack.array(v), tack.array(slot), zeros(3, t), zeros(n, t), zeros(1, tack.i64)))
    r.assert_identical(which=[0, 1, 2, 4])
    info = np.iinfo(dtype)
    want = [wrap(sum(int(e) for e in v[slot == k]), info.bits, info.min < 0) for k in range(3)]
    assert_equal_to(r.spmd[2], want)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("pattern", CONTENTION)
@pytest.mark.parametrize("dtype", ATOMIC_TYPES, ids=lambda d: np.dtype(d).name)
def test_contended_atomic_extrema(dtype, pattern, op):
    n, m = 700, 8
    kernel = contend_min if op == "min" else contend_max
    t = tack_dtype(dtype)
    w = spmd_lanes(kernel, zeros(4, t), zeros(4, tack.i32), zeros(4, t), zeros(4, t))
    slot = index_pattern(pattern, n, m, w)
    rng = np.random.default_rng(13)
    unsigned = np.dtype(dtype).kind == "u"
    base = rng.permutation(n) + (1 if unsigned else -(n // 2))  # distinct values; no zero for floats
    if np.dtype(dtype).kind == "f":
        v = ((base * 2 + 1) * 0.25).astype(dtype)
    else:
        v = base.astype(dtype)
    if op == "min":
        init = np.array([2 * n, 5, 2 * n, 0, 3 * n, 1, 2 * n, 7][:m], dtype)
    else:
        init = np.array([0 if unsigned else -2 * n, 5, 1, 0, 3 * n, 2, 0, 9][:m], dtype)
    sentinel = 123
    r = Both(kernel, lambda: (tack.array(v), tack.array(slot), tack.array(init), tack.full(n, sentinel, dtype=t)))
    r.assert_identical(which=[0, 1, 2])
    key = (lambda x: x) if op == "min" else (lambda x: -x)
    conv = (lambda x: Fraction(float(x))) if np.dtype(dtype).kind == "f" else int
    for acc, old in ((o[2], o[3]) for o in r.variants()):
        if op == "max":
            assert (old[v == 0] == sentinel).all()  # the lanes that skip the atomic keep their old value
        for k in range(m):
            mine = (slot == k) & ((v != 0) if op == "max" else True)
            olds = [conv(e) for e in old[mine]]
            check_extremum_history(conv(init[k]), [conv(e) for e in v[mine]], olds, conv(acc[k]), key)


# ------------------------------------------------ conversions and compares


@tack.kernel
def convert(src, out, out_sel):
    for i in range(len(src)):
        out[i] = src[i]  # a store converts to the array's type
        if i % 3 == 1:
            out_sel[i] = src[len(src) - 1 - i]


def int_to_f32(v):
    """The f32 nearest the integer v, ties to even."""
    sign, a = (-1 if v < 0 else 1), abs(v)
    shift = a.bit_length() - 24
    if shift > 0:
        q, rest = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and q & 1):
            q += 1
        a = q << shift
    return F32(float(sign * a))


def conversion_inputs(src, dst, n, rng):
    src, dst = np.dtype(src), np.dtype(dst)
    if src.kind in "iu":
        info = np.iinfo(src)
        v = rng.integers(info.min, info.max, n, dtype=src, endpoint=True)
        edges = [info.min, info.max, 0, 1, 2**24 + 1, 2**24 + 3, 2**53 + 1, 2**31, 2**32 - 1, 2**63 - 1, 2**63 + 2**40 + 1, -(2**24) - 1]
        edges = [e for e in edges if info.min <= e <= info.max]
        v[: len(edges)] = edges
        if dst.kind in "iu" or dst.kind == "f":
            return v
    # Floats converted to integers: finite values whose truncation fits.
    info = np.iinfo(dst)
    hi = min(float(info.max), 2.0**62 if dst.itemsize == 8 and dst.kind == "i" else 2.0**63 * 1.9)
    lo = max(float(info.min), -(2.0**62))
    v = rng.uniform(lo, hi, n)
    v[::4] = rng.uniform(-0.99 if dst.kind == "u" else -1000.5, 1000.5, len(v[::4]))
    v[1::7] = np.trunc(v[1::7]) + 0.5
    v = v.astype(src)
    fits = (np.trunc(v.astype(F64)) >= float(info.min)) & (np.trunc(v.astype(F64)) <= float(info.max))
    return np.where(fits, v, src.type(0)).astype(src)


def converted(value, src, dst):
    src, dst = np.dtype(src), np.dtype(dst)
    if dst.kind == "f":
        if src.kind == "f":
            with np.errstate(over="ignore"):
                return dst.type(value)  # NumPy rounds f64 to f32 correctly; f32 to f64 is exact
        return int_to_f32(int(value)) if dst == F32 else F64(float(int(value)))
    info = np.iinfo(dst)
    whole = int(value) if src.kind in "iu" else int(float(value))  # int() truncates toward zero
    return wrap(whole, info.bits, info.min < 0)


CONVERSIONS = [
    ("int64", "float32"), ("int64", "float64"), ("uint64", "float32"), ("uint64", "float64"), ("uint32", "float32"),
    ("int32", "float32"), ("uint32", "float64"), ("int8", "float32"), ("uint16", "float64"),
    ("float32", "uint32"), ("float32", "int32"), ("float64", "uint64"), ("float64", "int64"), ("float64", "uint32"),
    ("float32", "int64"), ("float32", "uint64"), ("float32", "uint8"), ("float64", "int16"),
    ("float64", "float32"), ("float32", "float64"),
    ("int64", "int8"), ("uint64", "int16"), ("int8", "uint64"), ("uint16", "int64"), ("int32", "uint8"), ("uint32", "int32"),
]


@pytest.mark.parametrize("src,dst", CONVERSIONS, ids=[f"{a}-{b}" for a, b in CONVERSIONS])
def test_conversions_per_lane(src, dst):
    n = 600
    rng = np.random.default_rng(24)
    if np.dtype(src).kind == "f" and np.dtype(dst).kind == "f":
        v = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(src)
        v[:6] = [0.0, -0.0, INF, -INF, 1.0 / 3.0, 3.4028235677973366e38 if src == "float64" else 1.5]
    else:
        v = conversion_inputs(src, dst, n, rng)
    t = tack_dtype(dst)
    r = Both(convert, lambda: (tack.array(v), zeros(n, t), zeros(n, t)))
    r.assert_identical()
    want = np.array([converted(e, src, dst) for e in v.tolist()], dtype=dst)
    assert_equal_to(r.spmd[1], want)
    sel = np.zeros(n, dst)
    sel[1::3] = want[::-1][1::3]
    assert_equal_to(r.spmd[2], sel)


@tack.kernel
def unsigned_ops(a, b, lo, hi, flags, sel):
    for i in range(len(a)):
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])
        flags[i] = (a[i] < b[i]) + 2 * (a[i] >= b[i]) + 4 * (a[i] == b[i]) + 8 * (a[i] > (b[i] >> 1))
        sel[i] = a[i] if a[i] > b[i] else b[i] - a[i]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int64, np.int8])
def test_comparisons_and_extrema_at_full_range(dtype):
    info = np.iinfo(dtype)
    n = 700
    rng = np.random.default_rng(25)
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b[::5] = a[::5]
    a[1::9], b[2::9] = info.max, info.min
    t = tack_dtype(dtype)
    r = Both(unsigned_ops, lambda: (tack.array(a), tack.array(b), zeros(n, t), zeros(n, t), zeros(n, tack.i32), zeros(n, t)))
    r.assert_identical()
    lo, hi, flags, sel = r.spmd[2:]
    A, B = a.astype(object).tolist(), b.astype(object).tolist()
    assert_equal_to(lo, [min(x, y) for x, y in zip(A, B)])
    assert_equal_to(hi, [max(x, y) for x, y in zip(A, B)])
    assert_equal_to(flags, [int(x < y) + 2 * int(x >= y) + 4 * int(x == y) + 8 * int(x > (y >> 1)) for x, y in zip(A, B)])
    assert_equal_to(sel, [x if x > y else wrap(y - x, info.bits, info.min < 0) for x, y in zip(A, B)])


@tack.kernel
def float_divmod(x, y, q, r):
    for i in range(len(x)):
        q[i] = x[i] // y[i]
        r[i] = x[i] % y[i]


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_float_floor_division_and_remainder_per_lane(dtype):
    rng = np.random.default_rng(26)
    n = 800
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 5, n)).astype(dtype)
    y = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)).astype(dtype)
    y[::6] = np.round(y[::6]) + 1
    x[1::6] = y[1::6] * dtype(3)  # exact multiples: zero remainders take the divisor's sign
    special_x = [0.0, -0.0, 5.0, -5.0, INF, -INF, NAN, 7.5, -0.0, 3.0]
    special_y = [3.0, 3.0, INF, INF, 2.0, -2.0, 1.0, NAN, -INF, -INF]
    x[-10:], y[-10:] = special_x, special_y
    y[y == 0] = 1
    r = Both(float_divmod, lambda: (tack.array(x), tack.array(y), zeros(n, tack_dtype(dtype)), zeros(n, tack_dtype(dtype))))
    r.assert_identical()
    q, rem = r.spmd[2:]
    with np.errstate(all="ignore"):
        wq, wr = np.divmod(x, y)  # NumPy's typed divmod, CPython's algorithm
    for got, want in ((q, wq), (rem, wr)):
        exact = (want == 0) | ~np.isfinite(want)
        assert all(same_value(float(g), float(e)) for g, e in zip(got[exact], want[exact]))
        assert (ulps(got[~exact], want[~exact]) <= 4).all()
    # f64: CPython's own float divmod on the same values.
    if dtype == F64:
        for g_q, g_r, a, b in zip(q.tolist(), rem.tolist(), x.tolist(), y.tolist()):
            if math.isfinite(a) and not math.isnan(b):
                pq, pr = divmod(a, b)
                assert same_value(g_q, pq) or abs(g_q - pq) <= abs(pq) * 2**-50, (a, b, g_q, pq)
                assert same_value(g_r, pr) or abs(g_r - pr) <= abs(pr) * 2**-50, (a, b, g_r, pr)


# ------------------------------------------------------- views and aliases


@tack.kernel
def strided(x, y, out):
    for i in range(len(out)):
        out[i] = x[i] * 2.0 + y[i]


@tack.kernel
def strided2d(a, out):
    for i, j in tack.ndindex(out.shape[0], out.shape[1]):
        out[i, j] = a[i, j] - tack.f32(j)


@tack.kernel
def transpose2d(a, out):
    for i, j in tack.ndindex(a.shape[0], a.shape[1]):
        out[j, i] = a[i, j] * 2.0


def test_strided_and_reversed_views():
    n = 203
    rng = np.random.default_rng(27)
    xs = rng.standard_normal(3 * n + 2).astype(F32)
    ys = rng.standard_normal(2 * n).astype(F32)

    def make():
        out_base = np.full(4 * n, -3.0, F32)
        return (tack.from_dlpack(xs.copy()[1::3]),
                tack.from_dlpack(ys.copy()[::-2]), tack.from_dlpack(out_base[2::4]), out_base)

    results = {}
    for spmd in (False, True):
        tack.set_cpu_spmd(LANES if spmd else False)
        x, y, out, base = make()
        assert not x.is_contiguous and not out.is_contiguous
        strided(x, y, out)
        results[spmd] = base.copy()
    tack.set_cpu_spmd(LANES)
    x, y, out, _ = make()
    spmd_lanes(strided, x, y, out)
    assert_same_bits(results[True], results[False])
    want = np.full(4 * n, -3.0, F32)
    want[2::4] = xs[1::3][:n] * F32(2.0) + ys[::-2][:n]
    assert_equal_to(results[True], want)

    # A stride-0 input: every lane reads the one element.
    c = np.broadcast_to(F32(1.25), (n,))
    r = Both(strided, lambda: (tack.from_dlpack(xs.copy()[1::3]), tack.from_dlpack(c), tack.zeros(n)))
    r.assert_identical()
    assert_equal_to(r.spmd[2], xs[1::3][:n] * F32(2.0) + F32(1.25))

    b = rng.standard_normal((9, 40)).astype(F32)
    r = Both(strided2d, lambda: (tack.array(b)[1:8, 3:30], tack.array(np.full((9, 40), 5.0, F32))[2:9, 1:28]),
             watch=lambda args: [args[1]])
    r.assert_identical()
    assert_equal_to(r.spmd[0], b[1:8, 3:30] - np.arange(27, dtype=F32))
    # Consecutive lanes store a column: a scatter with the row stride.
    r = Both(transpose2d, lambda: (tack.array(b), tack.zeros((40, 9))))
    r.assert_identical()
    assert_equal_to(r.spmd[1], b.T * F32(2.0))


@tack.kernel
def in_place(x, y, out):
    for i in range(len(x)):
        y[i] = x[i] + 1.0
        t = x[i] * 2.0  # with y and x one array, this reads the store above
        y[i] = t + y[i]
        out[i] = x[i]


def test_an_array_passed_twice_sees_its_own_stores():
    n = 301
    a = np.random.default_rng(28).standard_normal(n).astype(F32)
    results = {}
    for spmd in (False, True):
        tack.set_cpu_spmd(LANES if spmd else False)
        arr, out = tack.array(a), tack.zeros(n)
        in_place(arr, arr, out)
        results[spmd] = (arr.numpy().copy(), out.numpy().copy())
    tack.set_cpu_spmd(LANES)
    arr = tack.array(a)
    spmd_lanes(in_place, arr, arr, tack.zeros(n))
    for k in range(2):
        assert_same_bits(results[True][k], results[False][k])
    a1 = a + F32(1.0)
    want = a1 * F32(2.0) + a1
    assert_equal_to(results[True][0], want)
    assert_equal_to(results[True][1], want)
    # Distinct arrays: y gets 3x + 1 from the original x, which stays.
    r = Both(in_place, lambda: (tack.array(a), tack.zeros(n), tack.zeros(n)))
    r.assert_identical()
    assert_equal_to(r.spmd[1], a * F32(2.0) + (a + F32(1.0)))
    assert_equal_to(r.spmd[2], a)


@tack.kernel
def compact(flags, out, counter):
    for i in range(len(flags)):
        if flags[i] != 0:
            out[tack.atomic_add(counter, 0, 1)] = i * 4 + flags[i]


@pytest.mark.parametrize("pattern", ["sparse", "all", "every-W", "alternate", "none"])
def test_stream_compaction_through_atomic_slots(pattern):
    n = 1000
    w = spmd_lanes(compact, zeros(4, tack.i32), zeros(4, tack.i32), zeros(1, tack.i32))
    rng = np.random.default_rng(30)
    flags = {
        "sparse": (rng.random(n) < 0.1) * rng.integers(1, 4, n),
        "all": np.ones(n, np.int64),
        "every-W": (np.arange(n) % w == w - 1) * 3,
        "alternate": np.arange(n) % 2,
        "none": np.zeros(n, np.int64),
    }[pattern].astype(np.int32)
    r = Both(compact, lambda: (tack.array(flags), tack.full(n, -1, dtype=tack.i32), zeros(1, tack.i32)))
    r.assert_identical(which=[0, 2])
    chosen = sorted(i * 4 + int(f) for i, f in enumerate(flags.tolist()) if f != 0)
    for _, out, counter in r.variants():
        assert counter[0] == len(chosen)
        assert sorted(out[: len(chosen)].tolist()) == chosen
        assert (out[len(chosen):] == -1).all()


@tack.kernel
def accumulate_vectors(points, slot, bins, olds):
    for i in range(len(points)):
        olds[i] = tack.atomic_add(bins, slot[i], points[i])


@pytest.mark.parametrize("pattern", ["one", "i%3", "i//W"])
def test_contended_vector_atomics(pattern):
    n, m = 600, 8
    w = spmd_lanes(accumulate_vectors, zeros(4, tack.vec3f), zeros(4, tack.i32), zeros(4, tack.vec3f), zeros(4, tack.vec3f))
    slot = index_pattern(pattern, n, m, w)
    pts = (1 + np.arange(3 * n).reshape(n, 3) % 7).astype(F32)
    r = Both(accumulate_vectors, lambda: (tack.array(pts, dtype=tack.vec3f), tack.array(slot), zeros(m, tack.vec3f), zeros(n, tack.vec3f)))
    r.assert_identical(which=[0, 1, 2])
    for _, _, bins, olds in r.variants():
        for k in range(m):
            mine = slot == k
            for c in range(3):
                check_add_history(0, [int(e) for e in pts[mine, c]], [int(e) for e in olds[mine, c]], int(bins[k, c]))


# ----------------------------------------------------------- uniform loads


@tack.kernel
def nbody(px, py, m, ax, ay, eps):
    for i in range(len(px)):
        fx = px[i] * 0.0
        fy = fx
        for j in range(len(px)):
            dx = px[j] - px[i]
            dy = py[j] - py[i]
            d2 = dx * dx + dy * dy + eps
            inv = m[j] / (d2 * math.sqrt(d2))
            fx += dx * inv
            fy += dy * inv
        ax[i] = fx
        ay[i] = fy


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_uniform_loads_in_an_n_body_loop(dtype):
    n = 301
    rng = np.random.default_rng(14)
    px, py = (rng.standard_normal(n).astype(dtype) for _ in range(2))
    m = rng.uniform(0.5, 2.0, n).astype(dtype)
    eps = 1e-3
    r = Both(nbody, lambda: (tack.array(px), tack.array(py), tack.array(m), zeros(n, tack_dtype(dtype)), zeros(n, tack_dtype(dtype)), eps))
    r.assert_identical()
    # The same operations in the same order, one j at a time, in the
    # kernel's precision (eps is a float argument: that precision too).
    e = dtype(eps)
    fx = px * dtype(0.0)
    fy = fx.copy()
    for j in range(n):
        dx = px[j] - px
        dy = py[j] - py
        d2 = dx * dx + dy * dy + e
        inv = m[j] / (d2 * np.sqrt(d2))
        fx = fx + dx * inv
        fy = fy + dy * inv
    assert_equal_to(r.spmd[3], fx)
    assert_equal_to(r.spmd[4], fy)


# ------------------------------------------------- vectors and matrices


@tack.kernel
def vector_ops(p, q, k, out_s, out_v, out_m):
    for i in range(len(p)):
        a = p[i]
        b = q[i]
        c = a.cross(b)
        m = tack.mat3(a, b, c)
        out_v[i] = m @ a + c * 2.0 + tack.select(a > b, a, b)
        out_s[i, 0] = a.dot(b)
        out_s[i, 1] = m.determinant()
        out_s[i, 2] = a[k[i]]  # a runtime component; 3 reads the last one
        if a.x > b.x:
            a[k[i]] = -5.0  # a runtime store; 3 stores nothing
            m[k[i] % 3, (k[i] + 1) % 3] = 9.0
        out_s[i, 3] = (m @ b).sum() + a.sum()
        out_s[i, 4] = any(a < b) + 2 * all(a < b)
        out_m[i] = m.transpose()
        p[i] = a


@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_vectors_and_matrices_per_lane(layout):
    n = 333
    rng = np.random.default_rng(15)
    # Small integers: every product and sum below is exact in f32.
    P = rng.integers(-8, 9, (n, 3)).astype(F32)
    Q = rng.integers(-8, 9, (n, 3)).astype(F32)
    K = rng.integers(0, 4, n).astype(np.int32)

    def make():
        return (tack.array(P, dtype=tack.vec3f, layout=layout), tack.array(Q, dtype=tack.vec3f, layout=layout), tack.array(K),
                tack.zeros((n, 5)), tack.zeros(n, dtype=tack.vec3f, layout=layout), tack.zeros(n, dtype=tack.mat33f, layout=layout))

    r = Both(vector_ops, make)
    r.assert_identical()
    p_after, _, _, out_s, out_v, out_m = r.spmd
    want_s = np.zeros((n, 5), F32)
    want_v = np.zeros((n, 3), F32)
    want_m = np.zeros((n, 3, 3), F32)
    want_p = P.copy()
    for i in range(n):
        a, b = [int(e) for e in P[i]], [int(e) for e in Q[i]]
        c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
        m = [a[:], b[:], c[:]]
        ma = [sum(m[r_][t] * a[t] for t in range(3)) for r_ in range(3)]
        want_v[i] = [ma[t] + 2 * c[t] + (a[t] if a[t] > b[t] else b[t]) for t in range(3)]
        want_s[i, 0] = sum(x * y for x, y in zip(a, b))
        want_s[i, 1] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
        k = int(K[i])
        want_s[i, 2] = a[min(k, 2)]
        if a[0] > b[0]:
            if k < 3:
                a[k] = -5
            m[k % 3][(k + 1) % 3] = 9
        want_s[i, 3] = sum(sum(m[r_][t] * b[t] for t in range(3)) for r_ in range(3)) + sum(a)
        want_s[i, 4] = int(any(x < y for x, y in zip(a, b))) + 2 * int(all(x < y for x, y in zip(a, b)))
        want_m[i] = np.array(m, F32).T
        want_p[i] = a
    # The integer oracle has no signed zeros (a cross product's -0.0 is
    # 0): values here, bits against the scalar variant above.
    for got, want in ((out_s, want_s), (out_v, want_v), (out_m, want_m), (p_after, want_p)):
        assert got.shape == want.shape and np.array_equal(got, want), np.argwhere(got != want)[:8]


# --------------------------------------------------------- device classes


@tack.device_class
class Lookup:
    bias = 3

    def __init__(self, table, scale):
        self.table = table
        self.scale = scale

    @tack.func
    def value(self, k):
        if k < 0:
            return self.bias
        if k >= len(self):
            return -self.bias
        return self.table[k] * self.scale

    @tack.func
    def __len__(self):
        return len(self.table)


@tack.kernel
def look_up(lut, keys, out, marks):
    for i in range(len(keys)):
        out[i] = lut.value(keys[i])
        if keys[i] >= 0 and keys[i] < len(lut) and keys[i] % 2 == 0:
            marks[keys[i]] = 1


def test_device_class_methods_per_lane():
    m, n = 37, 800
    rng = np.random.default_rng(16)
    table = rng.integers(-100, 100, m).astype(np.int32)
    keys = rng.integers(-20, m + 20, n).astype(np.int32)
    r = Both(look_up, lambda: (Lookup(tack.array(table), 3), tack.array(keys), zeros(n, tack.i32), zeros(m, tack.i32)),
             watch=lambda args: [args[2], args[3], args[0].table])
    r.assert_identical()
    want = [3 if k < 0 else (-3 if k >= m else int(table[k]) * 3) for k in keys.tolist()]
    assert_equal_to(r.spmd[0], want)
    marks = np.zeros(m, np.int32)
    for k in keys.tolist():
        if 0 <= k < m and k % 2 == 0:
            marks[k] = 1
    assert_equal_to(r.spmd[1], marks)
    assert_equal_to(r.spmd[2], table)


# ----------------------------------------------------------------- textures


from test_texture_snapshot import trilinear  # the documented sampling formula, in f32


@tack.kernel
def sample_divergent(tex, points, out):
    for i in range(len(out)):
        if points[i, 0] < 0.5:
            out[i] = tex.sample(points[i, 0], points[i, 1], points[i, 2])
        else:
            out[i] = tex.sample(points[i, 2], points[i, 0], points[i, 1]) * 2.0


@tack.kernel
def sample_vectors(tex, points, out):
    for i in range(len(out)):
        p = points[i]
        if i % 3 == 0:
            p = tack.vec3(p.z, p.x, p.y)
        out[i] = tex.sample(p)


def test_texture_samples_per_lane():
    shape = (5, 4, 3)
    rng = np.random.default_rng(17)
    data = rng.standard_normal(int(np.prod(shape))).astype(F32)
    points = rng.uniform(-0.25, 1.25, (700, 3)).astype(F32)
    r = Both(sample_divergent, lambda: (tack.texture3d(tack.array(data), shape), tack.array(points), tack.zeros(700)))
    r.assert_identical()
    first = trilinear(data, shape, points[:, 0], points[:, 1], points[:, 2])
    second = trilinear(data, shape, points[:, 2], points[:, 0], points[:, 1]) * F32(2.0)
    assert_equal_to(r.spmd[1], np.where(points[:, 0] < F32(0.5), first, second))

    r = Both(sample_vectors, lambda: (tack.texture3d(tack.array(data), shape), tack.array(points, dtype=tack.vec3f), tack.zeros(700)))
    r.assert_identical()
    swizzled = np.arange(700) % 3 == 0
    p = np.where(swizzled[:, None], points[:, [2, 0, 1]], points)
    assert_equal_to(r.spmd[1], trilinear(data, shape, p[:, 0], p[:, 1], p[:, 2]))


# ----------------------------------------------------------- random numbers


@tack.kernel
def geometric_draws(stream, p, counts, states, uniforms, normals):
    for i in range(len(counts)):
        s = tack.random.seed(i, stream)
        k = 0
        while tack.random.uniform(s) >= p and k < 40:
            s = tack.random.advance(s)
            k += 1
        counts[i] = k
        states[i] = s
        uniforms[i] = tack.random.uniform(s)
        normals[i] = tack.random.normal(s)


@pytest.mark.parametrize("stream", [0, 7, 2**32 - 1])
def test_random_draws_with_a_varying_number_of_steps(stream):
    n, p = 1500, 0.3
    r = Both(geometric_draws, lambda: (stream, p, zeros(n, tack.i32), zeros(n, tack.u32), tack.zeros(n), tack.zeros(n)))
    r.assert_identical()
    counts, states, uniforms, normals = r.spmd
    # The NumPy mirrors, stepping every index that is still drawing.
    s = tack.random.seed_np(np.arange(n), stream)
    k = np.zeros(n, np.int32)
    active = np.ones(n, bool)
    for _ in range(41):
        active &= (tack.random.uniform_np(s) >= F32(p)) & (k < 40)
        s = np.where(active, tack.random.advance_np(s), s)
        k += active
    assert_equal_to(counts, k)
    assert_equal_to(states, s)
    assert_equal_to(uniforms, tack.random.uniform_np(s))
    assert np.allclose(normals, tack.random.normal_np(s), rtol=1e-5, atol=1e-5)
    assert len(set(k.tolist())) > 5


# ------------------------------------------------------------- local arrays


@tack.kernel
def sort_rows(a, out, hist):
    for i in range(a.shape[0]):
        t = tack.local_array(8, tack.i32)
        for k in range(8):  # uniform indices
            t[k] = a[i, k]
        mi = i % 8 + 1
        for k in range(1, mi):  # insertion sort of the first mi: varying indices
            v = t[k]
            j = k - 1
            while j >= 0 and t[j] > v:
                t[j + 1] = t[j]
                j -= 1
            t[j + 1] = v
        for k in range(8):
            out[i, k] = t[k]
        h = tack.local_array(4, tack.i32)
        for k in range(4):
            h[k] = 0
        for k in range(8):
            h[t[k] % 4] += 1
        h[i % 4] += 10
        hist[i] = h[0] + 100 * h[1] + 10000 * h[2] + 1000000 * h[3]


def test_local_arrays_with_uniform_and_varying_indices():
    n = 403
    a = np.random.default_rng(18).integers(0, 50, (n, 8)).astype(np.int32)
    r = Both(sort_rows, lambda: (tack.array(a), zeros((n, 8), tack.i32), zeros(n, tack.i32)))
    r.assert_identical()
    want = a.copy()
    want_h = []
    for i in range(n):
        mi = i % 8 + 1
        want[i, :mi] = sorted(a[i, :mi].tolist())
        h = [0, 0, 0, 0]
        for e in want[i].tolist():
            h[e % 4] += 1
        h[i % 4] += 10
        want_h.append(h[0] + 100 * h[1] + 10000 * h[2] + 1000000 * h[3])
    assert_equal_to(r.spmd[1], want)
    assert_equal_to(r.spmd[2], want_h)


@tack.kernel
def shared_scratch(a, scale, out, varied, masked, after_exit):
    for i in range(len(a)):
        # Every lane stores the same values at the same places: the lanes
        # may share one copy. Read back at uniform and varying indices.
        coef = tack.local_array(8, tack.f32)
        for k in range(8):
            coef[k] = scale * tack.f32(k) + a[0]
        out[i] = coef[i % 8] * a[i] + coef[3]
        # A varying value: each lane needs its own copy.
        v = tack.local_array(4, tack.f32)
        for k in range(4):
            v[k] = a[i] + tack.f32(k)
        varied[i] = v[(i + 1) % 4]
        # Uniform values stored under a varying condition: only the lanes
        # that took it see them.
        m = tack.local_array(2, tack.i32)
        m[0] = 1
        m[1] = 2
        if i % 3 == 0:
            m[0] = 7
        else:
            m[1] = 9
        masked[i] = m[0] * 10 + m[1]
        # A uniform store after a `continue` some lanes took.
        e = tack.local_array(1, tack.i32)
        e[0] = -1
        if i % 5 == 1:
            after_exit[i] = e[0]
            continue
        e[0] = 5
        after_exit[i] = e[0] + 100


def test_local_arrays_shared_by_the_lanes_only_where_every_store_is_uniform():
    n = 1003
    a = np.random.default_rng(21).standard_normal(n).astype(np.float32)
    scale = np.float32(0.75)

    def args():
        return (tack.array(a), float(scale), zeros(n), zeros(n), zeros(n, tack.i32), zeros(n, tack.i32))

    r = Both(shared_scratch, args)
    r.assert_identical()
    coef = scale * np.arange(8, dtype=np.float32) + a[0]
    idx = np.arange(n)
    assert_equal_to(r.spmd[1], coef[idx % 8] * a + coef[3])
    assert_equal_to(r.spmd[2], a + ((idx + 1) % 4).astype(np.float32))
    assert_equal_to(r.spmd[3], np.where(idx % 3 == 0, 72, 19))
    assert_equal_to(r.spmd[4], np.where(idx % 5 == 1, -1, 105))


LOCAL_ARRAYS = 8  # of 16384 f32 each, the 64 KiB a local array may hold: 512 KiB per iteration


def test_local_arrays_at_the_size_limit_run_in_every_variant(tmp_path):
    # Each array is within the language's 64 KiB limit and the scalar
    # program runs; the SPMD variant must run it too (with one copy per
    # lane, or by falling back to scalar code). A child process reports a
    # crash instead of ending pytest.
    body = "".join(
        f"        t{k} = tack.local_array(16384, tack.f32)\n"
        f"        t{k}[i % 16384] = a[i]\n"
        f"        t{k}[(i * 7 + {k}) % 16384] = a[i] * 2.0\n"
        for k in range(LOCAL_ARRAYS)
    )
    total = " + ".join(f"t{k}[(i * 7 + {k}) % 16384]" for k in range(LOCAL_ARRAYS))
    path = tmp_path / "big_scratch.py"
    path.write_text(
        "import json, sys\n"
        "import numpy as np\n"
        "import tack\n"
        "@tack.kernel\n"
        "def scratch(a, out):\n"
        "    for i in range(len(a)):\n" + body + f"        out[i] = {total}\n"
        "tack.set_default_device('cpu')\n"
        "tack.set_debug(False)\n"
        "n = 50000\n"
        "a = np.arange(n, dtype=np.float32)\n"
        "for spmd in (False, True):\n"
        "    tack.set_cpu_spmd('always' if spmd else False)\n"
        "    out = tack.zeros(n)\n"
        "    line = scratch.inspect('llvm', tack.array(a), out).split(chr(10), 1)[0]\n"
        "    print(line, flush=True)\n"
        "    scratch(tack.array(a), out)\n"
        "    print(json.dumps(out.numpy().tolist()), flush=True)\n"
    )
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300, env=dict(os.environ))
    lines, rc = done.stdout.splitlines(), done.returncode
    headers = [line for line in lines if line.startswith(";")]
    assert rc == 0, f"the child ended with {rc} (-11: a segmentation fault) after {headers}: {done.stderr[-2000:]}"
    scalar_line, scalar, spmd_line, spmd = lines
    assert SCALAR_HEADER.fullmatch(scalar_line), scalar_line
    assert SPMD_HEADER.fullmatch(spmd_line) or SCALAR_HEADER.fullmatch(spmd_line), spmd_line
    scalar, spmd = np.array(json.loads(scalar), F32), np.array(json.loads(spmd), F32)
    assert_same_bits(spmd, scalar, "SPMD against scalar")
    assert_equal_to(spmd, np.arange(50000, dtype=F32) * F32(2.0) * F32(LOCAL_ARRAYS))


# ------------------------------------------------------- integer wrapping


@tack.kernel
def wrapping(x, y, s, e, nbits, mul, shl, shr, fdiv, mod, pw, neg):
    for i in range(len(x)):
        mul[i] = x[i] * y[i] + x[i]
        shl[i] = x[i] << (s[i] % nbits)
        shr[i] = x[i] >> (s[i] % nbits)
        fdiv[i] = x[i] // y[i]
        mod[i] = x[i] % y[i]
        pw[i] = x[i] ** (e[i] % 13)
        neg[i] = -x[i] - abs(y[i])


@tack.kernel
def many_divisions(x, out, d):
    for i in range(len(x)):
        v = x[i]
        out[i] = (v % d) + (v // d) + ((v + 1) % d) + ((v + 2) // d) + ((v * 3) % d) + (v % len(x)) + (v % 97)


def test_divisions_per_lane_share_one_function_per_kind():
    """No CPU divides integer vectors, so each lane divides by itself, in a
    function of the module's own per kind of division that every use
    calls: written out at each use, the lanes' divisions would multiply
    the code, and the compile time, by W."""
    n = 500
    rng = np.random.default_rng(23)
    x = rng.integers(-10**12, 10**12, n, dtype=np.int64)
    r = Both(many_divisions, lambda: (tack.array(x), tack.array(np.zeros(n, np.int64)), 7))
    r.assert_identical()
    v = [int(e) for e in x]
    want = [(e % 7) + (e // 7) + ((e + 1) % 7) + ((e + 2) // 7) + ((e * 3) % 7) + (e % n) + (e % 97) for e in v]
    assert r.spmd[1].tolist() == want
    ir = many_divisions.inspect("llvm-unoptimized", tack.array(x), tack.array(np.zeros(n, np.int64)), 7)
    assert ir.startswith("; tack cpu code: spmd,"), ir.split("\n", 1)[0]
    defined = re.findall(r"^define internal [^@]*@([\w.]+\.lanes\.[\w.-]+)\(", ir, re.M)
    # By a runtime divisor: one truncating remainder and one truncating
    # division (the floor's correction runs in vectors); by the constant 97
    # in 64-bit lanes, one of its own.
    kinds = sorted(name.split(".lanes.")[1].split(".v")[0] for name in defined)
    assert kinds == ["sdiv", "srem", "srem.by97"], defined
    assert len(re.findall(r"call [^@]*@[\w.]+\.lanes\.srem\.v", ir)) == 4, "each runtime-divisor modulo calls it"


@tack.kernel
def by_64bit_constants(x, a, b, c, d, e, f):
    for i in range(len(x)):
        a[i] = x[i] // -1
        b[i] = x[i] % -1
        c[i] = x[i] // 0
        d[i] = x[i] % 0
        e[i] = x[i] // -7
        f[i] = x[i] % -7


def test_64bit_constant_divisors_lane_by_lane_including_the_special_ones():
    """64-bit lanes divide by a constant lane by lane, in a function per
    constant; 0 and -1 give the contract's special values (the product
    l * r, wrapped, and 0) without trapping."""
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    x = np.array([lo, lo + 1, -9, -5, -1, 0, 3, 7, 9, hi - 1, hi] * 4, np.int64)
    r = Both(by_64bit_constants, lambda: (tack.array(x), *(zeros(len(x), tack.i64) for _ in range(6))))
    r.assert_identical()

    def wrap(v):
        return (v + 2**63) % 2**64 - 2**63

    v = [int(e) for e in x]
    want = [[wrap(-e) for e in v], [0] * len(v), [0] * len(v), [0] * len(v), [e // -7 for e in v], [e % -7 for e in v]]
    for k, w in enumerate(want):
        assert r.spmd[1 + k].tolist() == w, k


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.int16, np.uint16, np.int8, np.uint8])
def test_integer_wrapping_shifts_floor_division_and_powers(dtype):
    info = np.iinfo(dtype)
    nbits, signed = info.bits, info.min < 0
    n = 1200
    rng = np.random.default_rng(19)
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    y = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    y[::3] = rng.integers(-9 if signed else 1, 10, len(y[::3])).astype(dtype)
    y[y == 0] = 3
    if signed:
        x[7::31] = info.min
        y[(x == info.min) & (y == -1)] = 2  # the one excluded quotient
    s = rng.integers(0, 1000, n).astype(dtype)
    e = rng.integers(0, 100, n).astype(dtype)
    t = tack_dtype(dtype)
    r = Both(wrapping, lambda: (tack.array(x), tack.array(y), tack.array(s), tack.array(e), nbits, *(zeros(n, t) for _ in range(7))))
    r.assert_identical()
    mul, shl, shr, fdiv, mod, pw, neg = r.spmd[4:]
    X, Y, S, E = (v.astype(object).tolist() for v in (x, y, s, e))
    W_ = lambda v: wrap(v, nbits, signed)  # noqa: E731
    assert_equal_to(mul, [W_(a * b + a) for a, b in zip(X, Y)])
    assert_equal_to(shl, [W_(a << (c % nbits)) for a, c in zip(X, S)])
    assert_equal_to(shr, [W_(a >> (c % nbits)) for a, c in zip(X, S)])
    assert_equal_to(fdiv, [W_(a // b) for a, b in zip(X, Y)])
    assert_equal_to(mod, [W_(a % b) for a, b in zip(X, Y)])
    assert_equal_to(pw, [W_(pow(a, c % 13, 1 << nbits)) for a, c in zip(X, E)])
    assert_equal_to(neg, [W_(-a - W_(abs(b))) for a, b in zip(X, Y)])


# ------------------------------------------------------ float special values


@tack.kernel
def specials(x, y, mn, mx, ab, fl, ce, sq, ng, mz, flags):
    for i in range(len(x)):
        mn[i] = min(x[i], y[i])
        mx[i] = max(x[i], y[i])
        ab[i] = abs(x[i])
        fl[i] = math.floor(x[i])
        ce[i] = math.ceil(x[i])
        sq[i] = math.sqrt(x[i])
        ng[i] = -x[i]
        mz[i] = x[i] * 0.0
        t = 1 if x[i] else 0
        flags[i] = (x[i] != x[i]) + 2 * (x[i] < y[i]) + 4 * (x[i] == y[i]) + 8 * t + 16 * (x[i] >= y[i])


SPECIALS = [NAN, -NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e30, -7.75, 0.5, -0.5, 3.0]


def same_value(got, want):
    return (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want))


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_float_special_values(dtype):
    pairs = [(a, b) for a in SPECIALS for b in SPECIALS]
    order = np.random.default_rng(20).permutation(len(pairs))
    pairs = [pairs[k] for k in order] * 3
    x = np.array([a for a, _ in pairs], dtype)
    y = np.array([b for _, b in pairs], dtype)
    n, t = len(x), tack_dtype(dtype)
    r = Both(specials, lambda: (tack.array(x), tack.array(y), *(zeros(n, t) for _ in range(8)), zeros(n, tack.i32)))
    r.assert_identical()
    mn, mx, ab, fl, ce, sq, ng, mz, flags = r.spmd[2:]
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        for got, fn in ((mn[i], min), (mx[i], max)):
            got = float(got)
            if math.isnan(a) and math.isnan(b):
                assert math.isnan(got)
            elif math.isnan(a) or math.isnan(b):
                assert same_value(got, b if math.isnan(a) else a), (fn, a, b, got)
            elif a == 0 and b == 0:
                assert got == 0  # either zero sign is allowed
            else:
                assert same_value(got, fn(a, b)), (fn, a, b, got)
        assert same_value(float(ab[i]), abs(a))
        assert same_value(float(ng[i]), -a)
        if math.isfinite(a):
            assert same_value(float(fl[i]), math.copysign(math.floor(a), a) if a == 0 else float(math.floor(a)))
            assert same_value(float(ce[i]), math.copysign(0.0, a) if -1 < a <= 0 else float(math.ceil(a)))
            assert same_value(float(mz[i]), math.copysign(0.0, a))
        else:
            assert same_value(float(fl[i]), a) and same_value(float(ce[i]), a)
            assert math.isnan(float(mz[i]))
        if math.isnan(a) or a < 0:
            assert math.isnan(float(sq[i]))
        else:
            assert same_value(float(sq[i]), float(np.sqrt(dtype(a))))
        want = int(a != a) + 2 * int(a < b) + 4 * int(a == b) + 8 * int(a != 0) + 16 * int(a >= b)
        assert flags[i] == want, (a, b, flags[i], want)


# ------------------------------------------------------------- math calls


@tack.kernel
def per_lane_math(x, y, branchy, angle, power, mixed):
    for i in range(len(x)):
        if x[i] > 0.5:
            branchy[i] = math.log(x[i])
        elif x[i] > -0.5:
            branchy[i] = math.sin(x[i]) + math.cos(x[i])
        else:
            branchy[i] = math.exp(x[i])
        angle[i] = math.atan2(y[i], x[i])
        power[i] = pow(abs(x[i]) + 0.25, y[i])
        mixed[i] = math.tan(x[i] * 0.5) + math.sqrt(abs(y[i]))


def ulps(got, want):
    got, want = np.asarray(got), np.asarray(want, dtype=np.asarray(got).dtype)
    itype = np.int32 if got.dtype == F32 else np.int64

    def ordered(v):
        i = v.view(itype).astype(np.int64)
        return np.where(i < 0, np.iinfo(itype).min - i, i)

    return np.abs(ordered(got) - ordered(want))


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_math_calls_per_lane(dtype):
    n = 1000
    rng = np.random.default_rng(21)
    x = rng.uniform(-3, 3, n).astype(dtype)
    y = rng.uniform(-3, 3, n).astype(dtype)
    t = tack_dtype(dtype)
    r = Both(per_lane_math, lambda: (tack.array(x), tack.array(y), *(zeros(n, t) for _ in range(4))))
    r.assert_identical()
    branchy, angle, power, mixed = r.spmd[2:]
    want = np.where(x > 0.5, np.log(np.maximum(x, dtype(0.5))), np.where(x > -0.5, np.sin(x) + np.cos(x), np.exp(x)))
    # Eight ULP against NumPy, the bound tests/python/test_float_semantics.py
    # uses for the math builtins; sin + cos near cancellation gets an absolute bound.
    close = (ulps(branchy, want.astype(dtype)) <= 8) | (np.abs(branchy - want) <= 4 * np.finfo(dtype).eps)
    assert close.all(), x[~close]
    assert (ulps(angle, np.arctan2(y, x)) <= 8).all()
    assert (ulps(power, np.power(np.abs(x) + dtype(0.25), y)) <= 8).all()
    want_mixed = np.tan(x * dtype(0.5)) + np.sqrt(np.abs(y))
    assert ((ulps(mixed, want_mixed) <= 8) | (np.abs(mixed - want_mixed) <= 4 * np.finfo(dtype).eps)).all()


# -------------------------------------------------------------------- print


@tack.kernel
def chatty(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 2
        if x[i] % 7 == 3:
            print(i, x[i], tack.f32(x[i]) * 0.5, tack.vec2(tack.f32(i), -0.0))


def test_print_from_a_few_lanes(capfd):
    n = 300
    x = np.random.default_rng(22).integers(0, 1000, n).astype(np.int32)
    capfd.readouterr()
    lines = {}

    def make():
        return tack.array(x), zeros(n, tack.i32)

    outs = {}
    for spmd in (False, True):
        tack.set_cpu_spmd(LANES if spmd else False)
        args = make()
        chatty(*args)
        outs[spmd] = args[1].numpy().copy()
        lines[spmd] = Counter(capfd.readouterr().out.splitlines())
    tack.set_cpu_spmd(LANES)
    spmd_lanes(chatty, *make())
    want = Counter(
        f"{i} {v} {str(F32(v) * F32(0.5))} [{str(F32(i))}, -0.0]" for i, v in enumerate(x.tolist()) if v % 7 == 3
    )
    assert 3 < sum(want.values()) < n // 3
    assert lines[True] == lines[False]
    assert lines[True] == want
    assert_same_bits(outs[True], outs[False])
    assert_equal_to(outs[True], x * 2)


# ------------------------------------------------------------ return values


@tack.kernel
def count_positive(x, counter, bias) -> tack.i64:
    for i in range(len(x)):
        if x[i] > 0:
            tack.atomic_add(counter, 0, 1)
        if x[i] > 10:
            tack.atomic_add(counter, 1, x[i])
    return counter[0] * 1000 + counter[1] + bias


def test_a_kernel_returns_a_value():
    x = np.random.default_rng(23).integers(-20, 20, 555).astype(np.int64)
    r = Both(count_positive, lambda: (tack.array(x), zeros(2, tack.i64), 7))
    r.assert_identical()
    want = int((x > 0).sum()) * 1000 + int(x[x > 10].sum()) + 7
    assert r.rets[True] == want and r.rets[False] == want


@tack.kernel
def debug_past_last_column(a, out):
    for r, c in tack.ndindex(out.shape[0], out.shape[1]):
        out[r, c] = a[r, c + 1]


@tack.kernel
def debug_scatter(idx, out):
    for i in range(len(idx)):
        out[idx[i]] = tack.f32(i)


@tack.kernel
def debug_uniform_index(a, out, k: int):
    for i in range(len(out)):
        out[i] = a[k] + a[i]


def _debug_run(kernel, make_args):
    """(message, outputs) of a debug-mode call that raises IndexError."""
    args = make_args()
    with pytest.raises(IndexError) as caught:
        kernel(*args)
    return str(caught.value), [x.numpy() for x in args if isinstance(x, tack.Array)]


@pytest.mark.parametrize("case", ["past_last_column", "scatter", "uniform_index"])
def test_debug_mode_out_of_bounds_lanes_match_the_scalar_program(case):
    a2 = np.arange(6 * 24, dtype=F32).reshape(6, 24)  # column 23 in a whole group
    idx = np.arange(29, dtype=np.int32)
    idx[17] = 40  # one lane of the third group stores past the end
    a1 = np.arange(29, dtype=F32)
    makers = {
        "past_last_column": (debug_past_last_column, lambda: (tack.array(a2), tack.zeros((6, 24)))),
        "scatter": (debug_scatter, lambda: (tack.array(idx), tack.zeros(30))),
        "uniform_index": (debug_uniform_index, lambda: (tack.array(a1), tack.zeros(29), 29)),
    }
    kernel, make = makers[case]
    tack.set_debug(True)
    try:
        results = []
        for spmd in (False, True):
            tack.set_cpu_spmd(LANES if spmd else False)
            results.append(_debug_run(kernel, make))
        assert spmd_lanes(kernel, *make()) >= 2
    finally:
        tack.set_debug(False)
        tack.set_cpu_spmd(LANES)
    (scalar_message, scalar_out), (spmd_message, spmd_out) = results
    assert "out of bounds" in spmd_message, spmd_message
    assert spmd_message == scalar_message
    for s, v in zip(scalar_out, spmd_out):
        assert_same_bits(v, s)
    # The oracle: skipped loads give 0, skipped stores do nothing.
    if case == "past_last_column":
        want = np.zeros((6, 24), dtype=F32)
        want[:, :23] = a2[:, 1:]
        assert_same_bits(spmd_out[1], want)
    elif case == "scatter":
        want = np.zeros(30, dtype=F32)
        for i, j in enumerate(idx):
            if j < 30:
                want[j] = F32(i)
        assert_same_bits(spmd_out[1], want)
    else:
        assert_same_bits(spmd_out[1], a1)  # a[29] gives 0
