"""Generated kernels of random integer and float types and nested expressions
agree with the contract's rules evaluated exactly, in Python integers and
NumPy's f32/f64 scalars (tests/python/typed_expressions): promotion (the
narrowest integer type holding both ranges; an integer with a float to the
float), wrapping at every operation's width, casts and stores modulo 2^N or
rounded to the nearest float or truncated, shifts that keep their left type,
floor division and modulo, true division in f32, float // and % (CPython's
float_divmod), integer power, vectors and square matrices of independently
typed components (componentwise operators, casts, masks, select, cross, dot,
@, transpose, sum, trace, determinants, any, all, components by literal, name
or runtime index, rows, vector arrays of either layout loaded and stored,
matrix arrays loaded; float dot, @, norm_sqr and norm with every fusion
contraction allows), 2-D arrays read at (row, column) indices of any integer
types, one flat row-major index or a vector index, i32 comparisons and truth
values (NaN true and unequal), float min/max preferring numbers, the exact
math builtins (floor, ceil, trunc, sqrt, copysign, fmod, the class tests),
joined local types, a local assigned under a condition only reading zero where
it was not, device functions (typed parameters, a local, early returns whose
types join, calls of other device functions), number arguments (NumPy scalars,
Python ints and floats), sequential for and while loops carrying a typed local
over a varying trip count with break and continue (one loop inside another
too), a continue of the parallel loop (the iteration's outputs keep their
zeros), local arrays filled with values the same in every SIMD lane or
varying, stored to under conditions and read back, parallel ranges over bounds
and steps of their own integer types at the ends of those types, arrays passed
as views of larger ones (stepped, backwards, a column; the elements outside
them must keep their sentinels; a 2-D array transposed twice), atomic updates
(add, sub, min, max, exch, cas on every type of the device's atomic domain;
numbers, 2x2 arrays by tuple indices, vector arrays of either layout; as
statements, checked against the fold every order gives, and as expressions,
whose returned old values must fit some order), and on backends with
workgroups, programs that pass values of random types between lanes through
shared arrays across barriers and block reductions
(typed_expressions/workgroups.py, checked by running each group in lock step
between barriers).

    TACK_TYPED_EXPRESSIONS_COUNT=20000 pytest tests/python/test_typed_expressions.py
    python -m tests.python.typed_expressions --count 100000     # soak
    python -m tests.python.typed_expressions --workgroups --count 1000 --device opencl
"""

import itertools
import math
import os
import random
import re

import numpy as np
import pytest
import tack

from backends import WORKGROUPS
from integer_types import INT_NAMES, NP, hi, lo, wrap
from typed_expressions import generate, run_batch
from typed_expressions.atomics import Atomics, Shape, Update
from typed_expressions.grammar import FLOAT_NAMES, Unspecified, float_divmod, promoted, to_float
from typed_expressions.contraction import fused, products_added
from typed_expressions.ranges import choose_range
from typed_expressions.rules import Context, Node
from typed_expressions.runner import run_workgroup_batch
from typed_expressions.workgroups import generate_workgroup

COUNT = int(os.environ.get("TACK_TYPED_EXPRESSIONS_COUNT", "200"))
WORKGROUP_SEEDS = 60
BATCH = 50


def _batches(first, count):
    return [list(range(s, min(s + BATCH, first + count))) for s in range(first, first + count, BATCH)]


def _report(mismatches):
    shown = "\n\n".join(str(m) for m in mismatches[:3])
    return f"{len(mismatches)} mismatches (seeds {' '.join(str(m.seed) for m in mismatches)})\n\n{shown}"


# A device backend builds each program (PoCL: about half a second each), so
# it runs one of the batches.
@pytest.mark.device_cases(1)
@pytest.mark.parametrize("seeds", _batches(0, COUNT), ids=lambda s: f"seeds-{s[0]:06d}-{s[-1]:06d}")
def test_generated_expressions(backend, seeds):
    mismatches = run_batch(seeds)
    assert not mismatches, _report(mismatches)


def test_generation_is_reproducible():
    for seed in (0, 1, 77, 123456):
        assert generate(seed).source == generate(seed).source
        assert generate_workgroup(seed).source == generate_workgroup(seed).source


# Workgroup programs (typed_expressions/workgroups.py) on each backend with
# workgroups: one batch each (PoCL builds each program in about half a
# second).
@pytest.mark.parametrize("device", [d for d in tack.available_devices() if WORKGROUPS[d]] or [pytest.param(
    None, marks=pytest.mark.skip(reason="no device with workgroups is available (install PoCL: pocl-opencl-icd)"))])
def test_generated_workgroup_programs(device):
    tack.set_default_device(device)
    try:
        mismatches = run_workgroup_batch(list(range(WORKGROUP_SEEDS)))
    finally:
        tack.set_default_device("cpu")
    assert not mismatches, _report(mismatches)


def _unreached(programs, features):
    """The names of the features (name -> a pattern) no program's source has."""
    text = "\n".join(p.source for p in programs)
    return [name for name, pattern in features.items() if not re.search(pattern, text)]


def test_the_workgroup_grammar_reaches_every_construct_it_promises():
    programs = [generate_workgroup(seed) for seed in range(WORKGROUP_SEEDS)]
    missing = _unreached(programs, {
        "a shared array of 256": r"s = tack\.shared\(256, tack\.",
        "a 16x16 shared array": r"s = tack\.shared\(\(16, 16\), tack\.",
        "the lane's own element": r"s\[lane\] = ",
        "a reversed permutation": r"s\[255 - lane\] = ",
        "an xor permutation": r"s\[lane \^ \d+\] = ",
        "an affine permutation": r"s\[\(lane \* \d+ \+ \d+\) & 255\] = ",
        "a transposed element": r"s\[lane % 16, lane // 16\] = ",
        "a read at a computed index": r"s\[\([^\n]* & (tack\.[iu]\d+\()?255\)?\)",
        "block_min and block_max": r"r = tack\.block_min\([^\n]*\n[\s\S]*r = tack\.block_max\(",
        "block_sum": r"r = tack\.block_sum\(tack\.f32\(",
        "rounds of reads and writes in a loop": r"for step in range\(\d\):\n[^\n]*\n            tack\.barrier\(\)\n"
                                                r"            s\[[^\n]*\n            tack\.barrier\(\)",
        "the reduction read": r"\bo\d\[i\] = [^\n]*\br\b",
        "global atomics": r"\n        (b\d\[i\] = )?tack\.atomic_\w+\(oa, ",
        "a second write between barriers": r"tack\.barrier\(\)\n        s\[[^\n]*\n        tack\.barrier\(\)",
    })
    assert not missing, f"the first {WORKGROUP_SEEDS} workgroup programs never generate: {missing}"
    for t in INT_NAMES + FLOAT_NAMES:
        assert any(f"tack.shared(256, tack.{t})" in p.source for p in programs), f"no shared array of {t}"


def test_the_grammar_reaches_every_construct_it_promises():
    programs = [generate(seed) for seed in range(300)]
    missing = _unreached(programs, {
        "every cast": r"tack\.(i8|i16|i32|i64|u8|u16|u32|u64)\(",
        "wrapping arithmetic": r"\) [-+*] \(",
        "bitwise operators": r" [&|^] ",
        "left shift": r" << \(",
        "right shift": r" >> \(",
        "floor division": r" // \(\(",
        "modulo": r" % \(\(",
        "power": r"(\*\* \d|pow\()",
        "min and max": r"(min|max)\(",
        "abs": r"abs\(",
        "negation and inversion": r"\((-|~)[a-z(]",
        "not": r"\(not ",
        "and / or": r" (and|or) ",
        "chained comparison": r" [<>=!]=? [^()]+ [<>=!]=? ",
        "conditional expression": r" if .* else ",
        "a local joined under a condition": r"\n        t(\d) = .*\n        if .*:\n            t\1 = ",
        "a local assigned under a condition only": r"\n        if .*:\n            t(\d) = [^\n]*\n(?!        t\1 = )",
        "a load at another index": r"len\(a\d\) - 1 - i|\(i \* \d\) % len",
        "a load at a generated index": r"\ba\d\[\([^\n]* & (tack\.[iu]\d+\()?7\)?\)\]",
        "a literal beyond i32": r"\b(2147483648|4294967295|9223372036854775807|18446744073709551615)\b",
        "a literal of i64's least value": r"\(-9223372036854775808\)",
        "float literals": r"tack\.f32\(-?\d+\.\d+\)[^\n]*tack\.f64\(-?\d+\.\d+",
        "a guarded float to integer conversion": r"\(tack\.[iu]\d+\([^\n]* if -?\d[^\n]* < [^\n]* < ",
        "float floor division and modulo": r" (//|%) \([^\n]* if [^\n]* != tack\.f(32|64)\(0\) else ",
        "true division": r"\) / \(",
        "exact math builtins": r"tack\.(floor|ceil|trunc|sqrt|copysign|fmod)\(",
        "class tests": r"tack\.(isnan|isinf|isfinite)\(",
        "vectors from numbers": r"tack\.vec[234]\([^()]*, ",
        "a vector array loaded": r"v0\[",
        "a vector or matrix array at a generated index": r"\b[vm]0\[\([^\n]* & (tack\.[iu]\d+\()?7\)?\)\]",
        "a matrix array loaded": r"m0\[",
        "a 2-D array at a literal column": r"g0\[i, \d\]",
        "a 2-D array at a generated column": r"g0\[[^\n]*, \([^\n]* & (tack\.[iu]\d+\()?3\)?\)\]",
        "a 2-D array's extent": r"g0\[g0\.shape\[0\] - 1 - i, ",
        "a 2-D array at a vector index": r"g0\[tack\.vec2\(",
        "a 2-D array at one flat index": r"g0\[(tack\.[iu]64\()?\([^\n]*\) \* 4\)? \+ ",
        "a vector array stored": r"ov\[i\] = ",
        "a vector local": r"\n        w\d = ",
        "a vector local joined under a condition": r"\n        w(\d) = .*\n        if .*:\n            w\1 = ",
        "a vector local assigned under a condition only": r"\n        if .*:\n            w(\d) = [^\n]*\n(?!        w\1 = )",
        "masks and select": r"tack\.select\(\(",
        "cross": r"\.cross\(",
        "dot": r"\.dot\(",
        "a float sum of products stored": r"\n        o\d\[i\] = [^\n]*\.(norm_sqr|norm)\(\)\n",
        "@": r"\) @ tack\.",
        "sum": r"\.sum\(\)",
        "matrices from numbers": r"tack\.mat[234]\(",
        "identity": r"tack\.identity\(",
        "transpose": r"\.transpose\(\)",
        "outer product": r"\.outer_product\(",
        "vector min and max": r"\.(min|max)\(\)",
        "determinant": r"\.determinant\(\)",
        "trace": r"\.trace\(\)",
        "a matrix entry by runtime indices": r"\)\[\([^\n]*, \([^\n]*\)\]",
        "a matrix row": r"\)\[-?\d\][^\[]",
        "any and all": r"if (any|all)\(",
        "a component by name": r"\)\.[xyzw]\b",
        "a component by a runtime index": r"\)\[\([^\n]* & (tack\.[iu]\d+\()?3\)?\)\]",
        "a device function": r"@tack\.func\ndef h\d+_\d\(a0, a1, a2, a3, (v0, )?i, p0",
        "a device function's local": r"@tack\.func\n[^\n]*\n    u = ",
        "an early return": r"\n    if [^\n]*:\n        return [^\n]*\n    return ",
        "a helper calling a helper": r"def h(\d+)_1\([^\n]*\n(    [^\n]*\n)*[^\n]*\bh\1_0\(a0, ",
        "a call with a converted argument": r"h\d+_\d\(a0, a1, a2, a3, (v0, )?i, [^\n]*tack\.[iuf]\d+\(",
        "a loop carrying a local": r"\n        for j in range\([^\n]*\n            (t\d) = [^\n]*\b\1\b",
        "a loop of a varying trip count": r"for j in range\(\([^\n]* & (tack\.[iu]\d+\()?7\)?\)\):",
        "a loop from a start to an end": r"for j in range\(tack\.[iu]\d+\([^\n]*\), tack\.[iu]\d+\(",
        "a while loop over a typed counter": r"\n        j = tack\.[iu]\d+\(\d\)\n        while j < [^\n]*:\n"
                                             r"            j \+= tack\.[iu]\d+\(1\)\n",
        "break and continue": r"\n                break\n[\s\S]*\n                continue\n",
        "a continue of the parallel loop": r"\n        if [^\n]*:\n            continue\n",
        "a loop in a loop": r"\n            (for k in range\(|while k < )",
        "a local array filled": r"\n        l0 = tack\.local_array\(\d, tack\.\w+\)\n        for m in range\(\d\):\n",
        "a 2-D local array": r"l0 = tack\.local_array\(\(2, \d\), ",
        "a local array filled by a uniform value": r"\n            l0\[m\] = [^\n]*\bm\b",
        "a local array stored under a condition": r"\n        if [^\n]*:\n            l0\[",
        "a local array read at two indices": r"l0\[[^\[\]]*, [^\[\]]*\]",
        "a local array filled by a device function": r"@tack\.func\ndef f\d+\(l, [^\n]*\n    for m in range\(\d\):\n        l\[m\] = ",
        "an augmented store to a local array": r"\n +l0\[[^\n]*\] [-+*&|^]= ",
        "a local array stored in a loop": r"\n        (for|while) j[^\n]*\n(            [^\n]*\n)*            l0\[",
        "an inner loop counting to the outer variable": r"\n            (for k in range\(|while k < )[^\n]*\(j & ",
        "a parallel range of a typed end": r"\n    for q in range\(r1\):\n        i = tack\.i64\(q\)\n",
        "ndindex over sizes": r"\n    for q, c in tack\.ndindex\(r1, r4\):\n        i = \(tack\.i64\(q\)\) \* \d \+ \(tack\.i64\(c\)\)\n",
        "ndindex over pairs": r"\n    for q, c in tack\.ndindex\(\(r0, r1\), \(r3, r4\)\):\n",
        "an ndindex variable read": r"\n        i = [^\n]*\n(        [^\n]*\n)*        [^\n]*\bc\b",
        "a parallel range from a typed start": r"\n    for q in range\(r0, r1\):\n        i = tack\.i64\(q\) - tack\.i64\(r0\)\n",
        "a parallel range of a typed step": r"\n    for q in range\(r0, r1, r2\):\n"
                                            r"        i = \(tack\.i64\(q\) - tack\.i64\(r0\)\) // tack\.i64\(r2\)\n",
        "the parallel range's variable read": r"\n        i = [^\n]*\n(        [^\n]*\n)*        [^\n]*\bq\b",
        "atomic statements": r"\n        tack\.atomic_(add|sub|min|max)\(oa, ",
        "atomic expressions": r"\n        b\d\[i\] = tack\.atomic_(add|sub|min|max|exch)\(oa, ",
        "compare-and-swap": r"tack\.atomic_cas\(oa, ",
        "an atomic by a tuple index": r"tack\.atomic_\w+\(oa, \(\([^\n]* & 1\), \(",
        "an atomic of a vector value": r"tack\.atomic_\w+\(oa, [^\n]*, tack\.vec[234]\([^\n]*\)\)\n",
        "two atomics": r"tack\.atomic_\w+\(oa, [^\n]*\n        [^\n]*tack\.atomic_\w+\(oa, ",
    })
    assert not missing, f"the first 300 programs never generate: {missing}"
    for t in INT_NAMES + FLOAT_NAMES:
        assert any(t in p.inputs.values() for p in programs) and any(t in p.outputs.values() for p in programs)
        assert any(p.atomics and p.atomics.type == t for p in programs), f"no atomics on {t}"
    arguments = [v for p in programs if re.search(r"\bs\d\b", p.source.split("@tack.kernel")[-1].split("):\n", 1)[1])
                 for v in p.scalars.values()]
    kinds = {"a NumPy integer": lambda v: isinstance(v, np.integer),
             "a NumPy float": lambda v: isinstance(v, np.floating),
             "a Python int of i32": lambda v: type(v) is int and abs(v) < 2**31,
             "a Python int of u64": lambda v: type(v) is int and v >= 2**63,
             "a Python float": lambda v: type(v) is float}
    assert not [k for k, is_one in kinds.items() if not any(is_one(v) for v in arguments)], "number arguments"


def test_typed_parallel_ranges_run_n_trips_inside_their_types():
    # Each call's bounds give each dimension its trips (Python's range of
    # the same values), each bound holds its type's value, each variable's
    # type holds every trip, and the elements' trips are the loop's, each
    # once; the bounds reach both ends of their types, and every type and
    # Python ints are passed.
    ranges = [r for r in map(choose_range, range(10000)) if r]
    assert any(r.columns for r in ranges) and any(not r.columns for r in ranges)
    ends, passed = set(), set()
    for r in ranges:
        for n in (1, 2, 7, 8, 69, 70):
            n = -(-n // max(r.columns, 1)) * max(r.columns, 1)
            loop = []
            for d, trips in zip(r.dims, r.trips(n)):
                start, end, step = d.values(trips, r.seed)
                values = range(start, end, step)
                assert len(values) == trips and step > 0
                assert lo(d.type) <= min(values) and max(values) <= hi(d.type)
                loop.append(values)
                for t, v in zip(d.types, (start, end, step)):
                    if t:
                        assert lo(t) <= v <= hi(t)
                if d.types[0] and start == lo(d.types[0]):
                    ends.add(("low", d.types[0]))
                if d.types[0] and end == hi(d.types[1]):
                    ends.add(("high", d.types[1]))
            given = [v for d, trips in zip(r.dims, r.trips(n)) for t, v in zip(d.types, d.values(trips, r.seed)) if t]
            assert r.arguments(n) == given
            passed.update("int" if type(a) is int else a.dtype for a in r.arguments(n))
            bound = []
            for k in range(n):
                c = Context({}, k, n)
                r.bind(c, k, n)
                bound.append(tuple(c.locals[v] for v in r.variables))
            assert bound == list(itertools.product(*loop))
    assert passed == {"int"} | {NP[t] for t in INT_NAMES}, passed
    assert {t for side, t in ends if side == "low"} == set(INT_NAMES)
    assert {t for side, t in ends if side == "high"} == set(INT_NAMES)


def test_the_contraction_oracle_allows_eachfused_step():
    # fma(x, y, acc) is x*y + acc rounded once: where the separate product
    # rounds, overflows or meets an infinity the two differ, and zeros take
    # IEEE 754's sign of an exact zero sum.
    f64, f32 = np.float64, np.float32
    x, y = f64(1 + 2.0**-30), f64(1 - 2.0**-30)
    assert fused(x, y, f64(-1.0), "f64") == -(2.0**-60)
    assert np.multiply(x, y) + f64(-1.0) == 0.0
    assert np.isneginf(fused(f64(1e300), f64(1e300), f64(-np.inf), "f64"))
    big = np.finfo(np.float32).max
    assert fused(big, f32(2.0), -big, "f32") == big  # the separate product overflows
    assert np.signbit(fused(f64(-0.0), f64(1.0), f64(-0.0), "f64"))
    assert not np.signbit(fused(f64(0.0), f64(-1.0), f64(0.0), "f64"))
    assert not np.signbit(fused(f64(2.0), f64(3.0), f64(-6.0), "f64"))
    # The sums of three products of one type: separate, each step fused,
    # and the first product fused into the second.
    nodes = [Node("", "f64", lambda c, v=v: f64(v)) for v in (1 + 2.0**-30, 1 - 2.0**-30, 1.0, -1.0, 0.0, 0.5)]
    choices = products_added([(nodes[0], nodes[1]), (nodes[2], nodes[3]), (nodes[4], nodes[5])], None)
    assert len(choices) == 6 and {float(v) for v in choices} == {0.0, -(2.0**-60)}
    # A product of f32 added to an f64 sum is rounded to f32 first: no fused choice.
    mixed = [Node("", "f32", lambda c: f32(1 + 2.0**-12)), Node("", "f64", lambda c: f64(0.0))]
    assert products_added([(mixed[0], mixed[0]), (mixed[1], mixed[1])], None) == (f64(1 + 2.0**-11),)


def test_the_oracles_promotion_is_the_contracts():
    # The contract's examples: i8 with u16 gives i32, i16 with u32 gives
    # i64; equal signedness takes the wider; a signed type with u64 has no
    # common type (the generator casts one side, as a user must).
    assert promoted("i8", "u16") == "i32" and promoted("i16", "u32") == "i64"
    assert promoted("u8", "u32") == "u32" and promoted("i64", "i8") == "i64" and promoted("u8", "i8") == "i16"
    assert all(promoted(t, "u64") is None for t in INT_NAMES if t.startswith("i"))
    # An integer with a float takes the float's type; f32 with f64, f64.
    assert promoted("u64", "f32") == "f32" and promoted("f32", "i8") == "f32" and promoted("f32", "f64") == "f64"


def test_the_oracles_integer_to_float_rounding_is_numpys_cast():
    # NumPy's int64/uint64 -> float32 cast is the C conversion (one
    # rounding, ties to even); the oracle rounds the integer itself.
    rng = random.Random(5)
    values = [rng.randint(-(1 << 63), (1 << 63) - 1) >> rng.randint(0, 62) for _ in range(2000)]
    values += [(1 << 24) + 1, (1 << 24) + 3, -(1 << 25) - 2, (1 << 53) + 1, (1 << 63) - 1, -(1 << 63)]
    want = np.array(values, np.int64).astype(np.float32)
    assert [to_float(v, "f32").tobytes() for v in values] == [w.tobytes() for w in want]
    unsigned = [rng.randint(0, (1 << 64) - 1) for _ in range(500)] + [(1 << 64) - 1, (1 << 63) + (1 << 39)]
    want = np.array(unsigned, np.uint64).astype(np.float32)
    assert [to_float(v, "f32").tobytes() for v in unsigned] == [w.tobytes() for w in want]


def test_the_oracles_float_divmod_is_cpythons():
    # f64: CPython's divmod of Python floats is the algorithm the contract
    # names; f32: NumPy's divmod of float32 follows the same steps in f32.
    specials = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -7.0, 1e30, -1e-30, 2.0**53, math.inf, -math.inf, math.nan]
    rng = random.Random(11)
    pairs = [(a, b) for a in specials for b in specials if b != 0]
    pairs += [(rng.uniform(-1, 1) * 10.0 ** rng.randint(-6, 8), rng.choice([-1, 1]) * rng.uniform(0.01, 1) *
               10.0 ** rng.randint(-3, 4)) for _ in range(3000)]
    compared = 0
    for a, b in pairs:
        for t, ft in (("f64", np.float64), ("f32", np.float32)):
            x, y = ft(a), ft(b)
            if y == 0:
                continue
            with np.errstate(all="ignore"):
                try:
                    got = float_divmod(x, y, t)
                except Unspecified:
                    continue
                if t == "f64":
                    want = divmod(float(x), float(y)) if math.isfinite(x) and not math.isnan(y) else (math.nan, math.nan)
                else:
                    want = np.divmod(x, y)
            for g, w in zip(got, want):
                assert (np.isnan(g) and np.isnan(w)) or np.asarray(g).tobytes() == np.asarray(w, dtype=ft).tobytes(), \
                    (t, a, b, got, want)
            compared += 1
    assert compared > 5000


def test_the_atomic_oracle_finds_an_order_exactly_when_one_exists():
    # The trail check (atomics.py) against every order of up to six
    # updates of one element, run one after another: the old values each
    # returned and the final value are consistent with some order exactly
    # when the check passes them. Half the cases are what an order gives,
    # half have one old value or the final value changed.
    rng = random.Random(3)
    checked_orders = {True: 0, False: 0}
    for _ in range(1500):
        t = rng.choice(["i8", "u8", "f32"])
        ops = ["add", "sub", "min", "max", "exch", "cas"] if t != "f32" else ["add", "min", "max", "exch", "cas"]
        op = [rng.choice(ops) for _ in range(rng.randint(1, 6))]

        def value():
            v = rng.choice([0, 1, 2, 3, -1, 127, -128, 255]) if t != "f32" else rng.choice([0.0, -0.0, 1.0, 2.5, -3.0])
            return np.float32(v) if t == "f32" else wrap(v, t)

        contributions = [(value(), value()) for _ in op]  # (value, expected)
        updates = [Update(o, None, None, None, "b0") for o in op]
        atomics = Atomics(t, Shape("flat"), [value()], updates)

        def run(order):
            """The old values and the final value of running `order`."""
            current, olds = atomics.initial[0], [None] * len(op)
            for j in order:
                olds[j] = current
                current = atomics.result(op[j], current, *contributions[j])
            return olds, current

        olds, final = run(rng.sample(range(len(op)), len(op)))
        if rng.random() < 0.5:
            if rng.random() < 0.5:
                final = value()
            else:
                olds[rng.randrange(len(op))] = value()
        key = atomics.key
        possible = any([key(x) for x in got] + [key(f)] == [key(x) for x in olds] + [key(final)]
                       for got, f in (run(order) for order in itertools.permutations(range(len(op)))))
        element = [(o, v, e, old) for o, (v, e), old in zip(op, contributions, olds)]
        assert (atomics.trail(0, element, final) is None) == possible, (t, element, atomics.initial, final)
        checked_orders[possible] += 1
    assert min(checked_orders.values()) > 300, checked_orders
