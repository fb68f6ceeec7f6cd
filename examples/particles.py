"""Particles drifting through a swirling flow, drawn as a density image:
a @tack.device_class holds the particles (arrays of tack.vec2f) and the
flow's constants, its kernel method moves them, and atomics splat them into
a histogram. Writes examples/out/particles.png.

    python examples/particles.py [--device NAME] [--test]

--test moves a few thousand particles and checks that the histogram counts
every particle in the frame exactly once, equal to NumPy's binning of the
same positions.
"""

import math
import sys
import time

import numpy as np
import tack

from gallery import arguments, publish

COUNT = 200_000
STEPS = 300
SIZE = 384


@tack.device_class
class Swarm:
    swirl = 2.0  # class constants: literals in the compiled code
    drag = 0.2

    def __init__(self, positions, velocities, dt):
        self.positions = positions  # instance attributes: runtime parameters
        self.velocities = velocities
        self.dt = dt

    @tack.func
    def flow(self, p):
        # Two counter-rotating vortices, at x = -0.5 and x = +0.5.
        left = p - tack.vec2(-0.5, 0.0)
        right = p - tack.vec2(0.5, 0.0)
        spin_left = tack.vec2(-left.y, left.x) / (left.norm_sqr() + 0.05)
        spin_right = tack.vec2(right.y, -right.x) / (right.norm_sqr() + 0.05)
        return (spin_left + spin_right) * self.swirl * 0.1

    @tack.kernel
    def step(self):
        for i in range(len(self.positions)):
            p = self.positions[i]
            v = self.velocities[i] * (1.0 - self.drag) + self.flow(p) * self.dt
            self.velocities[i] = v
            self.positions[i] = p + v * self.dt


@tack.kernel
def splat(positions, counts, scale):
    # Counts per pixel of a top view of [-1/scale, 1/scale]^2: x across, y
    # down; positions outside the frame are dropped. (nbody.py draws with it.)
    for i in range(len(positions)):
        p = positions[i]
        x = int((p.x * scale + 1.0) * 0.5 * counts.shape[1])
        y = int((p.y * scale + 1.0) * 0.5 * counts.shape[0])
        if 0 <= x < counts.shape[1] and 0 <= y < counts.shape[0]:
            tack.atomic_add(counts, (y, x), 1)


def simulate(count, steps):
    rng = np.random.default_rng(7)
    angle = rng.uniform(0, 2 * math.pi, count)
    radius = np.sqrt(rng.uniform(0, 1, count)) * 0.9
    start = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=-1).astype(np.float32)
    swarm = Swarm(tack.array(start, dtype=tack.vec2f), tack.zeros(count, dtype=tack.vec2f), 0.05)
    for _ in range(steps):
        swarm.step()
    return swarm.positions


def self_test():
    count, steps, size, scale = 5000, 50, 64, 0.8
    positions = simulate(count, steps)
    counts = tack.zeros((size, size), dtype=tack.i32)
    splat(positions, counts, scale)
    got = counts.numpy()
    # The oracle: the kernel's bin formula in NumPy float32.
    p = positions.numpy()
    f32 = np.float32
    x = ((p[:, 0] * f32(scale) + f32(1.0)) * f32(0.5) * f32(size)).astype(np.int64)
    y = ((p[:, 1] * f32(scale) + f32(1.0)) * f32(0.5) * f32(size)).astype(np.int64)
    inside = (x >= 0) & (x < size) & (y >= 0) & (y < size)
    expected = np.zeros((size, size), np.int64)
    np.add.at(expected, (y[inside], x[inside]), 1)
    # A position within rounding of a bin edge may land in the next bin
    # (a fused multiply-add rounds once); the total is exact either way.
    total_ok = int(got.sum()) == int(inside.sum())
    moved = int(np.abs(got - expected).sum()) // 2
    ok = total_ok and moved <= count // 1000
    print(f"particles --test {'passed' if ok else 'FAILED'}: {count} particles, {steps} steps; histogram total "
          f"{int(got.sum())}, NumPy {int(inside.sum())}; {moved} particles in a neighbouring bin (at most "
          f"{count // 1000} allowed)")
    return 0 if ok else 1


def colorize(counts):
    t = np.log1p(counts.astype(np.float32))
    t /= max(float(t.max()), 1e-30)
    rgb = np.clip(np.stack([t * 0.6, t * 0.9, 0.3 + t], axis=-1), 0.0, 1.0)
    return (rgb * 255).astype(np.uint8)


def main():
    args = arguments(__doc__, "check the histogram against NumPy")
    if args.test:
        return self_test()
    start = time.perf_counter()
    positions = simulate(COUNT, STEPS)
    counts = tack.zeros((SIZE, SIZE), dtype=tack.i32)
    splat(positions, counts, 0.8)
    elapsed = time.perf_counter() - start
    return publish("particles", colorize(counts.numpy()),
                   f"{COUNT} particles, {STEPS} steps in {elapsed:.2f} s; {int(counts.numpy().sum())} drawn")


if __name__ == "__main__":
    sys.exit(main())
