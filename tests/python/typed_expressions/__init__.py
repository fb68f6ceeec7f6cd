"""Typed expression testing: generated kernels of random integer types and
random nested expressions, run compiled by Tack and compared with the
contract's fixed-width rules evaluated in Python integers.

    python -m tests.python.typed_expressions --count 100000      # soak test
    python -m tests.python.typed_expressions --show 1234         # one program

grammar.py generates programs from seeds, each expression with its type and
its value under the contract (rules.py: the typing and value rules;
vectors.py: vectors and matrices; atomics.py: atomic updates and what any
order of them allows); runner.py runs them and compares every output.
"""

from .grammar import generate
from .runner import Mismatch, run_batch

__all__ = ["generate", "Mismatch", "run_batch"]
