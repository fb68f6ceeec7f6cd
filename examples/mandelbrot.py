"""The Mandelbrot set, computed by a Tack kernel (one pixel per parallel
iteration) and written to examples/out/mandelbrot.png.

    python examples/mandelbrot.py [--device NAME]
"""

import argparse
import time
from pathlib import Path

import numpy as np
import tack

from png import write_png

OUT_DIR = Path(__file__).resolve().parent / "out"
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", help="Tack device to run on (default: the CPU)")
    args = parser.parse_args()
    if args.device:
        tack.set_default_device(args.device)
    start = time.perf_counter()
    counts = render(WIDTH, HEIGHT, MAX_ITER)
    seconds = time.perf_counter() - start
    path = write_png(OUT_DIR / "mandelbrot.png", colorize(counts, MAX_ITER))
    print(f"mandelbrot: {WIDTH}x{HEIGHT}, at most {MAX_ITER} iterations, {seconds:.2f} s including compilation")
    print(path)


if __name__ == "__main__":
    main()
