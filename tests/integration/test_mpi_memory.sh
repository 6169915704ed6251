#!/bin/bash
# Bounded memory (issue 20, item 7): a process's peak RSS is at most that of
# its largest trace plus a constant, whatever the number of traces it reads
# or the world size a trace declares.  Model checked, with P1 the peak of
# one process reading one ~40 MB trace of the job:
#
#     peak(k traces per process) <= 1.3 * P1 + 64 MiB     for k = 4, 8
#     peak(2 traces declaring world_size 16777216, --allow_missing)
#                                <= 1.3 * P1 + 64 MiB
#     peak(traces of ranks 0 and 16777000, --allow_missing)
#                                <= 1.3 * P1 + 64 MiB
#
# (before the fix: 146 MB for 8 traces against P1 = 41 MB, and 4.6 GB for
# the declared world size; 4.4 GB for a trace rank near 2^24, whose arrays
# were indexed by trace rank).  Figures are printed for the record.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: skipped"; exit 77; }
# a sanitizer's allocator (shadow memory, quarantine) says nothing about
# tlmpi's own peak: the bound is checked in the plain build
if grep -qs '^TLM_SANITIZER:STRING=.' "${TLM_BUILD_DIR:-/nonexistent}/CMakeCache.txt"; then
    echo "sanitizer build: peak memory not meaningful, skipped"
    exit 77
fi
W=${TLM_WORK_DIR:-$(mktemp -d)}/memory
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }

"$TLMPI_SYNTH" --out "$W/job" --world_size 8 --tp 4 --target_size 40M \
    --seed 3 --quiet
for k in 1 4 8; do
    mkdir -p "$W/k$k"
    for r in $(seq 0 $((k - 1))); do
        ln -s "$W/job/rank${r}_trace.json" "$W/k$k/"
    done
done
# two traces of the job declaring an absurd world size
mkdir -p "$W/absurd"
for r in 0 1; do
    sed '0,/"world_size": *8/s//"world_size": 16777216/' \
        "$W/job/rank${r}_trace.json" > "$W/absurd/rank${r}_trace.json"
done
grep -q '"world_size": 16777216' "$W/absurd/rank0_trace.json" ||
    fail "could not set the declared world size"
# the same two, the second one of rank 16777000
mkdir -p "$W/highrank"
cp "$W/absurd/rank0_trace.json" "$W/highrank/"
sed '0,/"rank": *1\b/s//"rank": 16777000/' "$W/absurd/rank1_trace.json" \
    > "$W/highrank/rank16777000_trace.json"
grep -q '"rank": 16777000' "$W/highrank/rank16777000_trace.json" ||
    fail "could not set the trace rank"

peak_kb() { # dir -> peak RSS (KiB) of the tlmpi process, one MPI rank
    rm -rf "$W/out"; mkdir -p "$W/out"
    timeout 300 "$MPIEXEC" -n 1 /usr/bin/time -f %M -o "$W/rss" "$TLMPI" \
        --trace_dir "$1" --output "$W/out/t.h5" --output_dir "$W/out" \
        --allow_missing > "$W/log" 2>&1 ||
        { cat "$W/log"; fail "tlmpi failed on $1"; }
    tail -n 1 "$W/rss"
}
p1=$(peak_kb "$W/k1")
limit=$((p1 * 13 / 10 + 64 * 1024))
echo "peak RSS, one process: 1 trace $((p1 / 1024)) MiB; limit $((limit / 1024)) MiB"
rc=0
for case in k4 k8 absurd highrank; do
    p=$(peak_kb "$W/$case")
    echo "  $case: $((p / 1024)) MiB"
    [ "$p" -le "$limit" ] || { echo "FAIL: $case peak $p KiB > $limit KiB"; rc=1; }
done
grep -q "16777214 of 16777216 ranks have no trace" "$W/log" ||
    { cat "$W/log"; fail "missing ranks of the absurd world size not reported"; }
[ -s "$W/out/t.h5" ] ||
    { cat "$W/log"; fail "no output for the traces of ranks 0 and 16777000"; }
[ $rc = 0 ] || exit 1
echo "memory bounded by the largest trace (1, 4, 8 traces; declared world size; trace rank 16777000)"
