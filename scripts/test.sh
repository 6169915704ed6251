#!/usr/bin/env bash
# Installs what is missing, builds with gcc and runs the whole ctest suite
# (unit, MPI integration, fuzz-corpus replay), then builds with clang under
# ASan+UBSan and runs the suite again.  Exits non-zero on any failure.
#   TLM_TEST_SANITIZE=0  skip the clang ASan+UBSan pass
#   TLM_TEST_SLURM=0     do not install Slurm (its test then skips)
#   TLM_TEST_VALGRIND=0  do not install valgrind (its test then skips)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
TLM_WITH_CLANG=${TLM_TEST_SANITIZE:-1} TLM_WITH_SLURM=${TLM_TEST_SLURM:-1} \
    TLM_WITH_VALGRIND=${TLM_TEST_VALGRIND:-1} "$root/scripts/setup.sh"
. "$root/scripts/env.sh"
jobs=$(nproc)

echo "== build (gcc, release)"
BUILD_DIR=$root/build "$root/scripts/build.sh" -DCMAKE_C_COMPILER=gcc
echo "== test (release)"
(cd "$root/build" && ctest --output-on-failure -j"$jobs")

if [ "${TLM_TEST_SANITIZE:-1}" = 1 ]; then
    echo "== build (clang, ASan+UBSan)"
    BUILD_DIR=$root/build-asan BUILD_TYPE=Debug "$root/scripts/build.sh" \
        -DCMAKE_C_COMPILER=clang -DTLM_SANITIZER=address,undefined
    echo "== test (clang, ASan+UBSan)"
    (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=0 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ctest --output-on-failure -j"$jobs" -E 'integration_bench')
fi
echo "== all tests passed"
