"""Rules docs/language.md states that no other suite checks directly: names
stay bound as first lowered for every later variant, a kernel's return
value reads the statements outside the loop after the launch, iterations
start from the values those statements bind, the read-only check is one of
the binding, and what does or does not compile a new variant. Oracles are
NumPy and Python integers."""

import numpy as np
import pytest
import tack
from backends import IMPORTED_HOST_MEMORY


def test_rebinding_after_the_first_call_reaches_no_later_variant(backend):
    offset = tack.constant(1.0)

    @tack.func
    def bump(x):
        return x + 10.0

    @tack.kernel
    def shifted(a):
        for i in range(len(a)):
            a[i] = bump(a[i]) + offset

    first = tack.array(np.arange(4, dtype=np.float32))
    shifted(first)
    np.testing.assert_array_equal(first.numpy(), np.arange(4, dtype=np.float32) + 11)

    offset = tack.constant(100.0)  # noqa: F841 (read by the kernel's closure)

    @tack.func
    def bump(x):  # noqa: F811
        return x + 1000.0

    # A new variant (another element type) still inlines the first bindings.
    second = tack.array(np.arange(4, dtype=np.int32))
    shifted(second)
    assert shifted.compiled_variants == 2
    np.testing.assert_array_equal(second.numpy(), np.arange(4, dtype=np.int32) + 11)


def test_a_kernel_return_reads_the_statements_outside_the_loop_after_the_launch(backend):
    @tack.kernel
    def first_after(a) -> int:
        before = a[0]
        for i in range(len(a)):
            a[i] = i + 10
        return before

    a = tack.array(np.full(8, 3, dtype=np.int32))
    assert first_after(a) == 10  # the element as the loop left it, not 3


def test_every_iteration_starts_from_the_values_bound_before_the_loop(backend):
    @tack.kernel
    def offsets(a, out):
        base = a[0] * 2
        for i in range(len(out)):
            base = base + i
            out[i] = base

    n = 100_000
    out = tack.zeros(n, tack.i64)
    offsets(tack.array(np.array([3], dtype=np.int64)), out)
    np.testing.assert_array_equal(out.numpy(), 6 + np.arange(n, dtype=np.int64))


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_the_read_only_check_counts_a_store_the_call_never_reaches():
    @tack.kernel
    def copy_if(src, dst, flag: int):
        for i in range(len(dst)):
            if flag > 0:
                dst[i] = src[i]

    frozen = np.arange(4, dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"kernel 'copy_if': parameter 'dst' is bound to a read-only array"):
        copy_if(tack.zeros(4), frozen, 0)
    out = tack.zeros(4)
    copy_if(frozen, out, 1)  # read only: accepted
    np.testing.assert_array_equal(out.numpy(), frozen)


def test_extents_and_number_values_never_recompile(backend):
    @tack.kernel
    def last_column(a, out, s):
        for i in range(len(out)):
            out[i] = a[i, a.shape[1] - 1] * a.shape[1] + s

    for rows, cols, s in [(4, 3, 1), (9, 5, 7), (2, 2, -3)]:
        a = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
        out = tack.zeros(rows, tack.i64)
        last_column(tack.array(a), out, s)
        np.testing.assert_array_equal(out.numpy(), a[:, -1] * cols + s)
    assert last_column.compiled_variants == 1

    # A Python int beyond i32 is an i64 argument: a new variant.
    a = np.ones((2, 2), dtype=np.int64)
    out = tack.zeros(2, tack.i64)
    last_column(tack.array(a), out, 2**40)
    np.testing.assert_array_equal(out.numpy(), a[:, -1] * 2 + 2**40)
    assert last_column.compiled_variants == 2
