#!/usr/bin/env bash
# Sets up a fresh Debian machine for Tack, builds it, and then either runs
# the examples or runs every test.
#
#   bash scripts/bootstrap.sh examples   # install what is missing, build, run the examples
#   bash scripts/bootstrap.sh test       # install what is missing, build, run every test
#
# Idempotent: packages already present are not installed again, and the
# build folder (build/) is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-examples}"

# OpenCL: the ICD loader, headers and PoCL, which runs the OpenCL backend on
# the CPU. hipcc and the ROCm device libraries compile generated HIP source
# to AMD code objects in the compile checks (nothing runs it here). Open MPI
# runs examples/mpi_heat.py over several ranks (docs/mpi.md): mpi4py's
# binary wheels load its libmpi at run time, and where pip finds no wheel,
# libopenmpi-dev's mpicc builds mpi4py from source (about 8 minutes on 2 cores).
apt_packages=(cmake ninja-build g++ llvm-19-dev clang-19 libclang-rt-19-dev libgtest-dev libtbb-dev zlib1g-dev libzstd-dev
  libxxhash-dev ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo openmpi-bin libopenmpi-dev)
if [ "$mode" = test ]; then
  apt_packages+=(hipcc libamdhip64-dev rocm-device-libs)
fi
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

python=${PYTHON:-python3}
pip_missing=()
for spec in numpy:numpy nanobind:nanobind scikit_build_core:scikit-build-core pytest:pytest hypothesis:hypothesis \
  mpi4py:mpi4py mypy:mypy; do
  "$python" -c "import ${spec%%:*}" 2>/dev/null || pip_missing+=("${spec##*:}")
done
# pytest-xdist runs the tests on every core; --dist worksteal (below) needs 3.2 or later.
"$python" -c "import sys, xdist; sys.exit(tuple(map(int, xdist.__version__.split('.')[:2])) < (3, 2))" 2>/dev/null ||
  pip_missing+=("pytest-xdist>=3.2")
if ((${#pip_missing[@]})); then
  echo "== pip installing ${pip_missing[*]}"
  "$python" -m pip install -q "${pip_missing[@]}"
fi

echo "== building"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v "$python")" >/dev/null
ninja -C build -j"$(nproc)"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

case "$mode" in
  examples)
    "$python" examples/run_all.py
    ;;
  test)
    # Folders this run makes, removed when it ends however it ends.
    made=()
    trap 'rm -rf "${made[@]}"' EXIT
    # PoCL's own kernel cache, fresh for this run unless the caller names one.
    if [ -z "${POCL_CACHE_DIR:-}" ]; then
      POCL_CACHE_DIR="$(mktemp -d -t tack-pocl-XXXXXX)"
      export POCL_CACHE_DIR
      made+=("$POCL_CACHE_DIR")
    fi
    echo "== C++ tests"
    (cd build && ctest --output-on-failure -j"$(nproc)")
    echo "== parser fuzzing (bounded)"
    bash scripts/fuzz-parser.sh "${TACK_FUZZ_SECONDS:-60}"
    echo "== Python tests"
    # Every variant the suites compile leaves its GPU source in each dialect
    # there, for the compile check that follows.
    gpu_sources="$(mktemp -d -t tack-gpu-sources-XXXXXX)"
    made+=("$gpu_sources")
    # One worker per core: device backends spend most of their time in the
    # OpenCL driver's program builds, which are single-threaded. Workers
    # steal from each other's queues (--dist worksteal): with the default
    # scheduling one worker sat idle for the last third of the run while
    # the other worked through the long device cases handed to it. The CPU
    # runs every kernel in SIMD lanes (TACK_CPU_SPMD=always), not only
    # those whose lanes pay: the suites test the lanes, and the default's
    # choice has tests of its own (test_spmd.py).
    TACK_CPU_SPMD=always TACK_EMIT_SOURCES="$gpu_sources" "$python" -m pytest -q -n "$(nproc)" --dist worksteal tests/python
    echo "== type check: the examples and the package against its stubs (mypy; [tool.mypy] in pyproject.toml)"
    "$python" -m mypy
    echo "== numerical suites on the CPU as the scalar program (TACK_CPU_SPMD=0)"
    # The suites above ran the CPU's SPMD code (the generated differential
    # programs in both forms); these run again as the scalar program.
    TACK_CPU_SPMD=0 "$python" -m pytest -q -n "$(nproc)" --dist worksteal -k "not opencl" \
      tests/python/test_float_semantics.py tests/python/test_integer_semantics.py \
      tests/python/test_division_and_power.py tests/python/test_integer_division.py \
      tests/python/test_float_division.py tests/python/test_float_literals.py tests/python/test_matrix.py \
      tests/python/test_random.py tests/python/test_reduction_semantics.py tests/python/test_atomic_contract.py \
      tests/python/test_element_arrays.py tests/python/test_texture_snapshot.py \
      tests/python/test_compiler_contract.py tests/python/test_assignment_order.py \
      tests/python/test_device_class.py tests/python/test_new_features.py
    if [ "$(uname -m)" = x86_64 ]; then
      echo "== the CPU's SIMD lanes compiled for AVX2 without AVX-512 (TACK_CPU_TARGET=x86-64-v3)"
      # Branch-free gathers and wide masks (lower_gathers, widen_masks) are
      # for hosts without AVX-512; this runs them on any x86-64 host.
      TACK_CPU_TARGET=x86-64-v3 "$python" -m pytest -q -n "$(nproc)" --dist worksteal tests/python/test_spmd.py
    fi
    echo "== GPU source compile check"
    # Every source checked; every 12th also compiled as the CUDA and HIP
    # runtimes would (PTX assembled at full optimization, gfx90a code objects).
    build/tools/gpu_compile_check/tack_gpu_compile_check --full-every 12 "$gpu_sources"
    ;;
  *)
    echo "usage: bash scripts/bootstrap.sh [examples|test]" >&2
    exit 2
    ;;
esac
