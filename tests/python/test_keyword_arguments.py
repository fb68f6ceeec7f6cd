"""Kernels take their arguments by parameter name as Python functions do:
positional first, then keywords in any order. A call that Python would
refuse for a function of the same parameters is refused with a TypeError
naming the kernel and the parameter, in Python's words.

The oracle is Python itself: the same call made on a plain function with
the kernel's parameters, whose result (or TypeError) the kernel's call must
match."""

import re

import numpy as np
import pytest
import tack


@tack.kernel
def axpy(alpha, x, out):
    for i in range(len(x)):
        out[i] = alpha * x[i] + out[i]


def axpy_python(alpha, x, out):
    """The same signature in plain Python: which calls bind, and how."""
    return alpha, x, out


@tack.device_class
class Scaled:
    def __init__(self, data, factor):
        self.data = data
        self.factor = factor

    @tack.func
    def __getitem__(self, i):
        return self.data[i] * self.factor


@tack.kernel
def gather(src, out, offset):
    for i in range(len(out)):
        out[i] = src[i] + offset


CALLS = [
    ((2.0,), {"x": "X", "out": "OUT"}),
    ((), {"out": "OUT", "x": "X", "alpha": 2.0}),
    ((2.0, "X"), {"out": "OUT"}),
    ((), {"alpha": 2.0, "x": "X", "out": "OUT"}),
]


@pytest.mark.parametrize("args,kwargs", CALLS)
def test_keyword_calls_bind_as_python_binds_them(backend, args, kwargs):
    n = 100
    x = np.arange(n, dtype=np.float32)
    start = np.linspace(-1, 1, n, dtype=np.float32)
    out = tack.array(start)
    xs = tack.array(x)
    fill = {"X": xs, "OUT": out}
    bound_args = tuple(fill.get(a, a) if isinstance(a, str) else a for a in args)
    bound_kwargs = {k: fill.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    alpha, _, _ = axpy_python(*bound_args, **bound_kwargs)
    axpy(*bound_args, **bound_kwargs)
    expected = np.float32(alpha) * x + start
    np.testing.assert_array_equal(out.numpy(), expected)


def python_type_error(*args, **kwargs):
    with pytest.raises(TypeError) as e:
        axpy_python(*args, **kwargs)
    # Python names the function "axpy_python()"; the kernel is "kernel 'axpy'".
    return str(e.value).replace("axpy_python()", "kernel 'axpy'").replace(" positional", "")


BAD_CALLS = [
    ((2.0,), {"x": 1, "out": 2, "y": 3}, "unexpected keyword argument 'y'"),
    ((2.0, 1), {"x": 1, "out": 2}, "multiple values for argument 'x'"),
    ((2.0,), {"out": 2}, "missing 1 required argument: 'x'"),
    ((), {"out": 2}, "missing 2 required arguments: 'alpha' and 'x'"),
    ((), {"x": 2}, "missing 2 required arguments: 'alpha' and 'out'"),
]


@pytest.mark.parametrize("args,kwargs,what", BAD_CALLS)
def test_bad_keyword_calls_raise_pythons_type_error(args, kwargs, what):
    expected = python_type_error(*args, **kwargs)
    assert what in expected  # the oracle says what the case is about
    with pytest.raises(TypeError) as e:
        axpy(*args, **kwargs)
    assert str(e.value) == expected


def test_missing_positional_arguments_are_named():
    expected = python_type_error(1.0)
    assert "'x' and 'out'" in expected
    with pytest.raises(TypeError) as e:
        axpy(1.0)
    assert str(e.value) == expected
    with pytest.raises(TypeError, match=re.escape("kernel 'axpy' missing 3 required arguments: 'alpha', 'x', and 'out'")):
        axpy()


def test_too_many_positional_arguments_with_keywords():
    with pytest.raises(TypeError, match=r"kernel 'axpy' takes 3 positional arguments but 4 were given"):
        axpy(1.0, 2, 3, 4, out=5)


def test_a_keyword_argument_of_the_wrong_kind_names_its_parameter():
    with pytest.raises(TypeError, match=r"kernel 'axpy': parameter 'x' got str"):
        axpy(1.0, out=tack.zeros(4), x="no")


def test_keyword_arguments_take_numpy_arrays_without_a_copy():
    out = np.zeros(8, dtype=np.float32)
    x = np.arange(8, dtype=np.float32)
    axpy(out=out, x=x, alpha=3.0)
    np.testing.assert_array_equal(out, np.float32(3.0) * x)


def test_keyword_arguments_take_device_class_instances(backend):
    data = np.arange(16, dtype=np.float32)
    out = tack.zeros(16)
    gather(out=out, offset=1.5, src=Scaled(tack.array(data), np.float32(2.0)))
    np.testing.assert_array_equal(out.numpy(), data * np.float32(2.0) + np.float32(1.5))


def test_keyword_and_positional_calls_share_the_compiled_variant():
    x = tack.array(np.arange(4, dtype=np.float64))
    out = tack.zeros(4, dtype=tack.f64)
    axpy(1.0, x, out)
    before = axpy.compiled_variants
    axpy(1.0, out=out, x=x)
    assert axpy.compiled_variants == before
    np.testing.assert_array_equal(out.numpy(), 2 * np.arange(4, dtype=np.float64))


def test_inspect_takes_keyword_arguments():
    x = tack.zeros(4)
    out = tack.zeros(4)
    assert axpy.inspect("ir", 1.0, out=out, x=x) == axpy.inspect("ir", 1.0, x, out)
