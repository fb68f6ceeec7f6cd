"""The checked-in stub of tack._core describes the extension as built."""

import subprocess
import sys
from pathlib import Path

import tack

STUB = Path(tack.__file__).with_name("_core.pyi")
# How the stub declares the methods the Python package adds to bound classes.
PATTERNS = Path(__file__).parents[2] / "python" / "bindings" / "stubgen_patterns.txt"


def test_the_core_stub_matches_the_extension(tmp_path):
    out = tmp_path / "_core.pyi"
    subprocess.run(
        [sys.executable, "-m", "nanobind.stubgen", "-q", "-P", "-m", "tack._core", "-p", str(PATTERNS), "-o", str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_text() == STUB.read_text(), (
        "python/tack/_core.pyi is stale: regenerate it with "
        "`PYTHONPATH=python python3 -m nanobind.stubgen -q -P -m tack._core -p python/bindings/stubgen_patterns.txt "
        "-o python/tack/_core.pyi`"
    )
