"""Tile-layer f32 matmul on a CUDA device against cuBLAS, measured in the
same run.

    python bench/tile_gpu.py [--quick] [--device opencl]

For each shape (2048^3, 512^3 and the ragged 1000x777x333; --quick: 512^3
only) it times tack.tile.matmul (its GPU configuration) and the tile
library's matmul compiled with other tile sizes, each run in workgroups of
256 lanes with its tiles in shared memory (docs/tile/compile.md,
"Workgroups"), against cublasSgemm in cuBLAS's default math mode (FP32,
no TF32) on the same device arrays. It reports milliseconds, GFLOP/s and
Tack's time over cuBLAS's.

Then softmax and layer_norm over 4096x4096 rows (--quick: 1024x1024) in
both forms a GPU can run them: a workgroup per row in blocks of its 256
lanes (what tack.tile runs on CUDA and HIP), and a row per lane in blocks
of 32 columns (what it runs on OpenCL), in milliseconds and GB/s (the
input read and the output written once), the row-per-lane time over the
group's.

Every result is checked before its time is reported: each compiled
kernel bit for bit against the tile interpreter on a ragged 67x19x130
product, and every product measured, Tack's and cuBLAS's, within the f32
dot-product bound (K * 2^-24 * sum |a||b|, from an f64 product); the row
kernels' outputs within 1e-4 of NumPy's in f64 (relative for softmax). Times are medians
of launches each followed by a wait for the device. Needs an NVIDIA GPU,
its driver and libcublas; says what is missing otherwise. --device runs
Tack's rows on another device without the cuBLAS baseline (OpenCL on PoCL
checks the script's logic; its times mean nothing for a GPU).
"""

import argparse
import ctypes
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import tack  # noqa: E402
from tack import _core  # noqa: E402
from tack import tile as T  # noqa: E402
import timing  # noqa: E402
from gpu import Cuda  # noqa: E402

SHAPES = [(2048, 2048, 2048), (512, 512, 512), (1000, 777, 333)]
# (tile_m, tile_n, tile_k): one element per lane, then register blocks per lane.
TILES = [(16, 16, 16), (32, 32, 8), (64, 64, 8), (64, 64, 16)]


def open_cublas():
    home = os.environ.get("TACK_CUDA_HOME", "/usr/local/cuda")
    for name in ("libcublas.so", "libcublas.so.13", "libcublas.so.12", os.path.join(home, "lib64", "libcublas.so")):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise SystemExit("bench/tile_gpu.py needs libcublas (the CUDA toolkit's lib64)")


class Cublas:
    def __init__(self):
        self.lib = open_cublas()
        self.handle = ctypes.c_void_p()
        self._check(self.lib.cublasCreate_v2(ctypes.byref(self.handle)), "cublasCreate")

    @staticmethod
    def _check(rc, call):
        if rc != 0:
            raise SystemExit(f"{call} failed with cuBLAS status {rc}")

    def sgemm(self, a, b, c, m, k, n):
        # Row-major C = A B is column-major C^T = B^T A^T.
        one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
        ptr = lambda x: ctypes.c_void_p(x.__cuda_array_interface__["data"][0])  # noqa: E731
        self._check(self.lib.cublasSgemm_v2(self.handle, 0, 0, n, m, k, ctypes.byref(one), ptr(b), n, ptr(a), k,
                                            ctypes.byref(zero), ptr(c), n), "cublasSgemm")


def within_bound(got, a, b):
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = a.shape[1] * 2.0**-24 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    return bool(np.all(np.abs(got.astype(np.float64) - exact) <= bound + 1e-30))


def views(arrays):
    return [(v, list(v.shape), [v.shape[1], 1], 0, i == 2) for i, v in enumerate(arrays)]


def check_bits(kernel, tiles, device, m=67, k=19, n=130):
    # The compiled kernel against the tile interpreter on a ragged shape the
    # interpreter runs quickly: the same bits (docs/tile/compile.md).
    r = np.random.default_rng(m + k + n)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    got = [tack.array(a, device=device), tack.array(b, device=device), tack.full((m, n), np.nan, device=device)]
    kernel.launch(views(got))
    want = [tack.array(a), tack.array(b), tack.full((m, n), np.nan)]
    _core.tile_interpret(_core.tile_matmul(*tiles), views(want))
    if not np.array_equal(got[2].numpy().view(np.int32), want[2].numpy().view(np.int32)):
        raise SystemExit(f"{tiles} tiles: the {device} kernel's bits differ from the tile interpreter's")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="512^3 only")
    parser.add_argument("--device", default="cuda", help="where Tack runs (cuBLAS only with cuda)")
    args = parser.parse_args()
    device = args.device
    why_not = _core.device_unavailable_reason(device)
    if why_not:
        raise SystemExit(f"bench/tile_gpu.py needs a {device} device: {why_not}")
    tack.zeros(1, device=device)  # starts the backend, and with it the context
    cuda, cublas = (Cuda(), Cublas()) if device == "cuda" else (None, None)
    print(f"device: {_core.target_description(device).splitlines()[1]}")
    print(f"{'shape':<16}{'kernel':<22}{'ms':>9}{'GFLOP/s':>10}  vs cuBLAS")
    rng = np.random.default_rng(5)
    for m, k, n in SHAPES[1:2] if args.quick else SHAPES:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        da, db = tack.array(a, device=device), tack.array(b, device=device)
        flops = 2.0 * m * n * k
        shape = f"{m}x{k}x{n}"

        out = tack.zeros((m, n), device=device)
        base = None
        if cublas:

            def blas():
                # cuBLAS runs on the context's default stream: Tack's queued
                # work first, then the whole context waited for.
                tack.sync()
                cublas.sgemm(da, db, out, m, k, n)
                cuda.synchronize()

            blas()
            if not within_bound(out.numpy(), a, b):
                raise SystemExit(f"{shape}: cuBLAS's product is outside the f32 bound")
            base = timing.median_ms(blas, repeats=20, budget_s=2.0)
            print(f"{shape:<16}{'cuBLAS sgemm':<22}{base:>9.3f}{flops / base / 1e6:>10.0f}  1.00x")

        runs = [("tack.tile.matmul", lambda: T.matmul(da, db, out=out))]
        for tiles in TILES:
            kernel = _core.tile_compile(_core.tile_matmul(*tiles), device)
            check_bits(kernel, tiles, device)
            runs.append(("x".join(map(str, tiles)) + " tiles", lambda kernel=kernel: kernel.launch(views([da, db, out]))))
        for name, run in runs:
            out = tack.zeros((m, n), device=device)
            run()
            tack.sync()
            got = out.numpy()
            if not within_bound(got, a, b):
                raise SystemExit(f"{shape} {name}: Tack's product is outside the f32 bound")

            def timed(run=run):
                run()
                tack.sync()

            t = timing.median_ms(timed, repeats=20, budget_s=2.0)
            ratio = f"{t / base:.2f}x" if base else "-"
            print(f"{shape:<16}{name:<22}{t:>9.3f}{flops / t / 1e6:>10.0f}  {ratio}")

    row_kernels(device, args.quick)


def row_kernels(device, quick):
    rows, cols = (1024, 1024) if quick else (4096, 4096)
    x = np.random.default_rng(6).standard_normal((rows, cols)).astype(np.float32)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    exact_softmax = e / e.sum(axis=1, keepdims=True)
    centred = x64 - x64.mean(axis=1, keepdims=True)
    exact_norm = centred / np.sqrt((centred**2).mean(axis=1, keepdims=True) + 1e-5)
    dx = tack.array(x, device=device)
    ones, zeros = tack.full((cols,), 1.0, device=device), tack.zeros((cols,), device=device)
    out = tack.zeros((rows, cols), device=device)
    cases = [("softmax", lambda: T.softmax(dx, out=out),
              lambda got: np.all(np.abs(got - exact_softmax) <= 1e-4 * exact_softmax)),
             ("layer_norm", lambda: T.layer_norm(dx, ones, zeros, out=out),
              lambda got: np.all(np.abs(got - exact_norm) <= 1e-4))]
    shape = f"{rows}x{cols}"
    print(f"\n{'shape':<16}{'kernel':<32}{'ms':>9}{'GB/s':>8}  row per lane / group")
    saved = T._GROUP_DEVICES
    try:
        for name, run, close in cases:
            times = {}
            for form, groups in (("group per row", True), ("row per lane", False)):
                T._GROUP_DEVICES = saved | {device} if groups else saved - {device}
                run()
                tack.sync()
                if not close(out.numpy().astype(np.float64)):
                    raise SystemExit(f"{shape} {name}, {form}: the output is not within 1e-4 of NumPy's")

                def timed(run=run):
                    run()
                    tack.sync()

                times[form] = t = timing.median_ms(timed, repeats=20, budget_s=2.0)
                ratio = f"{times['row per lane'] / times['group per row']:.2f}x" if len(times) == 2 else ""
                print(f"{shape:<16}{name + ', ' + form:<32}{t:>9.3f}{8.0 * rows * cols / t / 1e6:>8.0f}  {ratio}")
    finally:
        T._GROUP_DEVICES = saved


if __name__ == "__main__":
    main()
