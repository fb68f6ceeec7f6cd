"""Mutation testing of the compiler's diagnostics: generated programs (the
differential and typed-expression suites') with one random change to their
syntax tree -- a name swapped or undefined, a literal of another kind, a
statement deleted, moved or duplicated, an operator replaced, an
expression wrapped in a builtin, a subscript of another shape, a loop's
range changed, a break, continue or return inserted -- compiled for the CPU
(front end, types, LLVM) and printed as CUDA, HIP, OpenCL C and Metal
source, but not run. Each must compile, or fail with one
of Tack's diagnostics (tack.CompileError with a position in the file),
never an InternalCompilerError, another exception or a crash.

    python -m tests.python.mutations --count 20000 [--start 0]    # soak
    python -m tests.python.mutations --show SEED                  # one mutant
"""

from .mutate import Mutant, mutant
from .runner import Finding, check_batch

__all__ = ["Mutant", "mutant", "Finding", "check_batch"]
