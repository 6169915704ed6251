#!/bin/bash
# --merged_trace (docs/views.md): the merged trace of a synthetic job with
# node clock offsets parses as JSON, holds one process per rank, its
# collective kernels lie on the synthesizer's global clock within 1 us
# after the correction, and flows link each instance across its ranks
# (mtrace_check.py), under mpirun -n 1, 2, 4 with the same events each
# time; the filters; a job whose clock offsets cannot be estimated (raw
# clocks, said in otherData and on stderr); hostile names; refused
# options; the audit's per-run merged traces.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
$PY -c 'import json, gzip' 2>/dev/null || {
    echo "/usr/bin/python3 missing: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/mtrace
rm -rf "$W"; mkdir -p "$W"
CHECK="$SRC/tests/integration/mtrace_check.py"
fail() { echo "FAIL: $*"; exit 1; }

# -- a job on two nodes, node 1's clock 250 us ahead, rank 5 late
"$TLMPI_SYNTH" --out "$W/job" --world_size 8 --tp 4 --steps 2 --layers 2 \
    --seed 7 --gzip --gpus_per_node 4 --node_offset_us 0,250 \
    --straggler 5 --straggler_delay_us 300 --quiet
for n in 1 2 4; do
    o="$W/o$n"
    $MPIEXEC -n $n "$TLMPI" --trace_dir "$W/job" --gpus_per_node 4 \
        --output "$o/tlmpi.h5" --no_report --quiet \
        --merged_trace "$o/merged.json.gz" 2>"$W/err$n"
    [ -s "$o/merged.json.gz" ] || fail "-n $n: no merged trace"
    ls "$o" | grep -q 'tmp$' && fail "-n $n: a temporary was left"
    $PY "$CHECK" "$o/merged.json.gz" "$W/job/ground_truth.json" corrected \
        || fail "-n $n: merged trace"
    grep -q "merged trace" "$W/err$n" && fail "-n $n: unexpected warning"
    # the same events whatever the number of processes
    gzip -dc "$o/merged.json.gz" | sed "s/,$//" | sort > "$W/lines$n"
done
cmp -s "$W/lines1" "$W/lines2" || fail "-n 1 and -n 2 differ"
cmp -s "$W/lines1" "$W/lines4" || fail "-n 1 and -n 4 differ"
echo "ok: 8-rank job, -n 1, 2, 4"

# -- seed-derived offsets on four nodes; the filters
"$TLMPI_SYNTH" --out "$W/job2" --world_size 8 --tp 2 --steps 2 --layers 2 \
    --seed 11 --gpus_per_node 2 --clock_offset_us 400 --quiet
for f in kernels collectives; do
    $MPIEXEC -n 2 "$TLMPI" --trace_dir "$W/job2" --gpus_per_node 2 \
        --output "$W/f$f/tlmpi.h5" --no_report --quiet \
        --merged_trace "$W/f$f/m.json.gz" --merged_trace_filter $f
    $PY "$CHECK" "$W/f$f/m.json.gz" "$W/job2/ground_truth.json" corrected \
        $f || fail "filter $f"
done
$PY - "$W/fkernels/m.json.gz" "$W/fcollectives/m.json.gz" <<'PY' || fail "filters"
import gzip, json, sys
k, c = (json.load(gzip.open(p))["traceEvents"] for p in sys.argv[1:])
xk = [e for e in k if e["ph"] == "X"]
xc = [e for e in c if e["ph"] == "X"]
assert all(e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset") for e in xk)
assert any("args" not in e for e in xk), "kernels: only collectives?"
assert any(e["cat"] == "cpu_op" for e in xc), "collectives: no launches"
assert all("args" in e or e["cat"] != "kernel" for e in xc)
assert len(xc) < len(xk)
PY
echo "ok: filters"

# -- no collectives across ranks: raw clocks, said in the file and on stderr
mkdir -p "$W/raw"
cp "$SRC/tests/data/ok_small_trace.json" "$W/raw/rank0_trace.json"
cp "$SRC/tests/data/ok_small_trace.json" "$W/raw/rank1_trace.json"
$MPIEXEC -n 2 "$TLMPI" --trace_pattern "$W/raw/rank*_trace.json" \
    --output "$W/rawo/tlmpi.h5" --no_report \
    --merged_trace "$W/rawo/m.json.gz" 2>"$W/rawerr"
grep -q "merged trace: clock offsets could not be estimated" "$W/rawerr" \
    || fail "raw clocks not said on stderr: $(cat "$W/rawerr")"
$PY - "$W/rawo/m.json.gz" <<'PY' || fail "raw clocks"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
o = d["otherData"]
assert o["clock"] == "raw" and "could not be estimated" in o["clock_note"], o
assert o["ranks_on_raw_clock"] == 1
assert sorted({e["pid"] for e in d["traceEvents"]}) == [0, 1]
PY
echo "ok: raw clocks"

# -- hostile names: quotes, control characters, NUL, lone surrogates, long
$PY - "$SRC/tests/data/ok_small_trace.json" "$W/evil/rank0_trace.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
names = ['q"uote\\back\u0001\u001f</script>', "\ud800lone", "x" * 5000,
         "\u2028sep\u00e9\U0001f600", "nul\u0000byte"]
x = next(e for e in d["traceEvents"] if e.get("ph") == "X")
for n in names:  # one more CPU event per name
    d["traceEvents"].append(dict(x, name=n))
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
open(sys.argv[2], "w").write(json.dumps(d))  # \ud800 and \u0000 escaped
PY
$MPIEXEC -n 1 "$TLMPI" "$W/evil/rank0_trace.json" --output "$W/evilo/t.h5" \
    --allow_missing \
    --no_report --quiet --merged_trace "$W/evilo/m.json.gz" \
    || fail "hostile names: analysis failed"
$PY - "$W/evilo/m.json.gz" <<'PY' || fail "hostile names"
import gzip, json, sys
raw = gzip.open(sys.argv[1]).read()
raw.decode("utf-8")  # valid UTF-8
d = json.loads(raw)
names = [e["name"] for e in d["traceEvents"] if e["ph"] == "X"]
assert 'q"uote\\back\u0001\u001f</script>' in names
assert all(len(n.encode()) <= 512 * 3 for n in names)
assert any(n.startswith("\ufffd") for n in names), "lone surrogate kept"
assert any("\u2028sep\u00e9\U0001f600" == n for n in names)
assert "nul\\u0000byte" in names  # U+0000 kept as its escape (issue 33)
PY
echo "ok: hostile names"

# -- refused before any work
expect2() { # what, args...
    local what=$1; shift
    set +e
    $MPIEXEC -n 1 "$TLMPI" --trace_dir "$W/job" --output "$W/no/t.h5" \
        "$@" >"$W/out2" 2>&1
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
    grep -q "$what" "$W/out2" || fail "$what: message $(cat "$W/out2")"
}
expect2 "must end in .json.gz" --merged_trace "$W/no/m.json"
expect2 "is not all, kernels or collectives" --merged_trace "$W/no/m.json.gz" \
    --merged_trace_filter ops
expect2 "needs --merged_trace" --merged_trace_filter kernels
[ -e "$W/no" ] && fail "refused runs wrote something"
set +e
$MPIEXEC -n 1 "$TLMPI" --trace_dir "$W/job" --gpus_per_node 4 \
    --output "$W/o9/tlmpi.h5" --no_report --quiet \
    --merged_trace "$W/o1/merged.json.gz" > "$W/out3" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "exists" "$W/out3" || fail "existing trace: $rc"
[ -e "$W/o9/tlmpi.h5" ] && fail "existing trace: the HDF5 file was written"
echo "ok: refusals"

# -- the audit: one merged trace per run, in its folder
mkdir -p "$W/aud/a" "$W/aud/b"
"$TLMPI_SYNTH" --out "$W/aud/a" --world_size 4 --tp 2 --steps 1 --layers 1 \
    --gpus_per_node 2 --node_offset_us 0,100 --quiet
"$TLMPI_SYNTH" --out "$W/aud/b" --world_size 2 --tp 2 --steps 1 --layers 1 \
    --quiet
cp "$W/aud/a/ground_truth.json" "$W/gt_a.json"
rm "$W/aud/a/ground_truth.json" "$W/aud/b/ground_truth.json"
set +e
$MPIEXEC -n 1 "$TLMPI" audit "$W/aud" --output_dir "$W/audo" \
    --merged_trace x/m.json.gz > "$W/out4" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "takes a file name" "$W/out4" || fail "audit path"
$MPIEXEC -n 2 "$TLMPI" audit "$W/aud" --output_dir "$W/audo" --quiet \
    --gpus_per_node 2 --merged_trace merged.json.gz
$PY "$CHECK" "$W/audo/runs/a/merged.json.gz" "$W/gt_a.json" corrected \
    || fail "audit run a"
[ -s "$W/audo/runs/b/merged.json.gz" ] || fail "audit run b"
echo "ok: audit"
echo "test_merged_trace: all passed"
