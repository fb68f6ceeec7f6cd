#!/usr/bin/env bash
# The checks that need an NVIDIA GPU, as one script for a lent machine: it
# builds Tack from source, says what Tack sees of the device, and runs (part
# `tests`) the CUDA backend's C++ tests, the tile kernels on CUDA against
# the tile interpreter (tile_compile_tests' cuda variants: the reference
# library and random programs, one iteration per lane and in workgroups)
# and every Python suite's CUDA cases, printing the counts per suite, then
# (part `bench`) the launch-overhead benchmark, bench/gpu.py (the four
# kernels against copy bandwidth and hand-written CUDA) and
# bench/tile_gpu.py (tile-layer matmul against cuBLAS). Meant for a machine with the NVIDIA driver, the CUDA
# toolkit (NVRTC), Python with NumPy, nanobind, scikit-build-core, cmake and
# ninja, and perhaps no LLVM development files (the CPU backend is then
# left out of the build, and the Python cases that take the CPU's results
# as their oracle skip, counted apart in the summary; the tile kernels'
# check against the tile interpreter needs no CPU backend). It installs
# nothing and reaches no network.
#
#   bash scripts/device-check.sh         # both parts; about a minute to build on 16 cores
#   bash scripts/device-check.sh tests   # the build and the tests (within 10 minutes)
#   bash scripts/device-check.sh bench   # the build (kept from a run before) and the benchmarks
#
# The build goes to build-device/; the extension module beside the package
# sources (python/tack/), as a developer build puts it. A machine without
# GoogleTest installed builds it from sources carried in .googletest/
# (ignored by git): here, `cp -r /usr/src/googletest .googletest` once, and
# name .googletest in the device run's carry.
set -uo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
part=${1:-all}
case "$part" in all | tests | bench) ;; *) echo "usage: bash scripts/device-check.sh [tests|bench]" >&2; exit 2 ;; esac
status=0

echo "== the machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>&1 || true
command -v nvcc >/dev/null && nvcc --version | tail -n 1

llvm=OFF
[ -f /usr/lib/llvm-19/lib/cmake/llvm/LLVMConfig.cmake ] && llvm=ON
echo "== building (the LLVM CPU backend: $llvm)"
gtest=()
if [ -d .googletest ] && ! ls /usr/lib/*/cmake/GTest /usr/lib/cmake/GTest /usr/local/lib*/cmake/GTest >/dev/null 2>&1; then
  gtest=(-DTACK_GTEST_SOURCE="$PWD/.googletest")
  echo "(GoogleTest from the carried sources in .googletest)"
fi
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DTACK_ENABLE_LLVM="$llvm" "${gtest[@]}" \
  -DPython_EXECUTABLE="$(command -v "$python")" >"${TMPDIR:-/tmp}/tack-device-cmake.log" 2>&1 ||
  { tail -n 30 "${TMPDIR:-/tmp}/tack-device-cmake.log"; exit 1; }
ninja -C build-device -j"$(nproc)" >build-device/ninja.log 2>&1 || { tail -n 40 build-device/ninja.log; exit 1; }
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

echo "== what Tack sees"
"$python" -c '
import tack
print("available devices:", tack.available_devices())
print("cuda:", tack._core.device_unavailable_reason("cuda") or "starts")
if "cuda" in tack.available_devices():
    import numpy as np
    print(tack._core.target_description("cuda"))
    @tack.kernel
    def saxpy(alpha: float, x, y):
        for i in range(len(x)):
            y[i] = alpha * x[i] + y[i]
    n = 1_000_003
    x = np.arange(n, dtype=np.float32) % 1000
    y0 = np.ones(n, dtype=np.float32)
    y = tack.array(y0, device="cuda")
    saxpy(0.5, tack.array(x, device="cuda"), y)
    same = np.array_equal(y.numpy(), np.float32(0.5) * x + y0)
    print("saxpy over", n, "elements on cuda equals NumPy:", same)
    raise SystemExit(0 if same else 1)
' || status=1

if [ "$part" != bench ]; then
echo "== C++ tests of the GPU runtimes (NVRTC, the driver table, the CUDA backend)"
(cd build-device && ctest --output-on-failure -R 'gpu_runtime_tests') || status=1

echo "== tile kernels on CUDA against the tile interpreter (tile_compile_tests, cuda variants)"
timeout 240 build-device/tests/cpp/tile/tile_compile_tests --gtest_filter='*/cuda:*/cuda_groups' --gtest_brief=1 ||
  status=1

echo "== Python suites, their CUDA cases (-k cuda)"
report=build-device/cuda-cases.xml  # beside the build it tests, replaced by the next run
timeout 360 "$python" -m pytest -q -p no:cacheprovider -k cuda --junitxml="$report" tests/python >/dev/null 2>&1
rc=$?
# pytest's 5 is "no test selected": no suite has a CUDA case yet.
[ "$rc" -ne 0 ] && [ "$rc" -ne 5 ] && status=1
"$python" - "$report" <<'PY'
import collections, sys, xml.etree.ElementTree as ET
counts = collections.defaultdict(collections.Counter)
try:
    cases = ET.parse(sys.argv[1]).iter("testcase")
except (OSError, ET.ParseError) as error:
    sys.exit(f"no report ({error})")
for case in cases:
    suite = case.get("classname", "?").split(".")[-1]
    outcome = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
    kind = "passed" if outcome is None else outcome.tag
    counts[suite][kind] += 1
    # Without LLVM there is no CPU backend (tests/python/conftest.py): the
    # cases that take the CPU as their oracle skip, and say so.
    if kind == "skipped" and "needs the CPU backend" in (outcome.get("message") or ""):
        counts[suite]["no_cpu"] += 1
def line(c):
    no_cpu = f" ({c['no_cpu']} for want of the CPU backend)" if c["no_cpu"] else ""
    return f"{c['passed']} passed, {c['failure'] + c['error']} failed, {c['skipped']} skipped{no_cpu}"
for suite in sorted(counts):
    print(f"  {suite}: {line(counts[suite])}")
print(line(sum(counts.values(), collections.Counter())))
PY

fi

if [ "$part" != tests ]; then
echo "== launch overhead and saxpy, the CPU as the baseline of the same run (where this build has the CPU backend)"
devices=cuda
"$python" -c 'import sys, tack; sys.exit("cpu" not in tack.available_devices())' && devices=cpu,cuda
timeout 90 "$python" bench/launch_overhead.py --devices "$devices" || status=1

echo "== the four kernels on the GPU: copy bandwidth and hand-written CUDA as the baselines"
timeout 150 "$python" bench/gpu.py || status=1

echo "== tile-layer matmul in workgroups against cuBLAS"
timeout 150 "$python" bench/tile_gpu.py || status=1
fi
exit "$status"
