#!/bin/bash
# Injected write faults: every write, flush, fsync, rename and link that
# publishes an output of the analysis (tlmpi.h5, report.md, the CSV sheets)
# and of `tlmpi report` is broken in turn (tests/fault/tlm_fault.c through
# LD_PRELOAD, on every rank or on one), and a file-size limit (prlimit
# --fsize: EFBIG) cuts the outputs at several sizes.  Each run, under
# mpirun -n 1, 2 and 4 and bounded by a timeout (a hang fails the test),
# must either
#   - fail: exit non-zero with "tlmpi: error:" naming an output and the
#     cause, the output folder exactly as before (previous outputs
#     unchanged, nothing new, no temporary), or
#   - succeed (the broken call had a fallback, e.g. link): the complete new
#     set and no temporary.
# TLM_FAULT_FULL=1 breaks every call under every rank count (slow); by
# default every call is broken under -n 1 and a sample (first, middle,
# last) under -n 2 and 4; in a sanitizer build (slower) the sample is used
# under -n 1 too.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${TLM_FAULT_LIB:?}" "${MPIEXEC:=mpirun}"
[ -f "$TLM_FAULT_LIB" ] || { echo "skip: no $TLM_FAULT_LIB"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/faults
rm -rf "$W"
mkdir -p "$W"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
fails=0 runs=0
SAMPLE1=0
grep -qs '^TLM_SANITIZER:STRING=.' "${TLM_BUILD_DIR:-/nonexistent}/CMakeCache.txt" &&
    SAMPLE1=1
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

"$TLMPI_SYNTH" --out "$W/job" --world_size 4 --tp 2 --steps 1 --layers 1 \
    --hidden 256 --heads 4 --seq_len 128 --vocab 1024 --quiet || exit 1

# the previous outputs: a good run's, kept as the reference
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/job" --output "$W/ref/tlmpi.h5" \
    --quiet || exit 1
"$TLMPI" report "$W/job/rank0_trace.json" --output_csvs_dir "$W/ref_rep" \
    --quiet || exit 1

# same_as DIR REF: DIR holds exactly REF's files, byte for byte
same_as() {
    [ "$(ls -A "$1" | sort)" = "$(ls -A "$2" | sort)" ] || {
        echo "  files differ: $(diff <(ls -A "$1" | sort) <(ls -A "$2" | sort) | tr '\n' ' ')"
        return 1
    }
    local f
    for f in "$2"/*; do
        cmp -s "$f" "$1/$(basename "$f")" || { echo "  changed: $f"; return 1; }
    done
}
# complete DIR REF: DIR holds REF's file names (a new set), no temporary
complete() {
    [ "$(ls -A "$1" | sort)" = "$(ls -A "$2" | sort)" ] || {
        echo "  files: $(ls -A "$1" | tr '\n' ' ')"
        return 1
    }
}

# analysis NP DESC ENV...: one analysis run over a copy of the reference
analysis() {
    local np=$1 desc=$2
    shift 2
    rm -rf "$W/out" && cp -a "$W/ref" "$W/out"
    runs=$((runs + 1))
    # the log through a pipe: a file-size limit must not cut it
    timeout -k 5 90 "$MPIEXEC" -n "$np" env "$@" "$TLMPI" --trace_dir "$W/job" \
        --output "$W/out/tlmpi.h5" --force --quiet 2>&1 | cat > "$W/log"
    check "${PIPESTATUS[0]}" "$desc (-n $np)" "$W/out" "$W/ref"
}

# report DESC ENV...: one `tlmpi report` run over a copy of its reference
report() {
    local desc=$1
    shift
    rm -rf "$W/rep" && cp -a "$W/ref_rep" "$W/rep"
    runs=$((runs + 1))
    timeout -k 5 60 env "$@" "$TLMPI" report "$W/job/rank0_trace.json" \
        --output_csvs_dir "$W/rep" --force --quiet 2>&1 | cat > "$W/log"
    check "${PIPESTATUS[0]}" "report: $desc" "$W/rep" "$W/ref_rep"
}

# check RC DESC DIR REF
check() {
    local rc=$1 desc=$2 dir=$3 ref=$4
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        bad "$desc: hang (killed after the timeout)"
    elif [ "$rc" -ne 0 ]; then
        grep -q "error: " "$W/log" || { bad "$desc: exit $rc without an error message"; cat "$W/log"; return; }
        same_as "$dir" "$ref" || { bad "$desc: exit $rc but the folder changed"; cat "$W/log"; }
    else
        complete "$dir" "$ref" || bad "$desc: exit 0 but the set is incomplete"
    fi
}

# count OP: matching calls of OP in a clean run of the analysis (rank 0)
count() {
    rm -rf "$W/out" && cp -a "$W/ref" "$W/out"
    rm -f "$W/cnt"
    "$MPIEXEC" -n 1 env LD_PRELOAD="$TLM_FAULT_LIB" TLM_FAULT_OP="$1" \
        TLM_FAULT_AT=0 TLM_FAULT_COUNT="$W/cnt" "$TLMPI" --trace_dir "$W/job" \
        --output "$W/out/tlmpi.h5" --force --quiet > /dev/null 2>&1
    cat "$W/cnt" 2> /dev/null || echo 0
}

# picks N NP: the calls to break (all for -n 1 or TLM_FAULT_FULL, else a
# sample: the first, the middle and the last)
picks() {
    local n=$1 np=$2
    if { [ "$np" -eq 1 ] && [ "$SAMPLE1" = 0 ]; } ||
        [ "${TLM_FAULT_FULL:-0}" = 1 ] || [ "$n" -le 4 ]; then
        seq 1 "$n"
    else
        { echo 1; echo $(( (n + 1) / 2 )); echo "$n"; } | sort -nu
    fi
}

for op in write fclose fsync rename link; do
    n=$(count $op)
    echo "analysis: $op: $n calls on rank 0"
    [ "$n" -gt 0 ] || [ "$op" = link ] || bad "no $op call counted"
    for np in 1 2 4; do
        for k in $(picks "$n" "$np"); do
            analysis "$np" "$op #$k" LD_PRELOAD="$TLM_FAULT_LIB" \
                TLM_FAULT_OP=$op TLM_FAULT_AT="$k"
        done
    done
    # on one rank only: rank 1 writes nothing, rank 0 fails
    analysis 2 "$op #1 on rank 0 only" LD_PRELOAD="$TLM_FAULT_LIB" \
        TLM_FAULT_OP=$op TLM_FAULT_AT=1 TLM_FAULT_RANK=0
done
# the errno reaches the message
analysis 2 "write ENOSPC" LD_PRELOAD="$TLM_FAULT_LIB" TLM_FAULT_OP=write \
    TLM_FAULT_AT=1
grep -q "No space left on device" "$W/log" || { bad "ENOSPC not reported"; cat "$W/log"; }
analysis 1 "rename EROFS" LD_PRELOAD="$TLM_FAULT_LIB" TLM_FAULT_OP=rename \
    TLM_FAULT_AT=2 TLM_FAULT_ERRNO=30
grep -q "Read-only file system" "$W/log" || { bad "EROFS not reported"; cat "$W/log"; }

# a file-size limit: the outputs cut at several sizes (EFBIG)
for size in 0 1000 20000 200000; do
    for np in 1 2 4; do
        # Open MPI's shared-memory transport makes files at MPI_Init,
        # which a file-size limit would cut: TCP between the ranks here
        OMPI_MCA_btl=self,tcp analysis "$np" "fsize $size" \
            prlimit --fsize="$size" --
    done
done

# tlmpi report: every call
for op in fclose fsync rename; do
    rm -rf "$W/rep" && cp -a "$W/ref_rep" "$W/rep" && rm -f "$W/cnt"
    env LD_PRELOAD="$TLM_FAULT_LIB" TLM_FAULT_OP=$op TLM_FAULT_AT=0 \
        TLM_FAULT_COUNT="$W/cnt" "$TLMPI" report "$W/job/rank0_trace.json" \
        --output_csvs_dir "$W/rep" --force --quiet > /dev/null 2>&1
    n=$(cat "$W/cnt" 2> /dev/null || echo 0)
    echo "report: $op: $n calls"
    [ "$n" -gt 0 ] || bad "report: no $op call counted"
    for k in $(seq 1 "$n"); do
        report "$op #$k" LD_PRELOAD="$TLM_FAULT_LIB" TLM_FAULT_OP=$op \
            TLM_FAULT_AT="$k"
    done
done
for size in 0 5000 50000; do
    report "fsize $size" prlimit --fsize="$size" --
done

echo "$runs runs, $fails failures"
[ "$fails" -eq 0 ]
