"""Workgroup primitives (contract, "Workgroups and synchronization"):
tack.shared, shared_like, barrier, thread_id and the block reductions are
IR nodes that only a backend with workgroups runs. A backend without them
refuses the kernel before anything compiles or runs, wherever a primitive
is (a nested branch, an inlined device function, code that never runs),
naming the kernel, the backend and the primitive at its source position.
No backend of this build runs workgroups yet: the CPU has none, and the
OpenCL backend's workgroup model (full groups, the participation proof)
is still to come, so both refuse."""

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tack

from test_tackc import tackc

BACKEND_NAMES = {"cpu": "CPU", "opencl": "OpenCL"}
FILE = __file__


def line_of(marker):
    for number, text in enumerate(Path(FILE).read_text().splitlines(), start=1):
        if text.rstrip().endswith(f"# {marker}"):
            return number
    raise AssertionError(marker)


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


def refusal(backend, kernel, *args):
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
def test_a_backend_without_workgroups_refuses_the_kernel_before_running_it(backend, kernel, marker, primitive,
                                                                           function):
    a = tack.array(np.arange(8, dtype=np.float32))
    e = refusal(backend, kernel, a)
    assert e.line == line_of(marker)
    assert e.construct == primitive
    assert f"tack.{primitive}() needs workgroups, which the {BACKEND_NAMES[backend]} backend does not have" in e.message
    assert (e.function, e.function_kind) == function
    np.testing.assert_array_equal(a.numpy(), np.arange(8, dtype=np.float32))  # nothing ran


def test_the_message_lists_every_primitive_the_kernel_uses(backend):
    e = refusal(backend, every_primitive, tack.zeros(4))
    listed = re.search(r"\(the kernel uses (.*)\)", e.message).group(1)
    assert listed == "tack.shared(), tack.thread_id(), tack.barrier(), tack.block_sum(), tack.block_min(), tack.block_max()"


def test_cpu_hint_names_the_cpu_alternatives():
    e = refusal("cpu", thread_index_only, tack.zeros(4, device="cpu"))
    assert "local_array and atomics" in e.hint


@pytest.mark.parametrize("mode", ["ir", "llvm", "opencl", "cuda", "hip", "metal"])
def test_inspection_refuses_in_every_mode(backend, mode):
    with pytest.raises(tack.UnsupportedError, match=r"tack\.shared\(\) needs workgroups"):
        every_primitive.inspect(mode, tack.zeros(4))


def test_tackc_refuses_for_the_cpu_and_for_every_dialect():
    for flags, who in (([], "which the CPU backend does not have"),
                       (["--emit=opencl"], "which Tack's opencl code generator does not print yet"),
                       (["--emit=cuda"], "which Tack's cuda code generator does not print yet")):
        r = subprocess.run([str(tackc()), FILE, "--kernel", "every_primitive", *flags], capture_output=True, text=True)
        assert r.returncode == 1, r.stderr
        assert f"{FILE}:{line_of('W-shared')}:" in r.stderr and who in r.stderr, r.stderr
