"""Runs every example in this folder and prints where its image is.

    python examples/run_all.py [--device NAME]

Each example prints the path of the image it wrote as its last line.
mpi_heat.py runs here as one rank, with or without MPI; over several
ranks it runs under mpirun (docs/mpi.md).
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent
NOT_EXAMPLES = {"gallery.py", "png.py", "run_all.py"}


def examples():
    return sorted(p for p in EXAMPLES_DIR.glob("*.py") if p.name not in NOT_EXAMPLES)


def run(example, device):
    """The image path the example printed (None if it failed), and the
    seconds it took, start-up and compilation included."""
    command = [sys.executable, str(example)] + (["--device", device] if device else [])
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    sys.stdout.write(result.stdout)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        print(f"{example.name} failed with exit status {result.returncode}")
        return None, seconds
    return result.stdout.strip().splitlines()[-1], seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", help="Tack device for every example (default: the CPU)")
    args = parser.parse_args()
    results = {example.name: run(example, args.device) for example in examples()}
    print("\nimages:")
    for name, (image, seconds) in results.items():
        print(f"  {name:<20} {seconds:6.1f} s  {image or 'FAILED'}")
    return 0 if all(image for image, _ in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
