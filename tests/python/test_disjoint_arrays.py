"""The disjoint-storage specialization (contract "Memory and aliasing"): a
second CPU variant with noalias array accesses, used only for calls whose
written arrays share no byte with any other array argument. Byte ranges
decide, never object identity; results agree with NumPy either way."""

import numpy as np
import pytest
import tack
from backends import IMPORTED_HOST_MEMORY


@tack.kernel
def shift_add(src, dst):
    for i in range(len(dst)):
        dst[i] = src[i] + dst[i] * 2


def promises_noalias(kernel):
    # Tack's own alias scopes live in one domain per entry point set; LLVM's
    # vectorizer adds scopes of its own after runtime overlap checks, so the
    # check names the domain.
    return ".arguments" in kernel.inspect("llvm-unoptimized")


def oracle(src, dst):
    # Program order of a sequential loop over i: reads of src may see this
    # call's earlier writes when the storage overlaps.
    src = src.copy() if src is not dst else src
    for i in range(len(dst)):
        dst[i] = src[i] + dst[i] * 2


def test_disjoint_arrays_get_the_noalias_variant(backend):
    a = tack.array(np.arange(16, dtype=np.float32))
    b = tack.array(np.ones(16, dtype=np.float32))
    shift_add(a, b)
    assert promises_noalias(shift_add)
    np.testing.assert_array_equal(b.numpy(), np.arange(16, dtype=np.float32) + 2)


def test_read_only_arrays_may_overlap_each_other(backend):
    @tack.kernel
    def add_into(x, y, out):
        for i in range(len(out)):
            out[i] = x[i] + y[i]

    a = tack.array(np.arange(8, dtype=np.float32))
    out = tack.zeros(8)
    add_into(a, a, out)  # the same array twice, only read
    assert promises_noalias(add_into)
    np.testing.assert_array_equal(out.numpy(), 2 * np.arange(8, dtype=np.float32))


@tack.kernel
def write_then_read_through_alias(src, dst, out, shift: int):
    for i in range(len(out)):
        dst[i] = float(i) * 3.0 + 1.0
        out[i] = src[i + shift] * 2.0  # the element just written, through the other view


@pytest.mark.cpu_only("the disjoint-storage variant is a CPU specialization")
def test_a_written_array_overlapping_another_uses_the_plain_variant():
    # Each element of the storage is written and read by one iteration
    # only, through two overlapping views, so the program is race-free and
    # the store must come before the load.
    base = tack.array(np.zeros(17, dtype=np.float32))
    src = base[0:16]
    dst = base[1:17]  # overlaps src by 15 elements: dst[i] is src[i + 1]
    out = tack.zeros(15)
    write_then_read_through_alias(src, dst, out, 1)
    assert not promises_noalias(write_then_read_through_alias)
    i = np.arange(15, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), (i * np.float32(3) + np.float32(1)) * np.float32(2))


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_partial_overlap_of_imported_storage_is_detected():
    raw = np.zeros(12, dtype=np.float32)
    src = tack.array_from_ptr(raw.ctypes.data, (8,), tack.f32, readonly=False)
    dst = tack.array_from_ptr(raw.ctypes.data + 4 * 4, (8,), tack.f32, readonly=False)  # shares 4 elements
    out = tack.zeros(4)
    write_then_read_through_alias(src, dst, out, 4)  # dst[i] is src[i + 4]
    i = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), (i * np.float32(3) + np.float32(1)) * np.float32(2))
    assert not promises_noalias(write_then_read_through_alias)


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_adjacent_imported_ranges_are_disjoint():
    raw = np.arange(16, dtype=np.float32)
    src = tack.array_from_ptr(raw.ctypes.data, (8,), tack.f32, readonly=False)
    dst = tack.array_from_ptr(raw.ctypes.data + 8 * 4, (8,), tack.f32, readonly=False)  # touches, shares no byte
    want = raw.copy()
    want[8:] = want[:8] + want[8:] * 2
    shift_add(src, dst)
    np.testing.assert_array_equal(raw, want)
    assert promises_noalias(shift_add)


def test_switching_between_overlapping_and_disjoint_calls(backend):
    @tack.kernel
    def double_into(x, y):
        for i in range(len(y)):
            y[i] = x[i] * 2

    before = double_into.compiled_variants
    a = tack.array(np.arange(8, dtype=np.float32))
    b = tack.zeros(8)
    for _ in range(3):
        double_into(a, b)  # disjoint
        np.testing.assert_array_equal(b.numpy(), 2 * a.numpy())
        c = tack.array(np.arange(8, dtype=np.float32))
        double_into(c, c)  # the same storage, written
        np.testing.assert_array_equal(c.numpy(), 2 * np.arange(8, dtype=np.float32))
    # One variant of each kind, reused across the switches.
    assert double_into.compiled_variants - before == 2
