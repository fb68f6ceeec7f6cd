"""tackc checks a kernel file and prints the IR after each pass and the
LLVM IR, from the same pipeline the Python package uses."""

import subprocess
from pathlib import Path

import pytest
from backends import FRONTEND_ONLY

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


@pytest.mark.cpu_only("tackc --llvm prints the CPU backend's LLVM IR")
def test_ir_after_each_pass_and_llvm(tmp_path):
    f = tmp_path / "kernels.py"
    f.write_text(SOURCE)
    r = run(str(f), "--kernel", "saxpy", "--ir", "--llvm")
    assert r.returncode == 0, r.stderr
    for stage in ("# after lower_kernel", "# after localize_iteration_state", "# after infer_types"):
        assert stage in r.stdout
    assert "define" in r.stdout and "tack.inspect.body" in r.stdout


def test_emit_opencl_prints_the_kernel_as_opencl_c(tmp_path):
    # A host-side generator check: no OpenCL device is needed.
    f = tmp_path / "kernels.py"
    f.write_text(SOURCE)
    r = run(str(f), "--kernel", "saxpy", "--emit=opencl")
    assert r.returncode == 0, r.stderr
    assert "__kernel void" in r.stdout and "saxpy" in r.stdout
    assert "__global float*" in r.stdout  # x and y are f32 arrays by default
    r = run(str(f), "--kernel", "broken", "--emit=opencl")
    assert r.returncode == 1
    assert "in kernel 'broken': assert is not supported" in r.stderr


@pytest.mark.cpu_only(FRONTEND_ONLY)
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
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_signatures_with_vector_and_matrix_elements(tmp_path, sig, header):
    f = tmp_path / "norms.py"
    f.write_text(NORMS)
    r = run(str(f), "--sig", sig, "--ir")
    assert r.returncode == 0, r.stderr
    assert header in r.stdout


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unknown_element_types_are_refused(tmp_path):
    f = tmp_path / "norms.py"
    f.write_text(NORMS)
    r = run(str(f), "--sig", "vec5f[1],f32[1]")
    assert r.returncode == 2 and "cannot read the type 'vec5f[1]'" in r.stderr


# Each malformed --sig, for NORMS (two parameters), and the part of the
# one-line message that says what is wrong.
MALFORMED_SIGNATURES = [
    ("f32[x],f32[1]", "the number of dimensions 'x' is not a whole number from 1 to 8"),
    ("f32[99999999999],f32[1]", "the number of dimensions '99999999999' is not a whole number"),
    ("f32[-1],f32[1]", "the number of dimensions '-1' is not a whole number"),
    ("f32[0],f32[1]", "the number of dimensions '0' is not a whole number"),
    ("f32[9],f32[1]", "the number of dimensions '9' is not a whole number"),
    ("f32[],f32[1]", "the number of dimensions '' is not a whole number"),
    ("f32[+1],f32[1]", "the number of dimensions '+1' is not a whole number"),
    ("f32[1e3],f32[1]", "the number of dimensions '1e3' is not a whole number"),
    ("f32[ 1],f32[1]", "the number of dimensions ' 1' is not a whole number"),
    ("f32[1,f32[1]", "'[' without a ']'"),
    ("f32],f32[1]", "']' without a '['"),
    ("f32[[1]],f32[1]", "a '[' inside the brackets"),
    ("f32[1]],f32[1]", "unexpected ']' after the ']'"),
    ("f32[1]x,f32[1]", "unexpected 'x' after the ']'"),
    ("f33[1],f32[1]", "unknown dtype 'f33'"),
    ("F32[1],f32[1]", "unknown dtype 'F32'"),
    ("vec5f[1],f32[1]", "unknown element type 'vec5f'"),
    ("vec3q[1],f32[1]", "unknown element type 'vec3q'"),
    ("vec3f,f32[1]", "the element type 'vec3f' is for arrays"),
    ("f32[1]:soa,f32[1]", "':soa' is the layout of an array of vector or matrix elements"),
    ("vec3f[1]:aos,f32[1]", "unknown layout ':aos'"),
    ("vec3f[1]:,f32[1]", "unknown layout ':'"),
    ("f32[1],", "a type is missing"),
    (",f32[1]", "a type is missing"),
    ("f32[1],,f32[1]", "a type is missing"),
    ("f32[1],f32[1],f32[1]", "gives 3 types for the 2 parameters of kernel 'norms'"),
]


@pytest.mark.parametrize("sig, why", MALFORMED_SIGNATURES, ids=[s for s, _ in MALFORMED_SIGNATURES])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_malformed_signatures_are_usage_errors(tmp_path, sig, why):
    f = tmp_path / "norms.py"
    f.write_text(NORMS)
    r = run(str(f), "--sig", sig, "--ir")
    # 2 is a usage error; a negative code would be a signal (an abort on an
    # uncaught exception), which is what some of these used to give.
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"tackc: --sig '{sig}': ") and why in lines[0], lines[0]
    assert r.stdout == ""  # refused before any pass ran


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_spaces_around_signature_types_are_allowed(tmp_path):
    f = tmp_path / "norms.py"
    f.write_text(NORMS)
    r = run(str(f), "--sig", " vec3f[1] , f32[1] ", "--ir")
    assert r.returncode == 0, r.stderr
    assert "v: array[vec3 of f32, 1]" in r.stdout


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_annotations_that_are_not_types_leave_the_default(tmp_path):
    # Annotations go through the same reader as --sig; one it cannot read
    # leaves the parameter an f32[1] array instead of aborting tackc.
    f = tmp_path / "annotated.py"
    f.write_text(
        "import tack\n\n"
        "@tack.kernel\n"
        "def copy(v: tack.f32[99999999999], out: f32[x]):\n"
        "    for i in range(len(out)):\n"
        "        out[i] = v[i]\n"
    )
    r = run(str(f), "--ir")
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert "v: array[f32, 1]" in r.stdout and "out: array[f32, 1]" in r.stdout


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_help_documents_every_option_and_the_signature_syntax():
    r = run("--help")
    assert r.returncode == 0 and r.stderr == ""
    for option in ("--kernel NAME", "--sig TYPES", "--ir", "--llvm", "--llvm-unoptimized", "--emit=LANG", "--help"):
        assert option in r.stdout, option
    for piece in ("DTYPE[NDIM]", "vecNf", "matRCf", ":soa", "Exit status"):
        assert piece in r.stdout, piece
    assert run("-h").stdout == r.stdout
    # A usage error points at the help.
    bad = run("--no-such-option")
    assert bad.returncode == 2 and "tackc --help" in bad.stderr


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_the_assumed_signature_is_reported(tmp_path):
    f = tmp_path / "kernels.py"
    f.write_text(SOURCE)
    r = run(str(f), "--kernel", "saxpy")
    assert r.returncode == 0, r.stderr
    assert ("kernel 'saxpy' checked as (alpha: f32, x: f32[1], y: f32[1], limit: f32); give --sig to choose the types"
            in r.stderr)
    r = run(str(f), "--kernel", "saxpy", "--sig", "f64, f64[1]")
    assert "checked as (alpha: f64, x: f64[1], y: f32[1], limit: f32); --sig gave the first 2" in r.stderr
    # A full signature assumes nothing.
    r = run(str(f), "--kernel", "saxpy", "--sig", "f32, vec3f[2]:soa, f32[1], f32")
    assert "checked as" not in r.stderr
