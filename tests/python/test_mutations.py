"""Mutants of generated programs (tests/python/mutations): one random
change to the syntax tree each, compiled for the CPU and printed in the
four C-family dialects, without running. Each compiles or is refused with
one of Tack's diagnostics at a position of its file; none raises an
InternalCompilerError or another exception, and none crashes the process.

    TACK_MUTATIONS_COUNT=20000 pytest tests/python/test_mutations.py
    python -m tests.python.mutations --count 100000      # soak
"""

import os
import re

import pytest

from mutations import check_batch, mutant

COUNT = int(os.environ.get("TACK_MUTATIONS_COUNT", "200"))
BATCH = 50


def _report(findings):
    shown = "\n\n".join(str(f) for f in findings[:3])
    return f"{len(findings)} findings (seeds {' '.join(str(f.seed) for f in findings)})\n\n{shown}"


@pytest.mark.parametrize("first", range(0, COUNT, BATCH), ids=lambda s: f"seeds-{s:06d}-{s + BATCH - 1:06d}")
def test_mutants_compile_or_get_a_diagnostic(first):
    findings = check_batch(range(first, min(first + BATCH, COUNT)))
    assert not findings, _report(findings)


def test_every_kind_of_change_is_made():
    changes = "\n".join(mutant(seed).change for seed in range(300))
    kinds = {
        "a name": r"^name ", "a literal": r"-> (None|'s'|1j|1\.5|2\.5)", "a builtin around an expression": r" -> \S+\(",
        "an operator": r"^operator ", "a deletion": r"^deleted ", "a move": r"^(moved|swapped) ",
        "a duplicate": r"^duplicated ", "an inserted statement": r"^inserted ", "a parameter": r"parameter",
        "a loop's range": r"^loop at ", "an assignment's target": r"^assignment at ", "a keyword": r"^keyword ",
    }
    missing = [k for k, pattern in kinds.items() if not re.search(pattern, changes, re.M)]
    assert not missing, f"the first 300 mutants never make: {missing}"
    assert "none" not in changes.splitlines(), "a mutant left its program unchanged"
