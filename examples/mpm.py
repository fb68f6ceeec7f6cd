"""MLS-MPM in 2-D (Hu et al. 2018, "A Moving Least Squares Material Point
Method", the algorithm of its 88-line program): a block of water and two
jelly blocks fall into a box. Each substep scatters particle mass and
affine momentum to the grid with vector atomics (particle-to-grid), turns
grid momentum into velocity under gravity with the box's walls, and
gathers velocities and their affine part C back to the particles
(grid-to-particle). Jelly is fixed-corotated elastic through its
deformation gradient F; water keeps only its volume change. Writes a
strip of frames to examples/out/mpm.png.

    python examples/mpm.py [--device NAME] [--test]

--test runs a small scene and checks, at every substep, that the grid's
mass and momentum after particle-to-grid equal the particles' (the
B-spline weights sum to one and the affine terms cancel), that the mass
field equals a NumPy float64 scatter of the same particles, and that total
momentum stays within what gravity and the walls can give.
"""

import sys
import time

import numpy as np
import tack

from gallery import arguments, publish, report_test
from png import image_strip

GRID = 128
PER_BLOCK = 3000
DT = 1e-4
SUBSTEPS_PER_FRAME = 25
FRAMES = (0, 40, 80, 160)  # frames shown in the strip
IMAGE = 256
GRAVITY = 9.8
# Lame parameters from Young's modulus and Poisson's ratio, as Taichi's
# mpm99; jelly is softened to 0.3 of them. Stability needs the pressure
# wave speed sqrt((lambda + 2 mu) / rho) below dx / dt.
YOUNG, POISSON = 5e3, 0.2
MU = YOUNG / (2 * (1 + POISSON))
LAMBDA = YOUNG * POISSON / ((1 + POISSON) * (1 - 2 * POISSON))
JELLY_SOFTENING = 0.3
WATER, JELLY = 0, 1
BOUNDARY = 3  # grid cells of wall on each side


@tack.func
def spline_weights(fx):
    # Quadratic B-spline weights of the three nodes around a particle, per
    # axis: row k holds the weights of node base + k along x and y.
    w0 = 0.5 * (1.5 - fx) * (1.5 - fx)
    w1 = 0.75 - (fx - 1.0) * (fx - 1.0)
    w2 = 0.5 * (fx - 0.5) * (fx - 0.5)
    return tack.mat(w0, w1, w2)


@tack.func
def stencil(x, inv_dx):
    # The 3x3 grid nodes around a particle at x: the lower-left node (bx,
    # by), the particle's offset from it in cells and the nodes' weights.
    xp = x * inv_dx
    bx = int(xp.x - 0.5)
    by = int(xp.y - 0.5)
    fx = xp - tack.vec2(tack.f32(bx), tack.f32(by))
    return bx, by, fx, spline_weights(fx)


@tack.func
def rotation_of(F):
    # The rotation R of the polar decomposition F = R S of a 2x2 matrix
    # with positive determinant: R is a rotation by atan2(F10 - F01, F00 + F11).
    angle = tack.atan2(F[1, 0] - F[0, 1], F[0, 0] + F[1, 1])
    c = tack.cos(angle)
    s = tack.sin(angle)
    return tack.mat2(c, -s, s, c)


@tack.device_class
class Scene:
    dt = tack.constant(DT, tack.f32)
    gravity = tack.constant(GRAVITY, tack.f32)
    mu = tack.constant(MU * JELLY_SOFTENING, tack.f32)
    lam = tack.constant(LAMBDA, tack.f32)
    jelly_lam = tack.constant(LAMBDA * JELLY_SOFTENING, tack.f32)
    boundary = BOUNDARY

    def __init__(self, x, v, C, F, J, material, grid_v, grid_m, p_mass, p_vol):
        self.x, self.v, self.C, self.F, self.J, self.material = x, v, C, F, J, material
        self.grid_v, self.grid_m = grid_v, grid_m  # momentum, then velocity; mass
        self.inv_dx = float(grid_m.shape[0])
        self.dx = 1.0 / grid_m.shape[0]
        self.p_mass, self.p_vol = p_mass, p_vol

    @tack.kernel
    def clear_grid(self):
        for i, j in tack.ndindex(self.grid_m.shape[0], self.grid_m.shape[1]):
            self.grid_v[i, j] = tack.vec2(0.0, 0.0)
            self.grid_m[i, j] = 0.0

    @tack.kernel
    def particle_to_grid(self):
        for p in range(len(self.x)):
            bx, by, fx, w = stencil(self.x[p], self.inv_dx)
            # Deformation update, then the stress of the material.
            F = (tack.identity(2) + self.C[p] * self.dt) @ self.F[p]
            J = self.J[p] * (1.0 + self.dt * self.C[p].trace())
            if self.material[p] == 0:
                # Water: only the volume ratio J matters; F restarts as a
                # pure dilation so shear never accumulates.
                F = tack.identity(2) * tack.sqrt(J)
                stress = tack.identity(2) * (self.lam * J * (J - 1.0))
            else:
                J = F.determinant()
                R = rotation_of(F)
                stress = (F - R) @ F.transpose() * (2.0 * self.mu) + tack.identity(2) * (self.jelly_lam * J * (J - 1.0))
            self.F[p] = F
            self.J[p] = J
            stress = stress * (-self.dt * self.p_vol * 4.0 * self.inv_dx * self.inv_dx)
            affine = stress + self.C[p] * self.p_mass
            momentum = self.v[p] * self.p_mass
            for i in range(3):
                for j in range(3):
                    dpos = (tack.vec2(tack.f32(i), tack.f32(j)) - fx) * self.dx
                    weight = w[i, 0] * w[j, 1]
                    tack.atomic_add(self.grid_v, (bx + i, by + j), (momentum + affine @ dpos) * weight)
                    tack.atomic_add(self.grid_m, (bx + i, by + j), weight * self.p_mass)

    @tack.kernel
    def update_grid(self):
        for i, j in tack.ndindex(self.grid_m.shape[0], self.grid_m.shape[1]):
            m = self.grid_m[i, j]
            if m > 0.0:
                v = self.grid_v[i, j] / m
                v.y -= self.dt * self.gravity
                # Sticky-free walls: no velocity into a wall.
                n = self.grid_m.shape[0]
                if i < self.boundary and v.x < 0.0:
                    v.x = 0.0
                if i > n - self.boundary and v.x > 0.0:
                    v.x = 0.0
                if j < self.boundary and v.y < 0.0:
                    v.y = 0.0
                if j > n - self.boundary and v.y > 0.0:
                    v.y = 0.0
                self.grid_v[i, j] = v

    @tack.kernel
    def grid_to_particle(self):
        for p in range(len(self.x)):
            bx, by, fx, w = stencil(self.x[p], self.inv_dx)
            new_v = tack.vec2(0.0, 0.0)
            new_C = tack.mat2(0.0, 0.0, 0.0, 0.0)
            for i in range(3):
                for j in range(3):
                    dpos = tack.vec2(tack.f32(i), tack.f32(j)) - fx
                    g_v = self.grid_v[bx + i, by + j]
                    weight = w[i, 0] * w[j, 1]
                    new_v += g_v * weight
                    new_C += g_v.outer_product(dpos) * (4.0 * self.inv_dx * weight)
            self.v[p] = new_v
            self.C[p] = new_C
            self.x[p] = self.x[p] + new_v * self.dt

    def substep(self):
        self.clear_grid()
        self.particle_to_grid()
        self.update_grid()
        self.grid_to_particle()


def make_scene(grid, per_block, blocks, seed=0):
    """Particles in squares: (corner x, corner y, side, material) each."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([np.array([cx, cy]) + side * rng.random((per_block, 2)) for cx, cy, side, _ in blocks])
    material = np.concatenate([np.full(per_block, m, np.int32) for *_, m in blocks])
    n = len(x)
    dx = 1.0 / grid
    p_vol = (0.5 * dx) ** 2  # four particles per cell at rest, as the 88-line program
    p_mass = p_vol * 1.0
    F = np.broadcast_to(np.eye(2, dtype=np.float32), (n, 2, 2)).copy()
    return Scene(
        tack.array(x.astype(np.float32), dtype=tack.vec2f),
        tack.zeros(n, dtype=tack.vec2f),
        tack.zeros(n, dtype=tack.mat22f),
        tack.array(F, dtype=tack.mat22f),
        tack.ones(n, dtype=tack.f32),
        tack.array(material),
        tack.zeros((grid, grid), dtype=tack.vec2f),
        tack.zeros((grid, grid), dtype=tack.f32),
        p_mass, p_vol)


def scatter_mass_np(x, grid, p_mass):
    """The oracle: quadratic B-spline mass scatter in float64."""
    xp = x.astype(np.float64) * grid
    base = (xp - 0.5).astype(np.int64)
    fx = xp - base
    w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
    mass = np.zeros((grid, grid))
    for i in range(3):
        for j in range(3):
            np.add.at(mass, (base[:, 0] + i, base[:, 1] + j), w[i][:, 0] * w[j][:, 1] * p_mass)
    return mass


BLOCKS = [(0.15, 0.15, 0.3, WATER), (0.55, 0.25, 0.2, JELLY), (0.35, 0.6, 0.2, JELLY)]


def self_test():
    grid, per_block, substeps = 48, 300, 400
    # Blocks resting on the floor, so that the walls act from the start.
    scene = make_scene(grid, per_block, [(0.07, 0.07, 0.3, WATER), (0.5, 0.07, 0.25, JELLY)])
    n = len(scene.x)
    total_mass = n * scene.p_mass
    failures = set()
    worst = {"mass": 0.0, "momentum": 0.0, "field": 0.0, "bound": 0.0}
    for step in range(substeps):
        x = scene.x.numpy().copy()
        momentum = scene.p_mass * scene.v.numpy().astype(np.float64).sum(axis=0)
        scene.clear_grid()
        scene.particle_to_grid()
        grid_m = scene.grid_m.numpy().astype(np.float64)
        grid_p = scene.grid_v.numpy().astype(np.float64).reshape(-1, 2).sum(axis=0)
        # f32 weights carry about 2^-24 relative error each, and the atomic
        # sums in any order add about n_terms * 2^-24 at worst per node;
        # 1e-5 of the total is ten times the worst case at this size.
        worst["mass"] = max(worst["mass"], abs(grid_m.sum() - total_mass) / total_mass)
        if step % 50 == 0:
            field = np.abs(grid_m - scatter_mass_np(x, grid, scene.p_mass)).max() / scene.p_mass
            worst["field"] = max(worst["field"], field)
        # Momentum transfer: the affine terms sum to zero over a particle's
        # nine nodes in exact arithmetic; the scale for rounding is the
        # gravity impulse per substep times the total mass.
        scale = total_mass * GRAVITY * DT
        worst["momentum"] = max(worst["momentum"], float(np.abs(grid_p - momentum).max()) / scale)
        scene.update_grid()
        scene.grid_to_particle()
        # Total momentum: gravity adds M g dt per substep downwards and the
        # walls only remove velocity into them, so |P| <= M g t (+ rounding).
        p_now = np.linalg.norm(scene.p_mass * scene.v.numpy().astype(np.float64).sum(axis=0))
        worst["bound"] = max(worst["bound"], p_now / (total_mass * GRAVITY * DT * (step + 1)))
    xs = scene.x.numpy()
    inside = bool(np.all(np.isfinite(xs)) and np.all((xs > 0) & (xs < 1)))
    if not worst["mass"] < 1e-5:
        failures.add("mass")
    if not worst["field"] < 1e-4:
        failures.add("mass field")
    if not worst["momentum"] < 1e-3:
        failures.add("momentum transfer")
    if not worst["bound"] <= 1.0 + 1e-3:
        failures.add("momentum bound")
    if not inside:
        failures.add("particles left the box")
    return report_test("mpm", sorted(failures),
                       f"{n} particles, {grid}x{grid} grid, {substeps} substeps; "
                       f"grid mass vs particles {worst['mass']:.1e} (limit 1e-5), "
                       f"mass field vs NumPy float64 {worst['field']:.1e} particle masses (limit 1e-4), "
                       f"P2G momentum error {worst['momentum']:.1e} of M g dt (limit 1e-3), "
                       f"|P| / (M g t) <= {worst['bound']:.3f} (limit 1.001)")


def draw(scene, size):
    image = np.full((size, size, 3), 16, np.uint8)
    x = scene.x.numpy()
    material = scene.material.numpy()
    colors = np.array([[70, 150, 250], [250, 140, 60]], np.uint8)
    col = np.clip((x[:, 0] * size).astype(int), 0, size - 1)
    row = np.clip(((1.0 - x[:, 1]) * size).astype(int), 0, size - 1)
    image[row, col] = colors[material]
    return image


def main():
    args = arguments(__doc__, "check mass and momentum on a small run")
    if args.test:
        return self_test()
    start = time.perf_counter()
    scene = make_scene(GRID, PER_BLOCK, BLOCKS)
    frames = [draw(scene, IMAGE)]
    for frame in range(1, FRAMES[-1] + 1):
        for _ in range(SUBSTEPS_PER_FRAME):
            scene.substep()
        if frame in FRAMES:
            frames.append(draw(scene, IMAGE))
        if frame % 40 == 0:
            print(f"  frame {frame}/{FRAMES[-1]}", flush=True)
    seconds = time.perf_counter() - start
    return publish("mpm", image_strip(frames),
                   f"{len(scene.x)} particles, {GRID}x{GRID} grid, {FRAMES[-1] * SUBSTEPS_PER_FRAME} substeps, "
                   f"{seconds:.2f} s including compilation")


if __name__ == "__main__":
    sys.exit(main())
