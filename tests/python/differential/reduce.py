"""Shrinks a failing program to a small one that fails the same way.

Deletes lines (a block header with its whole block) or replaces a block
header by its body, keeping each candidate that CPython still parses, whose
oracle still runs, and whose comparison still fails with the same kind of
mismatch. The result is a starting point for a named regression case.
"""

import ast
import itertools
import re

from .grammar import Program
from .runner import run_programs

_names = itertools.count()


def _signature(mismatch):
    """What makes two failures the same: the kind, and for exceptions the
    type and message with numbers and positions left out."""
    if mismatch.what != "tack raised":
        return mismatch.what
    first = mismatch.detail.splitlines()[0]
    first = re.sub(r"^\S+:\d+:\d+ ", "", first.split(": ", 1)[-1]) if ": " in first else first
    return mismatch.what, mismatch.detail.split(":", 1)[0], re.sub(r"\d+", "N", first)


def _block_end(lines, k):
    indent = len(lines[k]) - len(lines[k].lstrip())
    end = k + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    return end


def _candidates(lines):
    # Whole helpers first, then statements from the end.
    for k, line in enumerate(lines):
        if line.startswith("@tack.func"):
            end = _block_end(lines, k + 1)
            yield lines[:k] + lines[end:]
    for k in range(len(lines) - 1, -1, -1):
        stripped = lines[k].lstrip()
        if stripped.startswith(("@tack", "def ")) or not stripped:
            continue
        end = _block_end(lines, k)
        yield lines[:k] + lines[end:]
        if end > k + 1 and stripped.endswith(":") and not stripped.startswith(("else", "elif")):
            dedented = [ln[4:] if ln.startswith("    ") else ln for ln in lines[k + 1:end]]
            yield lines[:k] + dedented + lines[end:]


def _parses(lines):
    text = "\n".join(lines)
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    # Every def keeps a body.
    return all(_block_end(lines, k) > k + 1 for k, ln in enumerate(lines) if ln.lstrip().startswith("def "))


def reduce(program, mismatch, steps=400):
    lines = program.source.splitlines()
    for _ in range(steps):
        for cand in _candidates(lines):
            if not _parses(cand):
                continue
            trial = Program(program.seed, program.kernel, program.helpers, "\n".join(cand) + "\n")
            found = run_programs([trial], f"tack_reduce_{next(_names)}")
            if found and _signature(found[0]) == _signature(mismatch):
                lines = cand
                break
        else:
            break
    return "\n".join(lines) + "\n"
