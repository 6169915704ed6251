#!/usr/bin/env bash
# Installs what is missing, builds with gcc and runs the whole ctest suite
# (unit, MPI integration, fuzz-corpus replay), then builds with clang under
# ASan+UBSan and runs the suite again, then the threaded parts under
# TSan.  Exits non-zero on any failure.
#   TLM_TEST_SANITIZE=0  skip the clang ASan+UBSan and TSan passes
#   TLM_TEST_SLURM=0     do not install Slurm (its test then skips)
#   TLM_TEST_VALGRIND=0  do not install valgrind (its test then skips)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
TLM_WITH_CLANG=${TLM_TEST_SANITIZE:-1} TLM_WITH_SLURM=${TLM_TEST_SLURM:-1} \
    TLM_WITH_VALGRIND=${TLM_TEST_VALGRIND:-1} "$root/scripts/setup.sh"
. "$root/scripts/env.sh"
jobs=$(nproc)

echo "== build (gcc, RelWithDebInfo)"
BUILD_DIR=$root/build "$root/scripts/build.sh" -DCMAKE_C_COMPILER=gcc \
    -DTLM_WERROR=ON
echo "== test (gcc, RelWithDebInfo)"
(cd "$root/build" && ctest --output-on-failure -j"$jobs")

# the build a user runs (-O3, where gcc warns about more), tests included
echo "== build (gcc, Release)"
BUILD_DIR=$root/build-release BUILD_TYPE=Release "$root/scripts/build.sh" \
    -DCMAKE_C_COMPILER=gcc -DTLM_WERROR=ON
echo "== test (gcc, Release: unit tests)"
(cd "$root/build-release" && ctest --output-on-failure -j"$jobs" -R '^unit_')

if [ "${TLM_TEST_SANITIZE:-1}" = 1 ]; then
    echo "== build (clang, ASan+UBSan)"
    BUILD_DIR=$root/build-asan BUILD_TYPE=Debug "$root/scripts/build.sh" \
        -DCMAKE_C_COMPILER=clang -DTLM_SANITIZER=address,undefined \
        -DTLM_WERROR=ON
    echo "== test (clang, ASan+UBSan)"
    (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=0 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ctest --output-on-failure -j"$jobs" -E 'integration_bench')
fi
if [ "${TLM_TEST_SANITIZE:-1}" = 1 ]; then
    # the threads of the single-trace report: the tree's pass beside the
    # reader, links beside the stacks, tables side by side (and the gzip
    # thread of the reader)
    echo "== build (clang, TSan)"
    cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_COMPILER=clang -DTLM_SANITIZER=thread -DTLM_WERROR=ON \
        >/dev/null
    cmake --build "$root/build-tsan" -j"$jobs" --target test_tree test_ops \
        test_reader test_instream test_kl_overlap tlmpi tlmpi-synth
    echo "== test (clang, TSan)"
    (cd "$root/build-tsan" && TSAN_OPTIONS=halt_on_error=1 ctest \
        --output-on-failure -R \
        '^(unit_test_(tree|ops|reader|instream|kl_overlap)|integration_test_(report|report_xlsx|diff))$')
    tsd=$(mktemp -d)
    "$root/build-tsan/tlmpi-synth" --out "$tsd" --world_size 8 --tp 4 \
        --target_size 30000000 --seed 3 --ranks 0 >/dev/null
    gzip -k "$tsd/rank0_trace.json"
    for f in "$tsd/rank0_trace.json" "$tsd/rank0_trace.json.gz"; do
        TSAN_OPTIONS=halt_on_error=1 "$root/build-tsan/tlmpi" report "$f" \
            --output_csvs_dir "$tsd/out" --force --threads 2
    done
    # the *_kl_overlap builders in both threads
    TSAN_OPTIONS=halt_on_error=1 "$root/build-tsan/tlmpi" report \
        "$tsd/rank0_trace.json" --output_csvs_dir "$tsd/out" --force \
        --threads 2 --include_overlap_info
    rm -rf "$tsd"
fi
echo "== all tests passed"
