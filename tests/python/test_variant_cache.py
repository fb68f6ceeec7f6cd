"""Specialization identity: reusing compiled code behaves as compiling the
current call afresh.

Covers the calling conventions of arrays and scalars (category, dtype, rank,
strides), device-class templates (the actual class, same-named classes,
typed constants by bit pattern including signed zero and NaN, held device
functions) and changes to the layout of an instance's runtime attributes.
Expected values come from NumPy or Python arithmetic.
"""

import math
import struct

import numpy as np
import pytest
import tack


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


# ------------------------------------------------- arrays and scalars


@tack.kernel
def add_scalar(x, a, out):
    for i in range(len(out)):
        out[i] = a[i] + x


def test_scalar_dtypes_each_compile_their_own_variant(backend):
    before = add_scalar.compiled_variants  # those of the backends that ran before this one
    a = tack.array(np.arange(4, dtype=np.int64))
    out = tack.zeros(4, dtype=tack.i64)
    add_scalar(3, a, out)  # an i32 scalar
    assert out.numpy().tolist() == [3, 4, 5, 6]
    add_scalar(2**40, a, out)  # an i64 scalar
    assert out.numpy().tolist() == [2**40 + k for k in range(4)]
    add_scalar(np.int8(-5), a, out)
    assert out.numpy().tolist() == [-5, -4, -3, -2]
    assert add_scalar.compiled_variants - before == 3


def test_python_float_scalar_follows_the_array_precision(backend):
    third = 1 / 3
    for dtype, np_type in ((tack.f32, np.float32), (tack.f64, np.float64)):
        a = tack.array(np.zeros(4, dtype=np_type))
        out = tack.zeros(4, dtype=dtype)
        add_scalar(third, a, out)
        assert out.numpy().tolist() == [float(np_type(third))] * 4


@tack.kernel
def copy_flat(src, out):
    for i in range(len(out)):
        out[i] = src[i] * 1


def test_array_rank_and_strides_are_part_of_the_variant(backend):
    before = copy_flat.compiled_variants  # those of the backends that ran before this one
    flat = np.arange(6, dtype=np.int32)
    out = tack.zeros(6, dtype=tack.i32)
    copy_flat(tack.array(flat), out)
    assert out.numpy().tolist() == flat.tolist()
    # A 2-D array read with one flat, row-major index.
    grid = np.arange(6, dtype=np.int32).reshape(2, 3) * 10
    copy_flat(tack.array(grid), out)
    assert out.numpy().tolist() == grid.ravel().tolist()
    # A strided view: two rows, three columns of a 3x4 array.
    big = np.arange(12, dtype=np.int32).reshape(3, 4) * 7
    copy_flat(tack.array(big)[0:2, 1:4], out)
    assert out.numpy().tolist() == big[0:2, 1:4].ravel().tolist()
    assert copy_flat.compiled_variants - before == 3
    # Back to the first convention: the first variant again.
    copy_flat(tack.array(flat + 1), out)
    assert out.numpy().tolist() == (flat + 1).tolist()
    assert copy_flat.compiled_variants - before == 3


@tack.device_class
class Source:
    factor = 2  # class constant: a literal

    def __init__(self, values):
        self.values = values

    @tack.func
    def get(self, i):
        return self.values[i] * self.factor


@tack.kernel
def read_source(src, out):
    for i in range(len(out)):
        out[i] = src.get(i)


def test_an_attribute_as_class_constant_then_as_instance_scalar(backend):
    # The same source reads `self.factor` as a literal for one instance and
    # as a runtime parameter for another, where the instance sets it.
    before = read_source.compiled_variants  # those of the backends that ran before this one
    values = tack.array(np.arange(4, dtype=np.int32))
    out = tack.zeros(4, dtype=tack.i32)
    read_source(Source(values), out)
    assert out.numpy().tolist() == [0, 2, 4, 6]
    shadowed = Source(values)
    shadowed.factor = 5
    read_source(shadowed, out)
    assert out.numpy().tolist() == [0, 5, 10, 15]
    shadowed.factor = 7  # a runtime value: no new variant
    read_source(shadowed, out)
    assert out.numpy().tolist() == [0, 7, 14, 21]
    assert read_source.compiled_variants - before == 2
    read_source(Source(values), out)
    assert out.numpy().tolist() == [0, 2, 4, 6]


def test_an_attribute_as_array_then_as_scalar(backend):
    @tack.device_class
    class Either:
        def __init__(self, values):
            self.values = values

        @tack.func
        def first(self):
            return self.values[0]

    @tack.kernel
    def read_values(obj, out):
        for i in range(len(out)):
            out[i] = obj.values + 0  # a number here, an array is a type error

    out = tack.zeros(3, dtype=tack.i32)
    read_values(Either(4), out)
    assert out.numpy().tolist() == [4, 4, 4]
    with pytest.raises(tack.KernelTypeError, match="array parameter 'obj.values' is used where"):
        read_values(Either(tack.array(np.arange(3, dtype=np.int32))), out)
    read_values(Either(9), out)
    assert out.numpy().tolist() == [9, 9, 9]


# ------------------------------------------------- template identity


def make_class(factor_method):
    """A class named `Twin` whose method multiplies by `factor_method`."""

    @tack.device_class
    class Twin:
        def __init__(self, values):
            self.values = values

    if factor_method == 2:

        @tack.func
        def get(self, i):
            return self.values[i] * 2

    else:

        @tack.func
        def get(self, i):
            return self.values[i] * 3

    Twin.get = get
    return Twin


def test_same_named_classes_with_different_methods_never_share_code(backend):
    TwinA, TwinB = make_class(2), make_class(3)
    assert TwinA.__qualname__ == TwinB.__qualname__
    values = tack.array(np.arange(4, dtype=np.int32))
    out = tack.zeros(4, dtype=tack.i32)
    read_source(TwinA(values), out)
    assert out.numpy().tolist() == [0, 2, 4, 6]
    read_source(TwinB(values), out)
    assert out.numpy().tolist() == [0, 3, 6, 9]
    read_source(TwinA(values), out)
    assert out.numpy().tolist() == [0, 2, 4, 6]


def constant_class(value, dtype=None):
    @tack.device_class
    class WithConstant:
        c = tack.constant(value, dtype) if dtype is not None else value

        def __init__(self, values):
            self.values = values

    return WithConstant


@tack.kernel
def copysign_constant(obj, out):
    for i in range(len(out)):
        # 1/c is +inf for +0.0 and -inf for -0.0; NaN stays NaN.
        out[i] = 1.0 / obj.c + obj.values[i]


@pytest.mark.parametrize("dtype", [None, tack.f64, tack.f32])
def test_signed_zero_constants_compile_separately(backend, dtype):
    values = tack.array(np.zeros(2, dtype=np.float64))
    out = tack.zeros(2, dtype=tack.f64)
    copysign_constant(constant_class(0.0, dtype)(values), out)
    assert out.numpy().tolist() == [math.inf, math.inf]
    copysign_constant(constant_class(-0.0, dtype)(values), out)
    assert out.numpy().tolist() == [-math.inf, -math.inf]
    copysign_constant(constant_class(0.0, dtype)(values), out)
    assert out.numpy().tolist() == [math.inf, math.inf]


def test_nan_constants_are_stable_keys_by_bit_pattern(backend):
    nan = float("nan")
    negative_nan = struct.unpack("<d", struct.pack("<Q", bits(nan) | (1 << 63)))[0]

    @tack.device_class
    class WithNan:
        c = nan

        def __init__(self, values):
            self.values = values

    @tack.kernel
    def sign_of_c(obj, out):
        for i in range(len(out)):
            out[i] = obj.values[i] + (1.0 if obj.c != obj.c else 0.0)

    values = tack.array(np.zeros(2, dtype=np.float64))
    out = tack.zeros(2, dtype=tack.f64)
    for _ in range(3):  # NaN != NaN, but its key is equal to itself
        sign_of_c(WithNan(values), out)
    assert out.numpy().tolist() == [1.0, 1.0]
    assert sign_of_c.compiled_variants == 1
    WithNan.c = negative_nan  # another bit pattern: another variant
    sign_of_c(WithNan(values), out)
    assert sign_of_c.compiled_variants == 2


def test_changed_class_constant_recompiles(backend):
    @tack.device_class
    class Scale:
        k = tack.constant(3, dtype=tack.i32)

        def __init__(self, values):
            self.values = values

    @tack.kernel
    def scaled(obj, out):
        for i in range(len(out)):
            out[i] = obj.values[i] * obj.k

    values = tack.array(np.arange(3, dtype=np.int32))
    out = tack.zeros(3, dtype=tack.i32)
    scaled(Scale(values), out)
    assert out.numpy().tolist() == [0, 3, 6]
    Scale.k = tack.constant(4, dtype=tack.i32)
    scaled(Scale(values), out)
    assert out.numpy().tolist() == [0, 4, 8]
    Scale.k = tack.constant(4, dtype=tack.i64)  # same value, another dtype
    out64 = tack.zeros(3, dtype=tack.i64)
    scaled(Scale(values), out64)
    assert out64.numpy().tolist() == [0, 4, 8]
    assert scaled.compiled_variants == 3


def test_inherited_typed_constant_is_part_of_the_identity(backend):
    @tack.device_class
    class Base:
        k = tack.constant(2.5, dtype=tack.f32)

        def __init__(self, values):
            self.values = values

    class Child(Base):
        pass

    @tack.kernel
    def times_k(obj, out):
        for i in range(len(out)):
            out[i] = obj.values[i] * obj.k

    values = tack.array(np.ones(2, dtype=np.float32))
    out = tack.zeros(2)
    times_k(Child(values), out)
    assert out.numpy().tolist() == [2.5, 2.5]
    Base.k = tack.constant(-1.5, dtype=tack.f32)  # the child inherits the change
    times_k(Child(values), out)
    assert out.numpy().tolist() == [-1.5, -1.5]


# ------------------------------------------------- runtime attribute layouts


@tack.device_class
class Layout:
    @tack.func
    def total(self, i):
        return self.a[i] + self.b


@tack.kernel
def layout_total(obj, out):
    for i in range(len(out)):
        out[i] = obj.total(i)


def test_attribute_order_and_added_attributes_change_the_parameter_layout(backend):
    before = layout_total.compiled_variants  # those of the backends that ran before this one
    a = tack.array(np.arange(3, dtype=np.int32))
    out = tack.zeros(3, dtype=tack.i32)
    first = Layout()
    first.a, first.b = a, 10
    layout_total(first, out)
    assert out.numpy().tolist() == [10, 11, 12]

    swapped = Layout()
    swapped.b, swapped.a = 20, a  # the same names in another order
    layout_total(swapped, out)
    assert out.numpy().tolist() == [20, 21, 22]

    extended = Layout()
    extended.extra = 99  # one more runtime scalar before the others
    extended.a, extended.b = a, 30
    layout_total(extended, out)
    assert out.numpy().tolist() == [30, 31, 32]

    widened = Layout()
    widened.a, widened.b = tack.array(np.arange(3, dtype=np.int64)), 2**40
    out64 = tack.zeros(3, dtype=tack.i64)
    layout_total(widened, out64)
    assert out64.numpy().tolist() == [2**40 + k for k in range(3)]
    assert layout_total.compiled_variants - before == 4

    layout_total(first, out)  # the first layout again
    assert out.numpy().tolist() == [10, 11, 12]
    assert layout_total.compiled_variants - before == 4


def test_held_device_functions_are_part_of_the_identity(backend):
    @tack.func
    def plus_one(x):
        return x + 1

    @tack.func
    def plus_two(x):
        return x + 2

    @tack.device_class
    class Holder:
        def __init__(self, fn):
            self.fn = fn

    @tack.kernel
    def apply(h, out):
        for i in range(len(out)):
            out[i] = h.fn(i)

    out = tack.zeros(3, dtype=tack.i32)
    apply(Holder(plus_one), out)
    assert out.numpy().tolist() == [1, 2, 3]
    apply(Holder(plus_two), out)
    assert out.numpy().tolist() == [2, 3, 4]
    apply(Holder(plus_one), out)
    assert out.numpy().tolist() == [1, 2, 3]
    assert apply.compiled_variants == 2


def test_rebinding_a_method_or_constant_on_the_class_after_cached_calls(backend):
    @tack.func
    def triple(self, i):
        return self.values[i] * 3

    @tack.device_class
    class Rebound:
        bias = 0

        def __init__(self, values):
            self.values = values

        @tack.func
        def get(self, i):
            return self.values[i] * 2 + self.bias

    values = tack.array(np.arange(4, dtype=np.int32))
    out = tack.zeros(4, dtype=tack.i32)
    for _ in range(2):  # the second call takes the cached path
        read_source(Rebound(values), out)
        assert out.numpy().tolist() == [0, 2, 4, 6]
    Rebound.get = triple
    read_source(Rebound(values), out)
    assert out.numpy().tolist() == [0, 3, 6, 9]
    Rebound.bias = 100  # unused by triple, still a new signature
    read_source(Rebound(values), out)
    assert out.numpy().tolist() == [0, 3, 6, 9]
    del Rebound.get  # the class no longer has the method
    with pytest.raises(tack.KernelNameError, match="has no attribute 'get'"):
        read_source(Rebound(values), out)


def test_attribute_dtypes_and_kinds_alternating_between_calls(backend):
    @tack.device_class
    class Holder:
        def __init__(self, v):
            self.v = v

    @tack.kernel
    def doubled(h, out):
        for i in range(len(out)):
            out[i] = tack.i64(h.v + h.v)  # in the attribute's own type

    out = tack.zeros(2, dtype=tack.i64)
    cases = [
        (7, 14),
        (np.int8(100), -56),  # i8 addition wraps
        (np.uint8(200), 144),
        (2**40, 2**41),
        (np.int16(-300), -600),
    ]
    for _ in range(2):
        for value, expected in cases:
            doubled(Holder(value), out)
            assert out.numpy().tolist() == [expected, expected], value
    with pytest.raises(tack.KernelTypeError, match="is a tuple"):
        doubled(Holder((1, 2)), out)
    with pytest.raises(tack.KernelTypeError, match="is a str object"):
        doubled(Holder("seven"), out)
    doubled(Holder(7), out)
    assert out.numpy().tolist() == [14, 14]


def test_vector_class_constants_are_keyed_by_each_components_bits(backend):
    def make(x):
        @tack.device_class
        class Direction:
            d = tack.constant([x, 1.0])

            def __init__(self, values):
                self.values = values

        return Direction

    @tack.kernel
    def inverse_x(obj, out):
        for i in range(len(out)):
            out[i] = 1.0 / obj.d.x + obj.values[i]

    values = tack.array(np.zeros(2, dtype=np.float64))
    out = tack.zeros(2, dtype=tack.f64)
    Positive, Negative = make(0.0), make(-0.0)
    inverse_x(Positive(values), out)
    assert out.numpy().tolist() == [math.inf, math.inf]
    inverse_x(Negative(values), out)
    assert out.numpy().tolist() == [-math.inf, -math.inf]
    Positive.d = tack.constant([-0.0, 1.0])  # rebound on the class: a new signature
    inverse_x(Positive(values), out)
    assert out.numpy().tolist() == [-math.inf, -math.inf]
