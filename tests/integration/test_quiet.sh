#!/bin/bash
# Quiet is quiet (issue 34): under --quiet a successful run prints nothing
# on stderr, warnings and notes included, in every mode: the analysis
# (with --plots that cannot run: the reason goes into report.md), the
# audit, report, diff (also of traces without a GPU op), replay and
# compare; without it each warning is one line.  On a synthetic job with
# clipped ranks and kernels whose launch flows were removed (a warning),
# and on the shared DLRM job when ../shared exists.
set -u
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
command -v "$MPIEXEC" > /dev/null || { echo "no mpirun: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/quiet
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
J=$W/root/job
mkdir -p "$W/root"
"$TLMPI_SYNTH" --out "$J" --quiet --steps 3 --layers 2 --world_size 4 \
    --tp 2 --seed 3 --clip_first 1:2 > /dev/null || fail synth
rm -f "$J/ground_truth.json"
# rank 0: five flows lose their end, five kernels their correlation: the
# kernels are left without a launch (a warning)
python3 - "$J/rank0_trace.json" <<'PY' || fail "edit trace"
import json, sys
p = sys.argv[1]
d = json.load(open(p))
f = [e for e in d["traceEvents"] if e.get("cat") == "ac2g" and e.get("ph") == "f"]
drop = set(id(e) for e in f[:5])
d["traceEvents"] = [e for e in d["traceEvents"] if id(e) not in drop]
ids, n = set(), 0
for e in d["traceEvents"]:
    if e.get("cat") == "kernel" and n < 5:
        ids.add(e.get("args", {}).pop("correlation", None))
        e["args"].pop("External id", None)
        n += 1
d["traceEvents"] = [e for e in d["traceEvents"]
                    if not (e.get("cat") == "ac2g" and e.get("id") in ids)]
json.dump(d, open(p, "w"))
PY
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5}]}\n' \
    > "$W/cpu_only.json"

quiet_ok() { # name: rc 0 and an empty stderr
    [ "$1" = 0 ] || { cat "$W/err"; fail "$2: exit $1"; }
    [ ! -s "$W/err" ] || { cat "$W/err"; fail "$2 --quiet printed on stderr"; }
    echo "ok: $2"
}

# without --quiet: the warning, each message one line starting "tlmpi: "
rc=0
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$J" --output "$W/loud/t.h5" \
    2> "$W/err" || rc=$?
[ $rc = 0 ] || { cat "$W/err"; fail "loud run: exit $rc"; }
grep -q '^tlmpi: warning: .*GPU events are left unlinked' "$W/err" \
    || { cat "$W/err"; fail "no unlinked warning without --quiet"; }
grep -q '^tlmpi: note: .*INCOMPLETE' "$W/err" \
    || { cat "$W/err"; fail "no clipped note without --quiet"; }
grep -v '^tlmpi: ' "$W/err" && fail "a message over several lines"

rc=0
TLMPI_PYTHON=/nonexistent/python3 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$J" \
    --output "$W/q/t.h5" --quiet --plots 2> "$W/err" || rc=$?
quiet_ok $rc "analysis --plots"
grep -q '^\*\*Plots\*\*: plots skipped: no Python interpreter' \
    "$W/q/report.md" || fail "report.md does not say why plots were skipped"
# the warning stays in the HDF5 file
/usr/bin/python3 - "$W/q/t.h5" <<'PY' || fail "n_gpu_unlinked not in /traces"
import sys
try:
    import h5py
except ImportError:
    sys.exit(0)
with h5py.File(sys.argv[1], "r") as f:
    t = f["traces"][()]
    assert int(t["n_gpu_unlinked"][0]) == 5, t["n_gpu_unlinked"]
PY

rc=0
TLMPI_PYTHON=/nonexistent/python3 "$MPIEXEC" -n 2 "$TLMPI" audit "$W/root" \
    --output_dir "$W/audit" --quiet --plots 2> "$W/err" || rc=$?
quiet_ok $rc "audit --plots"
grep -q '^\*\*Plots\*\*: plots skipped' "$W/audit/audit.md" \
    || fail "audit.md does not say why plots were skipped"

rc=0; "$TLMPI" report "$J/rank0_trace.json" --output_csvs_dir "$W/r0" \
    --quiet 2> "$W/err" || rc=$?
quiet_ok $rc report
rc=0; "$TLMPI" report "$J/rank1_trace.json" --output_csvs_dir "$W/r1" \
    --quiet 2> "$W/err" || rc=$?
quiet_ok $rc "report rank 1"
rc=0; "$TLMPI" diff "$J/rank0_trace.json" "$J/rank1_trace.json" \
    --output_dir "$W/d" --quiet 2> "$W/err" || rc=$?
quiet_ok $rc diff
rc=0; "$TLMPI" diff "$W/cpu_only.json" "$W/cpu_only.json" \
    --output_dir "$W/d0" --quiet 2> "$W/err" || rc=$?
quiet_ok $rc "diff without GPU ops"
"$TLMPI" diff "$W/cpu_only.json" "$W/cpu_only.json" --output_dir "$W/d1" \
    2> "$W/err" >/dev/null
grep -q "no GPU op" "$W/err" || fail "diff: the no-GPU note is gone"
rc=0; "$TLMPI" replay "$J/rank0_trace.json" --output_dir "$W/rp" \
    --quiet 2> "$W/err" || rc=$?
quiet_ok $rc replay
rc=0; "$TLMPI" compare "$W/r0" "$W/r1" --output_csvs_dir "$W/c" \
    --quiet 2> "$W/err" || rc=$?
quiet_ok $rc "compare reports"
rc=0; "$TLMPI" compare "$W/q/t.h5" "$W/loud/t.h5" --output_dir "$W/c2" \
    --quiet 2> "$W/err" || rc=$?
quiet_ok $rc "compare runs"

# the shared DLRM job (flow warnings in every trace)
D=${TLM_SHARED_DIR:-}/traces/dlrm_v100_8rank
if [ -n "${TLM_SHARED_DIR:-}" ] && [ -d "$D" ]; then
    rc=0
    "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" --output "$W/dlrm/t.h5" \
        --quiet 2> "$W/err" || rc=$?
    quiet_ok $rc "DLRM job"
    "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" --output "$W/dlrm2/t.h5" \
        2> "$W/err" || fail "DLRM loud"
    grep -q '^tlmpi: warning: .*ac2g flows' "$W/err" \
        || { cat "$W/err"; fail "DLRM: no flow warning without --quiet"; }
    grep -v '^tlmpi: ' "$W/err" && fail "DLRM: a message over several lines"
else
    echo "no shared traces: DLRM check skipped"
fi
echo PASS
