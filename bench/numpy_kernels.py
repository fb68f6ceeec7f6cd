"""The benchmark's algorithms written the way a NumPy user would: whole-array
operations, no Python loop over elements."""

import numpy as np


def saxpy(alpha, x, y):
    y += alpha * x


def jacobi_step(grid, out):
    out[1:-1, 1:-1] = 0.25 * (grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:])


def mandelbrot(counts, x0, y0, step, max_iter):
    h, w = counts.shape
    ci = (y0 + np.arange(h, dtype=np.float32) * step)[:, None]
    cr = (x0 + np.arange(w, dtype=np.float32) * step)[None, :]
    cr, ci = np.broadcast_to(cr, (h, w)).ravel(), np.broadcast_to(ci, (h, w)).ravel()
    zr = np.zeros(h * w, np.float32)
    zi = np.zeros(h * w, np.float32)
    flat_counts = counts.reshape(-1)
    flat_counts[:] = 0
    # Only points still inside the radius-2 circle are iterated, as a NumPy
    # user would shrink the working set rather than mask the whole image.
    live = np.arange(h * w)
    for _ in range(max_iter):
        r, i = zr[live], zi[live]
        inside = r * r + i * i <= 4
        live, r, i = live[inside], r[inside], i[inside]
        if live.size == 0:
            break
        zr[live] = r * r - i * i + cr[live]
        zi[live] = 2 * r * i + ci[live]
        flat_counts[live] += 1


def nbody_kick(x, y, z, m, vx, vy, vz, dt, eps2, rows_per_block=256):
    # Blocks of rows keep the pairwise temporaries in cache-sized pieces;
    # the full n x n matrices would not fit in memory for large n.
    for start in range(0, len(x), rows_per_block):
        rows = slice(start, start + rows_per_block)
        dx = x[None, :] - x[rows, None]
        dy = y[None, :] - y[rows, None]
        dz = z[None, :] - z[rows, None]
        inv_r = 1 / np.sqrt(dx * dx + dy * dy + dz * dz + eps2)
        s = m[None, :] * (inv_r * inv_r * inv_r)
        vx[rows] += dt * (dx * s).sum(axis=1)
        vy[rows] += dt * (dy * s).sum(axis=1)
        vz[rows] += dt * (dz * s).sum(axis=1)
