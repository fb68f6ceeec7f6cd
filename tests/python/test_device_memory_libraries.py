"""Device memory shared with the GPU array libraries users have: CuPy,
PyTorch, Numba and JAX, through __cuda_array_interface__ and DLPack, on a
real CUDA device. Each library's tests run where it imports and sees a GPU,
and skip with the reason otherwise; the oracle is NumPy over the values
each side wrote. test_device_memory.py covers the protocols without a GPU.
"""

import importlib

import numpy as np
import pytest
import tack

pytestmark = pytest.mark.skipif(
    bool(tack._core.device_unavailable_reason("cuda")),
    reason=f"no CUDA device: {tack._core.device_unavailable_reason('cuda')}",
)


@tack.kernel
def scale_add(y: tack.Array, x: tack.Array, s: float):
    for i in range(y.shape[0]):
        y[i] = y[i] * s + x[i]


def expected(y, x, s):
    return (y.astype(np.float32) * np.float32(s) + x.astype(np.float32)).astype(np.float32)


def test_cuda_tack_to_tack_through_the_array_interface():
    y0 = np.linspace(-1, 1, 1000, dtype=np.float32)
    x0 = np.arange(1000, dtype=np.float32)
    y = tack.array(y0, device="cuda")
    x = tack.array(x0, device="cuda")

    class Foreign:
        __cuda_array_interface__ = y.__cuda_array_interface__

    view = tack.asarray(Foreign())
    scale_add(view, x, 3.0)
    np.testing.assert_array_equal(y.numpy(), expected(y0, x0, 3.0))


def test_cuda_tack_to_tack_through_dlpack():
    y0 = np.ones(257, dtype=np.float32)
    x0 = np.full(257, 2, dtype=np.float32)
    y = tack.array(y0, device="cuda")
    view = tack.from_dlpack(y)
    scale_add(view, tack.array(x0, device="cuda"), 0.5)
    np.testing.assert_array_equal(y.numpy(), expected(y0, x0, 0.5))


def _library(name):
    try:
        return importlib.import_module(name)
    except Exception as e:  # an installed library without its GPU runtime raises more than ImportError
        pytest.skip(f"{name} is not importable here: {e}")


def test_cuda_cupy():
    cp = _library("cupy")
    y0 = np.arange(100, dtype=np.float32)
    cy = cp.asarray(y0)
    scale_add(tack.asarray(cy), tack.array(np.ones(100, np.float32), device="cuda"), 2.0)
    np.testing.assert_array_equal(cp.asnumpy(cy), expected(y0, np.ones(100), 2.0))
    t = tack.array(y0, device="cuda")
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(t)), y0)  # __cuda_array_interface__
    np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(t)), y0)
    back = tack.from_dlpack(cy)
    np.testing.assert_array_equal(back.numpy(), cp.asnumpy(cy))


def test_cuda_torch():
    torch = _library("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    y0 = np.arange(64, dtype=np.float32)
    ty = torch.tensor(y0, device="cuda")
    scale_add(tack.asarray(ty), tack.array(np.full(64, 5, np.float32), device="cuda"), -1.0)
    np.testing.assert_array_equal(ty.cpu().numpy(), expected(y0, np.full(64, 5), -1.0))
    t = tack.array(y0, device="cuda")
    np.testing.assert_array_equal(torch.as_tensor(t, device="cuda").cpu().numpy(), y0)
    np.testing.assert_array_equal(torch.from_dlpack(t).cpu().numpy(), y0)
    np.testing.assert_array_equal(tack.from_dlpack(ty).numpy(), ty.cpu().numpy())


def test_cuda_numba():
    numba_cuda = _library("numba.cuda")
    if not numba_cuda.is_available():
        pytest.skip("numba.cuda sees no device")
    y0 = np.arange(33, dtype=np.float32)
    ny = numba_cuda.to_device(y0)
    scale_add(tack.asarray(ny), tack.array(y0, device="cuda"), 1.0)
    np.testing.assert_array_equal(ny.copy_to_host(), expected(y0, y0, 1.0))
    t = tack.array(y0, device="cuda")
    np.testing.assert_array_equal(numba_cuda.as_cuda_array(t).copy_to_host(), y0)


def test_cuda_jax():
    jax = _library("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("jax sees no GPU")
    import jax.dlpack
    import jax.numpy as jnp

    y0 = np.arange(16, dtype=np.float32)
    t = tack.array(y0, device="cuda")
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(t)), y0)
    imported = tack.from_dlpack(jnp.asarray(y0))
    np.testing.assert_array_equal(imported.numpy(), y0)
