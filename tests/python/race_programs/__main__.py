"""Soak testing from the command line.

    python -m tests.python.race_programs --count 100000 [--start 0]
    python -m tests.python.race_programs --show SEED
"""

import sys

from soak import arguments, soak

from .programs import generate
from .runner import run_batch


def main(argv=None):
    parser = arguments("python -m tests.python.race_programs")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one program's source and binding and exit")
    args = parser.parse_args(argv)
    if args.show is not None:
        program = generate(args.show)
        print(program.source)
        print(", ".join(f"{p}={program.bindings[p]}" for p in program.params),
              f"buffers {program.buffers}, n={program.n}")
        return 0
    return soak(run_batch, args)


if __name__ == "__main__":
    sys.exit(main())
