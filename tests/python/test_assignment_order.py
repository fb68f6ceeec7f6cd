"""Tuple assignment and several-valued device functions: the whole right
side is evaluated, left to right, before any target is assigned, whatever
mix of numbers, vectors and matrices it holds (contract: Execution and
ordering; Composition). Expected values are what CPython computes for the
same statements over tuples of numbers."""

import numpy as np
import pytest
import tack


def f32(values):
    return np.asarray(values, dtype=np.float32)


@tack.kernel
def swap_vectors(out):
    for i in range(1):
        v = tack.vec2(1.0, 2.0)
        w = tack.vec2(3.0, 4.0)
        v, w = w, v
        out[0] = v.x
        out[1] = v.y
        out[2] = w.x
        out[3] = w.y


def test_vector_locals_swap(backend):
    out = tack.zeros(4, dtype=tack.f32)
    swap_vectors(out)
    v, w = (1.0, 2.0), (3.0, 4.0)
    v, w = w, v
    np.testing.assert_array_equal(out.numpy(), f32(v + w))


@tack.kernel
def fibonacci_step(out):
    for i in range(1):
        p = tack.vec2(1.0, 1.0)
        q = tack.vec2(2.0, 3.0)
        p, q = q, p + q
        out[0] = p.x
        out[1] = p.y
        out[2] = q.x
        out[3] = q.y


def test_right_side_reads_the_old_vectors(backend):
    out = tack.zeros(4, dtype=tack.f32)
    fibonacci_step(out)
    p, q = (1.0, 1.0), (2.0, 3.0)
    p, q = q, tuple(a + b for a, b in zip(p, q))
    np.testing.assert_array_equal(out.numpy(), f32(p + q))


@tack.kernel
def component_then_whole(out):
    for i in range(1):
        r = tack.vec2(1.0, 2.0)
        t = tack.vec2(0.0, 0.0)
        r.x, t = 9.0, r
        out[0] = r.x
        out[1] = t.x
        out[2] = t.y


def test_a_component_target_does_not_change_a_value_already_evaluated(backend):
    out = tack.zeros(3, dtype=tack.f32)
    component_then_whole(out)
    r = [1.0, 2.0]
    rhs = (9.0, tuple(r))
    r[0], t = rhs
    np.testing.assert_array_equal(out.numpy(), f32([r[0], t[0], t[1]]))


@tack.func
def logged(log, k, value):
    log[k] = log[k] * 10.0 + value
    return value


@tack.kernel
def order_of_calls(log, out):
    for i in range(1):
        p, q = tack.vec2(logged(log, 0, 1.0), 0.0), logged(log, 0, 2.0)
        out[0] = p.x
        out[1] = q


def test_calls_on_the_right_run_left_to_right(backend):
    log = tack.zeros(1, dtype=tack.f32)
    out = tack.zeros(2, dtype=tack.f32)
    order_of_calls(log, out)
    assert log.numpy()[0] == np.float32(12.0)  # 1 first, then 2
    np.testing.assert_array_equal(out.numpy(), f32([1.0, 2.0]))


@tack.kernel
def swap_elements(a, b):
    for i in range(len(a)):
        a[i], b[i] = b[i], a[i]


@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_array_elements_swap(backend, layout):
    av = np.arange(12, dtype=np.float32).reshape(4, 3)
    bv = -np.arange(12, dtype=np.float32).reshape(4, 3) - 100
    a = tack.zeros(4, dtype=tack.vec3f, layout=layout)
    b = tack.zeros(4, dtype=tack.vec3f, layout=layout)
    a.numpy()[...] = av
    b.numpy()[...] = bv
    swap_elements(a, b)
    np.testing.assert_array_equal(a.numpy(), bv)
    np.testing.assert_array_equal(b.numpy(), av)


@tack.func
def vector_then_number(x):
    return tack.vec2(x, 2.0 * x), x + 1.0


@tack.func
def number_vector_number(x):
    return x - 1.0, tack.vec2(x, 3.0 * x), x + 1.0


@tack.func
def forwarded(x):
    return vector_then_number(x + 10.0)


def vector_then_number_py(x):
    return (x, 2.0 * x), x + 1.0


@tack.kernel
def results_to_locals(a, out):
    for i in range(len(a)):
        v, s = vector_then_number(a[i])
        out[i, 0] = v.x
        out[i, 1] = v.y
        out[i, 2] = s
        u, w, t = number_vector_number(a[i])
        out[i, 3] = u
        out[i, 4] = w.y
        out[i, 5] = t
        g, h = forwarded(a[i])
        out[i, 6] = g.y
        out[i, 7] = h


def test_several_results_are_read_after_the_body_has_run(backend):
    xs = np.array([0.5, 1.5, -2.0, 7.0], dtype=np.float32)
    out = tack.zeros((4, 8), dtype=tack.f32)
    # Run twice: a stale read would see the previous iteration's or call's values.
    results_to_locals(tack.array(xs), out)
    results_to_locals(tack.array(xs), out)
    expected = []
    for x in xs.tolist():
        (vx, vy), s = vector_then_number_py(x)
        u, w, t = x - 1.0, (x, 3.0 * x), x + 1.0
        (gx, gy), h = vector_then_number_py(x + 10.0)
        expected.append([vx, vy, s, u, w[1], t, gy, h])
    np.testing.assert_array_equal(out.numpy(), f32(expected))


@tack.kernel
def results_to_elements(a, v, s):
    for i in range(len(a)):
        v[i], s[i] = vector_then_number(a[i])


def test_several_results_into_array_elements(backend):
    xs = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    v = tack.zeros(3, dtype=tack.vec2f)
    s = tack.zeros(3, dtype=tack.f32)
    results_to_elements(tack.array(xs), v, s)
    np.testing.assert_array_equal(v.numpy(), f32([[x, 2 * x] for x in xs.tolist()]))
    np.testing.assert_array_equal(s.numpy(), xs + 1)


@tack.device_class
class Stepper:
    def __init__(self, scale):
        self.scale = scale

    @tack.func
    def step(self, x):
        return tack.vec2(x * self.scale, x), x + self.scale


@tack.kernel
def method_results(st, a, out):
    for i in range(len(a)):
        v, s = st.step(a[i])
        out[i, 0] = v.x
        out[i, 1] = s


def test_several_results_of_a_method(backend):
    xs = np.array([1.0, -4.0], dtype=np.float32)
    out = tack.zeros((2, 2), dtype=tack.f32)
    method_results(Stepper(3.0), tack.array(xs), out)
    np.testing.assert_array_equal(out.numpy(), f32([[x * 3.0, x + 3.0] for x in xs.tolist()]))


@tack.func
def random_state(state):
    # A generator's value and its next state, as a path tracer threads them.
    nxt = state * 1103515245 + 12345
    return tack.vec2(tack.f32(nxt % 1000), 0.0), nxt


@tack.kernel
def threaded_state(seeds, out):
    for i in range(len(seeds)):
        s = seeds[i]
        v, s = random_state(s)
        w, s = random_state(s)
        out[i, 0] = v.x
        out[i, 1] = w.x


def test_state_threaded_through_several_results_stays_per_iteration(backend):
    seeds = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.int32)
    out = tack.zeros((8, 2), dtype=tack.f32)
    threaded_state(tack.array(seeds), out)
    def wrap32(x):
        x &= 0xFFFFFFFF
        return x - 2**32 if x >= 2**31 else x

    expected = []
    for s in seeds.tolist():
        row = []
        for _ in range(2):
            s = wrap32(s * 1103515245 + 12345)
            row.append(float(s % 1000))
        expected.append(row)
    np.testing.assert_array_equal(out.numpy(), f32(expected))
