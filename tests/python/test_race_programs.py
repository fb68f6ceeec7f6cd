"""Random kernels whose iterations read, write and atomically update array
elements at computed indices, through parameters bound to views of shared
buffers (slices, steps, reversals, the same array twice, an i64 buffer's
i32 halves, its bytes, the components of vector arrays): in debug mode on
the CPU the call raises tack.RaceError exactly where two iterations
conflict on a byte or component (docs/diagnostics.md, "Data races"),
naming a conflicting element and a conflicting pair of its accesses; one
that indexes past an array raises IndexError naming such an access, on
every backend; a program without a race leaves its arrays as CPython
running the same source leaves them, in debug mode and outside it, in
SIMD lanes, as the scalar program and on OpenCL.

    TACK_RACE_PROGRAMS_COUNT=5000 pytest tests/python/test_race_programs.py
    python -m tests.python.race_programs --count 100000      # soak
"""

import os

import pytest

from race_programs import run_batch
from race_programs.programs import generate

COUNT = int(os.environ.get("TACK_RACE_PROGRAMS_COUNT", "400"))
BATCH = 50


@pytest.mark.parametrize("first", range(0, COUNT, BATCH), ids=lambda s: f"seeds-{s:06d}-{s + BATCH - 1:06d}")
def test_races_are_reported_exactly_and_race_free_programs_compute_cpythons_values(first):
    mismatches = run_batch(list(range(first, min(first + BATCH, COUNT))))
    shown = "\n".join(str(m) for m in mismatches[:3])
    assert not mismatches, f"{len(mismatches)} mismatches:\n{shown}"


def test_the_programs_reach_races_of_every_kind_and_race_free_sharing():
    """The seeds CI runs include races of each pair of access kinds, through
    device functions, conditions' short circuits and sequential loops, and
    race-free calls whose parameters share memory."""
    kinds, shared_race_free, device_function_races = set(), 0, 0
    for seed in range(COUNT):
        program = generate(seed)
        races = program.races()
        for touches in races.values():
            for (kind, _, in_function) in touches:
                kinds.add(kind)
                device_function_races += in_function
        if not races and program.n > 1 and len({b.buffer for b in program.bindings.values()}) < len(program.params):
            shared_race_free += 1
    assert kinds == {"R", "W", "A"}
    assert sum(bool(generate(seed).outside()) for seed in range(COUNT)) >= COUNT // 40
    vectors = [generate(seed) for seed in range(COUNT)]
    vectors = [p for p in vectors if p.vector]
    assert sum(bool(p.races()) for p in vectors) >= 20 and sum(not p.races() for p in vectors) >= 20
    assert device_function_races > 0
    assert shared_race_free >= COUNT // 10
