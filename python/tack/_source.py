"""Captures a function's source text as the compiler reads it."""

import inspect
import re
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
    for a, b in zip(split_lines(raw), split_lines(text)):
        if b.strip():
            indent = len(a) - len(b)
            break
    try:
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except TypeError:
        filename = "<unknown>"
    return _nfkc_identifiers(text), filename, max(first_line, 1), indent


# Python's tokenizer, and Tack's lexer, end lines at these and nothing else;
# str.splitlines() also breaks at \x0c, \x0b, \x1c-\x1e, \x85, U+2028 and
# U+2029, which may sit inside a comment or a string.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def split_lines(text, keepends=False):
    """`text`'s lines as Python's tokenizer counts them: broken at "\\n",
    "\\r\\n" and "\\r" only."""
    lines = [m.group() for m in _LINE.finditer(text) if m.group()]
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def _nfkc_identifiers(text):
    """Python reads identifiers in NFKC form (`xᵢ` is `xi`); the compiler sees
    the names Python binds. ASCII source needs nothing."""
    if text.isascii():
        return text
    lines = split_lines(text, keepends=True)
    # Token rows must count these lines: the tokenizer reads one line per
    # call, each ending in "\n" (a "\r" ending keeps its columns).
    feed = iter([line.rstrip("\r\n") + "\n" if line.endswith(("\r", "\n")) else line for line in lines])
    edits = []
    try:
        for tok in tokenize.generate_tokens(lambda: next(feed, "")):
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
