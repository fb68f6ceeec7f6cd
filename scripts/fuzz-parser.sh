#!/usr/bin/env bash
# Fuzzes the syntax layer: builds tests/fuzz/parse_fuzz.cpp and src/syntax/
# with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer into
# build-fuzz/, then runs it for SECONDS (default 60) on a working copy of
# tests/fuzz/corpus/. Exits non-zero when the fuzzer finds a crash, leaving
# the input in build-fuzz/crash-*.
#
#   scripts/fuzz-parser.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail

seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
cxx="${CXX_FUZZ:-clang++-19}"
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$root/src")

mkdir -p "$build/obj" "$build/corpus"

# Rebuild an object only when its source or any syntax header is newer,
# FUZZ_JOBS (default: all cores) at a time.
jobs="${FUZZ_JOBS:-$(nproc)}"
newest_header="$(ls -t "$root"/src/syntax/*.h | head -n1)"
objects=()
running=0
for src in "$root"/src/syntax/*.cpp "$root/tests/fuzz/parse_fuzz.cpp"; do
    obj="$build/obj/$(basename "${src%.cpp}").o"
    objects+=("$obj")
    if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then
        echo "compiling $(basename "$src")"
        rm -f "$obj"
        "$cxx" "${flags[@]}" -c "$src" -o "$obj" &
        if (( ++running >= jobs )); then
            wait -n
            running=$((running - 1))
        fi
    fi
done
wait
for obj in "${objects[@]}"; do
    [[ -f "$obj" ]] || { echo "fuzz-parser.sh: compiling $(basename "$obj" .o).cpp failed" >&2; exit 1; }
done
"$cxx" "${flags[@]}" "${objects[@]}" -o "$build/parse_fuzz"

cp -n "$root"/tests/fuzz/corpus/* "$build/corpus/" 2>/dev/null || true

"$build/parse_fuzz" "$build/corpus" \
    -dict="$root/tests/fuzz/python.dict" \
    -max_len=4096 \
    -max_total_time="$seconds" \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -print_final_stats=1 \
    -artifact_prefix="$build/" \
    "$@"
