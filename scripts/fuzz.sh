#!/bin/bash
# Runs a libFuzzer campaign and folds what it found into the committed corpus.
#
#   scripts/fuzz.sh TARGET [SECONDS]     TARGET: reader, gzip or events
#
# Builds the fuzz targets with clang (ASan + UBSan, the core instrumented for
# coverage) in build/fuzz, fuzzes for SECONDS (default 1800) in a scratch
# corpus seeded from tests/fuzz/corpus/TARGET, then merges (minimises) the
# result back into tests/fuzz/corpus/TARGET.  A crash leaves its reproducer
# as build/fuzz/crash-* and the script exits non-zero: add the reproducer to
# the corpus as regress-NAME once it is fixed, so ctest replays it from then
# on (files named regress-* survive every later merge).
# FUZZ_JOBS=N runs N fuzzing processes (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:?usage: scripts/fuzz.sh reader|gzip|events [SECONDS]}
secs=${2:-1800}
jobs=${FUZZ_JOBS:-1}
maxlen=16384
[ "$t" = runfile ] && maxlen=262144 # a run file is ~100 KB of HDF5
[ -f "tests/fuzz/fuzz_$t.c" ] || { echo "no fuzz target '$t'" >&2; exit 2; }
B=build/fuzz
cmake -S . -B "$B" -DCMAKE_C_COMPILER=clang -DTLM_BUILD_FUZZ=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$B" -j2 --target "fuzz_${t}_libfuzzer" > /dev/null
bin=$B/fuzz_${t}_libfuzzer
work=$B/corpus-$t
mkdir -p "$work"
log=$B/fuzz-$t.log
echo "fuzzing $t for $secs s ($jobs job(s)); log: $log"
set +e
(cd "$B" && "./fuzz_${t}_libfuzzer" -max_total_time="$secs" -max_len=$maxlen \
    -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    $([ "$jobs" -gt 1 ] && echo "-jobs=$jobs -workers=$jobs") \
    "corpus-$t" "../../tests/fuzz/corpus/$t") > "$log" 2>&1
rc=$?
set -e
grep -E "^stat::number_of_executed_units|Done [0-9]+ runs" "$log" || true
ls "$B"/crash-* "$B"/leak-* "$B"/timeout-* 2> /dev/null && rc=1
# minimise: keep the inputs that add coverage
tmp=$(mktemp -d)
"$bin" -merge=1 "$tmp" "tests/fuzz/corpus/$t" "$work" > "$B/merge-$t.log" 2>&1
# regression inputs (regress-*) stay under their names whatever the merge keeps
cp tests/fuzz/corpus/"$t"/regress-* "$tmp"/ 2> /dev/null || true
rm -rf "tests/fuzz/corpus/$t"
mv "$tmp" "tests/fuzz/corpus/$t"
chmod 755 "tests/fuzz/corpus/$t"
echo "corpus tests/fuzz/corpus/$t: $(ls "tests/fuzz/corpus/$t" | wc -l) files"
exit $rc
