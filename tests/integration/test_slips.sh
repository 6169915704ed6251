#!/bin/bash
# Slips answered with the fix (issue 34, item 1): a mistyped subcommand or
# option gets "did you mean"; a folder given where a trace file is
# expected, or a folder without --trace_dir, names --trace_dir.  Each a
# non-zero exit within a second.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/slips
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
"$TLMPI_SYNTH" --out "$W/job" --world_size 2 >/dev/null 2>&1 \
    || fail "synth"
T=$W/job/rank0_trace.json

# expect WANT CMD...: non-zero exit, within a second, WANT on stderr
expect() {
    local want=$1; shift
    local t0 t1 rc
    t0=$(date +%s%N)
    "$@" >"$W/out" 2>"$W/err"; rc=$?
    t1=$(date +%s%N)
    [ $rc -ne 0 ] || fail "$* exited 0"
    grep -qF -- "$want" "$W/err" || { cat "$W/err"; fail "$*: no '$want'"; }
    [ $(( (t1 - t0) / 1000000 )) -lt 1000 ] || fail "$*: over a second"
}
expect 'did you mean `report`?' "$TLMPI" reprot "$T"
expect 'did you mean `inspect`?' "$TLMPI" inspcet "$T"
expect 'did you mean `--output_csvs_dir`?' \
    "$TLMPI" report "$T" --output_csv_dir "$W/d"
expect 'did you mean `--python`?' "$TLMPI" tree "$T" --pyhton
expect 'did you mean `--trace_dir`?' "$TLMPI" --trace_dri "$W/job"
expect 'did you mean `--output_dir`?' "$TLMPI" diff "$T" "$T" --ouput_dir x
expect 'did you mean `--output_dir`?' "$TLMPI" replay "$T" --outptu_dir x
expect '--output_dir needs a value' "$TLMPI" replay "$T" --output_dir
expect '--trace_dir' "$TLMPI" report "$W/job"
expect '--trace_dir' "$TLMPI" tree "$W/job"
expect '--trace_dir' "$TLMPI" modules "$W/job"
expect '--trace_dir' "$TLMPI" inspect "$W/job"
# the analysis given a folder as a trace (forgot --trace_dir); one rank
# is enough for the message, which comes before any MPI exchange
expect '--trace_dir' "$TLMPI" "$W/job"
# a far-off word gets no suggestion: still the trace-file error
"$TLMPI" xyzzy 2>"$W/err" && fail "xyzzy exited 0"
grep -q "did you mean" "$W/err" && fail "xyzzy got a suggestion"
# a trace file named like a command is read, not suggested
cp "$T" "$W/reprot"
(cd "$W" && "$TLMPI" reprot 2>"$W/err" >/dev/null)
grep -q "did you mean" "$W/err" && fail "an existing file got a suggestion"
echo "slips ok"
