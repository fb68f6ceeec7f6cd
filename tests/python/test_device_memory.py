"""Device memory shared with other libraries: __cuda_array_interface__ (v3)
and DLPack (kDLCUDA, kDLROCM) out and in, tack.asarray, and
tack.array_from_ptr(..., device=...); and CUDA textures, which live in
the device's texture memory as texture objects.

Every case runs in a child process whose CUDA (or HIP) driver and runtime
compiler are the recording driver library of tests/cpp/gpu (TACK_CUDA_DRIVER,
TACK_NVRTC): its device memory is host memory, so the child reads and
writes "device" bytes with ctypes, the oracle every check compares with,
and it records each launch's parameters and each stream waited for. It runs
no kernel body, so these tests cover the memory and the protocols, not
kernel results; test_device_memory_libraries.py runs them against the real
libraries on a real device.
"""

import ctypes
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def fake_driver():
    named = os.environ.get("TACK_FAKE_DRIVER_LIBRARY")
    if named:
        return pathlib.Path(named)
    for build in sorted(ROOT.glob("build*")):
        lib = build / "tests/cpp/gpu/libtack_fake_driver.so"
        if lib.exists():
            return lib
    return None


CASES = [
    "exports_the_cuda_array_interface",
    "an_exported_array_lives_on_the_device",
    "imports_the_cuda_array_interface",
    "refuses_what_it_cannot_import",
    "dlpack_round_trip_and_stream",
    "array_from_ptr_on_the_device",
    "hip_names_rocm_memory",
    "cuda_textures_are_texture_objects",
    "ptr_is_the_device_address",
    "tile_calls_leave_their_arrays_unshared",
    "an_allocation_past_the_device_memory_is_a_memory_error",
    "hip_allocation_past_the_device_memory_is_a_memory_error",
]


@pytest.mark.parametrize("case", CASES)
def test_device_memory_over_the_recording_driver(case, tmp_path):
    lib = fake_driver()
    if lib is None:
        pytest.skip("the recording driver library is not built (ninja -C build tack_fake_driver)")
    env = dict(os.environ)
    # The HIP case sees no CUDA driver, whatever the machine has.
    vendor = {"TACK_HIP_RUNTIME": str(lib), "TACK_HIPRTC": str(lib), "TACK_CUDA_DRIVER": "/nonexistent/libcuda.so.1"} \
        if case.startswith("hip") else {"TACK_CUDA_DRIVER": str(lib), "TACK_NVRTC": str(lib)}
    env.update(vendor, TACK_CACHE_DIR=str(tmp_path / "cache"), TACK_FAKE_DRIVER_LIBRARY=str(lib),
               PYTHONPATH=os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, __file__, case], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"ok {case}" in run.stdout


# ---------------------------------------------------------------------------
# The child: one case, over the recording driver.


def _fake():
    lib = ctypes.CDLL(os.environ["TACK_FAKE_DRIVER_LIBRARY"])
    lib.tack_fake_synchronized.restype = ctypes.c_void_p
    lib.tack_fake_synchronized.argtypes = [ctypes.c_size_t]
    lib.tack_fake_launch.restype = ctypes.c_char_p
    lib.tack_fake_launch.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                     ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t,
                                     ctypes.POINTER(ctypes.c_size_t)]
    lib.tack_fake_launch_count.restype = ctypes.c_size_t
    return lib


def _device_bytes(address, dtype, n):
    """`n` elements at a device address of the recording driver, read
    directly (its device memory is host memory)."""
    return np.frombuffer((ctypes.c_char * (n * np.dtype(dtype).itemsize)).from_address(address), dtype=dtype).copy()


def _write_device(address, values):
    ctypes.memmove(address, values.ctypes.data, values.nbytes)


def _their_allocation(fake, nbytes, symbol="cuMemAlloc_v2"):
    address = ctypes.c_uint64()
    assert getattr(fake, symbol)(ctypes.byref(address), ctypes.c_size_t(nbytes)) == 0
    return address.value


class Foreign:
    """Another library's array: just the protocol."""

    def __init__(self, **interface):
        self.__cuda_array_interface__ = interface


def _waited_for(fake, handle, within=8):
    return any(fake.tack_fake_synchronized(i) == handle for i in range(within))


def case_exports_the_cuda_array_interface(tack, fake):
    data = np.arange(12, dtype=np.float32).reshape(3, 4) * 1.5
    a = tack.array(data, device="cuda")
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3
    assert cai["shape"] == (3, 4) and cai["typestr"] == "<f4" and cai["strides"] is None
    assert cai["data"][1] is False
    assert isinstance(cai["stream"], int) and cai["stream"] not in (0, 1, 2)
    np.testing.assert_array_equal(_device_bytes(cai["data"][0], np.float32, 12).reshape(3, 4), data)
    # Every dtype's typestr is NumPy's.
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float64):
        x = tack.array(np.arange(3, dtype=dt), device="cuda")
        assert np.dtype(x.__cuda_array_interface__["typestr"]) == np.dtype(dt)
        np.testing.assert_array_equal(_device_bytes(x.__cuda_array_interface__["data"][0], dt, 3), np.arange(3, dtype=dt))
    # Vector elements add their dimension, as numpy() does.
    v = tack.zeros(5, dtype=tack.vec3f, device="cuda")
    assert v.__cuda_array_interface__["shape"] == (5, 3)
    # Arrays without device addresses have no such attribute.
    assert not hasattr(tack.zeros(3), "__cuda_array_interface__")
    assert not hasattr(tack.zeros(3, device="cpu"), "__cuda_array_interface__")


def case_an_exported_array_lives_on_the_device(tack, fake):
    a = tack.array(np.arange(6, dtype=np.int32), device="cuda")
    address = a.__cuda_array_interface__["data"][0]
    # The other library writes; every host read fetches the device's bytes.
    _write_device(address, np.array([40, 41], dtype=np.int32))
    np.testing.assert_array_equal(a.numpy(), [40, 41, 2, 3, 4, 5])
    _write_device(address + 8, np.array([50], dtype=np.int32))
    assert a[2] == 50
    np.testing.assert_array_equal(a.numpy(), [40, 41, 50, 3, 4, 5])
    # NumPy views are read-only snapshots; host writes reach the device at once.
    assert not a.numpy().flags.writeable
    a.fill(7)
    np.testing.assert_array_equal(_device_bytes(address, np.int32, 6), [7] * 6)
    tack.copyto(a, np.arange(6, dtype=np.int32) * 3)
    np.testing.assert_array_equal(_device_bytes(address, np.int32, 6), np.arange(6) * 3)
    assert int(a.sum()) == 45


def case_ptr_is_the_device_address(tack, fake):
    # Array.ptr of a CUDA array is where the device holds it (Warp's
    # array.ptr), the address __cuda_array_interface__ exports; a view's is
    # its first element's.
    a = tack.array(np.arange(10, dtype=np.float32), device="cuda")
    base = a.__cuda_array_interface__["data"][0]
    assert a.ptr == base
    assert a[3:].ptr == base + 3 * 4
    np.testing.assert_array_equal(_device_bytes(a[3:].ptr, np.float32, 2), [3, 4])
    # On the CPU it is the host memory NumPy's view starts at.
    c = tack.array(np.arange(4, dtype=np.int64))
    assert c.ptr == c.numpy().ctypes.data


def case_tile_calls_leave_their_arrays_unshared(tack, fake):
    # tack.tile tests where its arrays lie (outputs that overlap inputs) by
    # Array._address, ptr's device address without ptr's effect: the arrays
    # stay Tack's own, their NumPy views writable copies, where ptr would
    # have shared them (an exported array's views are read-only snapshots).
    import tack.tile as T

    exported = tack.array(np.ones(8, np.float32), device="cuda")
    assert exported._address == exported.__cuda_array_interface__["data"][0]
    assert not exported.numpy().flags.writeable
    x = tack.array(np.ones((4, 8), np.float32), device="cuda")
    out = tack.empty((4, 8), device="cuda")
    assert x[1:]._address == x._address + 8 * 4
    launches = fake.tack_fake_launch_count()
    T.softmax(x, out=out)
    assert fake.tack_fake_launch_count() > launches  # it ran on the device
    assert x.numpy().flags.writeable and out.numpy().flags.writeable


def case_imports_the_cuda_array_interface(tack, fake):
    base = _their_allocation(fake, 10 * 4)
    values = np.arange(10, dtype=np.float32) + 100
    _write_device(base, values)
    their_stream = 0x7000
    # Every second element, backwards from the ninth.
    theirs = Foreign(shape=(4,), typestr="<f4", data=(base + 9 * 4, False), strides=(-8,), version=3,
                     stream=their_stream)
    a = tack.asarray(theirs)
    assert a.device == "cuda" and a.shape == (4,) and not a.readonly
    assert _waited_for(fake, their_stream), "the producer's stream was not waited for"
    np.testing.assert_array_equal(a.numpy(), values[9:2:-2])
    # The import is a view: host writes land in their memory, only on the view's elements.
    a.fill(-1.0)
    expected = values.copy()
    expected[9:2:-2] = -1.0
    np.testing.assert_array_equal(_device_bytes(base, np.float32, 10), expected)
    # Exporting it again gives their address back.
    assert a.__cuda_array_interface__["data"][0] == base + 9 * 4
    assert a.__cuda_array_interface__["strides"] == (-8,)
    # A kernel launch passes their memory: the recorded launch's parameters
    # hold the address of the span the view covers (elements 3..9).
    fake.tack_fake_reset()
    double_it(a, 2.0)
    count = fake.tack_fake_launch_count()
    assert count >= 1
    params = (ctypes.c_uint64 * 64)()
    n = ctypes.c_size_t()
    grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
    fake.tack_fake_launch(0, grid, block, ctypes.byref(ctypes.c_void_p()), params, 64, ctypes.byref(n))
    assert base + 3 * 4 in list(params[: n.value])
    # Another library's array passed to a kernel directly is shared the same way.
    fake.tack_fake_reset()
    double_it(theirs, 2.0)
    fake.tack_fake_launch(0, grid, block, ctypes.byref(ctypes.c_void_p()), params, 64, ctypes.byref(n))
    assert base + 3 * 4 in list(params[: n.value])
    # Read-only memory stays so: a kernel that stores refuses it.
    ro = tack.asarray(Foreign(shape=(10,), typestr="<f4", data=(base, True), version=3))
    assert ro.readonly
    try:
        double_it(ro, 2.0)
    except Exception as e:
        assert "read-only" in str(e), e
    else:
        raise AssertionError("a read-only import was written")
    # Version 2 (no stream) and a C-contiguous import without strides.
    v2 = tack.asarray(Foreign(shape=(2, 5), typestr="<f4", data=(base, False), version=2))
    np.testing.assert_array_equal(v2.numpy(), expected.reshape(2, 5))
    # An empty array names no memory.
    assert tack.asarray(Foreign(shape=(0,), typestr="<f4", data=(0, False), version=3)).shape == (0,)


def case_refuses_what_it_cannot_import(tack, fake):
    base = _their_allocation(fake, 16)
    host = np.zeros(4, dtype=np.float32)

    def refused(error, text, **interface):
        try:
            tack.asarray(Foreign(**interface))
        except error as e:
            assert text in str(e), str(e)
        else:
            raise AssertionError(f"imported {interface}")

    refused(ValueError, "are not memory of Fake GPU", shape=(4,), typestr="<f4", data=(host.ctypes.data, False),
            version=3)
    refused(ValueError, "run past the end of their allocation (16 bytes", shape=(5,), typestr="<f4",
            data=(base, False), version=3)
    refused(TypeError, "element type '>f4'", shape=(4,), typestr=">f4", data=(base, False), version=3)
    refused(TypeError, "element type '|b1'", shape=(4,), typestr="|b1", data=(base, False), version=3)
    refused(ValueError, "with a mask", shape=(4,), typestr="<f4", data=(base, False), version=3, mask=object())
    refused(ValueError, "version 4", shape=(4,), typestr="<f4", data=(base, False), version=4)
    refused(ValueError, "not a multiple of the 4-byte f32 element", shape=(2,), typestr="<f4", data=(base, False),
            strides=(6,), version=3)
    # A malformed interface is refused by what is wrong, never truncated or
    # parsed (a float address 1.5 was taken as 1; a missing field raised
    # KeyError, a data of one number "cannot unpack").
    refused(TypeError, "'data' is (an integer address, a read-only bool), not (1.5, False)", shape=(4,),
            typestr="<f4", data=(1.5, False), version=3)
    refused(TypeError, "'data' is (an integer address, a read-only bool), not 7", shape=(4,), typestr="<f4", data=7,
            version=3)
    refused(TypeError, "'data' is (an integer address, a read-only bool), not", shape=(4,), typestr="<f4",
            data=(base, "no"), version=3)
    refused(TypeError, "has no 'typestr'", shape=(4,), data=(base, False), version=3)
    refused(TypeError, "element type None", shape=(4,), typestr=None, data=(base, False), version=3)
    refused(TypeError, "'shape' is a tuple of extents, not '4'", shape="4", typestr="<f4", data=(base, False),
            version=3)
    refused(TypeError, "an array shape is an integer or a sequence of integers", shape=(4.0,), typestr="<f4",
            data=(base, False), version=3)
    refused(TypeError, "'version' is an integer, not '3'", shape=(4,), typestr="<f4", data=(base, False),
            version="3")
    try:
        tack.asarray([1.0, 2.0])
    except TypeError as e:
        assert "tack.array() copies sequences" in str(e)
    else:
        raise AssertionError("a list was shared")


class DLPackProducer:
    """Another library's device array through DLPack only: it records the
    stream it was asked for and hands out a tack array's capsule."""

    def __init__(self, inner):
        self.inner, self.streams = inner, []

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()

    def __dlpack__(self, stream=None, max_version=None):
        self.streams.append(stream)
        return self.inner.__dlpack__(stream=-1, max_version=max_version)


def case_dlpack_round_trip_and_stream(tack, fake):
    a = tack.array(np.arange(8, dtype=np.float64) / 4, device="cuda")
    assert a.__dlpack_device__() == (2, 0)
    assert tack.zeros(2, device="cpu").__dlpack_device__() == (1, 0)
    stream = a.__cuda_array_interface__["stream"]
    fake.tack_fake_reset()
    a.__dlpack__(stream=-1)
    assert not _waited_for(fake, stream), "stream=-1 asks for no synchronization"
    a.__dlpack__(stream=None, max_version=(1, 0))
    assert _waited_for(fake, stream), "an export for another stream waits for Tack's"
    producer = DLPackProducer(a)
    b = tack.from_dlpack(producer)
    assert producer.streams == [stream], "the producer is told Tack's stream"
    assert b.device == "cuda" and b.shape == (8,)
    assert b.__cuda_array_interface__["data"][0] == a.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal(b.numpy(), np.arange(8) / 4)
    b.fill(3.0)
    np.testing.assert_array_equal(a.numpy(), [3.0] * 8)
    # Read-only arrays travel flagged, and come back read-only.
    ro = tack.asarray(Foreign(shape=(8,), typestr="<f8", data=(a.__cuda_array_interface__["data"][0], True),
                              version=3))
    assert tack.from_dlpack(DLPackProducer(ro)).readonly
    try:
        ro.__dlpack__()
    except BufferError as e:
        assert "read-only" in str(e)
    else:
        raise AssertionError("a read-only array went to a consumer that cannot be told")
    # Memory of a device Tack does not run on.
    class Elsewhere:
        def __dlpack_device__(self):
            return (4, 0)  # kDLOpenCL

        def __dlpack__(self, **kw):
            raise AssertionError("not asked")

    try:
        tack.from_dlpack(Elsewhere())
    except ValueError as e:
        assert "DLPack device (4, 0)" in str(e), e
    else:
        raise AssertionError("imported kDLOpenCL memory")


def case_array_from_ptr_on_the_device(tack, fake):
    base = _their_allocation(fake, 24)
    _write_device(base, np.arange(3, dtype=np.int64) - 5)
    fake.tack_fake_reset()
    a = tack.array_from_ptr(base, (3,), tack.i64, device="cuda", stream=2)
    assert a.readonly and a.device == "cuda"
    assert _waited_for(fake, 2)
    np.testing.assert_array_equal(a.numpy(), [-5, -4, -3])
    w = tack.array_from_ptr(base + 8, (2,), tack.i64, readonly=False, device="cuda")
    w.fill(9)
    np.testing.assert_array_equal(_device_bytes(base, np.int64, 3), [-5, 9, 9])
    try:
        tack.array_from_ptr(base, (3,), tack.i64, device="cpu", stream=2)
    except ValueError as e:
        assert "stream=None" in str(e)
    else:
        raise AssertionError("a host import took a stream")


def case_hip_names_rocm_memory(tack, fake):
    a = tack.array(np.arange(4, dtype=np.float32), device="hip")
    assert a.__dlpack_device__() == (10, 0)
    base = _their_allocation(fake, 16, "hipMalloc")
    _write_device(base, np.arange(4, dtype=np.float32) * 2)
    # A ROCm build's array interface goes to the HIP backend when CUDA is absent.
    b = tack.asarray(Foreign(shape=(4,), typestr="<f4", data=(base, False), version=3))
    assert b.device == "hip"
    np.testing.assert_array_equal(b.numpy(), [0, 2, 4, 6])
    c = tack.from_dlpack(DLPackProducer(a))
    assert c.device == "hip"
    np.testing.assert_array_equal(c.numpy(), [0, 1, 2, 3])


def _past_the_device_memory(tack, device, error_name):
    # The recording driver's device has 1 GiB and answers a larger
    # allocation as the drivers do (CUDA_ERROR_OUT_OF_MEMORY,
    # hipErrorOutOfMemory): Python's MemoryError, worded as NumPy's and
    # naming the device and the driver's answer; the device stays usable.
    for make in (lambda: tack.empty((1 << 29,), tack.f64, device=device),
                 lambda: tack.zeros((1 << 15, 1 << 15), tack.i32, device=device),
                 lambda: tack.full(3 << 28, 1.5, device=device)):
        with pytest.raises(MemoryError, match=rf"unable to allocate (4\.0|3\.0) GiB for an array on .*{error_name}"):
            make()
    np.testing.assert_array_equal(tack.array(np.arange(3, dtype=np.int32), device=device).numpy(), [0, 1, 2])


def case_an_allocation_past_the_device_memory_is_a_memory_error(tack, fake):
    _past_the_device_memory(tack, "cuda", "CUDA_ERROR_OUT_OF_MEMORY")


def case_hip_allocation_past_the_device_memory_is_a_memory_error(tack, fake):
    _past_the_device_memory(tack, "hip", "hipErrorOutOfMemory")


def _texture(fake, handle):
    """The recording driver's texture object `handle`: extents, address
    modes, filter mode, flags and texels; None when there is none."""
    extents = (ctypes.c_size_t * 3)()
    modes = (ctypes.c_int * 3)()
    filt, flags = ctypes.c_int(), ctypes.c_uint()
    texels = (ctypes.c_float * 4096)()
    if fake.tack_fake_texture(ctypes.c_uint64(handle), extents, modes, ctypes.byref(filt), ctypes.byref(flags),
                              texels, ctypes.c_size_t(4096)) != 0:
        return None
    n = extents[0] * extents[1] * extents[2]
    return tuple(extents), tuple(modes), filt.value, flags.value, np.array(texels[:n], np.float32)


def case_cuda_textures_are_texture_objects(tack, fake):
    fake.tack_fake_textures.restype = ctypes.c_size_t

    @tack.kernel
    def sample(tex, p, out):
        for i in range(len(out)):
            out[i] = tex.sample(p[i, 0], p[i, 1], p[i, 2])

    shape = (3, 2, 4)
    data = np.arange(24, dtype=np.float32) * 0.5 - 3
    source = tack.array(data, device="cuda")
    tex = tack.texture3d(source, shape)
    points, out = tack.zeros((4, 3), device="cuda"), tack.zeros(4, device="cuda")

    def handle_passed():
        fake.tack_fake_reset()
        sample(tex, points, out)
        grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
        stream, params, n = ctypes.c_void_p(), (ctypes.c_uint64 * 64)(), ctypes.c_size_t()
        fake.tack_fake_launch(0, grid, block, ctypes.byref(stream), params, 64, ctypes.byref(n))
        return params[0]  # the texture, the kernel's first parameter, is one handle

    handle = handle_passed()
    extents, modes, filt, flags, texels = _texture(fake, handle)
    assert extents == shape
    assert modes == (1, 1, 1) and filt == 1  # clamped, trilinear
    assert flags == 0x22  # normalized coordinates, no trilinear shortcut
    np.testing.assert_array_equal(texels, data)
    # A snapshot: the array's later writes reach the texture at update().
    tack.copyto(source, data + 100)
    assert handle_passed() == handle
    np.testing.assert_array_equal(_texture(fake, handle)[4], data)
    tex.update()
    assert handle_passed() == handle
    np.testing.assert_array_equal(_texture(fake, handle)[4], data + 100)
    # Released with the texture: its CUDA array and texture object.
    assert fake.tack_fake_textures() == 2
    del tex
    import gc
    gc.collect()
    assert fake.tack_fake_textures() == 0
    assert _texture(fake, handle) is None


if __name__ == "__main__":
    import tack

    @tack.kernel
    def double_it(y: tack.Array, s: float):
        for i in range(y.shape[0]):
            y[i] = y[i] * s

    globals()["double_it"] = double_it
    name = sys.argv[1]
    # The driver's context exists once the backend has started.
    tack.zeros(1, device="hip" if name.startswith("hip") else "cuda")
    globals()["case_" + name](tack, _fake())
    print("ok", name)
