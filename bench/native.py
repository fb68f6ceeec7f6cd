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
# n-body and Mandelbrot each have a hand-vectorized twin (bench/cpp/*_lanes.cpp)
# that must round as the scalar version does, lane for lane. GCC's default,
# -ffp-contract=fast, fuses a * b + c into an FMA wherever it likes, in
# different places in scalar and vector code, so these four are built without
# contraction: the rounding Tack's CPU backend also keeps (docs/numerics.md).
NO_CONTRACTION = ("-ffp-contract=off",)

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
    """Compiles `source` to `output` unless `output` is newer than it and the
    headers beside it, and was built by the same command (kept beside it in
    `output`.cmd)."""
    command = [CXX, *CXX_FLAGS, *extra_flags, "-o", str(output), str(source), *libs]
    stamp = output.with_name(output.name + ".cmd")
    newest = max([source.stat().st_mtime] + [h.stat().st_mtime for h in source.parent.glob("*.h")])
    if (output.exists() and output.stat().st_mtime >= newest
            and stamp.exists() and stamp.read_text() == " ".join(command)):
        return output
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    subprocess.run(command, check=True)
    stamp.write_text(" ".join(command))
    return output


def _load(name, extra_flags=()):
    source = CPP_DIR / f"{name}.cpp"
    output = OUT_DIR / f"lib{name}.so"
    return ctypes.CDLL(str(compile_cpp(source, output, ["-shared", "-fPIC", *extra_flags])))


class NativeKernels:
    """Typed entry points of bench/cpp/*.cpp, taking NumPy arrays. `NAME_lanes`
    is the hand-vectorized twin of NAME, where one exists: groups of 16 lanes,
    held in vectors of `lanes_vector_width` lanes."""

    def __init__(self):
        self._saxpy = _load("saxpy").saxpy
        self._saxpy.argtypes = [_I64, _FLOAT, _F32, _F32]
        self._jacobi = _load("stencil").jacobi_step
        self._jacobi.argtypes = [_I64, _I64, _F32, _F32]
        self._mandelbrot = _load("mandelbrot", NO_CONTRACTION).mandelbrot
        lanes = _load("mandelbrot_lanes", NO_CONTRACTION)
        self._mandelbrot_lanes = lanes.mandelbrot_lanes
        lanes.mandelbrot_lanes_vector_width.restype = ctypes.c_int32
        self.lanes_vector_width = lanes.mandelbrot_lanes_vector_width()
        for entry in (self._mandelbrot, self._mandelbrot_lanes):
            entry.argtypes = [_I64, _I64, _FLOAT, _FLOAT, _FLOAT, ctypes.c_int32, _I32]
        self._nbody = _load("nbody", NO_CONTRACTION).nbody_kick
        self._nbody_lanes = _load("nbody_lanes", NO_CONTRACTION).nbody_kick_lanes
        for entry in (self._nbody, self._nbody_lanes):
            entry.argtypes = [_I64, _FLOAT, _FLOAT] + [_F32] * 7
        for entry in (self._saxpy, self._jacobi, self._mandelbrot, self._mandelbrot_lanes,
                      self._nbody, self._nbody_lanes):
            entry.restype = None

    def saxpy(self, alpha, x, y):
        self._saxpy(len(x), alpha, x, y)

    def jacobi_step(self, grid, out):
        self._jacobi(grid.shape[0], grid.shape[1], grid, out)

    def mandelbrot(self, counts, x0, y0, step, max_iter):
        self._mandelbrot(counts.shape[0], counts.shape[1], x0, y0, step, max_iter, counts)

    def mandelbrot_lanes(self, counts, x0, y0, step, max_iter):
        self._mandelbrot_lanes(counts.shape[0], counts.shape[1], x0, y0, step, max_iter, counts)

    def nbody_kick(self, x, y, z, m, vx, vy, vz, dt, eps2):
        self._nbody(len(x), dt, eps2, x, y, z, m, vx, vy, vz)

    def nbody_kick_lanes(self, x, y, z, m, vx, vy, vz, dt, eps2):
        self._nbody_lanes(len(x), dt, eps2, x, y, z, m, vx, vy, vz)


class RowKernels:
    """bench/cpp/rows.cpp: row-wise softmax and LayerNorm of C-contiguous f32
    matrices, OpenMP over rows."""

    def __init__(self):
        lib = _load("rows")
        self._softmax = lib.softmax_rows
        self._softmax.argtypes = [_I64, _I64, _F32, _F32]
        self._layer_norm = lib.layer_norm_rows
        self._layer_norm.argtypes = [_I64, _I64, _F32, _F32, _F32, _FLOAT, _F32]
        for entry in (self._softmax, self._layer_norm):
            entry.restype = None

    def softmax(self, x, out):
        self._softmax(x.shape[0], x.shape[1], x, out)

    def layer_norm(self, x, g, b, eps, out):
        self._layer_norm(x.shape[0], x.shape[1], x, g, b, eps, out)
