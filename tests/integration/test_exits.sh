#!/bin/bash
# Every rank leaves together (issue 34): a usage error, a bad trace and an
# audit with one failed run end, under -n 2 and -n 4, with tlmpi's exit
# status (2, 1, 3), within a bound, and tlmpi's message on stderr once.
# Through tlmpi-run (Open MPI settings of the test environment removed) no
# Open MPI "non-zero exit code" block either: every rank exits 0 and
# tlmpi-run returns the status rank 0 wrote (TLMPI_RUN_STATUS); a crash
# keeps mpirun's own status.  Under a plain mpirun, Open MPI 4 prints its
# block whenever a process exits non-zero; there only the status and the
# message once are checked.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${TLM_SOURCE_DIR:?}" "${MPIEXEC:=mpirun}"
command -v "$MPIEXEC" > /dev/null || { echo "no mpirun: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/exits
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
RUN=$TLM_SOURCE_DIR/scripts/tlmpi-run
BOUND=60 # seconds: a hang, not a slow machine
# a clean environment: no Open MPI settings from ctest (a command, for timeout)
CLEAN=(env $(env | sed -n 's/^\(OMPI_[A-Za-z0-9_]*\)=.*/-u \1/p'))
clean() { "${CLEAN[@]}" "$@"; }

synth() { "$TLMPI_SYNTH" --out "$1" --quiet --steps 2 --layers 1 \
    --world_size 4 --tp 2 --seed "$2" > /dev/null || fail "synth $1"; }
R=$W/root; mkdir -p "$R"
synth "$R/a" 1; synth "$R/b" 2; synth "$R/bad" 3
head -c 20000 "$R/bad/rank2_trace.json" > "$W/cut"
mv "$W/cut" "$R/bad/rank2_trace.json"

block='non-zero exit\|Primary job\|mpirun detected'
# check NAME WANT_RC MESSAGE BLOCK_OK LAUNCH... -- tlmpi args
check() {
    local name=$1 want=$2 msg=$3 block_ok=$4 rc=0
    shift 4
    local t0=$SECONDS
    timeout $BOUND "$@" > "$W/out" 2> "$W/err" || rc=$?
    local dt=$((SECONDS - t0))
    [ $rc = "$want" ] || { cat "$W/err"; fail "$name: exit $rc, expected $want"; }
    [ $dt -lt $BOUND ] || fail "$name: took $dt s"
    local n
    n=$(grep -c -- "$msg" "$W/err")
    [ "$n" = 1 ] || { cat "$W/err"; fail "$name: '$msg' $n times on stderr"; }
    if [ "$block_ok" = 0 ] && grep -q "$block" "$W/err"; then
        cat "$W/err"; fail "$name: Open MPI's block on stderr"
    fi
    echo "ok: $name (exit $rc, $dt s)"
}

for n in 2 4; do
    for how in run mpirun; do
        if [ $how = run ]; then
            L=("${CLEAN[@]}" TLMPI="$TLMPI" "$RUN" -n $n); bok=0
        else
            L=("$MPIEXEC" -n $n "$TLMPI"); bok=1
        fi
        check "$how -n $n usage" 2 "unknown option '--bogus'" $bok \
            "${L[@]}" --trace_dir "$R/a" --bogus
        check "$how -n $n bad trace" 1 "offset 20000" $bok \
            "${L[@]}" --trace_dir "$R/bad" --output_dir "$W/o$how$n"
        check "$how -n $n audit" 3 "run bad: error: .*offset 20000" $bok \
            "${L[@]}" audit "$R" --output_dir "$W/a$how$n" --quiet
        [ -s "$W/a$how$n/audit.h5" ] || fail "$how -n $n: no audit.h5"
    done
done

# tlmpi-run's own usage error: once, status 2, mpirun not started
clean MPIRUN=/nonexistent "$RUN" -n x --trace_dir D 2> "$W/err"
[ $? = 2 ] || fail "tlmpi-run -n x: exit not 2"
[ "$(wc -l < "$W/err")" = 1 ] || { cat "$W/err"; fail "tlmpi-run -n x"; }
# a success is 0; a subcommand's status comes through too
check "run report usage" 2 "tlmpi report" 0 \
    "${CLEAN[@]}" TLMPI="$TLMPI" "$RUN" -n 2 report
clean TLMPI="$TLMPI" "$RUN" -n 2 --trace_dir "$R/a" --quiet \
    --output_dir "$W/ok" || fail "tlmpi-run success: exit $?"
# mpirun's own failure keeps mpirun's status (not tlmpi's file)
printf '#!/bin/sh\nexit 7\n' > "$W/mpirun7"; chmod +x "$W/mpirun7"
clean MPIRUN="$W/mpirun7" TLMPI="$TLMPI" "$RUN" -n 1 --trace_dir D
[ $? = 7 ] || fail "mpirun's status lost"
[ -z "$(ls "${TMPDIR:-/tmp}" | grep '^tlmpi-run\.' | head -1)" ] \
    || echo "note: tlmpi-run status files left in ${TMPDIR:-/tmp} (other runs?)"
echo PASS
