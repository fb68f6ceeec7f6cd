"""Soak testing from the command line.

    python -m tests.python.typed_expressions --count 100000 [--start 0] [--device opencl]
    python -m tests.python.typed_expressions --show SEED
"""

import argparse
import sys

from soak import soak

from .grammar import generate
from .runner import run_seeds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.python.typed_expressions")
    parser.add_argument("--count", type=int, default=2000, help="programs to run")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--batch", type=int, default=50, help="programs per generated module")
    parser.add_argument("--device", default="cpu", help="the default device the kernels run on")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one program's source and exit")
    parser.add_argument("--stop-after", type=int, default=20, help="stop after this many mismatches")
    args = parser.parse_args(argv)
    if args.show is not None:
        print(generate(args.show).source)
        return 0
    import tack

    tack.set_default_device(args.device)
    return soak(lambda on_batch: run_seeds(args.start, args.count, args.batch, on_batch), args.stop_after)


if __name__ == "__main__":
    sys.exit(main())
