"""The 2-D wave equation u_tt = c^2 (u_xx + u_yy) by leapfrog finite
differences (the 5-point Laplacian, second differences in time): a plane
wave from the left edge passes two slits in a wall and interferes. A sponge
layer at the other edges absorbs what reaches them. Writes a strip of
frames to examples/out/wave.png.

    python examples/wave.py [--device NAME] [--test]

--test drops a pulse into a closed box with the same walls, no source and
no sponge, and checks the scheme's discrete energy (computed in float64 by
NumPy from the fields) against its first value; see energy() for why it is
conserved and self_test() for the tolerance.
"""

import math
import sys
import time

import numpy as np
import tack

from gallery import arguments, publish
from png import image_strip

HEIGHT, WIDTH = 256, 384
STEPS = 900
SNAPSHOTS = (300, 600, 900)
# Courant number c dt / dx. Leapfrog on the 5-point Laplacian is stable for
# r <= 1/sqrt(2); its energy is positive definite below that.
COURANT = 0.5
WAVELENGTH = 16.0  # cells


@tack.kernel
def leapfrog(prev, cur, wall, damping, r2):
    # Writes u(t + dt) over u(t - dt): each cell reads only its own old value.
    # The outer ring is never written and stays zero (a fixed boundary).
    for y, x in tack.ndindex((1, cur.shape[0] - 1), (1, cur.shape[1] - 1)):
        if wall[y, x] != 0:
            prev[y, x] = 0.0
        else:
            u = cur[y, x]
            laplacian = cur[y - 1, x] + cur[y + 1, x] + cur[y, x - 1] + cur[y, x + 1] - 4.0 * u
            prev[y, x] = u + (1.0 - damping[y, x]) * (u - prev[y, x]) + r2 * laplacian


@tack.kernel
def drive(cur, column, value):
    # A line source: one column held at the source's value.
    for y in range(1, cur.shape[0] - 1):
        cur[y, column] = value


def double_slit(height, width):
    """1 on wall cells: a vertical wall at 40% of the width with two slits."""
    wall = np.zeros((height, width), np.int32)
    x = int(0.4 * width)
    wall[:, x:x + 3] = 1
    for centre in (0.4 * height, 0.6 * height):
        wall[int(centre) - 5:int(centre) + 5, x:x + 3] = 0
    return wall


def sponge(height, width, thickness=32):
    """Damping rising quadratically to 0.3 over the outer `thickness` cells,
    except at the left edge, where the source is."""
    y = np.arange(height)[:, None]
    x = np.arange(width)[None, :]
    distance = np.minimum(np.minimum(y, height - 1 - y), width - 1 - x).astype(np.float32)
    depth = np.clip(1.0 - distance / thickness, 0.0, 1.0)
    return (0.3 * depth ** 2).astype(np.float32)


def laplacian_np(u):
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    return lap


def energy(u_old, u_new, r2):
    """The leapfrog scheme's conserved energy, in float64, in units of dx and
    dt: 1/2 |u_new - u_old|^2 - r^2/2 <u_new, L u_old>. With L symmetric
    (the 5-point Laplacian restricted to the free cells: walls and the
    outer ring hold zero), multiplying the scheme by u_new - u_old and
    summing shows this is the same at every step in exact arithmetic; it is
    positive for r^2 < 1/2."""
    u_old = u_old.astype(np.float64)
    u_new = u_new.astype(np.float64)
    return 0.5 * np.sum((u_new - u_old) ** 2) - 0.5 * r2 * np.sum(u_new * laplacian_np(u_old))


def gaussian_pulse(height, width, cy, cx, sigma):
    y = np.arange(height)[:, None]
    x = np.arange(width)[None, :]
    return np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * sigma ** 2)).astype(np.float32)


def self_test():
    height, width, steps = 96, 128, 400
    r2 = COURANT ** 2
    wall = double_slit(height, width)
    u0 = (gaussian_pulse(height, width, 0.5 * height, 0.2 * width, 4.0) * (1 - wall)).astype(np.float32)
    u0[0, :] = u0[-1, :] = u0[:, 0] = u0[:, -1] = 0.0
    prev = tack.array(u0, dtype=tack.f32)
    cur = tack.array(u0, dtype=tack.f32)  # at rest: u(-dt) = u(0)
    no_damping = tack.zeros((height, width), dtype=tack.f32)
    walls = tack.array(wall)
    # Step one against NumPy in float64: the kernel is the scheme.
    leapfrog(prev, cur, walls, no_damping, r2)
    expected = (u0 + r2 * laplacian_np(u0.astype(np.float64))) * (1 - wall)
    step_error = float(np.max(np.abs(prev.numpy() - expected)))
    prev, cur = cur, prev
    e0 = energy(prev.numpy(), cur.numpy(), r2)
    worst = 0.0
    for _ in range(steps - 1):
        leapfrog(prev, cur, walls, no_damping, r2)
        prev, cur = cur, prev
        worst = max(worst, abs(energy(prev.numpy(), cur.numpy(), r2) - e0) / e0)
    # Exact arithmetic conserves the energy; f32 rounding (2^-24 relative
    # per operation, a few operations per cell and step) perturbs it by a
    # random walk of about 1e-7 * sqrt(steps) relatively. 1e-4 leaves two
    # orders of margin and still fails for a wrong stencil or coefficient
    # (a 1% error in r^2 changes the energy by about 1% within one period).
    ok = step_error < 1e-6 and worst < 1e-4 and e0 > 0
    verdict = "passed" if ok else "FAILED"
    print(f"wave --test {verdict}: first step within {step_error:.1e} of NumPy (limit 1e-6); "
          f"energy {e0:.4f}, largest relative change over {steps} steps {worst:.1e} (limit 1e-4)")
    return 0 if ok else 1


def colorize(u, wall, scale):
    """Blue for troughs, white at rest, red for crests; walls grey."""
    # Quantized to 16 levels a side: bands read as contours, and compress.
    t = (np.round(np.clip(u / scale, -1.0, 1.0) * 16) / 16)[..., None]
    white = np.array([1.0, 1.0, 1.0])
    rgb = np.where(t > 0, white + t * (np.array([0.8, 0.1, 0.1]) - white),
                   white - t * (np.array([0.1, 0.2, 0.8]) - white))
    rgb[wall == 1] = 0.35
    return (rgb * 255).astype(np.uint8)


def main():
    args = arguments(__doc__, "check energy conservation on a small run")
    if args.test:
        return self_test()
    start = time.perf_counter()
    r2 = COURANT ** 2
    wall = double_slit(HEIGHT, WIDTH)
    prev = tack.zeros((HEIGHT, WIDTH), dtype=tack.f32)
    cur = tack.zeros((HEIGHT, WIDTH), dtype=tack.f32)
    walls, damping = tack.array(wall), tack.array(sponge(HEIGHT, WIDTH))
    omega = 2 * math.pi * COURANT / WAVELENGTH  # radians per step
    frames = []
    for step in range(1, STEPS + 1):
        leapfrog(prev, cur, walls, damping, r2)
        prev, cur = cur, prev
        drive(cur, 1, math.sin(omega * step))
        if step in SNAPSHOTS:
            frames.append(cur.numpy().copy())
        if step % 300 == 0:
            print(f"  step {step}/{STEPS}", flush=True)
    seconds = time.perf_counter() - start
    return publish("wave", image_strip([colorize(f, wall, 1.0) for f in frames]),
                   f"{WIDTH}x{HEIGHT}, {STEPS} steps, {seconds:.2f} s including compilation")


if __name__ == "__main__":
    sys.exit(main())
