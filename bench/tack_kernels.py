"""The benchmark's algorithms as Tack kernels: one parallel loop each,
written the way the C++ references in bench/cpp/ are."""

import tack


@tack.kernel
def saxpy(alpha, x, y):
    for i in range(len(x)):
        y[i] = alpha * x[i] + y[i]


@tack.device_class
class SaxpyPair:
    """saxpy's operands bundled in a device-class instance."""

    def __init__(self, alpha, x, y):
        self.alpha = alpha
        self.x = x
        self.y = y

    @tack.kernel
    def saxpy(self):
        for i in range(len(self.x)):
            self.y[i] = self.alpha * self.x[i] + self.y[i]


@tack.kernel
def jacobi_step(grid, out):
    for r, c in tack.ndindex((1, grid.shape[0] - 1), (1, grid.shape[1] - 1)):
        out[r, c] = 0.25 * (grid[r - 1, c] + grid[r + 1, c] + grid[r, c - 1] + grid[r, c + 1])


@tack.kernel
def mandelbrot(counts, x0, y0, step, max_iter):
    for r, c in tack.ndindex(counts.shape[0], counts.shape[1]):
        cr = x0 + tack.f32(c) * step
        ci = y0 + tack.f32(r) * step
        zr = 0.0
        zi = 0.0
        n = 0
        while n < max_iter and zr * zr + zi * zi <= 4.0:
            t = zr * zr - zi * zi + cr
            zi = 2.0 * zr * zi + ci
            zr = t
            n += 1
        counts[r, c] = n


@tack.kernel
def nbody_kick(x, y, z, m, vx, vy, vz, dt, eps2):
    for i in range(len(x)):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(len(x)):
            dx = x[j] - x[i]
            dy = y[j] - y[i]
            dz = z[j] - z[i]
            inv_r = 1.0 / tack.sqrt(dx * dx + dy * dy + dz * dz + eps2)
            s = m[j] * (inv_r * inv_r * inv_r)
            ax += dx * s
            ay += dy * s
            az += dz * s
        vx[i] += dt * ax
        vy[i] += dt * ay
        vz[i] += dt * az
