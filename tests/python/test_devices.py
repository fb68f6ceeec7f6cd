"""The device API: which devices start, the default device and `device=`,
launches over arrays of one device, and host access to device arrays
(numpy(), copyto, fill, views, textures, sync) on every available backend.

Every expected value comes from NumPy over the same inputs.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tack

PYTHON_DIR = str(Path(tack.__file__).resolve().parent.parent)
HAS_OPENCL = "opencl" in tack.available_devices()
needs_opencl = pytest.mark.skipif(
    not HAS_OPENCL,
    reason="no OpenCL device: " + (tack._core.device_unavailable_reason("opencl") or "opencl is not available"),
)
CREATORS = {
    "empty": lambda device: tack.empty(4, tack.i32, device=device),
    "zeros": lambda device: tack.zeros(4, tack.i32, device=device),
    "ones": lambda device: tack.ones(4, tack.i32, device=device),
    "full": lambda device: tack.full(4, 7, tack.i32, device=device),
    "array": lambda device: tack.array(np.arange(4, dtype=np.int32), device=device),
}
FILLED = {"zeros": [0] * 4, "ones": [1] * 4, "full": [7] * 4, "array": [0, 1, 2, 3]}


@pytest.fixture(autouse=True)
def back_on_the_cpu():
    yield
    tack.set_default_device("cpu")


@tack.kernel
def add_into(src, dst):
    for i in range(len(dst)):
        dst[i] = dst[i] + src[i] * 2


@tack.kernel
def write_index(a):
    for i in range(len(a)):
        a[i] = i + 1


@tack.kernel
def set_length(n, value):
    for i in range(1):
        n[0] = value


@tack.kernel
def count_up_to_first(n, a):
    m = n[0]
    for i in range(m):
        a[i] = a[i] + 1


@tack.kernel
def shift_add(src, dst, k):
    for i in range(len(dst)):
        dst[i] = dst[i] * 3 + src[(i + k) % len(src)]


# ------------------------------------------------------- devices and defaults


def test_available_devices_start_with_the_cpu():
    devices = tack.available_devices()
    assert devices[0] == "cpu"
    assert len(set(devices)) == len(devices)
    assert set(devices) <= set(tack._core.known_devices())
    # opencl is listed exactly when it can start, and otherwise says why not.
    assert ("opencl" in devices) == (tack._core.device_unavailable_reason("opencl") == "")


# What a GPU backend that cannot start names: its driver or runtime, a
# device, or its runtime compiler.
MISSING = {
    "cuda": ("no NVIDIA driver", "no CUDA device", "NVRTC not found", "cuInit failed"),
    "hip": ("no HIP runtime", "no HIP device", "hipRTC not found", "hipInit failed"),
}


@pytest.mark.parametrize("name", ["cuda", "hip"])
def test_gpu_backends_are_known_and_say_what_they_lack(name):
    assert name in tack._core.known_devices()
    reason = tack._core.device_unavailable_reason(name)
    assert (name in tack.available_devices()) == (reason == "")
    if not reason:
        # The backend starts here: arrays are made on it.
        assert tack.zeros(4, device=name).device == name
        return
    assert any(what in reason for what in MISSING[name]), reason
    for creator, make in CREATORS.items():
        with pytest.raises(RuntimeError, match=f"device '{name}' is not available: ") as raised:
            make(name)
        assert reason in str(raised.value), creator
    with pytest.raises(RuntimeError, match=f"device '{name}' is not available"):
        tack.set_default_device(name)
    assert tack.get_default_device() == "cpu"


def _driver_loads():
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


CUDA_STUBS = Path(os.environ.get("TACK_CUDA_HOME") or "/usr/local/cuda") / "lib64" / "stubs"


@pytest.mark.skipif(not (CUDA_STUBS / "libcuda.so").exists() or _driver_loads(),
                    reason="needs the CUDA toolkit's stub libcuda.so and no NVIDIA driver")
def test_cuda_names_the_toolkits_stub_which_runs_nothing():
    """With only the toolkit, the libcuda the loader may find is the stub
    that links programs and answers every call with an error: the device is
    refused with that reason, and nothing crashes."""
    script = (
        "import tack\n"
        "print(tack._core.device_unavailable_reason('cuda'))\n"
        "print(tack.available_devices())\n"
    )
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, LD_LIBRARY_PATH=str(CUDA_STUBS))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    reason, devices = done.stdout.splitlines()
    assert "no NVIDIA driver: the libcuda found is the CUDA toolkit's stub" in reason, reason
    assert "CUDA_ERROR_STUB_LIBRARY (34)" in reason, reason
    assert "cuda" not in devices


def test_the_cpu_is_the_default_device():
    assert tack.get_default_device() == "cpu"
    assert tack.zeros(3).device == "cpu"


@needs_opencl
def test_the_default_device_places_new_arrays():
    tack.set_default_device("opencl")
    assert tack.get_default_device() == "opencl"
    for name, make in CREATORS.items():
        a = make(None)
        assert a.device == "opencl", name
        if name in FILLED:
            assert a.numpy().tolist() == FILLED[name], name
    tack.set_default_device("cpu")
    assert all(make(None).device == "cpu" for make in CREATORS.values())


@needs_opencl
@pytest.mark.parametrize("name", CREATORS)
@pytest.mark.parametrize("default, other", [("cpu", "opencl"), ("opencl", "cpu")])
def test_device_keyword_overrides_the_default(name, default, other):
    tack.set_default_device(default)
    a = CREATORS[name](other)
    assert a.device == other
    if name in FILLED:
        assert a.numpy().tolist() == FILLED[name]
    assert tack.get_default_device() == default


def test_an_unknown_device_is_refused_by_name():
    with pytest.raises(RuntimeError, match="'nosuch'"):
        tack.set_default_device("nosuch")
    assert tack.get_default_device() == "cpu"
    with pytest.raises(RuntimeError, match="'nosuch'"):
        tack.zeros(3, device="nosuch")
    with pytest.raises(RuntimeError, match="'nosuch'"):
        tack.array(np.zeros(3, np.float32), device="nosuch")
    with pytest.raises(RuntimeError, match=r"its devices: cpu, opencl, cuda, hip"):
        tack.zeros(3, device="gpu")


@pytest.mark.parametrize("name", [None, 3, b"cpu"], ids=["None", "int", "bytes"])
def test_a_device_name_that_is_no_string_is_a_type_error(name):
    # str() would make None or 3 a name no backend has (a RuntimeError
    # about a missing device); for an array's device=, None is the default.
    with pytest.raises(TypeError, match=r"tack.set_default_device: a device is named by a string \('cpu'"):
        tack.set_default_device(name)
    assert tack.get_default_device() == "cpu"
    creators = [lambda: tack.array_from_ptr(0, (0,), tack.f32, device=name)]
    if name is not None:
        creators += [lambda: tack.zeros(3, device=name), lambda: tack.array(np.zeros(3, np.float32), device=name)]
    for make in creators:
        with pytest.raises(TypeError, match=rf"a device is named by a string .*not {re.escape(repr(name))}"):
            make()


@pytest.mark.parametrize("name", ["cuda:0", "cpu:0", "opencl:1"])
def test_a_device_ordinal_is_refused_with_the_name_to_use(name):
    # Warp and PyTorch write "cuda:0"; Tack names a backend's first device
    # by the backend alone.
    backend = name.split(":")[0]
    with pytest.raises(RuntimeError, match=rf"'{name}'.*without an ordinal: '{backend}' is the first {backend} device"):
        tack.zeros(3, device=name)
    with pytest.raises(RuntimeError, match="without an ordinal"):
        tack.set_default_device(name)
    assert tack.get_default_device() == "cpu"


@needs_opencl
def test_tack_device_selects_the_default_at_import(tmp_path):
    script = tmp_path / "which_device.py"
    script.write_text(
        "import json\n"
        "import numpy as np\n"
        "import tack\n"
        "@tack.kernel\n"
        "def write_index(a):\n"
        "    for i in range(len(a)):\n"
        "        a[i] = i + 1\n"
        "a = tack.zeros(5, tack.i32)\n"
        "write_index(a)\n"
        "print(json.dumps([tack.get_default_device(), a.device, a.numpy().tolist()]))\n"
    )
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, TACK_DEVICE="opencl")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["opencl", "opencl", [1, 2, 3, 4, 5]]


# -------------------------------------------------------------- launches


@needs_opencl
@pytest.mark.parametrize("src_device, dst_device", [("cpu", "opencl"), ("opencl", "cpu")])
def test_a_launch_over_two_devices_is_refused(src_device, dst_device):
    src = tack.array(np.arange(6, dtype=np.float32), device=src_device)
    dst = tack.zeros(6, device=dst_device)
    with pytest.raises(ValueError) as e:
        add_into(src, dst)
    message = str(e.value)
    assert "add_into" in message and "'src'" in message and "'dst'" in message, message
    assert src_device in message and dst_device in message, message
    assert dst.numpy().tolist() == [0.0] * 6  # nothing ran


def test_numpy_after_a_launch_shows_the_kernels_writes(backend):
    a = tack.zeros(1000, tack.i32)
    write_index(a)
    np.testing.assert_array_equal(a.numpy(), np.arange(1, 1001, dtype=np.int32))
    src = tack.array(np.linspace(-1, 1, 1000, dtype=np.float32))
    dst = tack.ones(1000)
    add_into(src, dst)
    add_into(src, dst)  # launches take effect in call order
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    np.testing.assert_array_equal(dst.numpy(), (np.float32(1) + x * np.float32(2)) + x * np.float32(2))


def test_writes_through_numpy_before_a_launch_are_seen_by_the_kernel(backend):
    src = tack.zeros(8)
    dst = tack.zeros(8)
    values = np.arange(8, dtype=np.float32) - 3
    src.numpy()[:] = values
    add_into(src, dst)
    np.testing.assert_array_equal(dst.numpy(), values * np.float32(2))
    # And again after the kernel has used the array once.
    src.numpy()[:] = values * 10
    add_into(src, dst)
    np.testing.assert_array_equal(dst.numpy(), values * np.float32(2) + values * np.float32(20))


def test_sync_returns_after_the_launches_before_it(backend):
    a = tack.zeros(4096, tack.i32)
    write_index(a)
    assert tack.sync() is None
    np.testing.assert_array_equal(a.numpy(), np.arange(1, 4097, dtype=np.int32))
    assert tack.sync() is None  # nothing queued


EXIT_WITH_A_LAUNCH_QUEUED = """
import sys
import numpy as np
import tack, tack.tile

a = tack.array(np.arange(256, dtype=np.float32).reshape(4, 64), device="opencl")
print(bool(np.array_equal(tack.tile.sort(a).numpy(), np.sort(a.numpy(), axis=1))))
tack.tile.topk(a, 5)  # queued, not read: PoCL compiles it as the process exits
"""


@needs_opencl
def test_a_process_exits_cleanly_with_a_launch_still_queued(tmp_path):
    # Tack's exit handler waits for the devices the process used before its
    # libraries are torn down; without it, PoCL's compiler thread ran on
    # into destroyed LLVM objects (a segfault in about half the runs, so
    # six processes here).
    script = tmp_path / "exit_queued.py"
    script.write_text(EXIT_WITH_A_LAUNCH_QUEUED)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    runs = []
    for n in range(6):
        run_env = dict(env, POCL_CACHE_DIR=str(tmp_path / f"pocl{n}"))
        runs.append(subprocess.Popen([sys.executable, str(script)], env=run_env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True))
    for p in runs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        assert out.split() == ["True"]


def test_an_iteration_count_read_from_an_array_sees_the_launches_before_it(backend):
    # The count kernel of count_up_to_first reads n[0], which the launch
    # before it writes: it must run after that launch, not beside it.
    n = tack.zeros(1, tack.i32)
    a = tack.zeros(64, tack.i32)
    expected = np.zeros(64, dtype=np.int32)
    for value in (5, 64, 0, 17, 33):
        set_length(n, value)
        count_up_to_first(n, a)
        expected[:value] += 1
    np.testing.assert_array_equal(a.numpy(), expected)


def test_launches_queued_without_host_reads_take_effect_in_call_order(backend):
    src_values = np.arange(300, dtype=np.int32) - 150
    src = tack.array(src_values)
    dst = tack.zeros(300, tack.i32)
    expected = np.zeros(300, dtype=np.int32)
    for k in range(40):
        shift_add(src, dst, k)
        expected = expected * np.int32(3) + np.roll(src_values, -k)
    np.testing.assert_array_equal(dst.numpy(), expected)


# ------------------------------------------------------ host-side writes


def test_copyto_and_fill(backend):
    x = np.arange(10, dtype=np.float32) * 1.5
    src = tack.array(x)
    dst = tack.zeros(10)
    tack.copyto(dst, src)
    np.testing.assert_array_equal(dst.numpy(), x)
    dst.fill(-2.5)
    np.testing.assert_array_equal(dst.numpy(), np.full(10, -2.5, np.float32))
    dst[3:6].fill(4.0)
    want = np.full(10, -2.5, np.float32)
    want[3:6] = 4.0
    np.testing.assert_array_equal(dst.numpy(), want)
    # A kernel sees what copyto and fill wrote.
    out = tack.zeros(10)
    add_into(dst, out)
    np.testing.assert_array_equal(out.numpy(), want * np.float32(2))
    tack.copyto(dst, src)
    add_into(dst, out)
    np.testing.assert_array_equal(out.numpy(), want * np.float32(2) + x * np.float32(2))


@needs_opencl
def test_copies_between_devices():
    x = np.arange(6, dtype=np.int32) * 3
    on_cpu = tack.array(x)
    on_opencl = tack.array(on_cpu, device="opencl")
    assert on_opencl.device == "opencl"
    np.testing.assert_array_equal(on_opencl.numpy(), x)
    back = tack.zeros(6, tack.i32)
    write_index(on_opencl)
    tack.copyto(back, on_opencl)
    np.testing.assert_array_equal(back.numpy(), np.arange(1, 7, dtype=np.int32))
    np.testing.assert_array_equal(on_cpu.numpy(), x)


def test_a_view_passed_to_a_kernel_writes_its_elements_of_the_base(backend):
    base = tack.zeros(8, tack.i32)
    view = base[2:5]
    assert view.device == backend
    write_index(view)
    np.testing.assert_array_equal(base.numpy(), [0, 0, 1, 2, 3, 0, 0, 0])
    grid = tack.zeros((4, 5))
    block = grid[1:3, 2:5]
    src = tack.array(np.arange(6, dtype=np.float32).reshape(2, 3))

    @tack.kernel
    def add_block(src, dst):
        for i, j in tack.ndindex(dst.shape[0], dst.shape[1]):
            dst[i, j] = dst[i, j] + src[i, j] * 2

    add_block(src, block)
    want = np.zeros((4, 5), np.float32)
    want[1:3, 2:5] = np.arange(6, dtype=np.float32).reshape(2, 3) * 2
    np.testing.assert_array_equal(grid.numpy(), want)


# -------------------------------------------------------------- textures


@tack.kernel
def sample_centres(tex, out):
    for i in range(len(out)):
        x = i % 2
        y = (i // 2) % 2
        z = i // 4
        out[i] = tex.sample((x + 0.5) / 2.0, (y + 0.5) / 2.0, (z + 0.5) / 2.0)


def test_textures_sample_their_snapshot(backend):
    texels = np.arange(8, dtype=np.float32) * 2 - 5
    data = tack.array(texels)
    tex = tack.texture3d(data, (2, 2, 2))
    out = tack.zeros(8)
    # Texel centres sample the texels exactly, x varying fastest.
    sample_centres(tex, out)
    np.testing.assert_array_equal(out.numpy(), texels)
    # A kernel's writes to the array reach the texture at update() only.
    write_index(data)
    sample_centres(tex, out)
    np.testing.assert_array_equal(out.numpy(), texels)
    tex.update()
    sample_centres(tex, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(1, 9, dtype=np.float32))
