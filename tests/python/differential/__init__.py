"""Differential testing: generated kernels run compiled by Tack and as
serial CPython over independent copies of the same arrays (the two
outputs, in a quarter of the programs, one array on both sides).

    python -m tests.python.differential --count 100000       # soak test
    python -m tests.python.differential --show 1234          # one program

grammar.py generates programs from seeds, builder.py writes them into
importable modules (one compiled with Tack, one plain), runner.py runs both
and compares every array.
"""

from .grammar import Options, generate
from .runner import Mismatch, run_batch, run_seeds

__all__ = ["Options", "generate", "Mismatch", "run_batch", "run_seeds"]
