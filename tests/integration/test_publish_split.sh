#!/bin/bash
# The publish phase on two processes (mpi/publish_split.c): rank 1
# formats nccl_long and the all_to_allv sheets while rank 0 formats the
# others, then rank 0 stages rank 1's files beside its own.
#   * -n 2 and -n 3 write report.md (but its lines of times, ranks and
#     the HDF5 path) and every CSV byte for byte as -n 1 does;
#   * when rank 1 fails (TLMPI_TEST_PUB_FAIL: as if out of memory for the
#     rows), the run ends, bounded by a timeout (no process waits
#     forever), with exit status 1 and "out of memory", and the previous
#     outputs are left as they were: no new file, no temporary.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
SYNTH="${TLMPI_SYNTH:?TLMPI_SYNTH not set}"
MPIEXEC="${MPIEXEC:-mpirun}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
export OMPI_MCA_odls_base_sigkill_timeout=0
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}

"$SYNTH" --out "$WORK/job" --world_size 8 --tp 2 --gpus_per_node 4 \
    --steps 2 --layers 2 --seed 7 --quiet
check "synthesize the job" test $? -eq 0
for n in 1 2 3; do
    mkdir -p "$WORK/out$n"
    timeout 300 "$MPIEXEC" --oversubscribe -n $n "$TLMPI" \
        --trace_dir "$WORK/job" --output "$WORK/out$n/t.h5" --quiet \
        2> "$WORK/err$n"
    check "-n $n: exit 0" test $? -eq 0
done
check "the job has all_to_allv sheets" test -s "$WORK/out1/nccl_all2allv.csv"
VARY='^- \(time\|traces\|HDF5 file\):'
for n in 2 3; do
    for f in "$WORK"/out1/*.csv; do
        check "-n $n: $(basename "$f") as -n 1" \
            cmp -s "$f" "$WORK/out$n/$(basename "$f")"
    done
    check "-n $n: report.md as -n 1 but the times" \
        cmp -s <(grep -v "$VARY" "$WORK/out1/report.md") \
        <(grep -v "$VARY" "$WORK/out$n/report.md")
done

# rank 1 fails: a clean error, the previous outputs kept
O="$WORK/out2"
before=$(cd "$O" && ls -A | sort && cat ./* | sha256sum)
TLMPI_TEST_PUB_FAIL=1 timeout 120 "$MPIEXEC" --oversubscribe -n 2 \
    "$TLMPI" --trace_dir "$WORK/job" --output "$O/t.h5" --force --quiet \
    2> "$WORK/errf"
rc=$?
check "rank 1 failing: exit 1 (not a hang: $rc)" test $rc -eq 1
check "rank 1 failing: out of memory said" grep -q "out of memory" \
    "$WORK/errf"
after=$(cd "$O" && ls -A | sort && cat ./* | sha256sum)
check "rank 1 failing: previous outputs as they were, no temporary" \
    test "$before" = "$after"
# the hook is inert without the split (-n 1 has no rank 1)
TLMPI_TEST_PUB_FAIL=1 timeout 120 "$MPIEXEC" -n 1 "$TLMPI" \
    --trace_dir "$WORK/job" --output "$WORK/out1/t.h5" --force --quiet \
    2> /dev/null
check "-n 1 with the hook set: exit 0" test $? -eq 0
[ "$fail" = 0 ] && echo "PASS" || echo "FAILED"
exit "$fail"
