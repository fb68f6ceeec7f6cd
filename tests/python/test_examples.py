"""Every example's --test mode: a small run checked against an independent
oracle inside the example (NumPy implementations, float64 sums,
conservation laws), run as the user would, in a subprocess on the CPU."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tack

REPO = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = REPO / "examples"
sys.path.insert(0, str(EXAMPLES_DIR))
from run_all import examples  # noqa: E402

EXAMPLES = examples()


def test_the_gallery_has_its_programs():
    names = {p.stem for p in EXAMPLES}
    assert {"mandelbrot", "heat_diffusion", "particles", "mpm", "stable_fluids", "path_tracer", "wave", "sph",
            "nbody", "game_of_life", "mpi_heat"} <= names


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_self_check(example):
    env = dict(os.environ)
    env.pop("TACK_DEVICE", None)
    package_dir = str(Path(tack.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_dir, env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(example), "--test", "--device", "cpu"], capture_output=True,
                            text=True, env=env, timeout=300)
    assert result.returncode == 0, f"{example.name} --test failed:\n{result.stdout}\n{result.stderr}"
    assert " --test passed" in result.stdout, result.stdout
