"""The C++ reference kernels: built with g++ into bench/out/, called through ctypes."""

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
from numpy.ctypeslib import ndpointer

BENCH_DIR = Path(__file__).resolve().parent
CPP_DIR = BENCH_DIR / "cpp"
OUT_DIR = BENCH_DIR / "out"
CXX = "g++"
CXX_FLAGS = ["-O3", "-march=native", "-fopenmp"]

_F32 = ndpointer(np.float32, flags="C_CONTIGUOUS")
_I32 = ndpointer(np.int32, flags="C_CONTIGUOUS")
_I64 = ctypes.c_int64
_FLOAT = ctypes.c_float


def compiler_version():
    """First line of `g++ --version`, or None when g++ is missing."""
    if shutil.which(CXX) is None:
        return None
    out = subprocess.run([CXX, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[0]


def compile_cpp(source, output, extra_flags=(), libs=()):
    """Compiles `source` to `output` unless `output` is newer than it."""
    if output.exists() and output.stat().st_mtime >= source.stat().st_mtime:
        return output
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    command = [CXX, *CXX_FLAGS, *extra_flags, "-o", str(output), str(source), *libs]
    subprocess.run(command, check=True)
    return output


def _load(name):
    source = CPP_DIR / f"{name}.cpp"
    return ctypes.CDLL(str(compile_cpp(source, OUT_DIR / f"lib{name}.so", ["-shared", "-fPIC"])))


class NativeKernels:
    """Typed entry points of bench/cpp/*.cpp, taking NumPy arrays."""

    def __init__(self):
        self._saxpy = _load("saxpy").saxpy
        self._saxpy.argtypes = [_I64, _FLOAT, _F32, _F32]
        self._jacobi = _load("stencil").jacobi_step
        self._jacobi.argtypes = [_I64, _I64, _F32, _F32]
        self._mandelbrot = _load("mandelbrot").mandelbrot
        self._mandelbrot.argtypes = [_I64, _I64, _FLOAT, _FLOAT, _FLOAT, ctypes.c_int32, _I32]
        self._nbody = _load("nbody").nbody_kick
        self._nbody.argtypes = [_I64, _FLOAT, _FLOAT] + [_F32] * 7
        for entry in (self._saxpy, self._jacobi, self._mandelbrot, self._nbody):
            entry.restype = None

    def saxpy(self, alpha, x, y):
        self._saxpy(len(x), alpha, x, y)

    def jacobi_step(self, grid, out):
        self._jacobi(grid.shape[0], grid.shape[1], grid, out)

    def mandelbrot(self, counts, x0, y0, step, max_iter):
        self._mandelbrot(counts.shape[0], counts.shape[1], x0, y0, step, max_iter, counts)

    def nbody_kick(self, x, y, z, m, vx, vy, vz, dt, eps2):
        self._nbody(len(x), dt, eps2, x, y, z, m, vx, vy, vz)
