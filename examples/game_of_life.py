"""Conway's Game of Life on a torus (the edges wrap around), one cell per
parallel iteration, stepping between two ping-pong buffers. Writes a strip
of generations to examples/out/game_of_life.png.

    python examples/game_of_life.py [--device NAME] [--test]

--test runs a small board for a few generations and checks every one of
them, bit for bit, against a NumPy implementation of the same rule.
"""

import sys
import time

import numpy as np
import tack

from gallery import arguments, publish
from png import image_strip

SIZE = 256
GENERATIONS = 600
SNAPSHOTS = (0, 50, 200, 600)  # generations shown in the strip
SCALE = 2  # pixels per cell in the image


@tack.kernel
def life_step(src, dst):
    for y, x in tack.ndindex(src.shape[0], src.shape[1]):
        h = src.shape[0]
        w = src.shape[1]
        up = (y + h - 1) % h
        down = (y + 1) % h
        left = (x + w - 1) % w
        right = (x + 1) % w
        n = (src[up, left] + src[up, x] + src[up, right] + src[y, left] + src[y, right]
             + src[down, left] + src[down, x] + src[down, right])
        alive = src[y, x]
        if n == 3 or (alive == 1 and n == 2):
            dst[y, x] = 1
        else:
            dst[y, x] = 0


def life_step_numpy(board):
    """The oracle: the same rule with np.roll doing the wrap-around."""
    n = sum(np.roll(np.roll(board, dy, 0), dx, 1)
            for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    return ((n == 3) | ((board == 1) & (n == 2))).astype(board.dtype)


def random_board(size, seed=1):
    return (np.random.default_rng(seed).random((size, size)) < 0.3).astype(np.int32)


def run(board, generations, snapshots=(), progress=False):
    """The board after `generations` steps, and the boards at `snapshots`."""
    current = tack.array(board, dtype=tack.i32)
    following = tack.zeros(board.shape, dtype=tack.i32)
    frames = {0: board.copy()} if 0 in snapshots else {}
    for g in range(1, generations + 1):
        life_step(current, following)
        current, following = following, current
        if g in snapshots:
            frames[g] = current.numpy().copy()
        if progress and g % 200 == 0:
            print(f"  generation {g}/{generations}", flush=True)
    return current.numpy(), frames


def self_test():
    size, generations = 48, 40
    # A 30% random board has live cells on every edge and corner, so the
    # wrap-around is exercised from the first generation.
    board = random_board(size, seed=5)
    current = tack.array(board, dtype=tack.i32)
    following = tack.zeros(board.shape, dtype=tack.i32)
    expected = board
    for g in range(1, generations + 1):
        life_step(current, following)
        current, following = following, current
        expected = life_step_numpy(expected)
        if not np.array_equal(current.numpy(), expected):
            diff = int((current.numpy() != expected).sum())
            print(f"game_of_life --test FAILED: generation {g} differs from NumPy in {diff} cells")
            return 1
    print(f"game_of_life --test passed: {size}x{size}, {generations} generations equal to NumPy bit for bit "
          f"({int(expected.sum())} cells alive)")
    return 0


def main():
    args = arguments(__doc__, "check a small run against NumPy")
    if args.test:
        return self_test()
    start = time.perf_counter()
    final, frames = run(random_board(SIZE), GENERATIONS, SNAPSHOTS, progress=True)
    seconds = time.perf_counter() - start
    tiles = []
    for g in SNAPSHOTS:
        cells = np.kron(frames[g], np.ones((SCALE, SCALE), np.int32))
        rgb = np.where(cells[..., None] == 1, [250, 220, 120], [20, 24, 40]).astype(np.uint8)
        tiles.append(rgb)
    return publish("game_of_life", image_strip(tiles),
                   f"{SIZE}x{SIZE}, {GENERATIONS} generations, {seconds:.2f} s including compilation; "
                   f"{int(final.sum())} cells alive")


if __name__ == "__main__":
    sys.exit(main())
