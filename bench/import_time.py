"""How long `import tack` takes, and what it adds to a program that imports NumPy.

    python bench/import_time.py [--runs N]

Each import runs in a fresh interpreter (python -X importtime), N times;
the minimum is reported, as other work on the machine only ever adds time.
Bytecode is cached in a temporary folder first (-X pycache_prefix), as an
installed package's is, whatever PYTHONDONTWRITEBYTECODE says. `import
tack` does not import NumPy (it loads at first use), so the rows are: the
package alone, its extension module tack._core (which loads the LLVM shared
library and runs its static initializers), NumPy alone for scale, what
`import tack` adds after `import numpy`, and the submodules tack.random and
tack.tile, which load at first use (measured after NumPy, which they use).
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parent.parent / "python"


def import_times(statement, cache, runs):
    """{module: least cumulative microseconds} over `runs` fresh
    interpreters running `statement`."""
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, "-X", f"pycache_prefix={cache}", "-X", "importtime", "-c", statement]
    subprocess.run(command, env=env, check=True, capture_output=True)  # writes the bytecode
    best = {}
    for _ in range(runs):
        report = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stderr
        for line in report.splitlines():
            if not line.startswith("import time:") or "|" not in line:
                continue
            _, cumulative, name = line.split("|")
            if not cumulative.strip().isdigit():
                continue  # the header line
            name = name.strip()
            best[name] = min(best.get(name, float("inf")), int(cumulative))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tack-import-time-") as cache:
        package = import_times("import tack", cache, args.runs)
        numpy_alone = import_times("import numpy", cache, args.runs)["numpy"]
        after_numpy = import_times("import numpy; import tack", cache, args.runs)
        loaded = import_times("import numpy; import tack; import tack.random; import tack.tile", cache, args.runs)
    print(f"least of {args.runs} fresh interpreters, milliseconds")
    rows = (
        ("import tack", package["tack"]),
        ("  of which tack._core", package["tack._core"]),
        ("  NumPy imported by it", package.get("numpy", 0)),
        ("import numpy (for scale)", numpy_alone),
        ("import tack after import numpy", after_numpy["tack"]),
        ("tack.random at first use", loaded.get("tack.random", 0)),
        ("tack.tile at first use", loaded.get("tack.tile", 0)),
    )
    for label, microseconds in rows:
        print(f"{label:<52} {microseconds / 1000:8.1f}")


if __name__ == "__main__":
    main()
