"""Debug mode's race detector: two iterations of one launch that touch one
array element, at least one with a plain store (or one atomically and the
other plainly), make the call raise tack.RaceError naming the kernel, the
array, the element and both accesses' source lines.

Oracles: the expected lines come from this file's own text, the expected
elements from the kernels' index arithmetic in Python, and race-free
kernels' results from NumPy and from the same call outside debug mode."""

import re
from pathlib import Path

import numpy as np
import pytest
import tack

from backends import LLVM_INSPECTION

HERE = Path(__file__)
SOURCE = HERE.read_text().split("\n")

# The backends whose debug variants detect races (docs/diagnostics.md): the
# CPU's. The C-family backends check bounds in debug mode but not races.
RACE_BACKENDS = {"cpu"}


def line_of(text, after=None):
    """The 1-based line of this file holding `text` (the first after the
    line holding `after`)."""
    start = SOURCE.index(next(s for s in SOURCE if after in s)) if after else 0
    for k in range(start, len(SOURCE)):
        if text in SOURCE[k]:
            return k + 1
    raise AssertionError(f"{text!r} is not in {HERE.name}")


@pytest.fixture(autouse=True)
def debug_mode():
    """Every case runs in debug mode with the race detector, and leaves the
    settings as it found them."""
    debug, races = tack.debug_enabled(), tack.debug_races_enabled()
    tack.set_debug(True, races=True)
    yield
    tack.set_debug(debug, races=races)


def raced(kernel, *args):
    with pytest.raises(tack.RaceError) as caught:
        kernel(*args)
    return str(caught.value)


def element_of(message, array):
    m = re.search(r"data race on element \(([-\d, ]+)\) of array '" + re.escape(array) + "'", message)
    assert m, message
    return tuple(int(x) for x in m.group(1).split(",") if x.strip())


def access_lines(message):
    """The (verb, line number, source text) of both accesses."""
    found = re.findall(r"iteration (reads|writes|updates) it(?: atomically)? at (\S+?):(\d+)(?: in device function '\w+')?: (.*)", message)
    assert len(found) == 2, message
    for _, filename, _, _ in found:
        assert filename.endswith(HERE.name), message
    return [(verb, int(line), text) for verb, _, line, text in found]


# ------------------------------------------------------------ racing kernels


@tack.kernel
def all_write_first(out):
    for i in range(len(out)):
        out[0] = i * 2  # every iteration writes element 0


@tack.kernel
def halve_count(grid, n):
    for i in range(n):
        grid[i // 2] += 1


@tack.kernel
def shift_left(a):
    for i in range(len(a) - 1):
        v = a[i + 1]  # reads what iteration i + 1 writes
        a[i] = v * 2  # writes what iteration i - 1 reads


@tack.kernel
def atomic_then_plain(count, n):
    for i in range(n):
        tack.atomic_add(count, 0, 1)
        if i == 3:
            count[0] = 100


@tack.kernel
def atomic_and_read(count, seen, n):
    for i in range(n):
        tack.atomic_add(count, 0, 1)
        seen[i] = count[0]


@tack.kernel
def same_row(m):
    for r, c in tack.ndindex(m.shape[0], m.shape[1]):
        m[r, 0] = c  # every c of row r writes (r, 0)


@tack.func
def bump(grid, j):
    grid[j] -= 1.0


@tack.kernel
def bump_pairs(grid, n):
    for i in range(n):
        bump(grid, i % 3)


def test_race_error_is_a_runtime_error():
    assert issubclass(tack.RaceError, RuntimeError)


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_every_iteration_writing_one_element_raises_naming_the_store():
    out = tack.zeros(64, dtype=tack.i32)
    message = raced(all_write_first, out)
    assert message.startswith("kernel 'all_write_first': "), message
    assert element_of(message, "out") == (0,)
    line = line_of("out[0] = i * 2")
    assert [(verb, n) for verb, n, _ in access_lines(message)] == [("writes", line), ("writes", line)]
    assert all(text.startswith("out[0] = i * 2") for _, _, text in access_lines(message))
    assert "one writing iteration" in message


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_augmented_store_to_a_shared_element_suggests_atomic_add():
    n = 40
    grid = tack.zeros(n // 2, dtype=tack.i32)
    message = raced(halve_count, grid, n)
    (k,) = element_of(message, "grid")
    assert 0 <= k < n // 2  # i // 2 for i < n: every element is shared by i = 2k and 2k + 1
    line = line_of("grid[i // 2] += 1")
    lines = access_lines(message)
    assert [n_ for _, n_, _ in lines] == [line, line]
    assert {verb for verb, _, _ in lines} <= {"reads", "writes"} and "writes" in {v for v, _, _ in lines}
    assert "augmented store" in message
    assert "tack.atomic_add(grid, i // 2, 1)" in message
    # The suggestion is right: with it, every iteration's increment lands.
    @tack.kernel
    def halve_count_atomic(grid, n):
        for i in range(n):
            tack.atomic_add(grid, i // 2, 1)

    grid = tack.zeros(n // 2, dtype=tack.i32)
    halve_count_atomic(grid, n)
    np.testing.assert_array_equal(grid.numpy(), np.bincount(np.arange(n) // 2))


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_augmented_subtraction_in_a_device_function_suggests_atomic_sub():
    grid = tack.zeros(3)
    message = raced(bump_pairs, grid, 9)
    (k,) = element_of(message, "grid")
    assert k in (0, 1, 2)
    line = line_of("grid[j] -= 1.0")
    lines = access_lines(message)
    assert [n for _, n, _ in lines] == [line, line]
    assert "in device function 'bump'" in message
    assert "tack.atomic_sub(grid, j, 1.0)" in message


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_reading_the_next_element_while_writing_this_one_names_both_lines():
    n = 50
    a = tack.array(np.arange(n, dtype=np.float32))
    message = raced(shift_left, a)
    (k,) = element_of(message, "a")
    # Element k is written by iteration k and read by iteration k - 1.
    assert 1 <= k <= n - 2
    read_line, write_line = line_of("v = a[i + 1]"), line_of("a[i] = v * 2")
    lines = access_lines(message)
    assert sorted((verb, line) for verb, line, _ in lines) == [("reads", read_line), ("writes", write_line)]
    texts = {verb: text for verb, _, text in lines}
    assert texts["reads"].startswith("v = a[i + 1]") and texts["writes"].startswith("a[i] = v * 2")
    assert "augmented" not in message


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_an_atomic_and_a_plain_store_of_one_element_race():
    message = raced(atomic_then_plain, tack.zeros(1, dtype=tack.i32), 16)
    assert element_of(message, "count") == (0,)
    lines = access_lines(message)
    assert sorted(verb for verb, _, _ in lines) == ["updates", "writes"]
    assert sorted(line for _, line, _ in lines) == sorted(
        [line_of("tack.atomic_add(count, 0, 1)", "def atomic_then_plain"), line_of("count[0] = 100")])
    assert "atomics are atomic only against other atomics" in message


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_an_atomic_and_a_plain_read_of_one_element_race():
    n = 16
    message = raced(atomic_and_read, tack.zeros(1, dtype=tack.i32), tack.zeros(n, dtype=tack.i32), n)
    assert element_of(message, "count") == (0,)
    lines = access_lines(message)
    assert sorted(verb for verb, _, _ in lines) == ["reads", "updates"]


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_a_two_dimensional_race_names_the_index_tuple():
    rows, cols = 5, 8
    message = raced(same_row, tack.zeros((rows, cols), dtype=tack.i32))
    r, c = element_of(message, "m")
    assert 0 <= r < rows and c == 0
    line = line_of("m[r, 0] = c")
    assert [n for _, n, _ in access_lines(message)] == [line, line]


# ------------------------------------- races through views of one memory


@tack.kernel
def copy_plus_one(src, dst):
    for i in range(len(dst)):
        dst[i] = src[i] + 1.0


@tack.kernel
def write_floats_read_words(f, w, out):
    for i in range(len(f)):
        f[i] = 1.5  # writes f's bytes 4i..4i+3
        out[i] = w[i * 4 + 4] if i * 4 + 4 < len(w) else 0  # reads the byte after them


@tack.kernel
def write_floats_read_own_words(f, w, out):
    for i in range(len(f)):
        f[i] = 1.5
        out[i] = w[i * 4] + w[i * 4 + 3]  # bytes of the element this iteration wrote


@tack.kernel
def blend(x, y, out):
    for i in range(len(out)):
        out[i] = x[i] + y[len(y) - 1 - i]


def underlying(message, names_to_offset):
    """The buffer index of the raced element: the message names it in one of
    the views, each at an offset into the buffer."""
    for name, offset in names_to_offset.items():
        if f"of array '{name}'" in message:
            (k,) = element_of(message, name)
            return k + offset
    raise AssertionError(message)


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_two_overlapping_views_race_through_each_other():
    # dst = a[1:], src = a[:-1]: iteration i writes a[i + 1], which
    # iteration i + 1 reads through the other view.
    n = 40
    a = tack.array(np.arange(n, dtype=np.float32))
    message = raced(copy_plus_one, a[:-1], a[1:])
    m = underlying(message, {"src": 0, "dst": 1})
    assert 1 <= m <= n - 2  # written by iteration m - 1, read by iteration m
    assert "shares memory with array" in message
    assert {"'src'", "'dst'"} <= set(re.findall(r"'(?:src|dst)'", message))
    lines = access_lines(message)
    line = line_of("dst[i] = src[i] + 1.0")
    assert sorted(verb for verb, _, _ in lines) == ["reads", "writes"]
    assert [n for _, n, _ in lines] == [line, line]


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_the_same_array_passed_twice_races_through_both_parameters():
    # Reversing in place: iteration i writes a[i], iteration n-1-i reads it.
    n = 33
    a = tack.array(np.arange(n, dtype=np.float32))
    message = raced(blend, a, a, a)
    assert "shares memory with array" in message
    (k,) = re.search(r"data race on element \((\d+),\) of array '(?:x|y|out)'", message).groups()
    assert 0 <= int(k) < n and int(k) != n // 2  # the middle element is its own mirror


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_views_of_one_memory_without_a_conflict_raise_nothing():
    # Each iteration reads and writes only its own element, through two
    # parameters bound to one array: no race, and NumPy's result.
    a = np.linspace(-1, 1, 64, dtype=np.float32)
    t = tack.array(a)
    copy_plus_one(t, t)
    np.testing.assert_array_equal(t.numpy(), a + np.float32(1))
    # Two read-only views overlapping each other, one written array apart.
    x = np.arange(20, dtype=np.float32)
    tx = tack.array(x)
    out = tack.zeros(10)
    blend(tx[:10], tx[5:15], out)
    np.testing.assert_array_equal(out.numpy(), x[:10] + x[5:15][::-1])


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_views_of_different_dtypes_race_by_bytes():
    # A float view and a byte view of one NumPy buffer, shared without a
    # copy: iteration i writes floats' bytes 4i..4i+3 and reads byte 4i + 4,
    # which iteration i + 1 writes.
    n = 16
    buffer = np.zeros(n, dtype=np.float32)
    words = buffer.view(np.uint8)
    message = raced(write_floats_read_words, buffer, words, tack.zeros(n, dtype=tack.i32))
    m = underlying(message, {"f": 0, "w": 0})
    assert "shares memory with array" in message
    if "of array 'w'" in message:
        assert m % 4 == 0 and 4 <= m <= 4 * (n - 1)  # the first byte of float m // 4
    else:
        assert 1 <= m <= n - 1
    # Reading the bytes of the float the same iteration wrote is no race.
    buffer[:] = 0
    out = tack.zeros(n, dtype=tack.i32)
    write_floats_read_own_words(buffer, words, out)
    one_and_a_half = np.frombuffer(np.float32(1.5).tobytes(), dtype=np.uint8)
    np.testing.assert_array_equal(out.numpy(), np.full(n, int(one_and_a_half[0]) + int(one_and_a_half[3])))


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_races_are_found_whatever_the_schedule():
    # Many launches: each finds the race, whichever iteration ran first.
    for _ in range(20):
        raced(halve_count, tack.zeros(500, dtype=tack.i32), 1000)


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_races_off_keeps_bounds_checks_and_raises_nothing():
    tack.set_debug(True, races=False)
    all_write_first(tack.zeros(64, dtype=tack.i32))
    halve_count(tack.zeros(20, dtype=tack.i32), 40)
    with pytest.raises(IndexError):
        halve_count(tack.zeros(2, dtype=tack.i32), 40)


# --------------------------------------------------------- race-free kernels


@tack.kernel
def disjoint_writes(a, out):
    for i in range(len(out)):
        out[i] = a[i] * 2.0


@tack.kernel
def read_what_nobody_writes(a, out):
    for i in range(len(out)):
        out[i] = a[(i + 1) % len(a)] + a[0]


@tack.kernel
def histogram(hist, keys):
    for i in range(len(keys)):
        tack.atomic_add(hist, keys[i] % 4, 1)
        tack.atomic_max(hist, 4, keys[i])


@tack.kernel
def own_element(a):
    for i in range(len(a)):
        a[i] += 1.5
        for k in range(3):
            a[i] = a[i] * 2.0 - k


@tack.kernel
def own_row(m):
    for r in range(m.shape[0]):
        for c in range(1, m.shape[1]):
            m[r, c] += m[r, c - 1]


def own_element_oracle(a):
    a = a + np.float32(1.5)
    for k in range(3):
        a = a * np.float32(2.0) - np.float32(k)
    return a


RACE_FREE = {
    "disjoint_writes": (
        disjoint_writes,
        lambda: [np.arange(37, dtype=np.float32), np.zeros(37, np.float32)],
        lambda a, out: [a, a * np.float32(2.0)],
    ),
    "read_what_nobody_writes": (
        read_what_nobody_writes,
        lambda: [np.arange(37, dtype=np.float32), np.zeros(37, np.float32)],
        lambda a, out: [a, np.roll(a, -1) + a[0]],
    ),
    "atomics_only": (
        histogram,
        lambda: [np.zeros(5, np.int32), (np.arange(101, dtype=np.int32) * 7) % 23],
        lambda hist, keys: [
            np.append(np.bincount(keys % 4, minlength=4), keys.max()).astype(np.int32),
            keys,
        ],
    ),
    "read_then_write_own_element": (
        own_element,
        lambda: [np.arange(37, dtype=np.float32) / 4],
        lambda a: [own_element_oracle(a)],
    ),
    "own_row_prefix_sum": (
        own_row,
        lambda: [np.arange(6 * 9, dtype=np.int32).reshape(6, 9)],
        lambda m: [np.cumsum(m, axis=1, dtype=np.int32)],
    ),
}


@pytest.mark.parametrize("case", sorted(RACE_FREE))
def test_race_free_kernels_raise_nothing_and_match_numpy_and_non_debug_runs(backend, case):
    kernel, make, oracle = RACE_FREE[case]
    inputs = make()
    want = oracle(*[x.copy() for x in inputs])
    results = []
    for debug in (True, False):
        tack.set_debug(debug)
        arrays = [tack.array(x) for x in inputs]
        kernel(*arrays)
        results.append([x.numpy() for x in arrays])
    for got in results:
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


# ------------------------------------------------------------ non-debug code


@pytest.mark.cpu_only(LLVM_INSPECTION)
def test_only_race_checking_debug_variants_call_the_race_runtime():
    def code(debug, races=True):
        tack.set_debug(debug, races=races)
        return halve_count.inspect("llvm-unoptimized", tack.zeros(4, dtype=tack.i32), 8)

    assert "tack_rt_race_access" in code(True)
    # The check needs the scalar program, and says so.
    assert "race detection runs the scalar program" in code(True).split("\n", 1)[0]
    assert "tack_rt_race_access" not in code(True, races=False)
    assert "tack_rt_bounds_failure" in code(True, races=False)
    plain = code(False)
    assert "tack_rt_race_access" not in plain and "tack_rt_bounds_failure" not in plain
    # Turning the detector off or on leaves ordinary variants as they were.
    assert code(False, races=False) == plain


WITHOUT_DETECTOR = [
    pytest.param(d, marks=pytest.mark.skipif(d not in tack.available_devices(), reason=f"no {d} device here"))
    for d in ("opencl", "cuda", "hip")
    if d not in RACE_BACKENDS
]


@pytest.mark.parametrize("device", WITHOUT_DETECTOR)
def test_debug_mode_on_backends_without_the_detector_still_runs(device):
    # Documented: the C-family backends check bounds in debug mode but do
    # not detect races, so a racing kernel runs and returns.
    grid = tack.zeros(20, dtype=tack.i32, device=device)
    halve_count(grid, 40)
    assert grid.numpy().max() <= 2


# ------------------------------------------------ components of an element


@tack.kernel
def write_x_read_next_y(v, out):
    for i in range(len(out)):
        v[i].x = tack.f32(i)
        out[i] = v[(i + 1) % len(v)].y


@tack.kernel
def write_x_read_next_component(v, out, k):
    for i in range(len(out)):
        v[i].x = tack.f32(i)
        out[i] = v[(i + 1) % len(v)][k]


@tack.kernel
def write_entry_read_next_entry(m, out, r, c):
    for i in range(len(out)):
        m[i][0, 1] = tack.f32(i)
        out[i] = m[(i + 1) % len(m)][r, c]


@tack.kernel
def write_entry_read_next_row(m, out):
    for i in range(len(out)):
        m[i][0, 1] = tack.f32(i)
        out[i] = m[(i + 1) % len(m)][0].x


@pytest.mark.cpu_only("the race detector is the CPU backend's")
@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_components_of_one_element_are_accessed_apart(layout):
    # Iteration i writes component x of element i; iteration i - 1 reads
    # component y of it (by name or by a runtime position): no component is
    # touched by two iterations, so no race, and the values read are the
    # untouched components' (NumPy's view of the same data).
    n = 9
    start = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
    for call in (lambda v, out: write_x_read_next_y(v, out), lambda v, out: write_x_read_next_component(v, out, 1)):
        v, out = tack.array(start, dtype=tack.vec3f, layout=layout), tack.zeros(n)
        call(v, out)
        np.testing.assert_array_equal(out.numpy(), np.roll(start[:, 1], -1))
        np.testing.assert_array_equal(v.numpy()[:, 0], np.arange(n, dtype=np.float32))
    # A runtime position of x reads what the next iteration writes.
    message = raced(write_x_read_next_component, tack.array(start, dtype=tack.vec3f, layout=layout), tack.zeros(n), 0)
    assert re.search(r"data race on component 0 of element \((\d+),\) of array 'v'", message), message


@pytest.mark.cpu_only("the race detector is the CPU backend's")
@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_entries_of_one_matrix_element_are_accessed_apart(layout):
    n = 7
    start = np.arange(4 * n, dtype=np.float32).reshape(n, 2, 2)
    for r, c in [(1, 0), (0, 0), (1, 1)]:
        m, out = tack.array(start, dtype=tack.mat22f, layout=layout), tack.zeros(n)
        write_entry_read_next_entry(m, out, r, c)
        np.testing.assert_array_equal(out.numpy(), np.roll(start[:, r, c], -1))
    # Entry (0, 1), component 1, is the one every iteration writes: read
    # at a runtime position, or as a component of row 0 selected by a
    # literal (row 0 holds it, though .x reads (0, 0) alone).
    message = raced(write_entry_read_next_entry, tack.array(start, dtype=tack.mat22f, layout=layout), tack.zeros(n),
                    0, 1)
    assert re.search(r"data race on component 1 of element \((\d+),\) of array 'm'", message), message
    m, out = tack.array(start, dtype=tack.mat22f, layout=layout), tack.zeros(n)
    write_entry_read_next_row(m, out)
    np.testing.assert_array_equal(out.numpy(), np.roll(start[:, 0, 0], -1))


# ------------------------------------------- an array whose elements overlap


@tack.kernel
def write_own_read_own(a, out):
    for i in range(len(out)):
        a[i] = i
        out[i] = a[i]


@tack.kernel
def column_steps(a, out):
    for c in range(len(out)):
        a[0, c] = 1
        a[1, c] += 1
        out[c] = a[0, c] + a[2, c] * 10


@pytest.mark.cpu_only("the race detector is the CPU backend's")
def test_elements_that_share_memory_race_by_address():
    # A stride-0 view: every element is buffer[0], so iteration i's a[i]
    # and iteration j's a[j] are one int, written by both.
    buffer = np.zeros(4, np.int32)
    every = np.lib.stride_tricks.as_strided(buffer, shape=(8,), strides=(0,))
    message = raced(write_own_read_own, every, np.zeros(8, np.int32))
    assert "of array 'a' (whose elements share memory with each other)" in message, message
    # Rows of stride 0: column c is one int in every row, which iteration c
    # alone touches, so there is no race, and the values are CPython's
    # (program order holds through the elements sharing it: a[1, c] += 1
    # reads the 1 that a[0, c] = 1 stored).
    def run(call):
        buffer = np.zeros(12, np.int32)
        out = np.zeros(12, np.int32)
        call(np.lib.stride_tricks.as_strided(buffer, shape=(3, 12), strides=(0, 4)), out)
        return buffer, out

    for got, want in zip(run(column_steps), run(column_steps.__wrapped__)):
        np.testing.assert_array_equal(got, want)
