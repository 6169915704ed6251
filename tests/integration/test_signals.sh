#!/bin/bash
# Signals: SIGINT, SIGTERM and SIGHUP at several points of a run (before
# reading, before writing, before publishing with the HDF5 file staged,
# just before the commit with every file staged) remove the temporaries
# and exit with 128 + the signal; the folder keeps its previous outputs
# byte for byte.  A run killed with SIGKILL leaves temporaries named with
# its pid and host, which the next run that writes there removes.  The
# points are reached with the test hook TLMPI_TEST_STALL (driver.h).
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
W=${TLM_WORK_DIR:-$(mktemp -d)}/signals
rm -rf "$W"
mkdir -p "$W"
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

"$TLMPI_SYNTH" --out "$W/job" --world_size 2 --tp 2 --steps 1 --layers 1 \
    --hidden 256 --heads 4 --seq_len 128 --vocab 1024 --quiet || exit 1
"$TLMPI" --trace_dir "$W/job" --output "$W/ref/tlmpi.h5" --quiet || exit 1

same_as_ref() {
    [ "$(ls -A "$1" | sort)" = "$(ls -A "$W/ref" | sort)" ] || {
        echo "  files: $(ls -A "$1" | tr '\n' ' ')"
        return 1
    }
    local f
    for f in "$W/ref"/*; do
        cmp -s "$f" "$1/$(basename "$f")" || return 1
    done
}

# wait_stall LOG: until the run says it reached its stall point (20 s)
wait_stall() {
    for _ in $(seq 200); do
        grep -q "test stall before" "$1" 2> /dev/null && return 0
        sleep 0.1
    done
    return 1
}

# hit POINT SIG NP: a run stalled at POINT gets SIG; exit and folder
hit() {
    local point=$1 sig=$2 np=$3 pid rc want
    rm -rf "$W/out" && cp -a "$W/ref" "$W/out"
    if [ "$np" -eq 0 ]; then # no mpirun: the process itself gets the signal
        TLMPI_TEST_STALL=$point "$TLMPI" --trace_dir "$W/job" \
            --output "$W/out/tlmpi.h5" --force --quiet > "$W/log" 2>&1 &
    else # mpirun forwards SIGTERM/SIGINT to the ranks, waits this many
        # seconds whatever they do, then sends SIGKILL
        OMPI_MCA_odls_base_sigkill_timeout=2 TLMPI_TEST_STALL=$point \
            "$MPIEXEC" -n "$np" "$TLMPI" --trace_dir "$W/job" \
            --output "$W/out/tlmpi.h5" --force --quiet > "$W/log" 2>&1 &
    fi
    pid=$!
    wait_stall "$W/log" || { bad "$point: never stalled"; cat "$W/log"; kill -9 $pid; return; }
    kill -s "$sig" $pid
    wait $pid
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    if [ "$np" -eq 0 ]; then
        [ "$rc" -eq "$want" ] || bad "$point $sig: exit $rc, want $want"
    else
        [ "$rc" -ne 0 ] || bad "$point $sig (-n $np): exit 0"
    fi
    same_as_ref "$W/out" || bad "$point $sig (-n $np): folder changed"
}

for point in read write publish commit; do
    for sig in INT TERM HUP; do
        hit $point $sig 0
    done
    hit $point TERM 2
    hit $point INT 4
done

# SIGKILL: the temporaries stay, named with the pid; the next run removes them
rm -rf "$W/out" && cp -a "$W/ref" "$W/out"
TLMPI_TEST_STALL=commit "$TLMPI" --trace_dir "$W/job" --output "$W/out/tlmpi.h5" \
    --force --quiet > "$W/log" 2>&1 &
pid=$!
wait_stall "$W/log" || bad "kill: never stalled"
kill -9 $pid
wait $pid 2> /dev/null
left=$(ls -A "$W/out" | grep -c "\.tlmpi-$pid@")
[ "$left" -gt 0 ] || bad "SIGKILL left no temporary named with pid $pid"
"$TLMPI" --trace_dir "$W/job" --output "$W/out/tlmpi.h5" --force --quiet ||
    bad "the run after SIGKILL failed"
ls -A "$W/out" | grep -q "\.tlmpi-" && bad "stale temporaries not removed: $(ls -A "$W/out")"

echo "$fails failures"
[ "$fails" -eq 0 ]
