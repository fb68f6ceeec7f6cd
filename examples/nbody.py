"""Gravitational n-body: two discs of stars fall into each other. Every
star's acceleration is summed over all the others (softened Newtonian
gravity, one star per parallel iteration), and the leapfrog integrator
(kick-drift-kick) advances them. Writes a strip of frames, stars splatted
with atomics into a density image, to examples/out/nbody.png.

    python examples/nbody.py [--device NAME] [--test]

--test compares the accelerations with a NumPy float64 all-pairs
evaluation, then runs a small cluster and checks that total momentum stays
at zero and the total energy drifts little (computed in float64 by NumPy).
"""

import math
import sys
import time

import numpy as np
import tack

from gallery import arguments, publish, report_test
from particles import splat
from png import image_strip

COUNT = 2048
STEPS = 400
DT = 0.008
SNAPSHOTS = (150, 250, 400)
IMAGE = 256
SOFTENING = 0.05  # Plummer softening length, in units of the discs' radius
G = 1.0


@tack.kernel
def accelerations(pos, mass, acc, eps2):
    for i in range(len(pos)):
        p = pos[i]
        a = tack.vec3(0.0, 0.0, 0.0)
        for j in range(len(pos)):
            d = pos[j] - p
            r2 = d.norm_sqr() + eps2
            inv_r = 1.0 / tack.sqrt(r2)
            # j == i contributes d = 0: nothing, so no branch is needed.
            a += d * (mass[j] * inv_r * inv_r * inv_r)
        acc[i] = a


@tack.kernel
def kick(vel, acc, half_dt):
    for i in range(len(vel)):
        vel[i] = vel[i] + acc[i] * half_dt


@tack.kernel
def drift(pos, vel, dt):
    for i in range(len(pos)):
        pos[i] = pos[i] + vel[i] * dt


class System:
    def __init__(self, positions, velocities, masses):
        self.pos = tack.array(positions.astype(np.float32), dtype=tack.vec3f)
        self.vel = tack.array(velocities.astype(np.float32), dtype=tack.vec3f)
        self.mass = tack.array(masses.astype(np.float32))
        self.acc = tack.zeros(len(masses), dtype=tack.vec3f)
        self.eps2 = SOFTENING ** 2
        accelerations(self.pos, self.mass, self.acc, self.eps2)

    def step(self, dt):
        kick(self.vel, self.acc, 0.5 * dt)
        drift(self.pos, self.vel, dt)
        accelerations(self.pos, self.mass, self.acc, self.eps2)
        kick(self.vel, self.acc, 0.5 * dt)


def disc(rng, count, centre, velocity, total_mass, radius=1.0):
    """A thin disc in circular orbits around a heavy core (index 0)."""
    r = radius * np.sqrt(rng.uniform(0.05, 1.0, count))
    angle = rng.uniform(0, 2 * np.pi, count)
    pos = np.stack([r * np.cos(angle), r * np.sin(angle), rng.normal(0, 0.02, count)], axis=1)
    core_mass = 0.5 * total_mass
    masses = np.full(count, 0.5 * total_mass / (count - 1))
    masses[0], pos[0] = core_mass, 0.0
    # Circular speed from the mass inside r (the core and the disc inside).
    inside = core_mass + 0.5 * total_mass * (r / radius) ** 2
    speed = np.sqrt(G * inside * r ** 2 / (r ** 2 + SOFTENING ** 2) ** 1.5)
    vel = np.stack([-speed * np.sin(angle), speed * np.cos(angle), np.zeros(count)], axis=1)
    vel[0] = 0.0
    return pos + centre, vel + velocity, masses


def two_discs(count, seed=3):
    rng = np.random.default_rng(seed)
    a = disc(rng, count // 2, np.array([-1.5, -0.4, 0.0]), np.array([0.3, 0.0, 0.0]), 1.0)
    b = disc(rng, count - count // 2, np.array([1.5, 0.4, 0.0]), np.array([-0.3, 0.0, 0.0]), 1.0)
    return tuple(np.concatenate([u, v]) for u, v in zip(a, b))


def accelerations_np(pos, mass, eps2):
    """The oracle: float64 all pairs."""
    d = pos[None, :, :] - pos[:, None, :]
    r2 = np.sum(d * d, axis=-1) + eps2
    return np.sum(d * (mass[None, :] / r2 ** 1.5)[..., None], axis=1)


def energy_np(pos, vel, mass, eps2):
    pos, vel, mass = (x.astype(np.float64) for x in (pos, vel, mass))
    kinetic = 0.5 * np.sum(mass * np.sum(vel * vel, axis=1))
    d = pos[None, :, :] - pos[:, None, :]
    inv_r = 1.0 / np.sqrt(np.sum(d * d, axis=-1) + eps2)
    np.fill_diagonal(inv_r, 0.0)
    potential = -0.5 * G * np.sum(mass[:, None] * mass[None, :] * inv_r)
    return kinetic + potential


def self_test():
    count, steps, dt = 256, 200, 0.002
    positions, velocities, masses = two_discs(count)
    velocities -= np.sum(masses[:, None] * velocities, axis=0) / masses.sum()  # zero total momentum
    system = System(positions, velocities, masses)
    failures = []
    # Forces: f32 sums of 256 terms against float64 NumPy on the same
    # (f32-rounded) inputs. Each term is good to a few ulp; the sum's error
    # is bounded by about count * 2^-24 times the sum of the terms'
    # magnitudes, so the limit is relative to that sum, with margin 10.
    pos32 = system.pos.numpy().astype(np.float64)
    m32 = system.mass.numpy().astype(np.float64)
    expected = accelerations_np(pos32, m32, np.float32(system.eps2))
    d = pos32[None] - pos32[:, None]
    magnitude = np.sum(m32[None, :] * np.sqrt(np.sum(d * d, -1)) / (np.sum(d * d, -1) + system.eps2) ** 1.5, axis=1)
    force_error = float(np.max(np.abs(system.acc.numpy() - expected).max(axis=1) / magnitude))
    force_limit = 10 * count * 2.0 ** -24
    if not force_error < force_limit:
        failures.append("forces")
    e0 = energy_np(system.pos.numpy(), system.vel.numpy(), masses, system.eps2)
    momentum_scale = float(np.sum(masses * np.linalg.norm(velocities, axis=1)))
    worst_momentum = worst_energy = 0.0
    for _ in range(steps):
        system.step(dt)
        vel = system.vel.numpy().astype(np.float64)
        momentum = np.linalg.norm(np.sum(m32[:, None] * vel, axis=0)) / momentum_scale
        worst_momentum = max(worst_momentum, float(momentum))
    e1 = energy_np(system.pos.numpy(), system.vel.numpy(), masses, system.eps2)
    worst_energy = abs(e1 - e0) / abs(e0)
    # Pairwise forces are antisymmetric, so momentum is conserved up to f32
    # rounding of the sums (about 1e-6 of the scale per step, random signs):
    # 1e-4 of sum |m v| after 200 steps. Leapfrog is symplectic: its energy
    # error stays bounded, of order (dt / shortest orbital time)^2; with
    # dt = 0.002 and the core's closest orbits (period about 0.05) that is
    # below 1%, so 1% is the limit.
    if not worst_momentum < 1e-4:
        failures.append("momentum")
    if not worst_energy < 1e-2:
        failures.append("energy")
    return report_test("nbody", failures,
                       f"forces within {force_error:.1e} of NumPy float64 (limit {force_limit:.1e}); "
                       f"over {steps} steps |total momentum| <= {worst_momentum:.1e} of sum |m v| (limit 1e-4), "
                       f"energy drift {worst_energy:.1e} (limit 1e-2)")


def colorize(counts):
    t = np.log1p(counts.astype(np.float32)) / math.log1p(6.0)
    t = np.clip(t, 0.0, 1.0)[..., None]
    star, space = np.array([1.6, 1.1, 0.9]), np.array([0.02, 0.02, 0.06])
    rgb = np.clip(t * star + (1 - t) * space, 0, 1)
    return (rgb * 255).astype(np.uint8)


def frame(system):
    counts = tack.zeros((IMAGE, IMAGE), dtype=tack.i32)
    splat(system.pos, counts, 0.4)
    return colorize(counts.numpy())


def main():
    args = arguments(__doc__, "check forces, momentum and energy on a small run")
    if args.test:
        return self_test()
    start = time.perf_counter()
    system = System(*two_discs(COUNT))
    frames = [frame(system)]
    for step in range(1, STEPS + 1):
        system.step(DT)
        if step in SNAPSHOTS:
            frames.append(frame(system))
        if step % 100 == 0:
            print(f"  step {step}/{STEPS}", flush=True)
    seconds = time.perf_counter() - start
    return publish("nbody", image_strip(frames),
                   f"{COUNT} bodies, {STEPS} steps, {seconds:.2f} s including compilation")


if __name__ == "__main__":
    sys.exit(main())
