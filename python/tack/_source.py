"""Captures a function's source text as the compiler reads it."""

import inspect
import textwrap


def capture(fn):
    """(dedented text, filename, absolute first line, removed indent)."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise OSError(
            f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: Tack compiles kernels from "
            "their source text, which a REPL or generated function may not provide"
        ) from e
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = 0
    for a, b in zip(raw.splitlines(), text.splitlines()):
        if b.strip():
            indent = len(a) - len(b)
            break
    try:
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except TypeError:
        filename = "<unknown>"
    return text, filename, max(first_line, 1), indent
