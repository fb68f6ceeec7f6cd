"""The Mandelbrot set, computed by a Tack kernel (one pixel per parallel
iteration) and written to examples/out/mandelbrot.png.

    python examples/mandelbrot.py [--device NAME] [--test]

--test computes a small view and compares every escape count with the same
iteration in NumPy float32.
"""

import sys
import time

import numpy as np
import tack

from gallery import arguments, publish

WIDTH, HEIGHT = 1200, 800
MAX_ITER = 500
# The view: real part from X0 over 3 units, centred vertically on the axis.
X0, SPAN = -2.2, 3.0


@tack.kernel
def escape_counts(counts, x0, y0, step, max_iter):
    for row, col in tack.ndindex(counts.shape[0], counts.shape[1]):
        cr = x0 + tack.f32(col) * step
        ci = y0 + tack.f32(row) * step
        zr = 0.0
        zi = 0.0
        n = 0
        while n < max_iter and zr * zr + zi * zi <= 4.0:
            t = zr * zr - zi * zi + cr
            zi = 2.0 * zr * zi + ci
            zr = t
            n += 1
        counts[row, col] = n


def render(width, height, max_iter):
    """Escape counts of a width x height view, as a NumPy int32 array."""
    counts = tack.zeros((height, width), dtype=tack.i32)
    step = SPAN / width
    escape_counts(counts, X0, -step * height / 2, step, max_iter)
    return counts.numpy()


def colorize(counts, max_iter):
    """Points inside the set are black; outside, a cosine palette over the
    logarithm of the count, which spreads the thin bands near the set."""
    t = np.log1p(counts) / np.log1p(max_iter)
    phase = 2 * np.pi * (3.0 * t[..., None] + np.array([0.0, 0.15, 0.3]))
    rgb = 0.5 + 0.5 * np.cos(phase)
    rgb[counts == max_iter] = 0.0
    return (rgb * 255).astype(np.uint8)


def escape_counts_np(width, height, max_iter):
    """The oracle: the kernel's iteration, element-wise in NumPy float32."""
    f32 = np.float32
    step = f32(SPAN / width)
    col = np.arange(width, dtype=f32)[None, :]
    row = np.arange(height, dtype=f32)[:, None]
    cr = f32(X0) + col * step + np.zeros((height, 1), f32)
    ci = f32(-step * height / 2) + row * step + np.zeros((1, width), f32)
    zr = np.zeros_like(cr)
    zi = np.zeros_like(cr)
    n = np.zeros(cr.shape, np.int32)
    for _ in range(max_iter):
        active = zr * zr + zi * zi <= f32(4.0)
        if not active.any():
            break
        t = zr * zr - zi * zi + cr
        zi = np.where(active, f32(2.0) * zr * zi + ci, zi)
        zr = np.where(active, t, zr)
        n += active
    return n


def self_test():
    width, height, max_iter = 120, 80, 200
    counts = render(width, height, max_iter)
    expected = escape_counts_np(width, height, max_iter)
    differ = int((counts != expected).sum())
    # The iteration is chaotic near the set's boundary: a contracted
    # multiply-add (the compiler may fuse; NumPy rounds each operation)
    # can change a count there. Allow 1% of the pixels; a wrong formula
    # or view changes most of them.
    ok = differ <= 0.01 * width * height
    print(f"mandelbrot --test {'passed' if ok else 'FAILED'}: {width}x{height}, {differ} of {width * height} "
          f"escape counts differ from NumPy float32 (at most 1% allowed)")
    return 0 if ok else 1


def main():
    args = arguments(__doc__, "compare a small view with NumPy")
    if args.test:
        return self_test()
    start = time.perf_counter()
    counts = render(WIDTH, HEIGHT, MAX_ITER)
    seconds = time.perf_counter() - start
    return publish("mandelbrot", colorize(counts, MAX_ITER),
                   f"{WIDTH}x{HEIGHT}, at most {MAX_ITER} iterations, {seconds:.2f} s including compilation")


if __name__ == "__main__":
    sys.exit(main())
