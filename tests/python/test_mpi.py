"""examples/mpi_heat.py over several MPI ranks, run as the user would
(mpirun, one Python process per rank), on every available backend. Its
--test checks on rank 0 that the gathered plate equals the single-process
run of the same kernel bit for bit, and NumPy float32 steps within
heat_diffusion's tolerance; the one-rank run is in test_examples.py."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tack

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "mpi_heat.py"
MPIRUN = shutil.which("mpirun")

pytestmark = [
    pytest.mark.skipif(MPIRUN is None,
                       reason="mpirun is missing (Debian: openmpi-bin; scripts/bootstrap.sh installs it)"),
    pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None,
                       reason="mpi4py is missing (pip install mpi4py; scripts/bootstrap.sh installs it)"),
]


def mpirun_command(ranks, device):
    # More ranks than cores is fine for a check (--oversubscribe); Open MPI
    # refuses to start as root unless told it may.
    command = [MPIRUN, "-n", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    return command + [sys.executable, str(EXAMPLE), "--test", "--device", device]


# Two ranks: each has one neighbour; three: the middle rank exchanges both
# halo rows. 65 interior rows split unevenly either way.
@pytest.mark.parametrize("ranks", [2, 3])
def test_mpi_heat_equals_the_single_process_run(backend, ranks):
    env = dict(os.environ)
    env.pop("TACK_DEVICE", None)
    package_dir = str(Path(tack.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_dir, env.get("PYTHONPATH")]))
    result = subprocess.run(mpirun_command(ranks, backend), capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, \
        f"mpirun -n {ranks} mpi_heat.py --test --device {backend} failed:\n{result.stdout}\n{result.stderr}"
    assert "mpi_heat --test passed" in result.stdout, result.stdout
    assert f"over {ranks} ranks" in result.stdout, result.stdout
    assert "equals the single-process result bit for bit" in result.stdout, result.stdout
