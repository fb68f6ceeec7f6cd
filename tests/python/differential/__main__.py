"""Soak testing from the command line.

    python -m tests.python.differential --count 100000 [--start 0] [--steps]
    python -m tests.python.differential --show SEED [--steps]
    python -m tests.python.differential --reduce SEED [--steps]
"""

import argparse
import sys

from soak import soak

from .grammar import Options, generate
from .runner import run_seeds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.python.differential")
    parser.add_argument("--count", type=int, default=2000, help="programs to run")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--batch", type=int, default=50, help="programs per generated module")
    parser.add_argument("--steps", action="store_true", help="also generate stepped parallel ranges")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one program's source and exit")
    parser.add_argument("--reduce", type=int, metavar="SEED", help="shrink a failing program and print it")
    parser.add_argument("--stop-after", type=int, default=20, help="stop after this many mismatches")
    args = parser.parse_args(argv)
    options = Options(parallel_steps=args.steps)
    if args.show is not None:
        print(generate(args.show, options).source)
        return 0

    if args.reduce is not None:
        from .reduce import reduce
        from .runner import run_batch

        program = generate(args.reduce, options)
        found = run_batch([args.reduce], options)
        if not found:
            print(f"seed {args.reduce} passes", file=sys.stderr)
            return 0
        print(f"# {found[0].what}: {found[0].detail.splitlines()[0]}")
        print(reduce(program, found[0]))
        return 1

    return soak(lambda on_batch: run_seeds(args.start, args.count, args.batch, options, on_batch), args.stop_after)


if __name__ == "__main__":
    sys.exit(main())
