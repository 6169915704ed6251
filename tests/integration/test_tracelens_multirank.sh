#!/bin/bash
# TraceLens's whole multi-rank collective report (issue 32 item 3):
#   * the two shared references that TraceLens 171dd747 wrote itself
#     (../shared/traces/{dlrm_v100_8rank,synth16_2node}/tracelens_multirank,
#     skipped when absent) agree key by key with tlmpi's sheets under
#     mpirun -n 1 and 4 (scripts/compare_tracelens_csv.py: same sheets,
#     headers, keys, cells within 1e-6), GPUs per node auto-detected from
#     deviceProperties as TraceLens does;
#   * on a tlmpi-synth job with all_to_allv collectives, the all_to_allv
#     sheets hold their invariants (recomputed here from nccl_long), the
#     rank columns of nccl_implicit_sync and nccl_all2allv follow their
#     first appearance across rows, node_span follows --gpus_per_node, and
#     the sheets do not depend on the number of MPI ranks;
#   * the checker is not blind: a changed cell and a dropped column fail.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
SYNTH="${TLMPI_SYNTH:?TLMPI_SYNTH not set}"
S="${TLM_SOURCE_DIR:?}"
MPIEXEC="${MPIEXEC:-mpirun}"
SHARED="${TLM_SHARED_DIR:-$S/../shared}/traces"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
export OMPI_MCA_odls_base_sigkill_timeout=0
PY=/usr/bin/python3
CMP="$S/scripts/compare_tracelens_csv.py"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}

# ---- the shared references
for job in dlrm_v100_8rank synth16_2node; do
    D="$SHARED/$job"
    if [ ! -d "$D/tracelens_multirank" ]; then
        echo "skip $job: $D absent"
        continue
    fi
    for n in 1 4; do
        out="$WORK/$job.$n"
        mkdir -p "$out"
        timeout 300 "$MPIEXEC" --oversubscribe -n $n "$TLMPI" \
            --trace_dir "$D" --output "$out/t.h5" --quiet 2> "$out/err"
        check "$job -n $n: exit 0" test $? -eq 0
        "$PY" "$CMP" "$D/tracelens_multirank" "$out" --quiet > "$out/cmp.txt"
        check "$job -n $n: TraceLens's sheets agree key by key" test $? -eq 0
        tail -n 3 "$out/cmp.txt"
    done
    check "$job: GPUs per node from deviceProperties in report.md" \
        grep -q 'GPUs per node: 8 (from the deviceProperties' \
        "$WORK/$job.1/report.md"
done
if [ -d "$WORK/synth16_2node.1" ]; then
    # the checker is not blind
    B="$WORK/blind"
    mkdir -p "$B"
    cp "$WORK/synth16_2node.1"/*.csv "$B/"
    sed -i '2s/intra_node$/inter_node/;2s/inter_node$/intra_node/' \
        "$B/nccl_long.csv"
    "$PY" "$CMP" "$SHARED/synth16_2node/tracelens_multirank" "$B" --quiet \
        > /dev/null
    check "checker: a changed node_span fails" test $? -eq 1
    cp "$WORK/synth16_2node.1/nccl_long.csv" "$B/"
    cut -d, -f1-18 "$WORK/synth16_2node.1/straggler_summary.csv" |
        sed 's/,[^,]*$//' > "$B/straggler_summary.csv"
    "$PY" "$CMP" "$SHARED/synth16_2node/tracelens_multirank" "$B" --quiet \
        > /dev/null
    check "checker: a dropped node_id column fails" test $? -eq 1
fi

# ---- a job tlmpi-synth writes, with all_to_allv collectives
"$SYNTH" --out "$WORK/job" --world_size 8 --tp 2 --gpus_per_node 4 \
    --steps 2 --layers 2 --seed 5 --node_offset_us 0,30 --quiet
check "synthesize the job" test $? -eq 0
for n in 1 3; do
    mkdir -p "$WORK/out$n"
    timeout 300 "$MPIEXEC" --oversubscribe -n $n "$TLMPI" \
        --trace_dir "$WORK/job" --output "$WORK/out$n/t.h5" --quiet \
        --gpus_per_node 2
    check "synth job -n $n: exit 0" test $? -eq 0
done
for s in nccl_summary_implicit_sync nccl_summary_long nccl_summary_all2allv \
         nccl_long nccl_implicit_sync nccl_all2allv straggler_summary; do
    check "$s.csv: the same under -n 1 and -n 3" \
        cmp -s "$WORK/out1/$s.csv" "$WORK/out3/$s.csv"
done
check "report.md: GPUs per node from the option" \
    grep -q 'GPUs per node: 2 (from `--gpus_per_node`)' "$WORK/out1/report.md"
"$PY" - "$WORK/out1" 2 <<'PYEOF'
import csv, math, re, sys
d, gpn = sys.argv[1], int(sys.argv[2])
def rows(name):
    with open(f"{d}/{name}.csv", newline="") as f:
        r = list(csv.reader(f))
    return r[0], [dict(zip(r[0], x)) for x in r[1:]]
def close(a, b, what):
    a, b = float(a), float(b)
    assert abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-6, (what, a, b)
def span(ranks):
    nodes = {int(x) // gpn for x in re.findall(r"\d+", ranks)}
    return "unknown" if not nodes else (
        "intra_node" if len(nodes) == 1 else "inter_node")
def first_seen(ids, members):
    """TraceLens's rank columns: first appearance, row after row."""
    cols, batch = [], []
    for i, cid in enumerate(ids):
        new = [r for r in members[cid] if r not in cols]
        cols += new
        batch.append(new)
    return batch
lh, lng = rows("nccl_long")
assert lh[-2:] == ["node_id", "node_span"], lh
members, order, name = {}, [], {}
for r in lng:
    cid = r["collective_id"]
    if cid not in members:
        members[cid], name[cid] = [], r["Collective name"]
        order.append(cid)
    members[cid].append(int(r["rank"]))
    assert int(r["node_id"]) == int(r["rank"]) // gpn, r
    assert r["node_span"] == span(r["Process Group Ranks"]), r
# nccl_all2allv: one row per all_to_allv id, sorted by total data
ah, a2a = rows("nccl_all2allv")
ids = [c for c in order if name[c] == "all_to_allv"]
assert ids and sorted(r["collective_id"] for r in a2a) == sorted(ids), ids
tot = [float(r["total data communicated (MB)"]) for r in a2a]
assert tot == sorted(tot, reverse=True), tot
want = ["collective_id"]
for new in first_seen(ids, members):
    for r in new:
        want += [f"rank_{r}_{c}" for c in ("ts", "dur", "In msg nelems",
                 "Out msg nelems", "In msg size (MB)", "Out msg size (MB)",
                 "In split size", "Out split size")]
    for r in new:
        want += [f"rank_{r}_skew in start time", f"rank_{r}_skew in end time"]
got = [c for c in ah if c == "collective_id" or c.startswith("rank_")]
assert got == want, (got[:12], want[:12])
assert ah[-1] == "node_span", ah[-1]
for r in a2a:
    m = members[r["collective_id"]]
    ts = [float(r[f"rank_{k}_ts"]) for k in m]
    du = [float(r[f"rank_{k}_dur"]) for k in m]
    mb = [float(r[f"rank_{k}_In msg size (MB)"]) for k in m]
    en = [a + b for a, b in zip(ts, du)]
    close(r["wall_time (us)"], max(en) - min(ts), "wall")
    close(r["skew in start time"], max(ts) - min(ts), "skew start")
    close(r["skew in end time"], max(en) - min(en), "skew end")
    close(r["total data communicated (MB)"], sum(mb), "total")
    close(r["max_rank_dur (us)"], max(du), "max dur")
    close(r["avg_rank_dur (us)"], sum(du) / len(du), "avg dur")
    close(r["throughput (GB/s)"],
          sum(mb) / 1024 / ((max(en) - min(ts)) / 1e6), "throughput")
    close(r["size_imbalance"], max(mb) / (sum(mb) / len(mb)), "imbalance")
    for k, t, e in zip(m, ts, en):
        close(r[f"rank_{k}_skew in start time"], t - min(ts), "rank skew")
        close(r[f"rank_{k}_skew in end time"], max(en) - e, "rank skew e")
    for k in set(int(c.split("_")[1]) for c in ah if c.startswith("rank_")):
        if k not in m:
            assert r[f"rank_{k}_ts"] == "", (k, r["collective_id"])
    assert r["node_span"] == span(r["Process Group Ranks"]), r
# nccl_summary_all2allv: one row per (PG, dtype), the rows' aggregates
sh, summ = rows("nccl_summary_all2allv")
assert sh[-2:] == ["Total wall_time (ms)", "node_span"], sh
assert sum(int(s["count"]) for s in summ) == len(a2a)
totw = [float(s["Total wall_time (ms)"]) for s in summ]
assert totw == sorted(totw, reverse=True), totw
for s in summ:
    g = [r for r in a2a if r["Process Group Name"] == s["Process Group Name"]
         and r["dtype"] == s["dtype"]]
    assert len(g) == int(s["count"]), s
    w = [float(r["wall_time (us)"]) for r in g]
    close(s["Total wall_time (us)"], sum(w), "sum wall")
    close(s["Total wall_time (ms)"], sum(w) / 1000, "ms")
    close(s["wall_time (us)_max"], max(w), "max wall")
    t = [float(r["total data communicated (MB)"]) for r in g]
    close(s["total data communicated (MB)_mean"], sum(t) / len(t), "mean")
    assert s["Process Group Ranks"] == g[0]["Process Group Ranks"], s
    assert s["node_span"] == span(s["Process Group Ranks"]), s
# nccl_implicit_sync: rank columns by first appearance, rows in id order
ih, isync = rows("nccl_implicit_sync")
sid = [r["collective_id"] for r in isync]
assert sid == [c for c in order if c in set(sid)], sid[:5]
want = []
for new in first_seen(sid, members):
    for r in new:
        want += [f"rank_{r}_ts", f"rank_{r}_dur"]
    want += [f"rank_{r}_wait_time" for r in new]
assert [c for c in ih if c.startswith("rank_")] == want, ih[18:30]
assert ih[-1] == "node_span", ih[-1]
# straggler_summary: node_id = rank / G
th, st = rows("straggler_summary")
assert th[-1] == "node_id" and all(
    int(r["node_id"]) == int(r["rank"]) // gpn for r in st), th
PYEOF
check "all_to_allv sheets, column order and node columns hold" test $? -eq 0
exit $fail
