"""Soak testing from the command line.

    python -m tests.python.host_calls --count 2000 [--start 0] [--calls N]
    python -m tests.python.host_calls --show SEED
"""

import sys

from soak import arguments, soak

from .runner import CALLS_PER_SEED, check_batch


def main(argv=None):
    parser = arguments("python -m tests.python.host_calls", items="seeds")
    parser.add_argument("--calls", type=int, default=CALLS_PER_SEED, help="calls per seed")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one seed's calls and exit")
    args = parser.parse_args(argv)
    if args.show is not None:
        import tack

        from .calls import calls

        for k, c in enumerate(calls(args.show, args.calls, [d for d in tack.available_devices() if d in ("cpu", "opencl")])):
            print(k, c.what)
        return 0
    return soak(lambda seeds: check_batch(seeds, args.calls), args, items="seeds", problems="findings")


if __name__ == "__main__":
    sys.exit(main())
