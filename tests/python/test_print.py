"""print() in kernels: one whole line per call, numbers as Python prints
them, vectors as bracketed lists; rejected outside the parallel loop."""

import numpy as np
import pytest
import tack


@tack.kernel
def show(x, n):
    for i in range(len(x)):
        print(i, x[i], n, tack.vec2(x[i], 0.5), [tack.i64(i)])


def test_one_line_per_call_as_python_prints_numbers(backend, capfd):
    values = np.array([1.5, -0.0, 0.1], dtype=np.float32)
    show(tack.array(values), 7)
    lines = sorted(capfd.readouterr().out.splitlines())
    # NumPy prints an f32 with the shortest digits that round-trip in f32.
    want = sorted(f"{i} {str(np.float32(v))} 7 [{str(np.float32(v))}, 0.5] [{i}]" for i, v in enumerate(values))
    assert lines == want


@pytest.mark.cpu_only("a frontend diagnostic; no backend runs")
def test_print_outside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as e:

        @tack.kernel
        def early_print(x):
            print(1)
            for i in range(len(x)):
                x[i] = 0.0

        early_print(tack.zeros(2))
    assert e.value.construct == "print"
