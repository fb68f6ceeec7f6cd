"""Which of a test's cases a device backend runs.

Device backends build a program per variant (PoCL: about half a second,
against a few milliseconds on the CPU), so a test with many cases runs a
spread of them there and every one on the CPU; TACK_DEVICE_CASES=all runs
them all everywhere. The conftest's device_cases(n) marker chooses among a
test's parametrizations by this rule, and a test that loops over cases
itself calls device_share."""

import os


def all_cases():
    """Whether TACK_DEVICE_CASES=all asks for every case on every backend."""
    return os.environ.get("TACK_DEVICE_CASES") == "all"


def spread(count, keep):
    """The indices of `keep` of `count` cases, spread evenly, the first and
    the last among them (all of them where count <= keep)."""
    if count <= keep:
        return set(range(count))
    return {round(k * (count - 1) / max(keep - 1, 1)) for k in range(keep)}


def device_share(backend, cases, keep):
    """`cases` as a list: all of them on the CPU or under
    TACK_DEVICE_CASES=all, else `keep` of them spread evenly, in order."""
    cases = list(cases)
    if backend == "cpu" or all_cases():
        return cases
    chosen = spread(len(cases), keep)
    return [case for at, case in enumerate(cases) if at in chosen]
