"""tackc checks a kernel file and prints the IR after each pass and the
LLVM IR, from the same pipeline the Python package uses."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """
import tack

@tack.func
def clamp(a, limit):
    if a > limit:
        return limit
    return a

@tack.kernel
def saxpy(alpha: float, x, y, limit: float):
    for i in range(len(x)):
        y[i] = clamp(alpha * x[i] + y[i], limit)

@tack.kernel
def broken(x):
    for i in range(len(x)):
        assert x[i] > 0
"""


def tackc():
    for build in ("build", "build-dev"):
        path = ROOT / build / "tools" / "tackc" / "tackc"
        if path.exists():
            return path
    pytest.fail("tackc is not built: run the README's set-up command first")


def run(*args):
    return subprocess.run([str(tackc()), *args], capture_output=True, text=True)


def test_ir_after_each_pass_and_llvm(tmp_path):
    f = tmp_path / "kernels.py"
    f.write_text(SOURCE)
    r = run(str(f), "--kernel", "saxpy", "--ir", "--llvm")
    assert r.returncode == 0, r.stderr
    for stage in ("# after lower_kernel", "# after localize_iteration_state", "# after infer_types"):
        assert stage in r.stdout
    assert "define" in r.stdout and "tack.inspect.body" in r.stdout


def test_diagnostics_name_file_line_and_kernel(tmp_path):
    f = tmp_path / "kernels.py"
    f.write_text(SOURCE)
    r = run(str(f), "--kernel", "broken")
    assert r.returncode == 1
    line = SOURCE.splitlines().index("        assert x[i] > 0") + 1
    assert f"kernels.py:{line}:9 in kernel 'broken': assert is not supported" in r.stderr
    assert "^" in r.stderr


NORMS = """
import tack

@tack.kernel
def norms(v, out):
    for i in range(len(v)):
        out[i] = v[i].norm_sqr()
"""


@pytest.mark.parametrize("sig, header", [
    ("vec3f[1],f32[1]", "v: array[vec3 of f32, 1]"),
    ("mat22d[2]:soa,f64[2]", "v: array[mat2x2 of f64, 2, soa]"),
])
def test_signatures_with_vector_and_matrix_elements(tmp_path, sig, header):
    f = tmp_path / "norms.py"
    f.write_text(NORMS)
    r = run(str(f), "--sig", sig, "--ir")
    assert r.returncode == 0, r.stderr
    assert header in r.stdout


def test_unknown_element_types_are_refused(tmp_path):
    f = tmp_path / "norms.py"
    f.write_text(NORMS)
    r = run(str(f), "--sig", "vec5f[1],f32[1]")
    assert r.returncode == 2 and "cannot read the type 'vec5f[1]'" in r.stderr
