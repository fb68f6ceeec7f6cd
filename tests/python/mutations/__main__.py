"""Soak testing from the command line.

    python -m tests.python.mutations --count 20000 [--start 0]
    python -m tests.python.mutations --show SEED
"""

import argparse
import sys

from soak import soak

from .mutate import mutant
from .runner import check_seeds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.python.mutations")
    parser.add_argument("--count", type=int, default=2000, help="mutants to compile")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--batch", type=int, default=50, help="mutants per progress report")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one mutant and exit")
    parser.add_argument("--stop-after", type=int, default=20, help="stop after this many findings")
    args = parser.parse_args(argv)
    if args.show is not None:
        m = mutant(args.show)
        print(f"# {m.change}\n{m.source}")
        return 0
    return soak(lambda on_batch: check_seeds(args.start, args.count, args.batch, on_batch), args.stop_after,
                items="mutants", problems="findings")


if __name__ == "__main__":
    sys.exit(main())
