"""Exceptions raised for kernel source problems.

Each carries the diagnostic's parts as attributes: ``message`` (one line),
``function`` and ``function_kind`` ("kernel" or "device function"),
``construct``, ``hint``, ``filename``, ``line`` and ``column`` (absolute file
positions), and ``source_line`` / ``source_column`` (in the captured,
dedented source). ``str(e)`` is the full rendering with the source line and
a caret.
"""


class CompileError(Exception):
    """A kernel or device function could not be compiled."""


class KernelSyntaxError(CompileError, SyntaxError):
    """The source is not valid Python."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class UnsupportedError(CompileError, NotImplementedError):
    """A construct outside the kernel language (assert, try, lambda, ...), or
    one the chosen backend does not run (workgroup primitives on the CPU).
    A NotImplementedError, and so a RuntimeError."""


class KernelNameError(CompileError, NameError):
    """A name is not defined, or names something a kernel cannot capture."""


class KernelTypeError(CompileError, TypeError):
    """Types or arities do not fit."""


class KernelValueError(CompileError, ValueError):
    """A value is outside what the language admits (a zero literal step, ...)."""


class InternalCompilerError(CompileError, RuntimeError):
    """A compiler bug: please report it with the kernel that triggered it."""


class RaceError(RuntimeError):
    """Debug mode's race detector found two iterations of one launch that
    access one array element, at least one of them with a plain (not atomic)
    store, or one atomically and the other plainly. The message names the
    kernel, the array, the element and both accesses' source lines. Raised
    by the call, after the launch has run; the arrays hold whatever that
    schedule left."""
