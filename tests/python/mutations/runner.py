"""Compiles mutants and sorts what comes back: compiled, a diagnostic, or a
finding (an internal compiler error, another exception, a diagnostic
without a position in the mutant's file)."""

import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from differential.builder import load_module

from .mutate import mutant

# The C-family printers' source for each mutant that compiles for the CPU.
DIALECTS = ("cuda", "hip", "opencl", "metal")


@dataclass
class Finding:
    seed: int
    what: str
    detail: str
    change: str
    source: str

    def __str__(self):
        return f"seed {self.seed}: {self.what}: {self.detail}\nchange: {self.change}\n{self.source}"


def _arity_error(e):
    """A call with another number of arguments than the kernel takes: the
    caller's mistake, reported like Python's (TypeError naming the count)."""
    return type(e) is TypeError and "argument" in str(e)


def check(m, directory):
    """None when the mutant compiles or is refused with a diagnostic at a
    position of its file; otherwise a Finding."""
    import tack

    name = f"tack_mutant_{m.seed}"
    path = Path(directory) / f"{name}.py"
    path.write_text("import math\n\nimport tack\n\n\n" + m.source + "\n", encoding="utf-8")
    try:
        try:
            module = load_module(path, name)
            kernel, args = getattr(module, m.kernel), m.args()
            for what in ("llvm", *DIALECTS):
                kernel.inspect(what, *args)
        except tack.InternalCompilerError as e:
            return Finding(m.seed, "internal compiler error", str(e), m.change, m.source)
        except tack.CompileError as e:
            if getattr(e, "filename", None) != str(path) or not getattr(e, "line", 0):
                return Finding(m.seed, "diagnostic without a position in the kernel's file",
                               f"{type(e).__name__}: {e}", m.change, m.source)
        except Exception as e:
            if not _arity_error(e):
                return Finding(m.seed, f"{type(e).__name__}, not a diagnostic", str(e), m.change, m.source)
    finally:
        sys.modules.pop(name, None)
    return None


def check_batch(seeds, on_seed=None):
    """Findings of the mutants of `seeds`."""
    found = []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # importing a mutant's text
        for seed in seeds:
            if on_seed:
                on_seed(seed)
            f = check(mutant(seed), tmp)
            if f:
                found.append(f)
    return found
