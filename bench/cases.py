"""The four benchmark kernels: inputs, sizes, the implementations and how
their results are compared.

Each case holds its inputs as NumPy arrays and scalars. Every implementation
runs on its own fresh copy of the arrays (`fresh_state`), since saxpy and the
n-body kick update their inputs in place.
"""

import numpy as np

import numpy_kernels


def _close(rtol, atol_of_scale):
    """allclose with an absolute tolerance relative to the result's magnitude."""

    def agree(got, want):
        scale = float(np.abs(want).max()) if want.size else 0.0
        atol = atol_of_scale * scale
        if np.allclose(got, want, rtol=rtol, atol=atol):
            return True, ""
        worst = float(np.abs(got.astype(np.float64) - want).max())
        return False, f"max abs error {worst:.3g} (rtol {rtol}, atol {atol:.3g})"

    return agree


class Case:
    """One benchmark kernel. `name` is its function's name in numpy_kernels,
    in native.NativeKernels and in tack_kernels alike."""

    name = ""
    arrays = {}  # name -> NumPy array, never modified
    scalars = {}  # name -> Python number
    outputs = ()  # array names whose final contents are compared
    params = None  # the kernel's parameter order; arrays then scalars if None
    lanes = False  # whether native.NativeKernels has a hand-vectorized NAME_lanes
    agree = staticmethod(_close(1e-5, 1e-6))

    def fresh_state(self):
        return {name: array.copy() for name, array in self.arrays.items()}

    def run_numpy(self, state):
        getattr(numpy_kernels, self.name)(*self._args(state))

    def run_cpp(self, native, state):
        getattr(native, self.name)(*self._args(state))

    def run_cpp_lanes(self, native, state):
        getattr(native, f"{self.name}_lanes")(*self._args(state))

    def run_tack(self, kernels, state):
        getattr(kernels, self.name)(*self._args(state))

    def _args(self, state):
        params = self.params or (*self.arrays, *self.scalars)
        return [state[p] if p in state else self.scalars[p] for p in params]


class Saxpy(Case):
    name = "saxpy"

    def __init__(self, quick):
        n = 1 << (23 if quick else 27)
        rng = np.random.default_rng(1)
        self.size = f"n={n}"
        self.arrays = {
            "x": rng.random(n, dtype=np.float32),
            "y": rng.random(n, dtype=np.float32),
        }
        self.scalars = {"alpha": 2.0}
        self.outputs = ("y",)
        self.params = ("alpha", "x", "y")


class Jacobi(Case):
    name = "jacobi_step"

    def __init__(self, quick):
        side = 2048 if quick else 11264
        rng = np.random.default_rng(2)
        grid = rng.random((side, side), dtype=np.float32)
        self.size = f"{side}x{side}"
        # The border of `out` is never written: it starts equal to the grid's.
        self.arrays = {"grid": grid, "out": grid.copy()}
        self.outputs = ("out",)


class Mandelbrot(Case):
    name = "mandelbrot"
    lanes = True

    def __init__(self, quick):
        w, h = (512, 384) if quick else (1024, 768)
        max_iter = 256
        step = 3.0 / w
        self.size = f"{w}x{h}, {max_iter} iter"
        self.arrays = {"counts": np.zeros((h, w), np.int32)}
        self.scalars = {"x0": -2.2, "y0": -step * h / 2, "step": step, "max_iter": max_iter}
        self.outputs = ("counts",)

    # Points on the set's boundary are chaotic: a one-ulp difference (a fused
    # multiply-add, which the contract permits) changes their iteration count
    # arbitrarily. A few such points may differ; anything wider is an error.
    @staticmethod
    def agree(got, want, allowed_fraction=1e-2):
        differing = np.count_nonzero(got != want) / want.size
        if differing <= allowed_fraction:
            return True, ""
        return False, f"{differing:.2%} of points differ (allowed {allowed_fraction:.2%})"


class NBody(Case):
    name = "nbody_kick"
    lanes = True

    def __init__(self, quick):
        n = 2048 if quick else 6144
        rng = np.random.default_rng(3)
        self.size = f"n={n}"
        pos = {axis: rng.random(n, dtype=np.float32) for axis in ("x", "y", "z")}
        mass = {"m": np.full(n, 1.0 / n, np.float32)}
        vel = {axis: np.zeros(n, np.float32) for axis in ("vx", "vy", "vz")}
        self.arrays = pos | mass | vel
        self.scalars = {"dt": 0.01, "eps2": 0.01}
        self.outputs = ("vx", "vy", "vz")

    # Each velocity is a sum of n float32 terms of both signs, accumulated in
    # different orders (NumPy sums pairwise); compare against the largest.
    agree = staticmethod(_close(1e-3, 1e-3))


def all_cases(quick):
    """Each case in turn, made only when needed: the full sizes take a few GiB."""
    for make in (Saxpy, Jacobi, Mandelbrot, NBody):
        yield make(quick)
