"""Issue 3, @tack.device_class templates.

Instances reach kernels, device functions and methods. Class-level numbers
and tack.constants (inherited too) are literals; instance arrays, numbers
and tuples of numbers are runtime parameters; @tack.func methods inline with
`self` bound; __getitem__, __setitem__ and __len__ give obj[i], obj[i] = v,
obj[i] += v and len(obj). Every expected value comes from NumPy or Python
arithmetic on the same inputs.
"""

from pathlib import Path

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY, IMPORTED_HOST_MEMORY

SOURCE = Path(__file__).read_text().splitlines()
FILE = str(Path(__file__).resolve())


def marked_line(marker):
    hits = [n for n, text in enumerate(SOURCE, 1) if text.rstrip().endswith("# " + marker)]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    return hits[0]


@tack.func
def double(x):
    return x * 2


@tack.func
def negate(x):
    return -x


@tack.device_class
class Field:
    """A 1-D field of values with a runtime scale."""

    offset = 10  # a class constant: an int literal
    weight = 0.1  # a class constant: a weak float literal

    def __init__(self, values, scale):
        self.values = values
        self.scale = scale

    @tack.func
    def at(self, i):
        return self.values[i] * self.scale + self.offset

    @tack.func
    def doubled(self, i):
        return double(self.at(i))

    @tack.func
    def __getitem__(self, i):
        return self.values[i]

    @tack.func
    def __setitem__(self, i, v):
        self.values[i] = v

    @tack.func
    def __len__(self):
        return len(self.values)

    @staticmethod
    @tack.func
    def clamp(x, lo, hi):
        return min(max(x, lo), hi)

    @tack.kernel
    def write_doubled(self, out):
        for i in range(len(self)):
            out[i] = self.doubled(i)


def f32(values):
    return tack.array(np.asarray(values, dtype=np.float32))


def f64(values):
    return tack.array(np.asarray(values, dtype=np.float64))


VALUES = [1.5, -2.0, 0.25, 8.0, 3.0]


# ------------------------------------------------------------ attributes


@tack.kernel
def read_at(field, out):
    for i in range(len(out)):
        out[i] = field.at(i)


def test_instance_scalar_and_array_are_parameters_and_class_constants_literals(backend):
    field = Field(f32(VALUES), 3.0)
    out = tack.zeros(5)
    read_at(field, out)
    v = np.asarray(VALUES, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), v * np.float32(3.0) + np.float32(10))


def test_changing_a_runtime_attribute_reuses_the_compiled_variant(backend):
    @tack.kernel
    def scaled(field, out):
        for i in range(len(out)):
            out[i] = field.at(i)

    v = np.asarray(VALUES, dtype=np.float32)
    out = tack.zeros(5)
    for scale in (2.0, -0.5, 7.0):
        scaled(Field(f32(VALUES), scale), out)
        np.testing.assert_array_equal(out.numpy(), v * np.float32(scale) + np.float32(10))
    assert scaled.compiled_variants == 1


def test_weak_class_constant_takes_the_precision_it_meets(backend):
    # Class-level constants follow the literal rules: 0.1 beside an f64
    # array element is the f64 literal 0.1.
    @tack.kernel
    def weighted(field, out):
        for i in range(len(out)):
            out[i] = field.values[i] * field.weight

    for make, dtype in ((f32, np.float32), (f64, np.float64)):
        out = tack.zeros(5, dtype=tack.f32 if dtype == np.float32 else tack.f64)
        weighted(Field(make(VALUES), 1), out)
        np.testing.assert_array_equal(out.numpy(), np.asarray(VALUES, dtype=dtype) * dtype(0.1))


@tack.device_class
class Typed:
    factor = tack.constant(0.1, dtype=tack.f32)

    def __init__(self, values):
        self.values = values


def test_typed_class_constant_is_its_literal_under_the_cast(backend):
    @tack.kernel
    def typed(t, out):
        for i in range(len(out)):
            out[i] = t.values[i] * t.factor

    out = tack.zeros(5, dtype=tack.f64)
    typed(Typed(f64(VALUES)), out)
    expected = np.asarray(VALUES, dtype=np.float64) * np.float64(np.float32(0.1))
    np.testing.assert_array_equal(out.numpy(), expected)


@tack.device_class
class Box:
    def __init__(self, values, shape):
        self.values = values
        self.shape = shape


@tack.kernel
def flat_index(box, out):
    for i in range(box.shape[0]):
        for j in range(box.shape[1]):
            out[i * box.shape[-1] + j] = box.values[i, j] + box.shape[-2]


def test_instance_tuple_reads_as_literal_indexed_runtime_numbers(backend):
    before = flat_index.compiled_variants  # those of the backends that ran before this one
    grid = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = tack.zeros(12)
    flat_index(Box(tack.array(grid), (3, 4)), out)
    np.testing.assert_array_equal(out.numpy(), grid.ravel() + np.float32(3))
    # Another shape is another value of the same parameters.
    grid = np.arange(10, dtype=np.float32).reshape(2, 5)
    out = tack.zeros(10)
    flat_index(Box(tack.array(grid), (2, 5)), out)
    np.testing.assert_array_equal(out.numpy(), grid.ravel() + np.float32(2))
    assert flat_index.compiled_variants - before == 1


# ------------------------------------------------------------ methods


def test_kernel_as_a_method_binds_self(backend):
    field = Field(f32(VALUES), 0.5)
    out = tack.zeros(5)
    field.write_doubled(out)
    v = np.asarray(VALUES, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), (v * np.float32(0.5) + np.float32(10)) * np.float32(2))


def test_methods_are_bound_on_the_host_too():
    field = Field(np.asarray(VALUES, dtype=np.float32), 2.0)
    assert field.at(1) == np.float32(-2.0) * 2.0 + 10
    assert Field.clamp(5, 0, 3) == 3
    assert len(field) == 5


@tack.kernel
def clamped(field, out):
    for i in range(len(out)):
        out[i] = field.clamp(field[i], -1.0, 2.0) + Field.clamp(field[i], 0.0, 1.0)


def test_static_method_through_the_instance_and_through_the_class(backend):
    out = tack.zeros(5)
    clamped(Field(f32(VALUES), 1.0), out)
    v = np.asarray(VALUES, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), np.clip(v, -1, 2) + np.clip(v, 0, 1))


@tack.device_class
class Mapper:
    def __init__(self, fn):
        self.fn = fn


@tack.kernel
def mapped(m, a, out):
    for i in range(len(out)):
        out[i] = m.fn(a[i])


def test_device_function_held_as_an_instance_attribute(backend):
    before = mapped.compiled_variants  # those of the backends that ran before this one
    a = f32(VALUES)
    out = tack.zeros(5)
    mapped(Mapper(double), a, out)
    np.testing.assert_array_equal(out.numpy(), np.asarray(VALUES, dtype=np.float32) * 2)
    mapped(Mapper(negate), a, out)
    np.testing.assert_array_equal(out.numpy(), -np.asarray(VALUES, dtype=np.float32))
    # Each held function is its own variant.
    assert mapped.compiled_variants - before == 2


@tack.func
def sum_at(field, i):
    return field.at(i) + field[i]


@tack.kernel
def through_function(field, out):
    for i in range(len(out)):
        out[i] = sum_at(field, i)


def test_instance_passed_to_a_device_function(backend):
    out = tack.zeros(5)
    through_function(Field(f32(VALUES), 2.0), out)
    v = np.asarray(VALUES, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), v * np.float32(2) + np.float32(10) + v)


@tack.device_class
class Pair:
    def __init__(self, left, right):
        self.left = left
        self.right = right

    @tack.func
    def total(self, i):
        return self.left.at(i) + self.right.combine(self.left, i)


@tack.device_class
class Combiner:
    bias = 100

    @tack.func
    def combine(self, other, i):
        return other[i] + self.bias


def test_nested_instances_and_an_instance_passed_to_a_method(backend):
    @tack.kernel
    def totals(pair, out):
        for i in range(len(out)):
            out[i] = pair.total(i)

    out = tack.zeros(5)
    totals(Pair(Field(f32(VALUES), 4.0), Combiner()), out)
    v = np.asarray(VALUES, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), (v * np.float32(4) + np.float32(10)) + (v + np.float32(100)))


# ------------------------------------------------------------ inheritance


class ScaledField(Field):
    offset = -1  # overrides the inherited constant

    @tack.func
    def at(self, i):  # overrides the inherited method; doubled() calls this one
        return self.values[i] * self.scale * self.weight + self.offset


def test_subclass_overrides_constants_and_methods_and_inherits_the_rest(backend):
    field = ScaledField(f32(VALUES), 3.0)
    out = tack.zeros(5)
    field.write_doubled(out)
    v = np.asarray(VALUES, dtype=np.float32)
    at = v * np.float32(3) * np.float32(0.1) + np.float32(-1)
    np.testing.assert_array_equal(out.numpy(), at * np.float32(2))
    # The base class still compiles its own methods.
    out_base = tack.zeros(5)
    Field(f32(VALUES), 3.0).write_doubled(out_base)
    np.testing.assert_array_equal(out_base.numpy(), (v * np.float32(3) + np.float32(10)) * np.float32(2))


# ------------------------------------------------------------ indexing


@tack.kernel
def index_protocol(field, out):
    for i in range(len(field)):
        out[i] = field[i]
        field[i] = field[i] * 2.0
        field[i] += 1.0


def test_getitem_setitem_augmented_and_len(backend):
    v = np.asarray(VALUES, dtype=np.float32)
    values = f32(VALUES)
    out = tack.zeros(5)
    index_protocol(Field(values, 1.0), out)
    np.testing.assert_array_equal(out.numpy(), v)
    np.testing.assert_array_equal(values.numpy(), v * np.float32(2) + np.float32(1))


@tack.device_class
class Matrix:
    def __init__(self, data):
        self.data = data

    @tack.func
    def __getitem__(self, ij):
        return self.data[ij[0], ij[1]]

    @tack.func
    def __setitem__(self, ij, v):
        self.data[ij[0], ij[1]] = v


@tack.kernel
def transpose_into(src, dst):
    for i, j in tack.ndindex(src.data.shape[0], src.data.shape[1]):
        dst[j, i] = src[i, j]
        dst[j, i] += src[i, j] * 10.0


def test_several_indices_reach_getitem_and_setitem_as_one_vector(backend):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    dst = tack.zeros((4, 3))
    transpose_into(Matrix(tack.array(a)), Matrix(dst))
    np.testing.assert_array_equal(dst.numpy(), a.T * np.float32(11))


@tack.device_class
class Counter:
    def __init__(self, data, log):
        self.data = data
        self.log = log

    @tack.func
    def __getitem__(self, i):
        tack.atomic_add(self.log, 0, 1)
        return self.data[i]

    @tack.func
    def __setitem__(self, i, v):
        tack.atomic_add(self.log, 1, 1)
        self.data[i] = v


@tack.func
def bump(log, slot, value):
    tack.atomic_add(log, slot, 1)
    return value


@tack.kernel
def augmented_order(c, order, out):
    for i in range(len(out)):
        c[bump(order, 0, i)] += bump(order, 1, 5)
        out[i] = c.data[i]


def test_augmented_item_assignment_evaluates_the_index_once_and_reads_once(backend):
    data = tack.array(np.arange(4, dtype=np.int32))
    log = tack.zeros(2, dtype=tack.i32)
    order = tack.zeros(2, dtype=tack.i32)
    out = tack.zeros(4, dtype=tack.i32)
    augmented_order(Counter(data, log), order, out)
    assert out.numpy().tolist() == [5, 6, 7, 8]
    assert log.numpy().tolist() == [4, 4]  # one __getitem__ and one __setitem__ per iteration
    assert order.numpy().tolist() == [4, 4]  # the index once, the right side once


# ------------------------------------------------------------ errors


@tack.device_class
class Loose:
    label = "not a number"

    def __init__(self, values):
        self.values = values
        self.name = "loose"

    def plain(self, i):
        return i


def test_attributes_the_kernel_does_not_read_may_be_anything(backend):
    @tack.kernel
    def copy(obj, out):
        for i in range(len(out)):
            out[i] = obj.values[i]

    out = tack.zeros(5)
    copy(Loose(f32(VALUES)), out)
    np.testing.assert_array_equal(out.numpy(), np.asarray(VALUES, dtype=np.float32))


@tack.kernel
def reads_missing(obj, out):
    for i in range(len(out)):
        out[i] = obj.missing  # missing attribute


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_missing_attribute_is_a_name_error_with_position():
    with pytest.raises(tack.KernelNameError) as e:
        reads_missing(Loose(f32(VALUES)), tack.zeros(5))
    assert "'Loose' object has no attribute 'missing'" in str(e.value)
    assert (e.value.filename, e.value.line) == (FILE, marked_line("missing attribute"))


@tack.kernel
def reads_string(obj, out):
    for i in range(len(out)):
        out[i] = obj.name  # string attribute


@tack.kernel
def calls_plain(obj, out):
    for i in range(len(out)):
        out[i] = obj.plain(i)  # plain method


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unusable_attributes_are_rejected_with_what_they_are():
    with pytest.raises(tack.KernelTypeError, match=r"'Loose.name' is a str object"):
        reads_string(Loose(f32(VALUES)), tack.zeros(5))
    with pytest.raises(tack.KernelTypeError, match=r"'Loose.plain' is the Python function 'Loose.plain'") as e:
        calls_plain(Loose(f32(VALUES)), tack.zeros(5))
    assert e.value.line == marked_line("plain method")


@tack.kernel
def assigns_attribute(field, out):
    for i in range(len(out)):
        field.scale = 2.0  # attribute store


@tack.kernel
def aliases_instance(field, out):
    for i in range(len(out)):
        other = field  # instance alias
        out[i] = other.at(i)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_instances_are_read_only_and_not_rebound():
    with pytest.raises(tack.UnsupportedError, match="read-only") as e:
        assigns_attribute(Field(f32(VALUES), 1.0), tack.zeros(5))
    assert e.value.line == marked_line("attribute store")
    with pytest.raises(tack.UnsupportedError, match="cannot be bound to another name") as e:
        aliases_instance(Field(f32(VALUES), 1.0), tack.zeros(5))
    assert e.value.line == marked_line("instance alias")


@tack.kernel
def indexes_unindexable(obj, out):
    for i in range(len(out)):
        out[i] = obj[i]  # no getitem


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_indexing_without_getitem_is_rejected():
    with pytest.raises(tack.KernelTypeError, match="'Mapper' object does not support indexing"):
        indexes_unindexable(Mapper(double), tack.zeros(5))


@tack.kernel
def dynamic_shape_index(box, out):
    for i in range(len(out)):
        out[i] = box.shape[i]  # dynamic tuple index


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_tuple_attributes_need_a_literal_index_in_range():
    box = Box(f32([[1.0]]), (1, 1))
    with pytest.raises(tack.KernelTypeError, match="literal integer") as e:
        dynamic_shape_index(box, tack.zeros(2))
    assert e.value.line == marked_line("dynamic tuple index")

    @tack.kernel
    def out_of_range(box, out):
        for i in range(len(out)):
            out[i] = box.shape[2]

    with pytest.raises(tack.KernelTypeError, match="index out of range for 'box.shape'"):
        out_of_range(box, tack.zeros(2))


@pytest.mark.cpu_only(IMPORTED_HOST_MEMORY)
def test_read_only_array_attribute_written_by_a_method_is_refused_by_path():
    backing = f32(VALUES)
    ro = tack.array_from_ptr(backing.__array_interface__["data"][0], (5,), tack.f32)
    with pytest.raises(ValueError, match="parameter 'field.values' is bound to a read-only array"):
        index_protocol(Field(ro, 1.0), tack.zeros(5))


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_non_instance_object_argument_names_what_kernels_accept():
    class Plain:
        pass

    with pytest.raises(TypeError, match="@tack.device_class instance"):
        read_at(Plain(), tack.zeros(5))


def test_device_class_decorates_classes_only():
    with pytest.raises(TypeError, match="decorates a class"):
        tack.device_class(double)


# ------------------------------------------------------------ element arrays and textures


@tack.device_class
class Particles:
    def __init__(self, positions, density):
        self.positions = positions  # an array of vec3f
        self.density = density  # a 3D texture

    @tack.func
    def energy(self, i):
        return self.positions[i].norm_sqr()

    @tack.func
    def density_at_texel(self, x, y, z):
        # Texel centres sample the texels exactly.
        return self.density.sample((x + 0.5) / 2.0, (y + 0.5) / 2.0, (z + 0.5) / 2.0)


@tack.kernel
def particle_step(p, out):
    for i in range(len(out)):
        out[i] = p.energy(i) + p.density_at_texel(i % 2, (i // 2) % 2, 0)
        p.positions[i].x = 0.0
        p.positions[i] += tack.vec3(1.0, 2.0, 3.0)


def test_instance_attributes_may_be_element_arrays_and_textures(backend):
    rng = np.random.default_rng(3)
    points = rng.standard_normal((4, 3)).astype(np.float32)
    texels = np.arange(8, dtype=np.float32) * np.float32(0.5)
    positions = tack.array(points, dtype=tack.vec3f)
    texture = tack.texture3d(tack.array(texels), shape=(2, 2, 2))
    out = tack.zeros(4)
    particle_step(Particles(positions, texture), out)
    squared = (points[:, 0] * points[:, 0] + points[:, 1] * points[:, 1]) + points[:, 2] * points[:, 2]
    at_texel = texels[[0, 1, 2, 3]]  # x fastest: (0,0,0), (1,0,0), (0,1,0), (1,1,0)
    np.testing.assert_array_equal(out.numpy(), squared + at_texel)
    moved = points.copy()
    moved[:, 0] = 0
    np.testing.assert_array_equal(positions.numpy(), moved + np.asarray([1, 2, 3], dtype=np.float32))


@tack.device_class
class Rows:
    def __init__(self, rows):
        self.rows = rows  # an array of vec3f

    @tack.func
    def __getitem__(self, i):
        return self.rows[i]

    @tack.func
    def shifted(self, i):
        return self.rows[i] - 1.0


@tack.kernel
def row_masks(r, out):
    for i in range(len(out)):
        out[i] = tack.select(abs(r[i]) > r.shifted(i) + 2.0, r[i], r.shifted(i) * 10.0)


def test_vector_results_of_methods_and_indexing_in_builtins_and_comparisons(backend):
    rows = np.array([[1.5, -2.0, 0.25], [-0.5, 3.0, -4.0]], dtype=np.float32)
    out = tack.zeros(2, dtype=tack.vec3f)
    row_masks(Rows(tack.array(rows, dtype=tack.vec3f)), out)
    shifted = rows - np.float32(1)
    np.testing.assert_array_equal(out.numpy(), np.where(np.abs(rows) > shifted + np.float32(2), rows, shifted * np.float32(10)))


@tack.device_class
class Slotted:
    __slots__ = ("values", "scale")

    def __init__(self, values, scale):
        self.values = values
        self.scale = scale


def test_slotted_instances_read_their_slots(backend):
    @tack.kernel
    def scaled_slots(s, out):
        for i in range(len(out)):
            out[i] = s.values[i] * s.scale

    out = tack.zeros(5)
    scaled_slots(Slotted(f32(VALUES), 4.0), out)
    np.testing.assert_array_equal(out.numpy(), np.asarray(VALUES, dtype=np.float32) * np.float32(4))


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_an_instance_that_contains_itself_is_refused():
    pair = Pair(Field(f32(VALUES), 1.0), Combiner())
    pair.left.back = pair  # pair -> left -> back -> pair
    with pytest.raises(ValueError, match="reaches itself through its attribute 'back'"):
        read_at(pair, tack.zeros(5))
