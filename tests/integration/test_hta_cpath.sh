#!/bin/bash
# HTA's critical path (spec/hta.md §9) through the CLI, against HTA's own
# output in ../shared/traces/*/hta_csvs (skipped when absent):
#  - tlmpi report TRACE --hta on the three single traces:
#    critical_path_summary.csv agrees with HTA's (compare_hta.py: duration
#    and duration_pctg per bound_by) and critical_path_edges.csv holds
#    exactly HTA's rows (as a multiset, every column); report.md flags
#    Q10 (edges of -1 us) on the Qwen trace;
#  - --hta_critical_path selections: a range, an instance that does not
#    exist and an annotation that matches nothing give exit 0; the last
#    two write no critical-path CSV and say why in report.md;
#  - the 8-rank DLRM job (mpirun -n 2): rank 0's path (the default
#    --hta_rank) holds exactly HTA's edges; --hta_rank 3 gives rank 3's,
#    in the CSVs and in HDF5 /hta (same rows), its bound_by durations
#    adding up to its total.
set -eu
: "${TLMPI:?}"
S=${TLM_SHARED_DIR:-}/traces
[ -n "${TLM_SHARED_DIR:-}" ] && [ -d "$S/qwen_h100/hta_csvs" ] || {
    echo "TLM_SHARED_DIR/traces absent: skipped"; exit 77; }
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${TLM_WORK_DIR:-$(mktemp -d)}/cpath
rm -rf "$W"; mkdir -p "$W"
PY=/usr/bin/python3

# Rows of critical_path_edges as a multiset; numbers compared as floats.
same_edges() {
    "$PY" - "$1" "$2" <<'PY'
import collections, csv, gzip, sys
COLS = ["event_idx", "type", "duration", "bound_by", "s_name", "cat",
        "pid", "tid", "stream"]
def rows(p):
    op = gzip.open if p.endswith(".gz") else open
    out = collections.Counter()
    with op(p, "rt", newline="") as f:
        for r in csv.DictReader(f):
            key = []
            for c in COLS:
                v = r[c]
                try:
                    v = float(v) if v != "" else ""
                except ValueError:
                    pass
                key.append(v)
            out[tuple(key)] += 1
    return out
ours, ref = rows(sys.argv[1]), rows(sys.argv[2])
if ours != ref:
    print("critical_path_edges differ: %d rows vs %d; only ours %s; "
          "only HTA's %s" % (sum(ours.values()), sum(ref.values()),
                             list((ours - ref).items())[:3],
                             list((ref - ours).items())[:3]))
    sys.exit(1)
PY
}

for t in qwen_h100/trace.json.gz resnet_mi300/resnet_act_checkpoint.json.gz \
         nccl_a100/nccl_data.json.gz; do
    d=$(dirname "$t")
    "$TLMPI" report "$S/$t" --output_csvs_dir "$W/$d" --hta >/dev/null
    "$PY" "$SRC/tests/integration/compare_hta.py" "$W/$d/hta" \
        "$S/$d/hta_csvs" >/dev/null
    [ -s "$W/$d/hta/critical_path_summary.csv" ]
    same_edges "$W/$d/hta/critical_path_edges.csv" \
        "$(ls "$S/$d"/hta_csvs/critical_path_edges.csv*)"
    grep -q "^Critical path (" "$W/$d/report.md"
done

# Q10 flagged: 18 edges of the Qwen graph weigh -1 us (17 on the path)
grep -q '^- Q10: 18 critical-path edges weigh <= -1 us (17 on the path)' \
    "$W/qwen_h100/report.md" || { echo "report.md: no Q10 line"; exit 1; }

# Instances: Qwen's step 6 has a user_annotation and a gpu_user_annotation
# copy (instances 0 and 1), so 0-1 gives the same path as 0.
Q=$S/qwen_h100/trace.json.gz
"$TLMPI" report "$Q" --output_csvs_dir "$W/range" --hta \
    --hta_critical_path 'ProfilerStep:0-1' >/dev/null
cmp "$W/range/hta/critical_path_summary.csv" \
    "$W/qwen_h100/hta/critical_path_summary.csv"

for sel in 'ProfilerStep:7' 'NoSuchAnnotation'; do
    rm -rf "$W/none"
    "$TLMPI" report "$Q" --output_csvs_dir "$W/none" --hta \
        --hta_critical_path "$sel" >/dev/null
    [ ! -e "$W/none/hta/critical_path_summary.csv" ]
    [ ! -e "$W/none/hta/critical_path_edges.csv" ]
    [ -s "$W/none/hta/temporal_breakdown.csv" ]
    grep -q "^Critical path: none (" "$W/none/report.md" ||
        { echo "report.md lacks the reason for $sel"; exit 1; }
done
# The job: rank 0 by default, rank 3 when asked.
: "${MPIEXEC:=mpirun}"
D=$S/dlrm_v100_8rank
mkdir -p "$W/job" "$W/job3"
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" --hta --output "$W/job/d.h5" \
    --output_csvs_dir "$W/job/csv" --quiet >/dev/null 2>&1
same_edges "$W/job/csv/hta/critical_path_edges.csv" \
    "$D/hta_csvs/critical_path_edges.csv.gz"
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" --hta --hta_rank 3 \
    --output "$W/job3/d.h5" --output_csvs_dir "$W/job3/csv" --quiet \
    >/dev/null 2>&1
"$PY" - "$W/job3/csv" "$W/job3/d.h5" "$W/job/csv" <<'PY'
import csv, sys
import h5py
def rows(p):
    with open(p, newline="") as f:
        return list(csv.DictReader(f))
s3 = rows(sys.argv[1] + "/hta/critical_path_summary.csv")
s0 = rows(sys.argv[3] + "/hta/critical_path_summary.csv")
tot = {r["bound_by"]: float(r["duration"]) for r in s3}
assert abs(sum(v for k, v in tot.items() if k != "total") - tot["total"]) < 1e-6
assert s3 != s0, "rank 3's path is rank 0's"
e3 = rows(sys.argv[1] + "/hta/critical_path_edges.csv")
assert len(e3) == int(next(r["edges"] for r in s3 if r["bound_by"] == "total"))
with h5py.File(sys.argv[2], "r") as f:
    h = f["hta/critical_path_summary"][()]
    assert [x.decode() for x in h["bound_by"]] == [r["bound_by"] for r in s3]
    assert list(h["duration"]) == [float(r["duration"]) for r in s3]
    assert len(f["hta/critical_path_edges"]) == len(e3)
PY
echo ok
