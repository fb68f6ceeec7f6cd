"""Heat spreading from two hot spots over a square plate whose edges are held
at zero, by explicit 5-point stencil steps between two ping-pong buffers.
Writes examples/out/heat_diffusion.png.

    python examples/heat_diffusion.py [--device NAME] [--test]

--test runs a small plate and compares it with the same steps in NumPy
float32 after every step.
"""

import sys
import time

import numpy as np
import tack

from gallery import arguments, publish

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


def diffuse_np(src, alpha):
    """The oracle: one step in NumPy float32, the kernel's order of sums."""
    dst = src.copy()
    c = src[1:-1, 1:-1]
    neighbours = src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:]
    dst[1:-1, 1:-1] = c + np.float32(alpha) * (neighbours - np.float32(4.0) * c)
    return dst


def self_test():
    size, steps = 48, 100
    current = tack.zeros((size, size), dtype=tack.f32)
    following = tack.zeros((size, size), dtype=tack.f32)
    for row, col, radius, temperature in HOT_SPOTS:
        add_disc(current, int(row * size), int(col * size), radius // 4, temperature)
    expected = current.numpy().copy()
    worst = 0.0
    for _ in range(steps):
        diffuse(current, following, ALPHA)
        current, following = following, current
        expected = diffuse_np(expected, ALPHA)
        worst = max(worst, float(np.max(np.abs(current.numpy() - expected))))
    # Each step is a few f32 operations per cell; a fused multiply-add may
    # round once where NumPy rounds twice (2^-24 of values below 2), and
    # the averaging step does not amplify differences: 1e-5 after 100 steps
    # is a wide margin over 100 * 2 * 2^-24.
    ok = worst < 1e-5
    print(f"heat_diffusion --test {'passed' if ok else 'FAILED'}: {size}x{size}, {steps} steps, largest difference "
          f"from NumPy float32 {worst:.1e} (limit 1e-5)")
    return 0 if ok else 1


def colorize(temperature):
    """Black through red and yellow to white, scaled to the hottest point."""
    t = temperature / max(float(temperature.max()), 1e-30)
    rgb = np.clip(np.stack([3 * t, 3 * t - 1, 3 * t - 2], axis=-1), 0.0, 1.0)
    return (rgb * 255).astype(np.uint8)


def main():
    args = arguments(__doc__, "compare a small run with NumPy")
    if args.test:
        return self_test()
    start = time.perf_counter()
    temperature = simulate(SIZE, STEPS, ALPHA)
    seconds = time.perf_counter() - start
    return publish("heat_diffusion", colorize(temperature),
                   f"{SIZE}x{SIZE}, {STEPS} steps, {seconds:.2f} s including compilation; "
                   f"total heat {float(temperature.sum()):.1f}")


if __name__ == "__main__":
    sys.exit(main())
