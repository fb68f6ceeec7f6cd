"""Soak testing from the command line.

    python -m tests.python.differential --count 100000 [--start 0] [--steps]
    python -m tests.python.differential --show SEED [--steps]
    python -m tests.python.differential --reduce SEED [--steps]
"""

import sys

from soak import arguments, soak

from .grammar import Options, generate
from .runner import run_batch


def main(argv=None):
    parser = arguments("python -m tests.python.differential")
    parser.add_argument("--steps", action="store_true", help="also generate stepped parallel ranges")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one program's source and exit")
    parser.add_argument("--reduce", type=int, metavar="SEED", help="shrink a failing program and print it")
    args = parser.parse_args(argv)
    options = Options(parallel_steps=args.steps)
    if args.show is not None:
        print(generate(args.show, options).source)
        return 0

    if args.reduce is not None:
        from .reduce import reduce

        program = generate(args.reduce, options)
        found = run_batch([args.reduce], options)
        if not found:
            print(f"seed {args.reduce} passes", file=sys.stderr)
            return 0
        print(f"# {found[0].what}: {found[0].detail.splitlines()[0]}")
        print(reduce(program, found[0]))
        return 1

    return soak(lambda seeds: run_batch(seeds, options), args)


if __name__ == "__main__":
    sys.exit(main())
