"""Runs seeds' host calls in a child process and sorts what comes back.

A finding is a call that crashed the process (a signal, an abort: the
child dies and the last call it began is named), raised an exception
Python's functions do not raise for bad arguments (RuntimeError other
than a device that is not available, SystemError, an internal compiler
error, ...), or indexed a host array otherwise than NumPy's basic
indexing does (another shape, dtype or value, or an error where NumPy
gives a result; an index NumPy takes as advanced indexing -- a list, an
array, a bool -- may be refused with TypeError or IndexError)."""

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CALLS_PER_SEED = 60


@dataclass
class Finding:
    seed: int
    call: int
    what: str
    detail: str

    def __str__(self):
        return f"seed {self.seed} call {self.call}: {self.detail}\n    {self.what}"


def check_batch(seeds, calls_per_seed=CALLS_PER_SEED, timeout=600):
    """Findings of `seeds`, run in one child process after another (a child
    that dies is reported at the call it began, and the seeds after its
    seed run in a new child)."""
    found = []
    remaining = list(seeds)
    while remaining:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), str(HERE.parent), env.get("PYTHONPATH", "")])
        run = subprocess.run([sys.executable, "-m", "host_calls.child", str(calls_per_seed)] + [str(s) for s in remaining],
                             env=env, capture_output=True, text=True, timeout=timeout)
        began, finished = None, set()
        for line in run.stdout.splitlines():
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if record["kind"] == "begin":
                began = record
            elif record["kind"] == "finding":
                found.append(Finding(record["seed"], record["call"], record["what"], record["detail"]))
            elif record["kind"] == "seed done":
                finished.add(record["seed"])
        if run.returncode == 0:
            break
        if began is None:
            raise RuntimeError(f"the host-call child failed before its first call:\n{run.stderr[-3000:]}")
        found.append(Finding(began["seed"], began["call"], began["what"],
                             f"the process died (exit status {run.returncode}): {run.stderr.strip()[-500:]}"))
        remaining = [s for s in remaining if s not in finished and s != began["seed"]]
    return found
