"""Atomic array updates on the CPU (contract "Atomic array updates"):
contended updates from every worker, old values, the CPU dtype domain with
wrapping and unsigned extrema, alignment and target checks."""

import numpy as np
import pytest
import tack

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@tack.kernel
def count_into(counts, n_bins):
    for i in range(len(counts) * 1000):
        tack.atomic_add(counts, i % n_bins, 1)


@pytest.mark.parametrize("dtype", INT_TYPES + [np.float32, np.float64])
def test_contended_adds_from_all_workers(backend, dtype):
    counts = tack.array(np.zeros(7, dtype=dtype))
    count_into(counts, 7)
    total = 7 * 1000
    want = np.array([total // 7] * 7, dtype=np.int64)
    # 1000 additions of 1 per bin wrap modulo 2^N for narrow integers.
    np.testing.assert_array_equal(counts.numpy(), want.astype(dtype))


@tack.kernel
def extrema(values, out):
    for i in range(len(values)):
        tack.atomic_min(out, 0, values[i])
        tack.atomic_max(out, 1, values[i])


@pytest.mark.parametrize("dtype", INT_TYPES + [np.float32, np.float64])
def test_extrema_use_the_target_signedness(backend, dtype):
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else np.finfo(dtype)
    rng = np.random.default_rng(7)
    if np.issubdtype(dtype, np.integer):
        values = rng.integers(info.min, info.max, size=5000, dtype=dtype, endpoint=True)
    else:
        values = rng.standard_normal(5000).astype(dtype) * 1000
    out = tack.array(np.array([info.max, info.min], dtype=dtype))
    extrema(tack.array(values), out)
    np.testing.assert_array_equal(out.numpy(), np.array([values.min(), values.max()], dtype=dtype))


@tack.kernel
def slots(flags, slot_of, counter):
    for i in range(len(flags)):
        if flags[i] != 0:
            slot_of[i] = tack.atomic_add(counter, 0, 1)


def test_the_expression_value_is_the_old_value(backend):
    flags = np.array([1, 0, 1, 1, 0, 1, 1] * 50, dtype=np.int32)
    slot_of = tack.full(len(flags), -1, dtype=tack.i32)
    counter = tack.zeros(1, dtype=tack.i32)
    slots(tack.array(flags), slot_of, counter)
    got = slot_of.numpy()
    taken = got[flags != 0]
    assert sorted(taken.tolist()) == list(range(int(flags.sum())))
    assert (got[flags == 0] == -1).all()
    assert counter[0] == flags.sum()


def test_misaligned_imported_targets_are_refused_before_any_update():
    raw = np.zeros(17, dtype=np.uint8)
    misaligned = raw[1:].view(np.int32)  # 4 elements at an odd address
    target = tack.array_from_ptr(misaligned.ctypes.data, (4,), tack.i32, readonly=False)
    with pytest.raises(ValueError, match="aligned"):
        count_into(target, 4)
    assert not raw.any()


def test_atomics_on_local_arrays_are_refused():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def local_atomic(x):
            for i in range(len(x)):
                tmp = tack.local_array(4, tack.i32)
                tack.atomic_add(tmp, 0, 1)

        local_atomic(tack.zeros(2))
    assert "local array" in e.value.message and e.value.function == "local_atomic"
    assert e.value.construct == "atomic_add"


def test_atomics_on_scalars_are_refused():
    with pytest.raises(tack.KernelTypeError) as e:

        @tack.kernel
        def scalar_atomic(x, s):
            for i in range(len(x)):
                tack.atomic_add(s, 0, 1)

        scalar_atomic(tack.zeros(2), 3)
    assert "not an array" in e.value.message
