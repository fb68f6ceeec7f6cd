"""Soak testing from the command line.

    python -m tests.python.mutations --count 20000 [--start 0]
    python -m tests.python.mutations --show SEED
"""

import sys

from soak import arguments, soak

from .mutate import mutant
from .runner import check_batch


def main(argv=None):
    parser = arguments("python -m tests.python.mutations", items="mutants")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one mutant and exit")
    args = parser.parse_args(argv)
    if args.show is not None:
        m = mutant(args.show)
        print(f"# {m.change}\n{m.source}")
        return 0
    return soak(check_batch, args, items="mutants", problems="findings")


if __name__ == "__main__":
    sys.exit(main())
