"""Smoothed-particle hydrodynamics, weakly compressible (Mueller, Charypar
and Gross 2003: poly6 density, spiky pressure gradient, viscosity
Laplacian, in their 2-D normalizations): a dam of water collapses in a
box. Neighbours are found through a uniform grid held in a
@tack.device_class: particles are counted per cell with atomics, a prefix
sum gives each cell's start, and particle indices are scattered into cell
order. Writes a strip of frames to examples/out/sph.png.

    python examples/sph.py [--device NAME] [--test]

--test runs a small dam and checks, at every step, that the grid holds
every particle exactly once (count conserved, sorted indices a
permutation) and the mass is unchanged, and at a few steps that the
neighbour lists found through the grid equal a brute-force NumPy search
and the densities a float64 NumPy sum over those pairs.
"""

import math
import sys
import time

import numpy as np
import tack

from gallery import arguments, publish, report_test
from png import image_strip

# Units: the particles' initial spacing is 1, the rest density 1, so each
# particle's mass is 1. The kernel radius H covers about 12 neighbours.
H = 2.0
REST_DENSITY = 1.0
SOUND_SPEED = 30.0  # about 3x the fastest flow: density varies by ~1%
STIFFNESS = SOUND_SPEED ** 2 * REST_DENSITY
VISCOSITY = 0.5
GRAVITY = 1.0
DT = 0.02  # below 0.4 H / SOUND_SPEED (the CFL condition)
BOX = (160.0, 80.0)
DAM = (60, 40)  # particles across and up
STEPS = 1500
SNAPSHOTS = (0, 300, 700, 1500)
IMAGE_SCALE = 2.4  # pixels per unit
POLY6 = 4.0 / (math.pi * H ** 8)
SPIKY_GRAD = 30.0 / (math.pi * H ** 5)
VISC_LAP = 40.0 / (math.pi * H ** 5)
MAX_LISTED = 48  # neighbours recorded per particle in the test

# The same numbers as literals in the kernels (Python floats are not
# captured; tack.constant makes them part of the compiled code).
K_H = tack.constant(H, tack.f32)
K_REST_DENSITY = tack.constant(REST_DENSITY, tack.f32)
K_STIFFNESS = tack.constant(STIFFNESS, tack.f32)
K_VISCOSITY = tack.constant(VISCOSITY, tack.f32)
K_GRAVITY = tack.constant(GRAVITY, tack.f32)
K_POLY6 = tack.constant(POLY6, tack.f32)
K_SPIKY_GRAD = tack.constant(SPIKY_GRAD, tack.f32)
K_VISC_LAP = tack.constant(VISC_LAP, tack.f32)


@tack.device_class
class CellGrid:
    """Particle indices bucketed by cell of side H: cell c's particles are
    order[start[c]:start[c + 1]]."""

    def __init__(self, nx, ny, count):
        self.dims = (nx, ny)
        self.cell_size = H
        self.counts = tack.zeros(nx * ny, dtype=tack.i32)
        self.start = tack.zeros(nx * ny + 1, dtype=tack.i32)
        self.order = tack.zeros(count, dtype=tack.i32)

    @tack.func
    def cell_of(self, p):
        cx = tack.clamp(int(p.x / self.cell_size), 0, self.dims[0] - 1)
        cy = tack.clamp(int(p.y / self.cell_size), 0, self.dims[1] - 1)
        return cx, cy

    @tack.func
    def cell_span(self, x, y):
        # Positions k in order[] of cell (x, y)'s particles: [begin, end),
        # empty for a cell outside the grid.
        begin = 0
        end = 0
        if 0 <= x < self.dims[0] and 0 <= y < self.dims[1]:
            c = y * self.dims[0] + x
            begin = self.start[c]
            end = self.start[c + 1]
        return begin, end

    @tack.kernel
    def count(self, pos):
        for i in range(len(pos)):
            cx, cy = self.cell_of(pos[i])
            tack.atomic_add(self.counts, cy * self.dims[0] + cx, 1)

    @tack.kernel
    def prefix_sum(self):
        # One iteration that scans every cell in order, then clears the
        # counts, which scatter() uses again as each cell's cursor.
        for _ in range(1):
            total = 0
            for c in range(len(self.counts)):
                self.start[c] = total
                total += self.counts[c]
                self.counts[c] = 0
            self.start[len(self.counts)] = total

    @tack.kernel
    def scatter(self, pos):
        for i in range(len(pos)):
            cx, cy = self.cell_of(pos[i])
            c = cy * self.dims[0] + cx
            self.order[self.start[c] + tack.atomic_add(self.counts, c, 1)] = i

    def build(self, pos):
        self.counts.fill(0)
        self.count(pos)
        self.prefix_sum()
        self.scatter(pos)
        self.counts.fill(0)


@tack.kernel
def list_neighbours(grid, pos, listed, found):
    # For the test: every j != i within H, through the grid's 3x3 cells.
    for i in range(len(pos)):
        p = pos[i]
        cx, cy = grid.cell_of(p)
        n = 0
        for oy in range(-1, 2):
            for ox in range(-1, 2):
                begin, end = grid.cell_span(cx + ox, cy + oy)
                for k in range(begin, end):
                    j = grid.order[k]
                    if j != i and (pos[j] - p).norm_sqr() < grid.cell_size * grid.cell_size:
                        if n < listed.shape[1]:
                            listed[i, n] = j
                        n += 1
        found[i] = n


@tack.kernel
def compute_density(grid, pos, mass, density, pressure):
    for i in range(len(pos)):
        p = pos[i]
        cx, cy = grid.cell_of(p)
        rho = 0.0
        for oy in range(-1, 2):
            for ox in range(-1, 2):
                begin, end = grid.cell_span(cx + ox, cy + oy)
                for k in range(begin, end):
                    j = grid.order[k]
                    r2 = (pos[j] - p).norm_sqr()
                    if r2 < K_H * K_H:
                        q = K_H * K_H - r2
                        rho += mass[j] * K_POLY6 * q * q * q
        density[i] = rho
        # Clamped at zero: a thin surface layer has no tension to pull it.
        pressure[i] = max(K_STIFFNESS * (rho - K_REST_DENSITY), 0.0)


@tack.kernel
def compute_forces(grid, pos, vel, mass, density, pressure, acc):
    for i in range(len(pos)):
        p = pos[i]
        cx, cy = grid.cell_of(p)
        a = tack.vec2(0.0, -K_GRAVITY)
        for oy in range(-1, 2):
            for ox in range(-1, 2):
                begin, end = grid.cell_span(cx + ox, cy + oy)
                for k in range(begin, end):
                    j = grid.order[k]
                    d = p - pos[j]
                    r = d.norm()
                    if j != i and r < K_H and r > 1e-6:
                        falloff = K_H - r
                        # Symmetric pressure term (the pair's mean pressure),
                        # so pair forces cancel: momentum is exchanged only.
                        shared = mass[j] / (density[i] * density[j])
                        push = 0.5 * (pressure[i] + pressure[j]) * K_SPIKY_GRAD * falloff * falloff
                        a += d / r * (push * shared)
                        a += (vel[j] - vel[i]) * (K_VISCOSITY * K_VISC_LAP * falloff * shared)
        acc[i] = a


@tack.kernel
def integrate(pos, vel, acc, dt, width, height):
    for i in range(len(pos)):
        v = vel[i] + acc[i] * dt
        p = pos[i] + v * dt
        # Walls: put the particle back inside, reflect and damp its velocity.
        if p.x < 0.0:
            p.x = 0.0
            v.x = -0.5 * v.x
        if p.x > width:
            p.x = width
            v.x = -0.5 * v.x
        if p.y < 0.0:
            p.y = 0.0
            v.y = -0.5 * v.y
        if p.y > height:
            p.y = height
            v.y = -0.5 * v.y
        vel[i] = v
        pos[i] = p


class Dam:
    def __init__(self, columns, rows, box, seed=0):
        rng = np.random.default_rng(seed)
        x, y = np.meshgrid(np.arange(columns) + 0.5, np.arange(rows) + 0.5)
        start = np.stack([x.ravel(), y.ravel()], axis=1) + rng.uniform(-0.05, 0.05, (columns * rows, 2))
        self.box = box
        n = len(start)
        self.pos = tack.array(start.astype(np.float32), dtype=tack.vec2f)
        self.vel = tack.zeros(n, dtype=tack.vec2f)
        self.acc = tack.zeros(n, dtype=tack.vec2f)
        self.mass = tack.full(n, REST_DENSITY * 1.0, dtype=tack.f32)
        self.density = tack.zeros(n, dtype=tack.f32)
        self.pressure = tack.zeros(n, dtype=tack.f32)
        self.grid = CellGrid(math.ceil(box[0] / H), math.ceil(box[1] / H), n)

    def step(self):
        self.grid.build(self.pos)
        compute_density(self.grid, self.pos, self.mass, self.density, self.pressure)
        compute_forces(self.grid, self.pos, self.vel, self.mass, self.density, self.pressure, self.acc)
        integrate(self.pos, self.vel, self.acc, DT, self.box[0], self.box[1])


def brute_force_pairs(pos):
    """The oracle: all pairs i != j, in float64, as a boolean matrix, and
    the pairs too close to the radius for f32 to decide the same way."""
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d * d, axis=-1)
    near = r2 < H * H
    np.fill_diagonal(near, False)
    undecided = np.abs(r2 - H * H) < 1e-5 * H * H
    return near, undecided, r2


def self_test():
    dam = Dam(16, 12, (40.0, 30.0))
    n = len(dam.pos)
    total_mass = float(dam.mass.numpy().astype(np.float64).sum())
    listed = tack.zeros((n, MAX_LISTED), dtype=tack.i32)
    found = tack.zeros(n, dtype=tack.i32)
    failures = set()
    checked = 0
    for step in range(300):
        dam.grid.build(dam.pos)
        start = dam.grid.start.numpy()
        order = dam.grid.order.numpy()
        if start[-1] != n or not np.array_equal(np.sort(order), np.arange(n)):
            failures.add(f"grid lost particles at step {step}")
        if abs(float(dam.mass.numpy().astype(np.float64).sum()) - total_mass) != 0.0:
            failures.add("mass")
        if step % 60 == 0:
            checked += 1
            pos = dam.pos.numpy().astype(np.float64)
            near, undecided, r2 = brute_force_pairs(pos)
            list_neighbours(dam.grid, dam.pos, listed, found)
            counts = found.numpy()
            got = np.zeros((n, n), bool)
            rows = np.repeat(np.arange(n), np.minimum(counts, MAX_LISTED))
            cols = np.concatenate([listed.numpy()[i, :min(c, MAX_LISTED)] for i, c in enumerate(counts)])
            got[rows, cols] = True
            if counts.max() > MAX_LISTED or np.any((got != near) & ~undecided):
                failures.add(f"neighbours differ from brute force at step {step}")
            compute_density(dam.grid, dam.pos, dam.mass, dam.density, dam.pressure)
            q = np.where(near | np.eye(n, dtype=bool), H * H - r2, 0.0)
            expected = np.sum(POLY6 * q ** 3, axis=1)  # unit masses
            # f32 sums of ~12 terms, each within a few ulp: 1e-5 relative.
            if np.max(np.abs(dam.density.numpy() - expected) / expected) > 1e-5:
                failures.add(f"density differs from NumPy at step {step}")
        compute_density(dam.grid, dam.pos, dam.mass, dam.density, dam.pressure)
        compute_forces(dam.grid, dam.pos, dam.vel, dam.mass, dam.density, dam.pressure, dam.acc)
        integrate(dam.pos, dam.vel, dam.acc, DT, dam.box[0], dam.box[1])
    pos = dam.pos.numpy()
    if not (np.all(np.isfinite(pos)) and pos[:, 1].mean() < 6.0 - 0.5):
        failures.add("the dam did not fall")
    return report_test("sph", sorted(failures),
                       f"{n} particles, 300 steps; every step the grid held each particle once and the mass "
                       f"stayed {total_mass:.0f}; at {checked} steps neighbours equal brute force and densities "
                       f"within 1e-5 of NumPy float64; mean height {pos[:, 1].mean():.2f} from 6.00")


def draw(dam):
    w, h = (int(s * IMAGE_SCALE) for s in dam.box)
    image = np.full((h, w, 3), 12, np.uint8)
    pos = dam.pos.numpy()
    speed = np.linalg.norm(dam.vel.numpy(), axis=1)
    t = np.clip(speed / 8.0, 0.0, 1.0)[:, None]
    colors = ((1 - t) * np.array([40, 110, 240]) + t * np.array([230, 245, 255])).astype(np.uint8)
    col = np.clip((pos[:, 0] * IMAGE_SCALE).astype(int), 0, w - 1)
    row = np.clip(((dam.box[1] - pos[:, 1]) * IMAGE_SCALE).astype(int), 0, h - 1)
    for dy in (0, 1):
        for dx in (0, 1):
            image[np.clip(row + dy, 0, h - 1), np.clip(col + dx, 0, w - 1)] = colors
    return image


def main():
    args = arguments(__doc__, "check the neighbour search and conservation")
    if args.test:
        return self_test()
    start = time.perf_counter()
    dam = Dam(*DAM, BOX)
    frames = [draw(dam)]
    for step in range(1, STEPS + 1):
        dam.step()
        if step in SNAPSHOTS:
            frames.append(draw(dam))
        if step % 300 == 0:
            print(f"  step {step}/{STEPS}", flush=True)
    seconds = time.perf_counter() - start
    # Two rows of two frames: the box is twice as wide as it is tall.
    top = image_strip(frames[:2])
    bottom = image_strip(frames[2:])
    gap = np.full((4, top.shape[1], 3), 255, np.uint8)
    return publish("sph", np.concatenate([top, gap, bottom]),
                   f"{len(dam.pos)} particles, {STEPS} steps, {seconds:.2f} s including compilation")


if __name__ == "__main__":
    sys.exit(main())
