"""Captures a function's source text as the compiler reads it."""

import inspect
import io
import textwrap
import tokenize
import unicodedata


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
    return _nfkc_identifiers(text), filename, max(first_line, 1), indent


def _nfkc_identifiers(text):
    """Python reads identifiers in NFKC form (`xᵢ` is `xi`); the compiler sees
    the names Python binds. ASCII source needs nothing."""
    if text.isascii():
        return text
    lines = text.splitlines(keepends=True)
    edits = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and not tok.string.isascii():
                normal = unicodedata.normalize("NFKC", tok.string)
                if normal != tok.string:
                    edits.append((tok.start, tok.end, normal))
    except (tokenize.TokenError, SyntaxError):
        return text  # the compiler reports the malformed source itself
    # Apply from the end so earlier positions stay valid.
    for (row, col), (end_row, end_col), normal in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + normal + line[end_col:]
    return "".join(lines)
