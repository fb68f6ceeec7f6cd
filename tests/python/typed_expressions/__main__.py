"""Soak testing from the command line.

    python -m tests.python.typed_expressions --count 100000 [--start 0] [--device opencl]
    python -m tests.python.typed_expressions --show SEED
"""

import sys

from soak import arguments, soak

from .grammar import generate
from .runner import run_batch


def main(argv=None):
    parser = arguments("python -m tests.python.typed_expressions")
    parser.add_argument("--device", default="cpu", help="the default device the kernels run on")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one program's source and exit")
    args = parser.parse_args(argv)
    if args.show is not None:
        print(generate(args.show, args.device).source)
        return 0
    import tack

    tack.set_default_device(args.device)
    return soak(run_batch, args)


if __name__ == "__main__":
    sys.exit(main())
