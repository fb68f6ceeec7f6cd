"""Stable fluids (Stam 1999) on a periodic square: two jets of coloured
dye collide. Each step adds the jets' force and dye, adds vorticity
confinement (Fedkiw, Stam and Jensen 2001), advects velocity
semi-Lagrangian (trace back, sample bilinearly), projects the velocity
onto divergence-free fields by Jacobi iterations on the pressure Poisson
equation, and advects the dye. Writes a strip of frames to
examples/out/stable_fluids.png.

    python examples/stable_fluids.py [--device NAME] [--test]

Divergence, gradient and Laplacian use central differences over two cells
(the Laplacian is the divergence of the gradient exactly), so on the
periodic grid an exact pressure solve leaves no divergence at all and the
Jacobi iterations' progress is measurable. --test projects a random
velocity field and checks the pressure against the same Jacobi iterations
in NumPy float64, and that the divergence (measured by NumPy) fell by the
factor the iteration count promises.
"""

import math
import sys
import time

import numpy as np
import tack

from gallery import arguments, publish
from png import image_strip

SIZE = 192
STEPS = 240
SNAPSHOTS = (60, 120, 240)
JACOBI_ITERATIONS = 30  # per step, warm-started from the last pressure
DT = 1.0  # in cells per unit of velocity
VORTICITY = 0.3
DYE_DECAY = 0.995


@tack.func
def wrap(i, n):
    return (i % n + n) % n


@tack.func
def bilinear(field, p):
    # Field values at cell centres (integer coordinates), wrapped around.
    n = field.shape[0]
    fx = tack.floor(p.x)
    fy = tack.floor(p.y)
    i = wrap(int(fx), n)
    j = wrap(int(fy), n)
    a = p.x - fx
    b = p.y - fy
    i1 = wrap(i + 1, n)
    j1 = wrap(j + 1, n)
    return (field[i, j] * (1.0 - a) + field[i1, j] * a) * (1.0 - b) + (field[i, j1] * (1.0 - a) + field[i1, j1] * a) * b


@tack.kernel
def advect(velocity, src, dst, dt, decay):
    for i, j in tack.ndindex(src.shape[0], src.shape[1]):
        back = tack.vec2(tack.f32(i), tack.f32(j)) - velocity[i, j] * dt
        dst[i, j] = bilinear(src, back) * decay


# The force and colour come as components: a host tack.vec2(...) is a NumPy
# array, which a kernel takes as an array argument, not as a vector value.
@tack.kernel
def add_jet(velocity, dye, cx, cy, radius, fx, fy, red, green, blue, dt):
    for i, j in tack.ndindex(velocity.shape[0], velocity.shape[1]):
        force = tack.vec2(fx, fy)
        color = tack.vec3(red, green, blue)
        d2 = (tack.f32(i) - cx) * (tack.f32(i) - cx) + (tack.f32(j) - cy) * (tack.f32(j) - cy)
        weight = tack.exp(-d2 / (radius * radius))
        velocity[i, j] = velocity[i, j] + force * (weight * dt)
        dye[i, j] = dye[i, j] * (1.0 - weight) + color * weight


@tack.kernel
def curl(velocity, omega):
    for i, j in tack.ndindex(velocity.shape[0], velocity.shape[1]):
        n = velocity.shape[0]
        dvy_dx = velocity[wrap(i + 1, n), j].y - velocity[wrap(i - 1, n), j].y
        dvx_dy = velocity[i, wrap(j + 1, n)].x - velocity[i, wrap(j - 1, n)].x
        omega[i, j] = 0.5 * (dvy_dx - dvx_dy)


@tack.kernel
def confine_vorticity(velocity, omega, strength, dt):
    # The force eps (N x omega), N the unit gradient of |omega|: it spins
    # up the vortices that the numerical diffusion of advection smears.
    for i, j in tack.ndindex(velocity.shape[0], velocity.shape[1]):
        n = velocity.shape[0]
        gx = abs(omega[wrap(i + 1, n), j]) - abs(omega[wrap(i - 1, n), j])
        gy = abs(omega[i, wrap(j + 1, n)]) - abs(omega[i, wrap(j - 1, n)])
        length = tack.hypot(gx, gy) + 1e-5
        w = omega[i, j]
        force = tack.vec2(gy / length * w, -gx / length * w) * strength
        velocity[i, j] = velocity[i, j] + force * dt


@tack.kernel
def divergence(velocity, div):
    for i, j in tack.ndindex(velocity.shape[0], velocity.shape[1]):
        n = velocity.shape[0]
        div[i, j] = 0.5 * (velocity[wrap(i + 1, n), j].x - velocity[wrap(i - 1, n), j].x
                           + velocity[i, wrap(j + 1, n)].y - velocity[i, wrap(j - 1, n)].y)


@tack.kernel
def jacobi(p, div, p_new):
    # Solves L p = div for L the divergence of the central gradient: the
    # 5-point Laplacian over two cells, divided by 4.
    for i, j in tack.ndindex(p.shape[0], p.shape[1]):
        n = p.shape[0]
        around = p[wrap(i - 2, n), j] + p[wrap(i + 2, n), j] + p[i, wrap(j - 2, n)] + p[i, wrap(j + 2, n)]
        p_new[i, j] = 0.25 * around - div[i, j]


@tack.kernel
def subtract_gradient(velocity, p):
    for i, j in tack.ndindex(p.shape[0], p.shape[1]):
        n = p.shape[0]
        grad = tack.vec2(p[wrap(i + 1, n), j] - p[wrap(i - 1, n), j], p[i, wrap(j + 1, n)] - p[i, wrap(j - 1, n)])
        velocity[i, j] = velocity[i, j] - grad * 0.5


class Fluid:
    def __init__(self, size):
        self.velocity = tack.zeros((size, size), dtype=tack.vec2f)
        self.velocity_tmp = tack.zeros((size, size), dtype=tack.vec2f)
        self.dye = tack.zeros((size, size), dtype=tack.vec3f)
        self.dye_tmp = tack.zeros((size, size), dtype=tack.vec3f)
        self.p = tack.zeros((size, size), dtype=tack.f32)
        self.p_tmp = tack.zeros((size, size), dtype=tack.f32)
        self.div = tack.zeros((size, size), dtype=tack.f32)
        self.omega = tack.zeros((size, size), dtype=tack.f32)

    def project(self, iterations):
        divergence(self.velocity, self.div)
        for _ in range(iterations):
            jacobi(self.p, self.div, self.p_tmp)
            self.p, self.p_tmp = self.p_tmp, self.p
        subtract_gradient(self.velocity, self.p)

    def step(self, jets, iterations):
        for jet in jets:
            add_jet(self.velocity, self.dye, *jet, DT)
        curl(self.velocity, self.omega)
        confine_vorticity(self.velocity, self.omega, VORTICITY, DT)
        advect(self.velocity, self.velocity, self.velocity_tmp, DT, 1.0)
        self.velocity, self.velocity_tmp = self.velocity_tmp, self.velocity
        self.project(iterations)
        advect(self.velocity, self.dye, self.dye_tmp, DT, DYE_DECAY)
        self.dye, self.dye_tmp = self.dye_tmp, self.dye


def jets(size, step):
    """(cx, cy, radius, force x, y, colour r, g, b) of two jets that sway slowly."""
    sway = 0.25 * math.sin(step * 0.05)
    r = size / 40
    return [
        (0.2 * size, 0.45 * size, r, 0.9 * math.cos(sway), 0.9 * math.sin(sway) + 0.2, 1.0, 0.45, 0.1),
        (0.8 * size, 0.55 * size, r, -0.9 * math.cos(sway), -0.9 * math.sin(sway) - 0.2, 0.1, 0.55, 1.0),
    ]


def central(f, axis):
    return 0.5 * (np.roll(f, -1, axis) - np.roll(f, 1, axis))


def divergence_np(v):
    return central(v[..., 0], 0) + central(v[..., 1], 1)


def jacobi_np(div, iterations):
    p = np.zeros_like(div)
    for _ in range(iterations):
        around = np.roll(p, 2, 0) + np.roll(p, -2, 0) + np.roll(p, 2, 1) + np.roll(p, -2, 1)
        p = 0.25 * around - div
    return p


def self_test():
    size, iterations = 64, 60
    rng = np.random.default_rng(2)
    # A smooth random field: a few Fourier modes, so that it has a
    # divergence at every scale the grid resolves well.
    x = np.arange(size)
    field = np.zeros((size, size, 2))
    for _ in range(12):
        kx, ky = rng.integers(1, 6, 2)
        phase = rng.uniform(0, 2 * np.pi, 2)
        for c in range(2):
            field[..., c] += rng.normal() * np.cos(2 * np.pi * (kx * x[:, None] + ky * x[None, :]) / size + phase[c])
    fluid = Fluid(size)
    fluid.velocity = tack.array(field.astype(np.float32), dtype=tack.vec2f)
    v0 = fluid.velocity.numpy().astype(np.float64)
    fluid.project(iterations)
    before = np.linalg.norm(divergence_np(v0))
    after = np.linalg.norm(divergence_np(fluid.velocity.numpy().astype(np.float64)))
    p_ref = jacobi_np(divergence_np(v0), iterations)
    p_error = float(np.abs(fluid.p.numpy() - p_ref).max() / np.abs(p_ref).max())
    grad_ref = np.stack([central(p_ref, 0), central(p_ref, 1)], axis=-1)
    expected_factor = before / np.linalg.norm(divergence_np(v0 - grad_ref))
    # Jacobi shrinks the pressure error in each Fourier mode by its own
    # factor per iteration (the slowest of this field's modes, k = 1 on the
    # subgrids of every second cell, by (1 + cos(4 pi / 64)) / 2 = 0.990),
    # so the reduction depends on the field: the float64 oracle's reduction
    # is the reference, Tack must reach half of it (f32 rounding), and at
    # least 100x.
    factor = before / after
    p_limit = 1e-5  # 60 steps of f32 averaging: about 60 * 2^-24 relative, with margin 10
    ok = factor >= max(100.0, 0.5 * expected_factor) and p_error < p_limit
    print(f"stable_fluids --test {'passed' if ok else 'FAILED'}: {size}x{size}, {iterations} Jacobi iterations; "
          f"divergence fell {factor:.0f}x (NumPy float64: {expected_factor:.0f}x; at least 100x and half of that "
          f"required); pressure within {p_error:.1e} of NumPy float64 Jacobi (limit {p_limit:.0e})")
    return 0 if ok else 1


def colorize(dye):
    rgb = 1.0 - np.exp(-2.0 * np.clip(dye, 0.0, None))
    # Arrays are indexed [x, y]; images [row, column] with y up.
    return (np.transpose(rgb, (1, 0, 2))[::-1] * 255).astype(np.uint8)


def main():
    args = arguments(__doc__, "check the projection on a small grid")
    if args.test:
        return self_test()
    start = time.perf_counter()
    fluid = Fluid(SIZE)
    frames = []
    for step in range(1, STEPS + 1):
        fluid.step(jets(SIZE, step), JACOBI_ITERATIONS)
        if step in SNAPSHOTS:
            frames.append(colorize(fluid.dye.numpy()))
        if step % 60 == 0:
            print(f"  step {step}/{STEPS}", flush=True)
    seconds = time.perf_counter() - start
    return publish("stable_fluids", image_strip(frames),
                   f"{SIZE}x{SIZE}, {STEPS} steps of {JACOBI_ITERATIONS} Jacobi iterations, "
                   f"{seconds:.2f} s including compilation")


if __name__ == "__main__":
    sys.exit(main())
