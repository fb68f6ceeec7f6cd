"""3D textures (contract "Memory and aliasing", Textures): a texture is a
snapshot of its array taken at creation and at update(); kernels sample it
with trilinear interpolation in normalized coordinates, clamped to the edge.

The oracle is a NumPy implementation of the formula in docs/arrays.md,
evaluated in f32 with the same operations in the same order, so samples
must agree exactly; at texel centers they equal the texels themselves.
CUDA's texture units evaluate the same formula with weights of 8
fractional bits (docs/arrays.md), so there a sample may differ from it by
up to 1/256 of the texels' spread per axis, and no more.
"""

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY

F = np.float32


def trilinear(data, shape, u, v, w):
    """The documented sampling formula, elementwise in f32."""
    width, height, depth = shape
    texels = np.asarray(data, F).reshape(depth, height, width)

    def axis(coord, n):
        t = np.asarray(coord, F) * F(n) - F(0.5)
        fl = np.floor(t)
        weight = t - fl
        i = np.clip(np.nan_to_num(fl, nan=-1.0), -1, n).astype(np.int64)
        return np.clip(i, 0, n - 1), np.clip(i + 1, 0, n - 1), weight

    x0, x1, ax = axis(u, width)
    y0, y1, ay = axis(v, height)
    z0, z1, az = axis(w, depth)

    def lerp(p, q, a):
        return (F(1) - a) * p + a * q

    c00 = lerp(texels[z0, y0, x0], texels[z0, y0, x1], ax)
    c10 = lerp(texels[z0, y1, x0], texels[z0, y1, x1], ax)
    c01 = lerp(texels[z1, y0, x0], texels[z1, y0, x1], ax)
    c11 = lerp(texels[z1, y1, x0], texels[z1, y1, x1], ax)
    return lerp(lerp(c00, c10, ay), lerp(c01, c11, ay), az)


@tack.kernel
def sample_points(tex, points, out):
    for i in range(len(out)):
        out[i] = tex.sample(points[i, 0], points[i, 1], points[i, 2])


@tack.kernel
def sample_vectors(tex, points, out):
    for i in range(len(out)):
        out[i] = tex.sample(points[i])


def assert_samples(backend, got, want, texels):
    """Samples equal the formula's; on CUDA within the weights' precision."""
    if backend != "cuda":
        np.testing.assert_array_equal(got, want)
        return
    texels = np.asarray(texels, F)
    bound = 3 * float(texels.max() - texels.min()) / 256 + 4 * float(np.finfo(F).eps) * float(np.abs(texels).max())
    np.testing.assert_allclose(got, want, rtol=0, atol=bound)


def sampled(tex, points, kernel=sample_points):
    points = np.asarray(points, F)
    out = tack.zeros(len(points))
    if kernel is sample_vectors:
        kernel(tex, tack.array(points, dtype=tack.vec3f), out)
    else:
        kernel(tex, tack.array(points), out)
    return out.numpy()


def texel_centers(shape):
    width, height, depth = shape
    z, y, x = np.meshgrid(np.arange(depth), np.arange(height), np.arange(width), indexing="ij")
    return np.stack([(x + F(0.5)) / F(width), (y + F(0.5)) / F(height), (z + F(0.5)) / F(depth)], -1).reshape(-1, 3)


def random_texels(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(int(np.prod(shape))).astype(F)


# ------------------------------------------------------------- the snapshot


@tack.kernel
def overwrite(a, value):
    for i in range(len(a)):
        a[i] = value


def test_writes_after_creation_are_invisible_until_update(backend):
    shape = (3, 2, 2)
    a = tack.array(np.arange(12, dtype=F))
    tex = tack.texture3d(a, shape=shape)
    centers = texel_centers(shape)
    overwrite(a, 5.0)  # a kernel store
    assert_samples(backend, sampled(tex, centers), np.arange(12, dtype=F), np.arange(12, dtype=F))
    tex.update()
    assert_samples(backend, sampled(tex, centers), np.full(12, 5, F), np.full(12, 5, F))
    tack.copyto(a, np.full(12, -1, F))  # a host copy
    a.numpy()[0] = 9  # and an external write through a view
    assert_samples(backend, sampled(tex, centers), np.full(12, 5, F), np.full(12, 5, F))
    tex.update()
    want = np.full(12, -1, F)
    want[0] = 9
    assert_samples(backend, sampled(tex, centers), want, want)


def test_the_texture_keeps_its_copy_after_the_array_is_gone(backend):
    shape = (2, 2, 2)
    tex = tack.texture3d(tack.array(np.arange(8, dtype=F) * 2), shape)
    assert_samples(backend, sampled(tex, texel_centers(shape)), np.arange(8, dtype=F) * 2, np.arange(8, dtype=F) * 2)
    assert tex.shape == shape


def test_a_strided_view_is_copied_in_row_major_order(backend):
    base = tack.array(np.arange(48, dtype=F).reshape(6, 8))
    view = base[1:5, 2:5]  # 4 x 3, strided
    tex = tack.texture3d(view, shape=(3, 2, 2))
    want = base.numpy()[1:5, 2:5].reshape(-1)
    assert_samples(backend, sampled(tex, texel_centers((3, 2, 2))), want, want)


# ---------------------------------------------------------------- sampling


@pytest.mark.parametrize("shape", [(4, 3, 2), (1, 5, 3), (7, 1, 1)])
@pytest.mark.parametrize("kernel", [sample_points, sample_vectors], ids=["scalars", "vec3"])
def test_texel_centers_give_the_texels(backend, shape, kernel):
    data = random_texels(shape)
    tex = tack.texture3d(tack.array(data), shape)
    assert_samples(backend, sampled(tex, texel_centers(shape), kernel), data, data)


@pytest.mark.parametrize("shape", [(4, 3, 2), (5, 5, 5), (2, 1, 3)])
def test_trilinear_matches_the_formula(backend, shape):
    data = random_texels(shape, seed=1)
    tex = tack.texture3d(tack.array(data), shape)
    points = np.random.default_rng(2).uniform(-0.25, 1.25, size=(500, 3)).astype(F)
    want = trilinear(data, shape, points[:, 0], points[:, 1], points[:, 2])
    assert_samples(backend, sampled(tex, points), want, data)


def test_a_midpoint_is_the_mean_of_its_neighbours(backend):
    # Hand-derived: halfway between texels 0 and 1 along x, at the centers of
    # the other axes, with texel value = x index.
    texels = np.tile(np.arange(4, dtype=F), 6)
    tex = tack.texture3d(tack.array(texels), (4, 3, 2))
    got = sampled(tex, [[0.25, 0.5, 0.25], [0.5, 0.5, 0.75], [0.375, 0.1, 0.9]])
    assert_samples(backend, got, np.array([0.5, 1.5, 1.0], F), texels)


def test_addressing_clamps_to_the_edge(backend):
    shape = (4, 3, 2)
    data = random_texels(shape, seed=3)
    texels = data.reshape(2, 3, 4)
    tex = tack.texture3d(tack.array(data), shape)
    # Beyond an edge along every axis, and up to half a texel inside it, the
    # corner texel is the value.
    corners = [[-3.0, -0.5, 0.0], [0.1, 0.1, 0.2], [1.0, 1.0, 1.0], [7.0, 0.95, 2.0], [-1.0, 1.5, 1.25]]
    want = [texels[0, 0, 0], texels[0, 0, 0], texels[1, 2, 3], texels[1, 2, 3], texels[1, 2, 0]]
    assert_samples(backend, sampled(tex, corners), np.array(want, F), data)


# ---------------------------------------------------------------- rejections


def test_other_interpolations_are_refused():
    with pytest.raises(ValueError, match="interp='nearest' is not implemented; only interp='linear'"):
        tack.texture3d(tack.zeros(8), (2, 2, 2), interp="nearest")


@pytest.mark.parametrize("dtype", [tack.f64, tack.i32, tack.vec3f])
def test_arrays_other_than_f32_numbers_are_refused(dtype):
    with pytest.raises(TypeError, match="f32"):
        tack.texture3d(tack.zeros(8, dtype), (2, 2, 2))


@pytest.mark.parametrize("shape", [(2, 2, 3), (2, 2, 1), (8, 1, 1, 1), (0, 2, 2)])
def test_the_element_count_must_be_the_extents_product(shape):
    with pytest.raises(ValueError, match="texture3d"):
        tack.texture3d(tack.zeros(8), shape)


@pytest.mark.parametrize("shape", [(2.9, 2, 2), ("2", 2, 2), (True, 8, 1), None])
def test_extents_are_integers_never_truncated_or_parsed(shape):
    # As NumPy's shapes: 2.9 is not an extent of 2, "2" not one of 2 and
    # True not one of 1 (each of these made a 2x2x2 or 1x8x1 texture).
    with pytest.raises(TypeError, match=r"texture3d: shape must be three integer extents \(W, H, D\)"):
        tack.texture3d(tack.zeros(8), shape)
    assert tack.texture3d(tack.zeros(8), (np.int8(2), np.uint64(2), 2)).shape == (2, 2, 2)


def test_numpy_arrays_are_refused():
    with pytest.raises(TypeError, match="tack.Array"):
        tack.texture3d(np.zeros(8, F), (2, 2, 2))


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_textures_are_never_written_or_indexed():
    tex = tack.texture3d(tack.zeros(8), (2, 2, 2))
    with pytest.raises(tack.KernelTypeError, match="texture 'tex' is sampled, not written") as e:

        @tack.kernel
        def write_texture(tex, n):
            for i in range(n):
                tex[i] = 1.0

        write_texture(tex, 2)
    assert e.value.function == "write_texture"
    with pytest.raises(tack.KernelTypeError, match="texture 'tex' is sampled, not indexed"):

        @tack.kernel
        def index_texture(tex, out):
            for i in range(len(out)):
                out[i] = tex[i]

        index_texture(tex, tack.zeros(2))
    with pytest.raises(tack.KernelTypeError, match="texture, a read-only snapshot"):

        @tack.kernel
        def atomic_texture(tex, n):
            for i in range(n):
                tack.atomic_add(tex, i, 1.0)

        atomic_texture(tex, 2)


# ------------------------------------------------------------ specialization


def test_textures_of_different_extents_each_sample_correctly(backend):
    @tack.kernel
    def sample_once(tex, points, out):
        for i in range(len(out)):
            out[i] = tex.sample(points[i, 0], points[i, 1], points[i, 2])

    shapes = [(4, 3, 2), (2, 3, 4), (4, 3, 2), (3, 3, 3)]
    for n, shape in enumerate(shapes):
        data = random_texels(shape, seed=10 + n)
        tex = tack.texture3d(tack.array(data), shape)
        points = np.random.default_rng(n).uniform(0, 1, size=(64, 3)).astype(F)
        want = trilinear(data, shape, points[:, 0], points[:, 1], points[:, 2])
        out = tack.zeros(64)
        sample_once(tex, tack.array(points), out)
        assert_samples(backend, out.numpy(), want, data)
    # The extents are in the variant key: one variant per distinct shape.
    assert sample_once.compiled_variants == 3
    ir = sample_once.inspect("ir", tex, tack.zeros((1, 3)), tack.zeros(1))
    # CUDA samples through texture objects (an image), others in code.
    assert ("tex: texture3d[f32, image]" if backend == "cuda" else "tex: texture3d[f32]") in ir
