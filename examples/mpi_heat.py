"""Heat diffusion (examples/heat_diffusion.py) with the plate's rows split
over MPI ranks. Each rank holds its rows plus one halo row above and below
in a Tack array; before every step the ranks swap boundary rows with their
neighbours straight from and into those arrays, then the same stencil kernel
steps the rank's rows. Rank 0 gathers the plate and writes
examples/out/mpi_heat.png, dashes marking where one rank's rows end.

    mpirun -n 4 python examples/mpi_heat.py [--device NAME] [--test]
    python examples/mpi_heat.py [--device NAME] [--test]      # one rank

--test runs a small plate and checks on rank 0 that the gathered result
equals heat_diffusion.py's single-process result bit for bit, and NumPy
float32 steps within heat_diffusion's tolerance. Without mpi4py the program
runs as one rank (docs/mpi.md).
"""

import sys
import time
from typing import Any

import numpy as np
import tack

from gallery import arguments, publish
from heat_diffusion import ALPHA, HOT_SPOTS, SIZE, STEPS, add_disc, colorize, diffuse, diffuse_np, simulate

MPI: Any
try:
    from mpi4py import MPI
except ImportError:  # one rank without MPI: nothing to exchange or gather
    MPI = None

TEST_SIZE, TEST_STEPS = 67, 100  # 65 interior rows: ranks get unequal shares


def owned_rows(size, rank, ranks):
    """The plate rows [first, stop) a rank steps: the interior rows
    1 .. size - 2 in contiguous, nearly equal shares. Rows 0 and size - 1
    are the fixed edges, which only appear as halo rows of the first and
    last rank."""
    interior = size - 2
    if interior < ranks:
        raise SystemExit(f"mpi_heat: a {size}x{size} plate has {interior} interior rows, fewer than {ranks} ranks")
    return 1 + rank * interior // ranks, 1 + (rank + 1) * interior // ranks


def initial_block(size, first, stop):
    """Plate rows first - 1 .. stop (halos included) of heat_diffusion's
    initial plate, as a new Tack array."""
    block = tack.zeros((stop - first + 2, size), dtype=tack.f32)
    for row, col, radius, temperature in HOT_SPOTS:
        # Local row y is plate row y + first - 1: shifting the centre keeps
        # every (dy, dx) and so the same disc, restricted to this block.
        add_disc(block, int(row * size) - (first - 1), int(col * size), radius, temperature)
    return block


def exchange_halos(comm, block, up, down):
    """Fills the block's halo rows with the neighbours' boundary rows.

    `block.numpy()` of a CPU array is a view of the array's own memory (no
    copy), and each row of it is contiguous, so MPI reads the rows it sends
    from, and writes the rows it receives into, the memory the kernel
    steps. On a device whose arrays keep a host copy (OpenCL), taking the
    view after the step brings the host copy up to date, and the next launch
    uploads what MPI wrote (docs/mpi.md). A missing neighbour is
    MPI.PROC_NULL, for which Sendrecv moves nothing: the plate's edge rows
    stay the zeros they were made with."""
    if comm is None:
        return
    rows = block.numpy()
    comm.Sendrecv(rows[1], dest=up, recvbuf=rows[-1], source=down)  # my first row up, theirs from below
    comm.Sendrecv(rows[-2], dest=down, recvbuf=rows[0], source=up)  # my last row down, theirs from above


def gather_plate(comm, block, size, shares):
    """The whole plate on rank 0 (None elsewhere), from every rank's rows."""
    if comm is None:
        return block.numpy().copy()  # one rank: its block is the whole plate
    plate = np.zeros((size, size), dtype=np.float32) if comm.rank == 0 else None
    counts = [(stop - first) * size for first, stop in shares]
    offsets = [first * size for first, _ in shares]
    interior = block.numpy()[1:-1]
    comm.Gatherv(interior, [plate, counts, offsets, MPI.FLOAT] if comm.rank == 0 else None, root=0)
    return plate


def simulate_distributed(comm, size, steps, alpha, progress=False):
    """Rank 0: the plate after `steps` steps and each rank's rows; other
    ranks: None and the shares."""
    rank, ranks = (comm.rank, comm.size) if comm else (0, 1)
    shares = [owned_rows(size, r, ranks) for r in range(ranks)]
    first, stop = shares[rank]
    no_neighbour = MPI.PROC_NULL if MPI else None
    up = rank - 1 if rank > 0 else no_neighbour
    down = rank + 1 if rank < ranks - 1 else no_neighbour
    current = initial_block(size, first, stop)
    following = tack.zeros_like(current)
    for step in range(1, steps + 1):
        exchange_halos(comm, current, up, down)
        # The kernel writes local rows 1 .. len - 2: the rows this rank owns.
        diffuse(current, following, alpha)
        current, following = following, current
        if progress and rank == 0 and step % 500 == 0:
            print(f"  step {step}/{steps}", flush=True)
    return gather_plate(comm, current, size, shares), shares


def self_test(comm):
    rank, ranks = (comm.rank, comm.size) if comm else (0, 1)
    distributed, shares = simulate_distributed(comm, TEST_SIZE, TEST_STEPS, ALPHA)
    if rank != 0:
        return 0
    # Bit for bit: every cell's new value is center + alpha * (neighbours -
    # 4 * center) over the same five f32 values, summed in the same order,
    # by the same kernel; nothing sums across cells, so splitting the rows
    # cannot change which numbers meet. The CPU backend rounds every
    # operation (no contraction) and OpenCL compiles with FP_CONTRACT OFF;
    # where a backend may fuse (CUDA), it decides per expression at compile
    # time, the same for every cell, as long as every rank runs the same
    # build on the same kind of processor.
    single = simulate(TEST_SIZE, TEST_STEPS, ALPHA)
    differing = np.flatnonzero(np.any(distributed.view(np.uint32) != single.view(np.uint32), axis=1))
    # The independent oracle: heat_diffusion's NumPy float32 steps, within
    # its tolerance (1e-5 after 100 steps), so a halo that never arrived
    # cannot pass as two equally wrong runs.
    expected = simulate(TEST_SIZE, 0, ALPHA)
    for _ in range(TEST_STEPS):
        expected = diffuse_np(expected, ALPHA)
    worst = float(np.max(np.abs(distributed - expected)))
    ok = len(differing) == 0 and worst < 1e-5
    split = "+".join(str(stop - first) for first, stop in shares)
    if len(differing):
        row = int(differing[0])
        owner = next(r for r, (first, stop) in enumerate(shares) if first <= row < stop)
        equality = f"{len(differing)} rows differ from the single-process result, first row {row} (rank {owner})"
    else:
        equality = "gathered result equals the single-process result bit for bit"
    print(f"mpi_heat --test {'passed' if ok else 'FAILED'}: {TEST_SIZE}x{TEST_SIZE}, {TEST_STEPS} steps over "
          f"{ranks} rank{'s' if ranks > 1 else ''} (rows {split}); {equality}; largest difference from NumPy "
          f"float32 {worst:.1e} (limit 1e-5)")
    return 0 if ok else 1


def main():
    args = arguments(__doc__, "check a small run against the single-process one")
    comm = MPI.COMM_WORLD if MPI else None
    if args.test:
        return self_test(comm)
    start = time.perf_counter()
    plate, shares = simulate_distributed(comm, SIZE, STEPS, ALPHA, progress=True)
    seconds = time.perf_counter() - start
    if plate is None:
        return 0
    image = colorize(plate)
    for first, _ in shares[1:]:
        image[first, np.arange(SIZE) % 8 < 4] = 160  # grey dashes on each rank's first row
    return publish("mpi_heat", image,
                   f"{SIZE}x{SIZE}, {STEPS} steps over {len(shares)} rank{'s' if len(shares) > 1 else ''}, "
                   f"{seconds:.2f} s including compilation; total heat {float(plate.sum()):.1f}")


if __name__ == "__main__":
    sys.exit(main())
