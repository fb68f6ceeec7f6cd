"""With TACK_EMIT_SOURCES set, the driver writes every fresh variant's GPU
source in each dialect, one file per distinct text; tack_gpu_compile_check
compiles such a folder and names each source that does not compile.
scripts/bootstrap.sh runs the two over the whole Python suite."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The package these tests import, for the processes they start.
PYTHON_DIR = str(Path(__import__("tack").__file__).resolve().parent.parent)

EXTENSIONS = {"cuda": ".cu", "hip": ".hip", "opencl": ".cl", "metal": ".metal"}

PROGRAM = """
import sys
import numpy as np
import tack

@tack.kernel
def scale_add(x, y, a):
    for i in range(len(x)):
        y[i] = a * x[i] + y[i]

dtype = np.float64 if sys.argv[1] == "f64" else np.float32
x = tack.array(np.arange(8, dtype=dtype))
y = tack.array(np.ones(8, dtype=dtype))
scale_add(x, y, 2.0)
if sys.argv[2] == "debug":
    tack.set_debug(True)
    scale_add(x, y, 2.0)
"""


def checker():
    if path := os.environ.get("TACK_GPU_COMPILE_CHECK"):
        return Path(path)
    for build in ("build", "build-dev"):
        path = ROOT / build / "tools" / "gpu_compile_check" / "tack_gpu_compile_check"
        if path.exists():
            return path
    pytest.fail("tack_gpu_compile_check is not built: run the README's set-up command first")


def dump(tmp_path, folder, dtype="f32", debug="plain"):
    """Runs PROGRAM in a fresh process (and a fresh disk cache, which would
    otherwise stand in for specializing) that dumps into `folder`."""
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, TACK_EMIT_SOURCES=str(folder),
               TACK_CACHE_DIR=str(tmp_path / f"cache-{dtype}-{debug}"))
    r = subprocess.run([sys.executable, str(script), dtype, debug], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def sources(folder, dialect):
    return sorted((folder / dialect).glob("*" + EXTENSIONS[dialect])) if (folder / dialect).is_dir() else []


def check(folder, *args):
    return subprocess.run([str(checker()), *args, str(folder)], capture_output=True, text=True)


def skipped(output, dialect):
    return re.search(rf"^{dialect}: \d+ sources skipped: (.*)$", output, re.M)


def test_each_dialect_gets_one_file_per_distinct_source(tmp_path):
    folder = tmp_path / "sources"
    dump(tmp_path, folder, "f32", "debug")
    for dialect, ext in EXTENSIONS.items():
        files = sources(folder, dialect)
        # The plain variant and the debug variant print different text.
        assert len(files) == 2, (dialect, files)
        for f in files:
            assert re.fullmatch(r"[0-9a-f]{16}" + re.escape(ext), f.name)
            assert f"Tack kernel 'scale_add' for {dialect}" in f.read_text()
    assert not list(folder.rglob(".tmp-*")), "a temporary outlived its rename"
    # The same variants again add nothing.
    before = {d: sources(folder, d) for d in EXTENSIONS}
    dump(tmp_path, folder, "f32", "debug")
    assert {d: sources(folder, d) for d in EXTENSIONS} == before


def test_a_dialect_that_rejects_the_kernel_gets_nothing(tmp_path):
    folder = tmp_path / "sources"
    dump(tmp_path, folder, "f64")
    assert sources(folder, "metal") == []  # MSL has no f64
    for dialect in ("cuda", "hip", "opencl"):
        assert len(sources(folder, dialect)) == 1


def test_nothing_is_written_without_the_variable(tmp_path):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if k != "TACK_EMIT_SOURCES"}
    env["TACK_CACHE_DIR"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = PYTHON_DIR
    r = subprocess.run([sys.executable, str(script), "f32", "plain"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "program.py"]


def test_the_checker_compiles_dumped_sources_in_every_dialect(tmp_path):
    folder = tmp_path / "sources"
    dump(tmp_path, folder, "f32", "debug")
    r = check(folder)
    assert r.returncode == 0, r.stdout + r.stderr
    for dialect in EXTENSIONS:
        line = re.search(rf"^{dialect}: 2 sources (compiled by|skipped: ).*$", r.stdout, re.M)
        assert line, (dialect, r.stdout)


@pytest.mark.parametrize("dialect", ["opencl", "metal", "cuda"])
def test_the_checker_names_the_one_source_that_does_not_compile(tmp_path, dialect):
    # Two good sources and a broken one share a bundle: only the broken one
    # is reported, with the compiler's message.
    folder = tmp_path / "sources"
    dump(tmp_path, folder, "f32", "debug")
    good = sources(folder, dialect)
    text = good[0].read_text() + "\nint tk_broken(void) { return undeclared_name; }\n"
    broken = folder / dialect / ("f" * 16 + EXTENSIONS[dialect])
    broken.write_text(text)
    r = check(folder, "--dialect", dialect)
    if why := skipped(r.stdout, dialect):
        pytest.skip(f"{dialect}: {why.group(1)}")
    assert r.returncode == 1, r.stdout + r.stderr
    failures = re.findall(r"^FAIL (\S+) does not compile", r.stdout, re.M)
    assert failures == [str(broken)], r.stdout
    assert "undeclared_name" in r.stdout
    assert re.search(rf"^{dialect}: 3 sources compiled by .*, 1 failed", r.stdout, re.M), r.stdout


def test_a_printer_failure_fails_the_check(tmp_path):
    folder = tmp_path / "sources"
    (folder / "opencl").mkdir(parents=True)
    (folder / "opencl" / ("0" * 16 + ".error")).write_text("emit_c failed: an example\n")
    r = check(folder, "--dialect", "opencl")
    assert r.returncode == 1
    assert "emit_c failed: an example" in r.stdout


def test_a_missing_compiler_skips_its_dialect_by_name(tmp_path):
    folder = tmp_path / "sources"
    dump(tmp_path, folder, "f32")
    env = dict(os.environ, PATH=str(tmp_path / "empty"), TACK_CUDA_HOME=str(tmp_path / "no-cuda"))
    r = subprocess.run([str(checker()), str(folder)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "hipcc not found: install Debian's hipcc libamdhip64-dev rocm-device-libs" in r.stdout
    assert "clang-19 not found" in r.stdout
    assert re.search(r"^cuda: 1 sources skipped: .*no-cuda/lib64/libnvrtc.so not found", r.stdout, re.M), r.stdout
