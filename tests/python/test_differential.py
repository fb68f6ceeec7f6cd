"""Issue 3, differential programs: generated kernels compiled by Tack agree
with the same source run as serial CPython.

The generator (tests/python/differential) builds race-free integer kernels
from seeds; each batch of 50 programs becomes one module. A quarter of the
programs run with their two outputs as one array (each iteration touches
only its own index of either, so the program stays race-free, and CPython
runs it over one list): the CPU may not take its disjoint-storage variant
there, and every store must land in source order. Every mismatch the
generator has found is kept below as a fixed, named regression case, in its
reduced form, so it stays covered when the grammar changes.

    TACK_DIFFERENTIAL_COUNT=20000 pytest tests/python/test_differential.py
    python -m tests.python.differential --count 100000      # soak
    python -m tests.python.differential --reduce SEED       # shrink a failure
"""

import os
import re

import pytest

from differential import Options, generate, run_batch
from differential.grammar import Program
from differential.runner import run_programs

# Each program compiles twice on the CPU (its SIMD lanes with the scalar
# program beside them, then the scalar program alone): about a quarter of a
# second a program, two thirds of the CPU cases' time at 2000 programs. The
# soak command in the docstring above explores further seeds.
COUNT = int(os.environ.get("TACK_DIFFERENTIAL_COUNT", "1000"))
BATCH = 50
STEPPED_COUNT = 100
STEPPED_FIRST_SEED = 1_000_000


def _batches(first, count):
    return [list(range(s, min(s + BATCH, first + count))) for s in range(first, first + count, BATCH)]


def _report(mismatches):
    shown = "\n\n".join(str(m) for m in mismatches[:3])
    seeds = " ".join(str(m.seed) for m in mismatches)
    return (f"{len(mismatches)} mismatches (seeds {seeds}); reduce one with "
            f"`python -m tests.python.differential --reduce SEED`\n\n{shown}")


# A device backend builds each generated program (PoCL: about half a second
# a program), so it runs 6 of the 20 batches, spread over the seeds.
@pytest.mark.device_cases(6)
@pytest.mark.parametrize("seeds", _batches(0, COUNT), ids=lambda s: f"seeds-{s[0]:06d}-{s[-1]:06d}")
def test_generated_programs(backend, seeds):
    mismatches = run_batch(seeds)
    assert not mismatches, _report(mismatches)


@pytest.mark.parametrize("seeds", _batches(STEPPED_FIRST_SEED, STEPPED_COUNT),
                         ids=lambda s: f"seeds-{s[0]:06d}-{s[-1]:06d}")
def test_generated_programs_with_stepped_parallel_ranges(backend, seeds):
    mismatches = run_batch(seeds, Options(parallel_steps=True))
    assert not mismatches, _report(mismatches)


# ------------------------------------------------------------ the generator


def test_generation_is_reproducible():
    for seed in (0, 1, 77, 123456):
        assert generate(seed).source == generate(seed).source
        assert generate(seed, Options(parallel_steps=True)).source == generate(
            seed, Options(parallel_steps=True)).source


def test_the_grammar_reaches_every_construct_it_promises():
    sources = [generate(seed).source for seed in range(400)]
    text = "\n".join(sources)
    features = {
        "parallel start bound": r"for i in range\(n0, len\(o\)",
        "sequential positive step": r"for \w+ in range\([^\n]*, [123]\):",
        "nested sequential loops": r"\n {12,}for \w+ in range",
        "while loop": r"while w\d+ < 4",
        "if/elif/else": r"\n\s+elif ",
        "break": r"\n\s+break\n",
        "continue": r"\n\s+continue\n",
        "chained comparison": r"\(\S+ [<>=!]=? \S+ [<>=!]=? \S+\)",
        "short circuit with a call": r" (and|or) [^\n]*g\d+_\w+\(",
        "conditional expression with a call": r"g\d+_\w+\([^\n]* if [^\n]* else ",
        "augmented index with side effects": r"\[g\d+_touch\d+\([^\n]*\] [-+^|&]=",
        "helper returning two values": r"= g\d+_pair\d+\(",
        "helper storing through a parameter": r"res\[idx\] =",
        "helper calling a helper": r"def g\d+_\w+\(inp, res, idx, x\):(\n    [^\n]*)*\n\s+[^\n]*g\d+_\w+\(inp",
        "early return from a branch": r"\n    if [^\n]*:\n        return",
        "tuple assignment": r"\n\s+\w+, \w+ = ",
        "tuple assignment into an output": r"\n\s+\w+, [op]\[i\] = ",
        "floor division and modulo": r"// -?\d",
        "shifts": r"<< \d",
    }
    missing = [name for name, pattern in features.items() if not re.search(pattern, text)]
    assert not missing, f"the first 400 programs never generate: {missing}"


def test_programs_are_race_free_by_construction():
    # Outputs are written and read at the iteration's own index only.
    for seed in range(300):
        src = generate(seed).source
        for m in re.finditer(r"\b([op])\[([^\]]*)\]", src):
            index = m.group(2)
            assert index == "i" or re.fullmatch(r"g\d+_touch\d+\(.*", index), (seed, m.group(0))
        for m in re.finditer(r"\bres\[([^\]]*)\]", src):
            index = m.group(1)
            assert index == "idx" or re.fullmatch(r"g\d+_touch\d+\(.*", index), (seed, m.group(0))


# -------------------------------------------------------- regression cases
# Each case is a reduced program the generator once produced, with the seed
# whose inputs expose it.


def _check(seed, source, kernel):
    program = Program(seed, kernel, [], source)
    mismatches = run_programs([program], f"tack_differential_regression_{kernel}")
    assert not mismatches, _report(mismatches)


def test_regression_seed_1369_sequential_step_three_up_to_the_parallel_index(backend):
    # A sequential range with a step of 3 whose end is the parallel index
    # failed to link: the trip count needs a 128-bit division helper.
    _check(1369, '''
@tack.kernel
def step_three_to_i(a, b, o, p, n0, n1):
    for i in range(n0, len(o) - n0):
        for k in range(0, i, 3):
            o[i] += 1
''', "step_three_to_i")


def test_regression_seed_1000004_stepped_parallel_range(backend):
    # The parallel range's stepped iteration count failed to link the same way.
    _check(1000004, '''
@tack.kernel
def stepped_parallel(a, b, o, p, n0, n1):
    for i in range(n0, len(o), 3):
        o[i] = a[i] + 1
''', "stepped_parallel")
