"""Soak testing from the command line.

    python -m tests.python.typed_expressions --count 100000 [--start 0] [--device opencl]
    python -m tests.python.typed_expressions --count 1000 --max-length 3000   # many SIMD groups and chunks
    python -m tests.python.typed_expressions --workgroups --count 1000 --device opencl
    python -m tests.python.typed_expressions --show SEED [--workgroups]
"""

import sys

from soak import arguments, soak

from . import runner
from .grammar import generate
from .runner import run_batch, run_workgroup_batch
from .workgroups import generate_workgroup


def main(argv=None):
    parser = arguments("python -m tests.python.typed_expressions")
    parser.add_argument("--device", default="cpu", help="the default device the kernels run on")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one program's source and exit")
    parser.add_argument("--workgroups", action="store_true",
                        help="the workgroup programs (shared memory, barriers, block reductions)")
    parser.add_argument("--max-length", type=int, default=runner.MAX_LEN,
                        help="the most elements a program's arrays may have (each program's oracle runs per element)")
    args = parser.parse_args(argv)
    runner.MAX_LEN = args.max_length
    if args.show is not None:
        program = generate_workgroup(args.show) if args.workgroups else generate(args.show, args.device)
        print(program.source)
        return 0
    import tack

    tack.set_default_device(args.device)
    return soak(run_workgroup_batch if args.workgroups else run_batch, args)


if __name__ == "__main__":
    sys.exit(main())
