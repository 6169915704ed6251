#!/bin/bash
# tlmpi compare A.h5 B.h5 (docs/compare-runs.md) on two synthesized 4-rank
# jobs, the same job without (A) and with (B) a straggler: comparison.md
# names the straggler new in B and the collective whose wait grew;
# comparison.h5 loads with scripts/tlmpi_h5.py with the expected rows and
# signs (diff = B - A), and swapping the runs flips them.  Bad inputs
# (another kind, another schema version, a missing dataset, not HDF5) fail
# naming the file and the attribute or dataset and write nothing; an
# existing output is refused without --force.  Also the collective findings
# of the analysis (M1-M4): each rule triggered and not triggered.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/scripts/env.sh"
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/compare_runs
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
SYN=(--world_size 4 --tp 2 --steps 3 --layers 1 --hidden 256 --heads 4
     --seq_len 64 --vocab 1024 --seed 7)
"$TLMPI_SYNTH" --out "$W/A" "${SYN[@]}" --quiet
"$TLMPI_SYNTH" --out "$W/B" "${SYN[@]}" --straggler 3 \
    --straggler_delay_us 2000 --quiet
ana() { # job tag [options]
    local j=$1 t=$2
    shift 2
    "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/$j" --output "$W/$t.h5" \
        --output_dir "$W/$t" --quiet "$@"
}
# the small job's messages are under 1 MiB: M3 looks at >= 4 KiB here;
# its exposed transfer is 3.4 % of the GPU time (the rest of its exposed
# communication waits for late ranks): M4 looks at >= 2 % here
ana A a --findings_busbw_min_bytes 4096 --findings_exposed_comm_pct 2
ana B b
ana A a_quiet --findings_skew_min_us 1000000 --link_peak_gbps 1 \
    --findings_exposed_comm_pct 99

# --- collective findings of the analysis: each rule on and off
f() { sed -n '/^## Findings/,/^## GPU timeline/p' "$W/$1/report.md"; }
f b | grep -q '| M1 | .*straggler rank 3' || fail "M1 missing in B"
f a | grep -q '| M1 |' && fail "M1 without a straggler"
f b | grep -q '| M2 | .*ranks start' || fail "M2 (skew) missing in B"
f a_quiet | grep -q '| M2 |' && fail "M2 above --findings_skew_min_us"
f a | grep -q '| M3 | .*of the link.s 450 GB/s' || fail "M3 missing (H100)"
f a_quiet | grep -q '| M3 |' && fail "M3 with --link_peak_gbps 1"
f b | grep -q '| M3 |' && fail "M3 under --findings_busbw_min_bytes"
f a | grep -q '| M4 | .*exposed transfer is' || fail "M4 missing"
f a_quiet | grep -q '| M4 |' && fail "M4 above --findings_exposed_comm_pct"
f a_quiet | grep -q '^No finding' || fail "a_quiet: findings left"
grep -q '| --findings_skew_min_us | 1e+06 |' "$W/a_quiet/report.md" ||
    fail "appendix lacks the thresholds"
grep -q '| --findings_exposed_comm_pct | 5 |' "$W/b/report.md" ||
    fail "appendix lacks the default thresholds"
PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W" <<'PY' || fail "/findings"
import sys, pandas as pd, tlmpi_h5
w = sys.argv[1]
for tag in ("a", "b", "a_quiet"):
    h = tlmpi_h5.load(w + "/%s.h5" % tag, ["findings"])["findings"]
    c = pd.read_csv(w + "/%s/findings.csv" % tag, keep_default_na=False)
    assert list(c.columns) == ["id", "rule", "mode", "severity", "subject",
        "pct_e2e", "eff", "bound", "impact_low", "impact_mid", "impact_high",
        "text", "action_a", "action_b", "replay", "evidence"], c.columns
    assert list(h["rule"]) == list(c["rule"]), (tag, h["rule"], c["rule"])
    assert list(h["id"]) == ["P%d" % (i + 1) for i in range(len(h))]
    assert (h["mode"] == "mpi").all()
b = tlmpi_h5.load(w + "/b.h5", ["findings"])["findings"]
m1 = b[b.rule == "M1"]
assert len(m1) == 1 and m1.subject.iloc[0] == "rank 3", m1
assert m1.pct_e2e.iloc[0] > 0
PY

# --- the comparison
"$TLMPI" compare "$W/a.h5" "$W/b.h5" --output_dir "$W/cmp" --quiet
M=$W/cmp/comparison.md
grep -q '^\*\*Step time: A .* ms, B .* ms (+' "$M" || fail "no step headline"
grep -q '| R6 | high | .*straggler rank 3 new in B' "$M" ||
    fail "comparison.md does not name the new straggler"
grep -q '| R2 | .*wait .* per call.*costs' "$M" ||
    fail "comparison.md names no collective whose wait grew"
# ns metrics shown in ms are labelled without their _ns (issue 34)
grep -q '^| step_time (ms) |' "$M" || fail "no 'step_time (ms)' row"
grep -q '_ns (ms)' "$M" && fail "comparison.md labels a _ns metric in ms"
PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W" <<'PY' || fail "comparison.h5"
import math, sys, tlmpi_h5
w = sys.argv[1]
c = tlmpi_h5.load_comparison(w + "/cmp/comparison.h5")
assert set(c) == {"summary", "collectives", "ops", "stragglers",
                  "findings"}, set(c)
assert c.attrs["name_a"] == "a.h5" and c.attrs["impact_per"] == "step"
s = c["summary"].set_index("metric")
assert s.loc["step_time_ns", "diff"] > 0 and s.loc["step_time_ns", "pct"] > 0
assert s.loc["straggler_rank", "a"] == -1 and s.loc["straggler_rank", "b"] == 3
d = s.loc["coll_wait_ns"]
assert abs(d["diff"] - (d["b"] - d["a"])) < 1e-6 * abs(d["b"])
assert abs(d["pct"] - 100 * d["diff"] / d["a"]) < 1e-9 * abs(d["pct"])
k = c["collectives"]
assert (k.status == "both").all(), k.status
top = k.iloc[0]
assert top.impact_ns > 0 and top.wait_ns_diff > 0 and top.last_rank_b == 3
assert (k.impact_ns.abs().diff().dropna() <= 1e-9).all(), "not by |impact|"
assert (k.latency_ns_diff.abs() < 1e-6).all(), "latency changed"
st = c["stragglers"].set_index("trace_rank")
assert st.loc[3, "named_b"] == 1 and st.loc[3, "named_a"] == 0
assert st.loc[3, "wait_caused_ns_diff"] > 0
o = c["ops"]
assert len(o) > 0 and (o.status == "both").all()
assert (o.count_pct.abs() < 1e-9).all()
f = c["findings"]
assert f.rule.iloc[0] == "R1" and (f["mode"] == "compare").all()
assert ((f.rule == "R6") & (f.subject == "rank 3")).sum() == 1
# a zero baseline gives no percentage
assert all(math.isnan(p) for a, p in zip(k.wait_ns_a, k.wait_ns_pct) if a == 0)
PY
# swapped: the signs flip, the straggler is gone in B
"$TLMPI" compare "$W/b.h5" "$W/a.h5" --output_dir "$W/cmp2" --quiet \
    --names with without
grep -q 'straggler rank 3 of A is not a straggler in B' \
    "$W/cmp2/comparison.md" || fail "swapped: straggler not gone"
grep -q '| name | with | without |' "$W/cmp2/comparison.md" || fail "--names"
PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W" <<'PY' || fail "swapped signs"
import sys, tlmpi_h5
w = sys.argv[1]
a = tlmpi_h5.load_comparison(w + "/cmp/comparison.h5")["collectives"]
b = tlmpi_h5.load_comparison(w + "/cmp2/comparison.h5")["collectives"]
key = ["coll", "group", "dtype", "bytes"]
m = a.merge(b, on=key, suffixes=("", "_s"))
assert len(m) == len(a) == len(b)
assert ((m.impact_ns + m.impact_ns_s).abs() < 1e-3).all()
assert ((m.wait_ns_diff + m.wait_ns_diff_s).abs() < 1e-3).all()
PY

# --- an existing output without --force
before=$(sha256sum "$M")
if "$TLMPI" compare "$W/a.h5" "$W/b.h5" --output_dir "$W/cmp" \
    2>"$W/err"; then fail "existing output replaced without --force"; fi
grep -q 'exists' "$W/err" || fail "no 'exists' message: $(cat "$W/err")"
[ "$(sha256sum "$M")" = "$before" ] || fail "output changed without --force"
"$TLMPI" compare "$W/a.h5" "$W/b.h5" --output_dir "$W/cmp" --force --quiet

# --- bad inputs: clear error naming the file and the dataset/attribute,
# non-zero exit, nothing written
/usr/bin/python3 - "$W" <<'PY'
import shutil, sys, h5py
w = sys.argv[1]
shutil.copy(w + "/a.h5", w + "/v2.h5")
with h5py.File(w + "/v2.h5", "r+") as f:
    f.attrs["schema_version"] = 2
shutil.copy(w + "/a.h5", w + "/nostrag.h5")
with h5py.File(w + "/nostrag.h5", "r+") as f:
    del f["stragglers"]
open(w + "/text.h5", "w").write("not hdf5\n")
PY
bad() { # input message
    rm -rf "$W/badout"
    if "$TLMPI" compare "$W/a.h5" "$1" --output_dir "$W/badout" \
        2>"$W/err"; then fail "$1 accepted"; fi
    grep -q "$(basename "$1")" "$W/err" || fail "$1: file not named"
    grep -q "$2" "$W/err" || fail "$1: no '$2' in: $(cat "$W/err")"
    [ ! -e "$W/badout" ] || [ -z "$(ls -A "$W/badout")" ] ||
        fail "$1: something written"
}
bad "$W/cmp/comparison.h5" "attribute 'kind' is 'comparison'"
bad "$W/v2.h5" "attribute 'schema_version' is 2"
bad "$W/nostrag.h5" "no dataset '/stragglers'"
bad "$W/text.h5" "not an HDF5 file"
bad "$W/missing.h5" "cannot open"
"$TLMPI" compare "$W/a.h5" 2>/dev/null && fail "one run accepted"
"$TLMPI" compare "$W/a.h5" "$W/b.h5" --names x x 2>/dev/null &&
    fail "duplicate names accepted"
# comparison.h5's schema in the docs is what --print_schema prints
"$TLMPI" compare --print_schema > "$W/schema.md"
/usr/bin/python3 - "$W/schema.md" "$SRC/docs/compare-runs.md" <<'PY'
import sys
gen, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert gen.strip() and gen in doc, "docs/compare-runs.md is out of date: " \
    "regenerate its schema part with `tlmpi compare --print_schema`"
PY
# every option compare_runs.c parses is in its --help and the man page
"$TLMPI" compare --help > "$W/help" || fail "compare --help"
for o in $(grep -o '"--[a-z_]*"' "$SRC/src/runs/compare_runs.c" | tr -d '"' |
           grep -vx -- --help | sort -u); do
    grep -q -- "$o\b" "$W/help" || fail "compare --help lacks $o"
    sed 's/\\-/-/g' "$SRC/docs/tlmpi.1" | grep -q -- "$o\b" ||
        fail "docs/tlmpi.1 lacks compare's $o"
done
echo "compare runs ok"
