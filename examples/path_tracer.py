"""A path tracer over signed distance functions: a sphere, a rounded box
and a torus on a floor, lit by a square area light (soft shadows) and a
dim sky. Rays are marched by sphere tracing; each hit samples a point on
the light (next-event estimation with a shadow ray) and continues in a
cosine-weighted direction for a few bounces. Random numbers come from
tack.random, one stream per pass; passes accumulate progressively. Writes
examples/out/path_tracer.png.

    python examples/path_tracer.py [--device NAME] [--test]

--test checks the scene's distance function at random points and the
primary rays' hit mask against a NumPy ray march, then renders a white
furnace (albedo 1, light off, sky 1) where every path is worth exactly 0
or 1, and the lit scene for its statistics.
"""

import math
import sys
import time

import numpy as np
import tack

from gallery import arguments, publish, report_test

WIDTH, HEIGHT = 320, 240
PASSES = 96
BOUNCES_HOST = 3
BOUNCES = tack.constant(BOUNCES_HOST)
HIT_EPS = tack.constant(1e-3, tack.f32)
FAR = tack.constant(20.0, tack.f32)
CAMERA_HOST, LOOK_AT_HOST, FOV_HOST = (0.3, 1.6, 3.8), (0.0, 0.45, -0.2), 0.6
SPHERE_HOST, BOX_HOST, BOX_HALF_HOST = (-1.0, 0.7, 0.0, 0.7), (1.0, 0.5, 0.2), (0.45, 0.5, 0.45)
TORUS_HOST = (0.1, 0.22, -1.3)
MAX_STEPS_HOST = 96
MAX_STEPS = tack.constant(MAX_STEPS_HOST)
CAMERA = tack.constant(tack.vec3(*CAMERA_HOST), tack.f32)
LOOK_AT = tack.constant(tack.vec3(*LOOK_AT_HOST), tack.f32)
FOV = tack.constant(FOV_HOST, tack.f32)  # the tangent of half the vertical field of view
# The light: a square of side LIGHT_SIZE centred at LIGHT_CENTRE, facing down.
LIGHT_CENTRE = tack.constant(tack.vec3(0.6, 3.2, 0.8), tack.f32)
LIGHT_SIZE = tack.constant(1.4, tack.f32)
# Centre and radius apart: a module-level vector constant reads by index
# (SPHERE[3]) but not by component name (SPHERE.w is refused).
SPHERE_CENTRE = tack.constant(tack.vec3(*SPHERE_HOST[:3]), tack.f32)
SPHERE_RADIUS = tack.constant(SPHERE_HOST[3], tack.f32)
BOX = tack.constant(tack.vec3(*BOX_HOST), tack.f32)
BOX_HALF = tack.constant(tack.vec3(*BOX_HALF_HOST), tack.f32)
TORUS = tack.constant(tack.vec3(*TORUS_HOST), tack.f32)


@tack.func
def sd_sphere(p):
    return (p - SPHERE_CENTRE).norm() - SPHERE_RADIUS


@tack.func
def sd_round_box(p):
    q = abs(p - BOX) - BOX_HALF + 0.06
    outside = tack.vec3(max(q.x, 0.0), max(q.y, 0.0), max(q.z, 0.0)).norm()
    return outside + min(max(q.x, max(q.y, q.z)), 0.0) - 0.06


@tack.func
def sd_torus(p):
    q = p - TORUS
    return tack.hypot(tack.hypot(q.x, q.z) - 0.6, q.y) - 0.22


@tack.func
def scene(p):
    return min(min(p.y, sd_sphere(p)), min(sd_round_box(p), sd_torus(p)))


@tack.func
def albedo(p):
    # Grey floor with a checker, a red sphere, an ivory box, a green torus.
    d = scene(p) + 2e-3
    color = tack.vec3(0.6, 0.6, 0.6)
    if sd_sphere(p) <= d:
        color = tack.vec3(0.8, 0.2, 0.15)
    elif sd_round_box(p) <= d:
        color = tack.vec3(0.85, 0.8, 0.65)
    elif sd_torus(p) <= d:
        color = tack.vec3(0.2, 0.6, 0.3)
    elif (int(tack.floor(p.x * 2.0)) + int(tack.floor(p.z * 2.0))) % 2 == 0:
        color = tack.vec3(0.45, 0.45, 0.5)
    return color


@tack.func
def normal_at(p):
    e = 5e-4
    return tack.vec3(scene(p + tack.vec3(e, 0.0, 0.0)) - scene(p - tack.vec3(e, 0.0, 0.0)),
                     scene(p + tack.vec3(0.0, e, 0.0)) - scene(p - tack.vec3(0.0, e, 0.0)),
                     scene(p + tack.vec3(0.0, 0.0, e)) - scene(p - tack.vec3(0.0, 0.0, e))).normalized()


@tack.func
def march(origin, direction, far):
    # Sphere tracing: the distance to the hit, or -1 for a miss.
    t = 0.0
    hit = -1.0
    for _ in range(MAX_STEPS):
        d = scene(origin + direction * t)
        if d < HIT_EPS * (1.0 + t):
            hit = t
            break
        t += d
        if t > far:
            break
    return hit


@tack.func
def camera_ray(col, row, width, height, jx, jy):
    eye = CAMERA
    forward = (LOOK_AT - eye).normalized()
    right = forward.cross(tack.vec3(0.0, 1.0, 0.0)).normalized()
    up = right.cross(forward)
    sx = (2.0 * (tack.f32(col) + jx) - width) / height * FOV
    sy = (height - 2.0 * (tack.f32(row) + jy)) / height * FOV
    return eye, (forward + right * sx + up * sy).normalized()


@tack.kernel
def hit_mask(mask, width, height):
    for row, col in tack.ndindex(mask.shape[0], mask.shape[1]):
        origin, direction = camera_ray(col, row, tack.f32(width), tack.f32(height), 0.5, 0.5)
        mask[row, col] = 1 if march(origin, direction, FAR) >= 0.0 else 0


@tack.kernel
def distances(points, out):
    for i in range(len(points)):
        out[i] = scene(points[i])


@tack.kernel
def render_pass(accum, width, height, pass_index, light, sky_r, sky_g, sky_b, furnace):
    # furnace = 1: every surface white, the light off: a path is worth 0 or 1.
    for row, col in tack.ndindex(accum.shape[0], accum.shape[1]):
        sky = tack.vec3(sky_r, sky_g, sky_b)
        s = tack.random.seed(row * accum.shape[1] + col, pass_index)
        s = tack.random.advance(s)
        jx = tack.random.uniform(s)
        s = tack.random.advance(s)
        jy = tack.random.uniform(s)
        origin, direction = camera_ray(col, row, tack.f32(width), tack.f32(height), jx, jy)
        radiance = tack.vec3(0.0, 0.0, 0.0)
        throughput = tack.vec3(1.0, 1.0, 1.0)
        for bounce in range(BOUNCES + 1):
            t = march(origin, direction, FAR)
            if t < 0.0:
                radiance += throughput * sky
                break
            if bounce == BOUNCES:
                break
            p = origin + direction * t
            n = normal_at(p)
            a = albedo(p)
            if furnace == 1:
                a = tack.vec3(1.0, 1.0, 1.0)
            p = p + n * 4e-3
            # Next-event estimation: one point on the light, one shadow ray.
            s = tack.random.advance(s)
            lx = (tack.random.uniform(s) - 0.5) * LIGHT_SIZE
            s = tack.random.advance(s)
            lz = (tack.random.uniform(s) - 0.5) * LIGHT_SIZE
            to_light = LIGHT_CENTRE + tack.vec3(lx, 0.0, lz) - p
            dist2 = to_light.norm_sqr()
            wi = to_light / tack.sqrt(dist2)
            cos_surface = wi.dot(n)
            cos_light = wi.y  # the light faces down, -y
            if light > 0.0 and cos_surface > 0.0 and cos_light > 0.0:
                if march(p, wi, tack.sqrt(dist2)) < 0.0:
                    geometry = cos_surface * cos_light / dist2 * LIGHT_SIZE * LIGHT_SIZE
                    radiance += throughput * a * (light * geometry / math.pi)
            # Cosine-weighted bounce: a unit vector plus the normal. Its pdf
            # cos / pi cancels the BRDF's albedo / pi times the cosine.
            s = tack.random.advance(s)
            dx, dy, dz = tack.random.direction3(s)
            bounce_dir = n + tack.vec3(dx, dy, dz)
            if bounce_dir.norm_sqr() < 1e-8:
                bounce_dir = n
            direction = bounce_dir.normalized()
            origin = p
            throughput = throughput * a
        accum[row, col] = accum[row, col] + radiance


def render(width, height, passes, light=30.0, sky=(0.12, 0.14, 0.2), furnace=0, progress=False):
    """The mean of `passes` one-sample passes, as a NumPy (height, width, 3) array."""
    accum = tack.zeros((height, width), dtype=tack.vec3f)
    for k in range(passes):
        render_pass(accum, width, height, k, light, *sky, furnace)
        if progress and (k + 1) % 16 == 0:
            print(f"  pass {k + 1}/{passes}", flush=True)
    return accum.numpy() / np.float32(passes)


# The oracle: the same scene and ray march in NumPy float64.
def _c(v):
    return np.array(v, dtype=np.float64)


def scene_np(p):
    sphere = _c(SPHERE_HOST)
    d_sphere = np.linalg.norm(p - sphere[:3], axis=-1) - sphere[3]
    q = np.abs(p - _c(BOX_HOST)) - _c(BOX_HALF_HOST) + 0.06
    d_box = np.linalg.norm(np.maximum(q, 0.0), axis=-1) + np.minimum(q.max(axis=-1), 0.0) - 0.06
    t = p - _c(TORUS_HOST)
    d_torus = np.hypot(np.hypot(t[..., 0], t[..., 2]) - 0.6, t[..., 1]) - 0.22
    return np.minimum(np.minimum(p[..., 1], d_sphere), np.minimum(d_box, d_torus))


def hit_mask_np(width, height):
    eye = _c(CAMERA_HOST)
    forward = _c(LOOK_AT_HOST) - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    row, col = np.mgrid[0:height, 0:width] + 0.5
    sx = (2.0 * col - width) / height * FOV_HOST
    sy = (height - 2.0 * row) / height * FOV_HOST
    d = forward + right * sx[..., None] + up * sy[..., None]
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    t = np.zeros((height, width))
    hit = np.zeros((height, width), bool)
    done = np.zeros((height, width), bool)
    closest = np.full((height, width), np.inf)  # how near a miss came, in HIT_EPS units
    for _ in range(MAX_STEPS_HOST):
        dist = scene_np(eye + d * t[..., None])
        now = ~done & (dist < 1e-3 * (1.0 + t))
        hit |= now
        done |= now
        closest = np.where(done, closest, np.minimum(closest, dist / (1e-3 * (1.0 + t))))
        t = np.where(done, t, t + dist)
        done |= t > 20.0
    return hit, closest


def self_test():
    failures = []
    rng = np.random.default_rng(4)
    points = rng.uniform([-3.0, -0.5, -3.0], [3.0, 2.5, 3.0], (4096, 3)).astype(np.float32)
    out = tack.zeros(len(points), dtype=tack.f32)
    distances(tack.array(points, dtype=tack.vec3f), out)
    # f32 evaluation of a few norms and sums of terms below ~5: a few ulp
    # of 5, so 1e-5 absolute.
    sdf_error = float(np.max(np.abs(out.numpy() - scene_np(points.astype(np.float64)))))
    if not sdf_error < 1e-5:
        failures.append("distance function")
    width, height = 96, 72
    mask = tack.zeros((height, width), dtype=tack.i32)
    hit_mask(mask, width, height)
    expected, closest = hit_mask_np(width, height)
    differ = mask.numpy().astype(bool) != expected
    # f32 and float64 marches may decide differently only for rays that
    # pass within a few hit thresholds of a surface without hitting it
    # (grazing silhouettes) or that run out of steps.
    unexplained = differ & (closest > 4.0)
    if unexplained.any():
        failures.append(f"hit mask ({int(unexplained.sum())} pixels)")
    passes = 8
    furnace = render(width, height, passes, light=0.0, sky=(1.0, 1.0, 1.0), furnace=1)
    # White furnace: throughput stays exactly 1, so every path adds 0 or 1
    # and a pixel's mean is k / passes; a miss of the primary ray is 1.
    counts = furnace * passes
    off_grid = float(np.max(np.abs(counts - np.round(counts))))
    misses_ok = bool(np.all(furnace[~expected & (closest > 4.0)] == 1.0))
    if not (off_grid < 1e-4 and misses_ok and furnace.max() <= 1.0):
        failures.append("furnace")
    lit = render(width, height, passes)
    finite = bool(np.all(np.isfinite(lit)))
    mean = float(lit.mean())
    # Bounds: the sky gives at most its largest channel (0.2) per pixel;
    # direct light at a point is at most the light's radiance (30) times
    # its projected solid angle over pi, largest just below it (side 1.4 at
    # height 3.2: about 0.18 sr, so 30 * 0.18 / pi = 1.7) times an albedo
    # of at most 0.85, and three bounces add less than that again: the mean
    # is below 0.2 + 2 * 1.45 < 3.1. Below: the lit floor fills more than a
    # tenth of the image and receives at least 0.3 there, times its albedo
    # 0.45: above 0.013. Outside [0.013, 3.1], the light, the sky or the
    # throughput is broken.
    if not (finite and 0.013 < mean < 3.1):
        failures.append("image statistics")
    return report_test("path_tracer", failures,
                       f"distance function within {sdf_error:.1e} of NumPy float64 (limit 1e-5); hit mask equal "
                       f"to a NumPy ray march but for {int(differ.sum())} grazing pixels of {width * height}; furnace "
                       f"paths worth 0 or 1 (within {off_grid:.1e}); lit mean {mean:.3f} in [0.013, 3.1], "
                       f"finite: {finite}")


def tonemap(radiance):
    rgb = radiance / (1.0 + radiance)  # Reinhard
    return (np.clip(rgb, 0.0, 1.0) ** (1 / 2.2) * 255).astype(np.uint8)


def main():
    args = arguments(__doc__, "check against NumPy on a small image")
    if args.test:
        return self_test()
    start = time.perf_counter()
    image = render(WIDTH, HEIGHT, PASSES, progress=True)
    seconds = time.perf_counter() - start
    return publish("path_tracer", tonemap(image),
                   f"{WIDTH}x{HEIGHT}, {PASSES} samples per pixel, up to {BOUNCES_HOST} bounces, "
                   f"{seconds:.2f} s including compilation; mean radiance {float(image.mean()):.3f}")


if __name__ == "__main__":
    sys.exit(main())
