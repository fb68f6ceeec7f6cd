"""Host views of tack arrays: NumPy's basic indexing (integers, slices of any
step, ``...`` and ``None``) and transposes give views that share storage.
NumPy doing the same to the same data is the oracle for every view's shape,
strides and elements, and for where a kernel's writes through a view land;
each case runs on every backend."""

import random

import numpy as np
import pytest
import tack


def random_key(rng, shape):
    """A basic index for `shape`: integers (negative too, Python's or NumPy's),
    slices with any step, at most one ``...``, and ``None``s."""
    parts = []
    for extent in shape:
        kind = rng.choice(["int", "slice", "slice", "full"]) if extent else rng.choice(["slice", "full"])
        if kind == "int":
            i = rng.randrange(-extent, extent)
            parts.append(np.int64(i) if rng.random() < 0.3 else i)
        elif kind == "slice":
            bound = lambda: rng.choice([None, rng.randrange(-extent - 2, extent + 3)])
            parts.append(slice(bound(), bound(), rng.choice([None, 1, 2, 3, -1, -2, -3])))
        else:
            parts.append(slice(None))
    if parts and rng.random() < 0.4:
        # A run of parts becomes `...`, which stands for those dimensions whole.
        lo = rng.randrange(len(parts) + 1)
        hi = rng.randrange(lo, len(parts) + 1)
        parts[lo:hi] = [Ellipsis]
    elif rng.random() < 0.3:
        # Trailing dimensions may go unnamed.
        parts = parts[: rng.randrange(len(parts) + 1)]
    for _ in range(rng.choice([0, 0, 1, 2])):
        parts.insert(rng.randrange(len(parts) + 1), None)
    return tuple(parts) if len(parts) != 1 or rng.random() < 0.5 else parts[0]


SHAPES = [(7,), (4, 5), (3, 4, 5), (2, 3, 2, 4), (0, 3), (5, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_views_match_numpys_basic_indexing(backend, shape):
    rng = random.Random(str(shape))
    data = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    a = tack.array(data)
    for _ in range(60):
        key = random_key(rng, shape)
        want = data[key]
        got = a[key]
        if isinstance(got, tack.Array):
            assert got.shape == want.shape, key
            np.testing.assert_array_equal(got.numpy(), want, err_msg=repr(key))
        else:
            assert want.shape == () and got == want, key


def test_views_of_views_compose_as_numpys(backend):
    data = np.arange(6 * 8, dtype=np.float64).reshape(6, 8)
    a = tack.array(data)
    v = a[::-1, 1::3][1:, ::-2]
    np.testing.assert_array_equal(v.numpy(), data[::-1, 1::3][1:, ::-2])
    assert a[..., 3].shape == (6,) and a[2, ...].shape == (8,) and a[...].shape == (6, 8)
    np.testing.assert_array_equal(a[None, ..., None].numpy(), data[None, ..., None])


@tack.kernel
def doubled_into(src, dst):
    for i, j in tack.ndindex(src.shape[0], src.shape[1]):
        dst[i, j] = src[i, j] * 2


def test_kernels_read_and_write_through_stepped_views(backend):
    data = np.arange(9 * 10, dtype=np.float32).reshape(9, 10)
    src = tack.array(data)
    dst_data = np.full((9, 10), -1.0, dtype=np.float32)
    dst = tack.array(dst_data)
    doubled_into(src[::-2, 1::3], dst[::2, ::-4])
    dst_data[::2, ::-4] = data[::-2, 1::3] * 2
    np.testing.assert_array_equal(dst.numpy(), dst_data)


def test_stepped_views_of_vector_elements(backend):
    for layout in ("aos", "soa"):
        data = np.arange(6 * 3, dtype=np.float32).reshape(6, 3)
        a = tack.array(data, dtype=tack.vec3f, layout=layout)
        v = a[::-2]
        assert v.shape == (3,)
        np.testing.assert_array_equal(v.numpy(), data[::-2])
        np.testing.assert_array_equal(a[-1], data[-1])
        np.testing.assert_array_equal(a[None, 1::2].numpy(), data[None, 1::2])


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 1, 3, 2)], ids=str)
def test_transposes_match_numpys(backend, shape):
    data = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    a = tack.array(data)
    rng = random.Random(len(shape))
    perms = [None, tuple(range(len(shape)))[::-1]] + [tuple(rng.sample(range(len(shape)), len(shape))) for _ in range(4)]
    for axes in perms:
        for view, want in ((a.transpose(axes), data.transpose(axes)),
                           (a.transpose() if axes is None else a.transpose(*axes), data.transpose(axes)),
                           (a.transpose([d - len(shape) for d in axes]) if axes else a.T, data.transpose(axes))):
            assert view.shape == want.shape and view.strides == want.strides, axes
            np.testing.assert_array_equal(view.numpy(), want)
    np.testing.assert_array_equal(a.T[..., ::-1].numpy(), data.T[..., ::-1])


def test_kernels_and_tile_functions_take_transposed_views(backend):
    import tack.tile as T
    from test_tile_library import bits, fold_matmul

    r = np.random.default_rng(5)
    a, b = r.standard_normal((7, 5)).astype(np.float32), r.standard_normal((6, 5)).astype(np.float32)
    ta, tb = tack.array(a), tack.array(b)
    dst = tack.zeros((5, 7), tack.f32)
    doubled_into(ta.T, dst)
    np.testing.assert_array_equal(dst.numpy(), a.T * 2)
    np.testing.assert_array_equal(bits(T.matmul(ta, tb.T).numpy()), bits(fold_matmul(a, b.T)))
    np.testing.assert_array_equal(bits(T.matmul(tb[::-1].T.T, ta.T).numpy()), bits(fold_matmul(b[::-1], a.T)))


def test_transposes_of_vector_elements_permute_the_grid_only(backend):
    data = np.arange(2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2)
    for layout in ("aos", "soa"):
        a = tack.array(data, dtype=tack.vec2f, layout=layout)
        assert a.T.shape == (3, 2) and a.T.element_shape == (2,)
        np.testing.assert_array_equal(a.T.numpy(), data.transpose(1, 0, 2))


def test_transpose_refuses_what_numpy_refuses():
    a = tack.zeros((2, 3, 4), tack.f32)
    for bad in ((0, 0, 1), (0, 1), (0, 1, 2, 3)):
        with pytest.raises(ValueError, match="axes don't match"):
            a.transpose(bad)
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        a.transpose(0, 1, 3)
    with pytest.raises(ValueError, match="is out of bounds"):
        a.transpose(2**70, 0, 1)
    with pytest.raises(TypeError, match="integer axes, not float"):
        a.transpose(0.0, 1, 2)


def test_indices_numpy_refuses_or_arrays_do_not_take():
    a = tack.zeros((3, 4), tack.f32)
    with pytest.raises(IndexError, match="single ellipsis"):
        a[..., 0, ...]
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 1, 2]
    with pytest.raises(IndexError, match="too many indices"):
        a[..., 0, 1, 2]
    with pytest.raises(IndexError, match="out of bounds for dimension 1"):
        a[:, 4]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0"):
        a[-4]
    with pytest.raises(IndexError, match="index 1180591620717411303424 is out of bounds"):
        a[2**70]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        a[::0]
    with pytest.raises(TypeError, match="not float"):
        a[1.0]
    # NumPy reads a bool as a mask, which arrays do not take.
    with pytest.raises(TypeError, match="not bool"):
        a[True]
    with pytest.raises(TypeError, match="not list"):
        a[[0, 1]]
