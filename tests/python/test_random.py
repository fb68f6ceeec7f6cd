"""tack.random: pure counter-based generator functions and their NumPy
mirrors.

seed, advance and uniform must equal the host mirrors bit for bit;
normal, direction2 and direction3 follow the backend's math library and are
compared within a few ULP. The statistical checks run on fixed seeds, so
they are deterministic. Every numerical case runs once per backend.
"""

import numpy as np
import pytest
import tack

STEPS = 4


@tack.kernel
def draw_sequences(stream, states, uniforms):
    for i in range(len(states) // 4):
        s = tack.random.seed(i, stream)
        for j in range(4):
            states[i * 4 + j] = s
            uniforms[i * 4 + j] = tack.random.uniform(s)
            s = tack.random.advance(s)


def mirror_sequences(n, stream):
    s = tack.random.seed_np(np.arange(n), stream)
    states, uniforms = [], []
    for _ in range(STEPS):
        states.append(s)
        uniforms.append(tack.random.uniform_np(s))
        s = tack.random.advance_np(s)
    return np.stack(states, axis=1).reshape(-1), np.stack(uniforms, axis=1).reshape(-1)


@pytest.mark.parametrize("stream", [0, 1, 7, 2**31 - 1, -1, 2**32 - 1, 2**40 + 3])
def test_seed_advance_uniform_equal_the_numpy_mirrors(backend, stream):
    n = 1 << 14
    states = tack.zeros(n * STEPS, dtype=tack.u32)
    uniforms = tack.zeros(n * STEPS, dtype=tack.f32)
    draw_sequences(stream, states, uniforms)
    expected_states, expected_uniforms = mirror_sequences(n, stream)
    assert expected_states.dtype == np.uint32 and expected_uniforms.dtype == np.float32
    assert np.array_equal(states.numpy(), expected_states)
    assert np.array_equal(uniforms.numpy().view(np.uint32), expected_uniforms.view(np.uint32))


def test_the_mirrors_are_the_documented_arithmetic():
    # seed, advance and uniform written out with Python integers.
    def mix(x):
        x &= 0xFFFFFFFF
        x ^= x >> 16
        x = (x * 0x7FEB352D) & 0xFFFFFFFF
        x ^= x >> 15
        x = (x * 0x846CA68B) & 0xFFFFFFFF
        return x ^ (x >> 16)

    def permute(s):
        w = (((s >> ((s >> 28) + 4)) ^ s) * 277803737) & 0xFFFFFFFF
        return (w >> 22) ^ w

    for index, stream in [(0, 0), (1, 0), (12345, 99), (2**32 - 1, 2**31), (7, -3)]:
        s = mix((index + mix((stream & 0xFFFFFFFF) ^ 0x9E3779B9)) & 0xFFFFFFFF)
        assert int(tack.random.seed_np(index, stream)) == s
        nxt = (s * 747796405 + 2891336453) & 0xFFFFFFFF
        assert int(tack.random.advance_np(s)) == nxt
        assert float(tack.random.uniform_np(nxt)) == (permute(nxt) >> 8) / 2**24


@tack.kernel
def seeded_with_i64(index, stream, states):
    for i in range(len(states)):
        states[i] = tack.random.seed(index[i], stream)


def test_indices_reduce_modulo_2_32(backend):
    index = np.array([0, 2**32, 2**32 + 5, 5, -1, 2**32 - 1], dtype=np.int64)
    states = tack.zeros(len(index), dtype=tack.u32)
    seeded_with_i64(tack.array(index), 3, states)
    got = states.numpy()
    assert np.array_equal(got, tack.random.seed_np(index, 3))
    assert got[0] == got[1] and got[2] == got[3] and got[4] == got[5]


@tack.kernel
def uniform_once(stream, out):
    for i in range(len(out)):
        out[i] = tack.random.uniform(tack.random.advance(tack.random.seed(i, stream)))


@tack.kernel
def uniform_via_locals(stream, out):
    for i in range(len(out)):
        t = tack.random.seed(i, stream)
        t = tack.random.advance(t)
        u = tack.random.uniform(t)
        out[i] = u


def test_no_hidden_state(backend):
    n = 4096
    a, b, c = (tack.zeros(n) for _ in range(3))
    uniform_once(11, a)
    uniform_via_locals(11, b)
    uniform_once(11, c)
    assert np.array_equal(a.numpy(), b.numpy())
    assert np.array_equal(a.numpy(), c.numpy())
    other = tack.zeros(n)
    uniform_once(12, other)
    assert not np.array_equal(a.numpy(), other.numpy())


@tack.kernel
def shaped(stream, normals, d2x, d2y, d3x, d3y, d3z, states):
    for i in range(len(normals)):
        s = tack.random.advance(tack.random.seed(i, stream))
        states[i] = s
        normals[i] = tack.random.normal(s)
        x, y = tack.random.direction2(s)
        d2x[i] = x
        d2y[i] = y
        a, b, c = tack.random.direction3(s)
        d3x[i] = a
        d3y[i] = b
        d3z[i] = c


def shaped_draws(n, stream):
    outs = [tack.zeros(n) for _ in range(6)] + [tack.zeros(n, dtype=tack.u32)]
    shaped(stream, *outs)
    return [o.numpy() for o in outs]


def test_normal_and_directions_match_the_mirrors_within_rounding(backend):
    n = 1 << 14
    normals, d2x, d2y, d3x, d3y, d3z, states = shaped_draws(n, 5)
    assert np.array_equal(states, tack.random.advance_np(tack.random.seed_np(np.arange(n), 5)))
    assert np.allclose(normals, tack.random.normal_np(states), rtol=1e-5, atol=1e-5)
    ex, ey = tack.random.direction2_np(states)
    assert np.allclose(d2x, ex, atol=2e-6) and np.allclose(d2y, ey, atol=2e-6)
    ex, ey, ez = tack.random.direction3_np(states)
    assert np.array_equal(d3z, ez)
    assert np.allclose(d3x, ex, atol=2e-6) and np.allclose(d3y, ey, atol=2e-6)
    assert np.all(np.abs(np.hypot(d2x, d2y) - 1) < 1e-6)
    assert np.all(np.abs(np.sqrt(d3x.astype(np.float64) ** 2 + d3y**2 + d3z**2) - 1) < 1e-6)
    assert np.all(np.isfinite(normals))


# ------------------------------------------------------------- statistics


def chi_square(u, bins=64):
    counts = np.bincount((u * bins).astype(np.int64), minlength=bins)
    expected = len(u) / bins
    return float(np.sum((counts - expected) ** 2 / expected))


# The 0.999 quantile of chi-square with 63 degrees of freedom.
CHI2_63_999 = 103.4


def test_uniform_range_and_resolution(backend):
    n = 1 << 16
    states = tack.zeros(n * STEPS, dtype=tack.u32)
    uniforms = tack.zeros(n * STEPS)
    draw_sequences(0, states, uniforms)
    u = uniforms.numpy()
    assert u.min() >= 0.0 and u.max() < 1.0
    assert np.array_equal(u * 2**24, np.floor(u * 2**24))  # multiples of 2^-24


@pytest.mark.parametrize("stream", [0, 99])
def test_chi_square_and_serial_correlation(backend, stream):
    n = 1 << 16
    states = tack.zeros(n * STEPS, dtype=tack.u32)
    uniforms = tack.zeros(n * STEPS)
    draw_sequences(stream, states, uniforms)
    u = uniforms.numpy().reshape(n, STEPS).astype(np.float64)
    # Neighbouring indices (first draw of each) and consecutive draws of one
    # index (advance) are both checked.
    across = u[:, 0]
    along = u[:, 1]
    for sample in (across, along, u.reshape(-1)):
        assert chi_square(sample) < CHI2_63_999
    assert abs(np.corrcoef(across[:-1], across[1:])[0, 1]) < 0.01
    for j in range(STEPS - 1):
        assert abs(np.corrcoef(u[:, j], u[:, j + 1])[0, 1]) < 0.01
    # A pair test: successive draws fill the unit square evenly (8 x 8 cells).
    cells = (u[:, 0] * 8).astype(int) * 8 + (u[:, 1] * 8).astype(int)
    counts = np.bincount(cells, minlength=64)
    assert float(np.sum((counts - n / 64) ** 2 / (n / 64))) < CHI2_63_999


def test_normal_moments(backend):
    normals, d2x, d2y, d3x, d3y, d3z, _ = shaped_draws(1 << 16, 21)
    assert abs(normals.mean()) < 0.02
    assert abs(normals.var() - 1.0) < 0.03
    assert abs(np.mean(normals**3)) < 0.05
    for d in (d2x, d2y, d3x, d3y, d3z):
        assert abs(d.mean()) < 0.02
    assert abs(np.mean(d3z**2) - 1 / 3) < 0.01
