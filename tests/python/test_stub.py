"""The checked-in stub of tack._core describes the extension as built."""

import subprocess
import sys
from pathlib import Path

import tack

STUB = Path(tack.__file__).with_name("_core.pyi")


def test_the_core_stub_matches_the_extension(tmp_path):
    out = tmp_path / "_core.pyi"
    subprocess.run(
        [sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "tack._core", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_text() == STUB.read_text(), (
        "python/tack/_core.pyi is stale: regenerate it with "
        "`PYTHONPATH=python python3 -m nanobind.stubgen -m tack._core -o python/tack/_core.pyi`"
    )
