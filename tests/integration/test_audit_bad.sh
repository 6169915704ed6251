#!/bin/bash
# tlmpi audit on bad input (docs/cli.md, exit status): a root with no
# traces (exit 3, empty tables, "No run found"), a root that does not exist
# (exit 1, nothing written), usage errors and an unknown --baseline
# (exit 2), outputs that exist (refused without --force before any trace
# is read, replaced with it), the output folder inside the root (left out
# of the walk), traces of two world sizes in one folder (that run fails,
# naming both files), a FIFO under the root (never opened), --strict, and
# --print_schema / --help.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${TLM_WORK_DIR:-$(mktemp -d)}/audit_bad
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
aud() { # expected-exit out-dir args...: runs tlmpi audit -n 2
    local want=$1 rc=0
    shift
    timeout 120 "$MPIEXEC" -n 2 "$TLMPI" audit "$@" > "$W/out" 2> "$W/err" ||
        rc=$?
    [ "$rc" = "$want" ] ||
        { cat "$W/err"; fail "tlmpi audit $*: exit $rc, expected $want"; }
}
h5val() { # file dataset: number of rows
    /usr/bin/python3 -c 'import sys, h5py; print(len(h5py.File(sys.argv[1], "r")[sys.argv[2]]))' "$1" "$2"
}

# a root without traces: published, exit 3
mkdir -p "$W/empty/sub"
echo '{"not": "a trace"}' > "$W/empty/sub/config.json"
aud 3 "$W/empty" --output_dir "$W/o_empty"
[ "$(h5val "$W/o_empty/audit.h5" /runs)" = 0 ] || fail "/runs not empty"
[ "$(h5val "$W/o_empty/audit.h5" /skipped)" = 1 ] || fail "/skipped"
grep -q 'No run found' "$W/o_empty/audit.md" || fail "audit.md: no run"

# a root that is not there: nothing written, exit 1
aud 1 "$W/nope" --output_dir "$W/o_nope"
grep -q 'cannot open the audit root' "$W/err" || fail "root not named"
[ ! -e "$W/o_nope/audit.h5" ] || fail "audit.h5 for a missing root"

# usage errors: exit 2, nothing written
aud 2 --output_dir "$W/o_u"
aud 2 "$W/empty"
aud 2 "$W/empty" --output_dir "$W/o_u" --trace_dir "$W/empty"
aud 2 "$W/empty" --output_dir "$W/o_u" --world_size 4
[ ! -e "$W/o_u" ] || fail "a usage error wrote something"

# one good run, a folder of two world sizes, a FIFO, the output inside
R=$W/root
mkdir -p "$R"
"$TLMPI_SYNTH" --out "$R/good" --world_size 2 --tp 2 --steps 2 --layers 1 \
    --quiet
"$TLMPI_SYNTH" --out "$R/mixed" --world_size 2 --tp 2 --steps 1 --layers 1 \
    --quiet --name_pattern 'a{r}.json' --ranks 0
"$TLMPI_SYNTH" --out "$W/m4" --world_size 4 --tp 2 --steps 1 --layers 1 \
    --quiet --ranks 3
mv "$W/m4/rank3_trace.json" "$R/mixed/b3.json"
mkfifo "$R/good/pipe.json"
aud 2 "$R" --output_dir "$R/out" --baseline no/such
grep -q "baseline 'no/such' is not a run" "$W/err" || fail "baseline msg"
aud 3 "$R" --output_dir "$R/out"
grep -q 'run good: ok' "$W/err" || { cat "$W/err"; fail "good run"; }
grep -q 'run mixed: FAILED: .*different world sizes.*mixed/a0.json.*mixed/b3.json' \
    "$W/err" || { cat "$W/err"; fail "mixed world sizes not named"; }
grep -q 'good/pipe.json (not a regular file)' "$W/err" || fail "FIFO"
# again: the outputs exist, refused before reading; the output folder
# inside the root is not walked
cp "$R/out/audit.md" "$W/audit.md.1"
aud 1 "$R" --output_dir "$R/out"
grep -q 'exists; use --force' "$W/err" || fail "existing output accepted"
cmp "$R/out/audit.md" "$W/audit.md.1" || fail "refused run changed a file"
aud 3 "$R" --output_dir "$R/out" --force
grep -q "out (the audit's output folder)" "$W/err" ||
    { cat "$W/err"; fail "output folder walked"; }
grep -q '2 runs' "$W/err" || fail "runs counted wrong"
# --strict: non-traces make the audit partial even when every run is ok
rm -rf "$R/mixed" "$R/out"
aud 0 "$R" --output_dir "$W/o_ok" --quiet
echo '{}' > "$R/good/notes.json"
aud 3 "$R" --output_dir "$W/o_strict" --strict
grep -q 'error: .*good/notes.json' "$W/err" || fail "--strict message"

# SIGTERM while the second run is being published: the process exits 143,
# the first run's folder stays complete, no audit.h5, no temporary left
"$TLMPI_SYNTH" --out "$R/good2" --world_size 2 --tp 2 --steps 1 \
    --layers 1 --quiet
rm -rf "$W/o_sig"
TLMPI_TEST_STALL=commit "$TLMPI" audit "$R" --output_dir "$W/o_sig" \
    > "$W/sig.log" 2>&1 &
pid=$!
for _ in $(seq 300); do
    [ "$(grep -c 'test stall before commit' "$W/sig.log")" -ge 2 ] && break
    sleep 0.1
done
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc = 143 ] || { cat "$W/sig.log"; fail "SIGTERM during an audit: exit $rc"; }
[ -f "$W/o_sig/runs/good/tlmpi.h5" ] || fail "the finished run was lost"
[ ! -e "$W/o_sig/runs/good2/tlmpi.h5" ] || fail "the interrupted run published"
[ ! -e "$W/o_sig/audit.h5" ] || fail "audit.h5 after SIGTERM"
if find "$W/o_sig" -name '*.tlmpi-*' | grep -q .; then
    fail "temporaries left after SIGTERM: $(find "$W/o_sig" -name '*.tlmpi-*')"
fi

# names without digits, traces without distributedInfo: the run's ranks
# come from the sorted file order, said once, in its reason too
P=$W/plainroot/plain
mkdir -p "$W/plainroot"
"$TLMPI_SYNTH" --out "$P" --world_size 2 --tp 2 --steps 1 --layers 1 \
    --quiet --no_dist_info --name_pattern 'x{r}.json'
mv "$P/x0.json" "$P/first.json"
mv "$P/x1.json" "$P/second.json"
aud 0 "$W/plainroot" --output_dir "$W/o_plain"
grep -q 'run plain: warning: ranks taken from the sorted file order' \
    "$W/err" || { cat "$W/err"; fail "sorted-order warning of a run"; }
grep -q 'ranks taken from the sorted file order' "$W/o_plain/runs.csv" ||
    fail "sorted-order warning not in runs.reason"

# schema and help
aud 0 --print_schema
grep -q '### `/scaling/collectives`' "$W/out" || fail "--print_schema"
/usr/bin/python3 - "$W/out" "$SRC/docs/hdf5-schema.md" <<'PY' ||
import sys
gen, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
sys.exit(0 if gen.strip() and gen in doc else 1)
PY
    fail "docs/hdf5-schema.md lacks what tlmpi audit --print_schema prints"
aud 0 --help
grep -q -- '--baseline RUN' "$W/out" || fail "--help"
echo "audit bad input ok"
