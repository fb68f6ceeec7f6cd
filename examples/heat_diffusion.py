"""Heat spreading from two hot spots over a square plate whose edges are held
at zero, by explicit 5-point stencil steps between two ping-pong buffers.
Writes examples/out/heat_diffusion.png.

    python examples/heat_diffusion.py [--device NAME]
"""

import argparse
import time
from pathlib import Path

import numpy as np
import tack

from png import write_png

OUT_DIR = Path(__file__).resolve().parent / "out"
SIZE = 384
STEPS = 2000
# Explicit steps are stable for alpha <= 0.25 (grid spacing and time step 1).
ALPHA = 0.2
# (row, column, radius, temperature) of each initial hot spot.
HOT_SPOTS = [(0.5, 0.4, 24, 1.0), (0.3, 0.7, 12, 2.0)]


@tack.kernel
def add_disc(grid, row, col, radius, temperature):
    for y, x in tack.ndindex(grid.shape[0], grid.shape[1]):
        dy = y - row
        dx = x - col
        if dy * dy + dx * dx <= radius * radius:
            grid[y, x] = temperature


@tack.kernel
def diffuse(src, dst, alpha):
    # The edges are never written: both buffers keep them at zero.
    for y, x in tack.ndindex((1, src.shape[0] - 1), (1, src.shape[1] - 1)):
        center = src[y, x]
        neighbours = src[y - 1, x] + src[y + 1, x] + src[y, x - 1] + src[y, x + 1]
        dst[y, x] = center + alpha * (neighbours - 4.0 * center)


def simulate(size, steps, alpha):
    """Temperature after `steps` steps, as a NumPy float32 array."""
    current = tack.zeros((size, size), dtype=tack.f32)
    following = tack.zeros((size, size), dtype=tack.f32)
    for row, col, radius, temperature in HOT_SPOTS:
        add_disc(current, int(row * size), int(col * size), radius, temperature)
    for _ in range(steps):
        diffuse(current, following, alpha)
        current, following = following, current
    return current.numpy()


def colorize(temperature):
    """Black through red and yellow to white, scaled to the hottest point."""
    t = temperature / max(float(temperature.max()), 1e-30)
    rgb = np.clip(np.stack([3 * t, 3 * t - 1, 3 * t - 2], axis=-1), 0.0, 1.0)
    return (rgb * 255).astype(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", help="Tack device to run on (default: the CPU)")
    args = parser.parse_args()
    if args.device:
        tack.set_default_device(args.device)
    start = time.perf_counter()
    temperature = simulate(SIZE, STEPS, ALPHA)
    seconds = time.perf_counter() - start
    path = write_png(OUT_DIR / "heat_diffusion.png", colorize(temperature))
    print(f"heat_diffusion: {SIZE}x{SIZE}, {STEPS} steps, {seconds:.2f} s including compilation; "
          f"total heat {float(temperature.sum()):.1f}")
    print(path)


if __name__ == "__main__":
    main()
