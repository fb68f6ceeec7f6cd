"""Random calls of Tack's host API (tests/python/host_calls), in child
processes: each returns or refuses its arguments with the exceptions
Python's functions raise for bad arguments, none crashes the process or
raises another exception (std::bad_cast surfaced as a RuntimeError before
fill() refused complex numbers), and host indexing selects what NumPy's
basic indexing does.

    TACK_HOST_CALLS_COUNT=2000 pytest tests/python/test_host_calls.py
    python -m tests.python.host_calls --count 20000      # soak
"""

import os

import pytest

from host_calls import check_batch
from host_calls.calls import calls

COUNT = int(os.environ.get("TACK_HOST_CALLS_COUNT", "60"))
BATCH = 15


@pytest.mark.parametrize("first", range(0, COUNT, BATCH), ids=lambda s: f"seeds-{s:06d}-{s + BATCH - 1:06d}")
def test_host_calls_return_or_refuse_their_arguments(first):
    findings = check_batch(range(first, min(first + BATCH, COUNT)))
    shown = "\n".join(str(f) for f in findings[:5])
    assert not findings, f"{len(findings)} findings:\n{shown}"


def test_the_calls_reach_every_part_of_the_host_api():
    made = "\n".join(c.what for seed in range(20) for c in calls(seed, 60, ["cpu"]))
    for part in ("tack.array(", "tack.full(", "tack.arange(", "tack.copyto(", "_like(", ".reshape(", ".astype(",
                 ".fill(", ".transpose(", ".sum(", "scale_into(", "double_elements(", "shift_grid(", "add_all(",
                 "write_range(", "T.matmul(", "T.einsum(", "T.topk(", "T.conv2d(", "tack.set_num_threads(",
                 "tack.set_default_device(", "tack.from_dlpack(", "[("):
        assert part in made, f"the first 20 seeds never call {part}"
