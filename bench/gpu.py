"""The benchmark's four kernels on a CUDA device, each against a baseline
measured in the same run:

- saxpy and the Jacobi stencil (memory-bound) against the device's copy
  bandwidth: cuMemcpyDtoD of half the bytes the kernel moves (a copy reads
  and writes each byte), so "of copy" is the fraction of the bandwidth a
  plain copy reaches (target: at least 90 %);
- Mandelbrot and the n-body kick (compute-bound) against the same
  algorithm written by hand in CUDA C++ and compiled by NVRTC with the
  options Tack's CUDA backend uses (--fmad=true --ftz=false --prec-div=true
  --prec-sqrt=true -arch=sm_XY), launched on the same arrays (target:
  Tack within 1.1x).

    python bench/gpu.py [--quick]

Every result, Tack's and the hand-written kernel's, is checked against
NumPy (bench/cases.py's tolerances) before its time is reported. Times are
medians of launches each followed by a wait for the device. Needs an NVIDIA
GPU and its driver; says what is missing otherwise.
"""

import argparse
import ctypes
import ctypes.util
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import cases  # noqa: E402
import tack  # noqa: E402
import tack_kernels  # noqa: E402
import timing  # noqa: E402

HAND_WRITTEN = r"""
extern "C" __global__ void mandelbrot(int* counts, long long h, long long w, float x0, float y0, float step,
                                      int max_iter) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= h * w) return;
    long long r = i / w, c = i % w;
    float cr = x0 + (float)c * step, ci = y0 + (float)r * step;
    float zr = 0.0f, zi = 0.0f;
    int n = 0;
    while (n < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        n += 1;
    }
    counts[i] = n;
}

extern "C" __global__ void nbody_kick(const float* x, const float* y, const float* z, const float* m, float* vx,
                                      float* vy, float* vz, float dt, float eps2, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (long long j = 0; j < n; ++j) {
        float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
        float inv_r = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
        float s = m[j] * (inv_r * inv_r * inv_r);
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    vx[i] += dt * ax;
    vy[i] += dt * ay;
    vz[i] += dt * az;
}
"""


class Cuda:
    """The few driver and NVRTC calls the baselines need, in Tack's context
    (the device's primary context, which Tack made current)."""

    def __init__(self):
        self.cu = ctypes.CDLL(os.environ.get("TACK_CUDA_DRIVER") or "libcuda.so.1")
        self.nvrtc = self._open_nvrtc()
        self._check(self.cu.cuInit(0), "cuInit")
        device, self.context = ctypes.c_int(), ctypes.c_void_p()
        self._check(self.cu.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        self._check(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(self.context), device), "cuDevicePrimaryCtxRetain")
        self._check(self.cu.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.cu.cuDeviceGetAttribute(ctypes.byref(major), 75, device)
        self.cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, device)
        self.arch = f"sm_{major.value}{minor.value}"

    @staticmethod
    def _open_nvrtc():
        candidates = [os.environ.get("TACK_NVRTC"), "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                      os.path.join(os.environ.get("TACK_CUDA_HOME", "/usr/local/cuda"), "lib64", "libnvrtc.so")]
        for name in filter(None, candidates):
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
        raise RuntimeError("NVRTC not found (install the CUDA toolkit or set TACK_CUDA_HOME)")

    @staticmethod
    def _check(rc, call):
        if rc != 0:
            raise RuntimeError(f"{call} failed with error {rc}")

    def compile(self, source, options):
        program = ctypes.c_void_p()
        self._check(self.nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"hand.cu", 0, None, None),
                    "nvrtcCreateProgram")
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        if self.nvrtc.nvrtcCompileProgram(program, len(options), opts) != 0:
            size = ctypes.c_size_t()
            self.nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            self.nvrtc.nvrtcGetProgramLog(program, log)
            raise RuntimeError("NVRTC could not compile the hand-written kernels:\n" + log.value.decode())
        size = ctypes.c_size_t()
        self._check(self.nvrtc.nvrtcGetCUBINSize(program, ctypes.byref(size)), "nvrtcGetCUBINSize")
        cubin = ctypes.create_string_buffer(size.value)
        self._check(self.nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN")
        self.nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
        module = ctypes.c_void_p()
        self._check(self.cu.cuModuleLoadData(ctypes.byref(module), cubin), "cuModuleLoadData")
        return module

    def function(self, module, name):
        f = ctypes.c_void_p()
        self._check(self.cu.cuModuleGetFunction(ctypes.byref(f), module, name.encode()), "cuModuleGetFunction")
        return f

    def launch(self, function, items, args, block=256):
        """`args`: ctypes values, in the kernel's parameter order."""
        params = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.byref(a), ctypes.c_void_p) for a in args])
        grid = (items + block - 1) // block
        self._check(self.cu.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, None, params, None),
                    "cuLaunchKernel")

    def synchronize(self):
        self._check(self.cu.cuCtxSynchronize(), "cuCtxSynchronize")

    def copy_ms(self, nbytes):
        """Median time of a device-to-device copy of `nbytes`."""
        src, dst = ctypes.c_uint64(), ctypes.c_uint64()
        self._check(self.cu.cuMemAlloc_v2(ctypes.byref(src), ctypes.c_size_t(nbytes)), "cuMemAlloc")
        self._check(self.cu.cuMemAlloc_v2(ctypes.byref(dst), ctypes.c_size_t(nbytes)), "cuMemAlloc")
        try:
            def copy():
                self._check(self.cu.cuMemcpyDtoD_v2(dst, src, ctypes.c_size_t(nbytes)), "cuMemcpyDtoD")
                self.synchronize()

            return timing.median_ms(copy, repeats=20, budget_s=3.0)
        finally:
            self.cu.cuMemFree_v2(src)
            self.cu.cuMemFree_v2(dst)


def address(a):
    return ctypes.c_uint64(a.__cuda_array_interface__["data"][0])


def tack_ms(case):
    """Tack's median time and its results (the outputs of one call on fresh
    inputs, as NumPy arrays)."""
    state = {name: tack.array(array, device="cuda") for name, array in case.fresh_state().items()}
    case.run_tack(tack_kernels, state)
    tack.sync()
    results = {name: state[name].numpy().copy() for name in case.outputs}

    def call():
        case.run_tack(tack_kernels, state)
        tack.sync()

    return timing.median_ms(call, repeats=20, budget_s=3.0), results


def hand_ms(cuda, functions, case):
    state = {name: tack.array(array, device="cuda") for name, array in case.fresh_state().items()}
    s = case.scalars
    if case.name == "mandelbrot":
        h, w = case.arrays["counts"].shape
        items = h * w
        args = [address(state["counts"]), ctypes.c_longlong(h), ctypes.c_longlong(w), ctypes.c_float(s["x0"]),
                ctypes.c_float(s["y0"]), ctypes.c_float(s["step"]), ctypes.c_int(s["max_iter"])]
    else:
        items = len(case.arrays["x"])
        args = [address(state[k]) for k in ("x", "y", "z", "m", "vx", "vy", "vz")]
        args += [ctypes.c_float(s["dt"]), ctypes.c_float(s["eps2"]), ctypes.c_longlong(items)]
    tack.sync()

    def call():
        cuda.launch(functions[case.name], items, args)
        cuda.synchronize()

    call()
    results = {name: state[name].numpy().copy() for name in case.outputs}
    return timing.median_ms(call, repeats=20, budget_s=3.0), results


def moved_bytes(case):
    if case.name == "saxpy":
        return 3 * case.arrays["x"].nbytes  # read x and y, write y
    return 2 * case.arrays["grid"].nbytes  # read the grid once, write out


def check(case, results, who):
    want = case.fresh_state()
    case.run_numpy(want)
    for name in case.outputs:
        ok, why = case.agree(results[name], want[name])
        if not ok:
            raise SystemExit(f"{case.name}: {who}'s {name} disagrees with NumPy: {why}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the smaller sizes of bench/run.py --quick")
    args = parser.parse_args()
    why_not = tack._core.device_unavailable_reason("cuda")
    if why_not:
        raise SystemExit(f"bench/gpu.py needs a CUDA device: {why_not}")
    tack.zeros(1, device="cuda")  # starts the backend, and with it the context
    cuda = Cuda()
    options = ["--fmad=true", "--ftz=false", "--prec-div=true", "--prec-sqrt=true", f"-arch={cuda.arch}"]
    started = time.perf_counter()
    module = cuda.compile(HAND_WRITTEN, options)
    functions = {name: cuda.function(module, name) for name in ("mandelbrot", "nbody_kick")}
    print(f"device: {tack._core.target_description('cuda').splitlines()[1]}; hand-written kernels compiled in "
          f"{(time.perf_counter() - started) * 1e3:.0f} ms")
    print(f"{'kernel':<13}{'size':<24}{'Tack ms':>10}{'baseline ms':>13}  ratio")
    for case in cases.all_cases(args.quick):
        t, results = tack_ms(case)
        check(case, results, "Tack")
        if case.name in ("saxpy", "jacobi_step"):
            base = cuda.copy_ms(moved_bytes(case) // 2)
            gbs = moved_bytes(case) / (t * 1e-3) / 1e9
            note = f"{base / t:.0%} of copy bandwidth ({gbs:.0f} GB/s; copy of the same bytes {base:.3f} ms)"
        else:
            base, hand = hand_ms(cuda, functions, case)
            check(case, hand, "the hand-written kernel")
            note = f"{t / base:.2f}x the hand-written CUDA kernel's time"
        print(f"{case.name:<13}{case.size:<24}{t:>10.3f}{base:>13.3f}  {note}")


if __name__ == "__main__":
    main()
