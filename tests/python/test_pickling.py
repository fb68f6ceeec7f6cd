"""Arrays pickle as their contents and unpickle as new arrays; kernels
pickle by module and qualified name, like Python functions, so that a
multiprocessing worker started with "spawn" imports the module and runs
the same kernel. NumPy (and Python's own pickling of the same data) is the
oracle for the values."""

import multiprocessing
import os
import pickle

import numpy as np
import pytest
import tack

import pool_kernels

DTYPES = [tack.i8, tack.i16, tack.i32, tack.i64, tack.u8, tack.u16, tack.u32, tack.u64, tack.f32, tack.f64]


@pytest.mark.parametrize("dtype", DTYPES, ids=[t.name for t in DTYPES])
def test_arrays_round_trip_through_pickle(backend, dtype):
    values = (np.arange(-12, 12) * 7).astype(dtype.numpy).reshape(4, 6)
    a = tack.array(values)
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        b = pickle.loads(pickle.dumps(a, protocol=protocol))
        assert isinstance(b, tack.Array)
        assert (b.shape, b.dtype, b.element_shape, b.device) == (a.shape, a.dtype, (), backend)
        assert b.ptr != a.ptr  # new storage
        np.testing.assert_array_equal(b.numpy(), values)


def test_unpickled_arrays_are_independent_and_writable(backend):
    a = tack.array(np.arange(8, dtype=np.float32))
    b = pickle.loads(pickle.dumps(a))
    pool_kernels.scale_and_shift(b, 2.0, 1.0)
    np.testing.assert_array_equal(a.numpy(), np.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(b.numpy(), np.arange(8, dtype=np.float32) * 2 + 1)
    ro = tack.array_from_ptr(a.ptr, (8,), tack.f32, owner=a) if backend == "cpu" else a
    c = pickle.loads(pickle.dumps(ro))
    assert not c.readonly
    np.testing.assert_array_equal(c.numpy(), a.numpy())


def test_vector_arrays_views_and_zero_d_arrays_pickle(backend):
    values = np.arange(15, dtype=np.float64).reshape(5, 3)
    a = tack.array(values, dtype=tack.vec3d, layout="soa")
    b = pickle.loads(pickle.dumps(a))
    assert (b.dtype, b.layout, b.element_shape, b.shape) == (tack.vec3d, "soa", (3,), (5,))
    np.testing.assert_array_equal(b.numpy(), values)
    m = tack.array(np.arange(20, dtype=np.int32).reshape(4, 5))
    view = pickle.loads(pickle.dumps(m[1:3, 1:4]))
    np.testing.assert_array_equal(view.numpy(), np.arange(20, dtype=np.int32).reshape(4, 5)[1:3, 1:4])
    z = pickle.loads(pickle.dumps(tack.array(np.float32(2.5))))
    assert (z.shape, z.dtype, z[()]) == ((), tack.f32, np.float32(2.5))


def test_kernels_pickle_by_reference():
    for k in (pool_kernels.scale_and_shift, pool_kernels.Holder.negate):
        assert pickle.loads(pickle.dumps(k)) is k
    assert pool_kernels.scale_and_shift.__qualname__ == "scale_and_shift"
    assert pool_kernels.Holder.negate.__qualname__ == "Holder.negate"
    assert pool_kernels.scale_and_shift.__module__ == "pool_kernels"


def test_local_kernels_refuse_to_pickle():
    @tack.kernel
    def local(a):
        for i in range(len(a)):
            a[i] = 0

    with pytest.raises(pickle.PicklingError, match=r"cannot pickle kernel 'local'.*<locals>"):
        pickle.dumps(local)


def test_a_rebound_kernel_name_refuses_to_pickle(monkeypatch):
    k = pool_kernels.scale_and_shift
    monkeypatch.setattr(pool_kernels, "scale_and_shift", pool_kernels.Holder.negate)
    with pytest.raises(pickle.PicklingError, match="another object"):
        pickle.dumps(k)


@pytest.fixture(scope="module")
def spawn_pool():
    # A worker imports pool_kernels from the directory of this file, which
    # pytest put on sys.path; spawn hands the workers the parent's sys.path.
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        yield pool


def test_a_spawned_pool_runs_kernels_sent_to_it(spawn_pool):
    values = [np.arange(n, dtype=np.float32) - 3 for n in (5, 70, 1000, 3)]
    jobs = [(pool_kernels.scale_and_shift, tack.array(v), 2.5, -1.0) for v in values]
    results = spawn_pool.starmap(pool_kernels.run, jobs)
    pids = set()
    for v, (array, pid) in zip(values, results):
        assert isinstance(array, tack.Array) and array.dtype == tack.f32
        np.testing.assert_array_equal(array.numpy(), v * np.float32(2.5) + np.float32(-1.0))
        pids.add(pid)
    assert os.getpid() not in pids  # the work ran in the workers


def test_a_spawned_pool_finds_kernels_defined_in_classes(spawn_pool):
    values = np.arange(10, dtype=np.int64)
    array, pid = spawn_pool.apply(pool_kernels.run, (pool_kernels.Holder.negate, tack.array(values)))
    assert pid != os.getpid()
    np.testing.assert_array_equal(array.numpy(), -values)
    out, name = spawn_pool.apply(pool_kernels.run_on_numpy, (pool_kernels.Holder.negate, values.copy()))
    assert name == "int64"
    np.testing.assert_array_equal(out, -values)
