#!/bin/bash
# Synthesized 8-rank jobs (tlmpi-synth) in each NCCL metadata generation,
# with a straggler, per-node clock offsets and clipped profiling windows:
# tlmpi under mpirun -n 1, 2, 4, 8 must recover the generator's ground truth
# to the nanosecond, and write the same file for every N.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/synth
rm -rf "$W"; mkdir -p "$W"

check() { # job-dir h5 label
    PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$1/ground_truth.json" "$2" "$3" <<'PY'
# Compares every collective of the ground truth with the file; collects all
# mismatches by kind and prints the first example of each.
import collections, json, sys
import tlmpi_h5
gt = json.load(open(sys.argv[1]))
t = tlmpi_h5.load(sys.argv[2])
label = sys.argv[3]
bad = collections.OrderedDict()
def fail(kind, *example):
    if kind not in bad:
        bad[kind] = [0, example]
    bad[kind][0] += 1
base = gt["base_time_ns"]
inst = t["collectives/instances"].set_index(["match_key", "seq"])
pr = t["collectives/per_rank"]
where = {(r.trace_rank, r.start_ns): (r.match_key, r.seq, r.dur_ns)
         for r in pr.itertuples()}
if len(where) != len(pr):
    fail("two members with the same (rank, start)")
if len(t["collectives/unmatched"]):
    fail("unmatched kernels", len(t["collectives/unmatched"]))
straggler = gt["params"]["straggler_rank"]
seen = set()
n_visible = 0
for c in gt["collectives"]:
    kept = [m for m in c["members"] if m["kept"]]
    if not kept:
        continue
    n_visible += 1
    keys = set()
    for m in kept:
        k = where.get((m["rank"], base + m["local_start_ns"]))
        if k is None:
            fail("member missing from /collectives/per_rank", c["id"], m["rank"])
            continue
        if k[2] != m["dur_ns"]:
            fail("member duration", c["id"], m["rank"], k[2], m["dur_ns"])
        keys.add(k[:2])
    if len(keys) != 1:
        if keys:
            fail("members split over instances", c["id"], len(keys))
        continue
    key = keys.pop()
    if key in seen:
        fail("two collectives in one instance", c["id"])
    seen.add(key)
    i = inst.loc[key]
    if i.n_members != len(kept):
        fail("n_members", c["id"], i.n_members, len(kept))
    if i.bytes != c["bytes"]:
        fail("bytes", c["id"], i.bytes, c["bytes"])
    last = max(c["members"], key=lambda m: m["start_ns"])
    complete = len(kept) == len(c["members"])
    # the last arriver's kernel is pure transfer: exactly C
    if last["kept"] and i.comm_latency_ns != c["comm_ns"]:
        fail("comm_latency_ns", c["id"], i.comm_latency_ns, c["comm_ns"])
    if complete != (i.incomplete == 0):
        fail("incomplete flag", c["id"], i.incomplete)
    if complete:
        # on corrected clocks the skew is the true arrival skew
        if i.start_skew_corr_ns != c["skew_ns"]:
            fail("start_skew_corr_ns (needs exact clock offsets)", c["id"],
                 i.start_skew_corr_ns, c["skew_ns"])
        if straggler in c["ranks"] and len(c["ranks"]) > 1 \
                and c["name"] != "send" and i.last_rank_corr != straggler:
            fail("last_rank_corr is not the straggler", c["id"], i.last_rank_corr)
if len(inst) != n_visible:
    fail("instance count", len(inst), n_visible)
# clock offsets relative to rank 0, exactly
clk = t["collectives/clock"].set_index("trace_rank")
off0 = gt["ranks"][0]["clock_offset_ns"]
for r in gt["ranks"]:
    got = clk.loc[r["rank"]].offset_ns - clk.loc[0].offset_ns
    if got != r["clock_offset_ns"] - off0:
        fail("clock offset", r["rank"], got, r["clock_offset_ns"] - off0)
# the straggler costs the others the most waiting
s = t["stragglers"]
s = s[s.overall == 1].sort_values("wait_caused_corr_ns", ascending=False)
if len(s) == 0 or s.iloc[0].trace_rank != straggler:
    fail("top straggler", None if len(s) == 0 else s.iloc[0].trace_rank)
if bad:
    print("%s: ground truth NOT recovered (%d collectives visible):"
          % (label, n_visible))
    for kind, (n, ex) in bad.items():
        print("  %-48s x%-4d e.g. %s" % (kind, n, ex))
    sys.exit(1)
print("%s: truth ok: %d instances, %d clipped ranks" % (
    label, n_visible, sum(r["clipped"] for r in gt["ranks"])))
PY
}

rc=0
for schema in 3 2 1; do
    J=$W/s$schema
    "$TLMPI_SYNTH" --out "$J" --world_size 8 --tp 2 --steps 2 --layers 2 \
        --schema $schema --seed $((7 + schema)) --gpus_per_node 4 \
        --node_offset_us 0,150 --straggler 5 --straggler_delay_us 300 \
        --jitter_us 20 --clip_first 3:2 --clip_last 6:3 --quiet
    sizes="1 2 4 8"
    [ $schema = 3 ] || sizes="1 3"
    for n in $sizes; do
        "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$J" --gpus_per_node 4 \
            --output "$J/n$n.h5" --output_dir "$J/out$n" --quiet
    done
    check "$J" "$J/n1.h5" "schema $schema" || rc=1
    for n in $sizes; do
        [ $n = 1 ] && continue
        for d in traces timeline ops/per_rank ops/merged ops_unique_args \
                 kernels collectives/instances collectives/per_rank \
                 collectives/unmatched collectives/summary collectives/clock \
                 stragglers steps/per_rank steps/summary; do
            cmp <(h5dump -d "/$d" "$J/n1.h5" | tail -n +2) \
                <(h5dump -d "/$d" "$J/n$n.h5" | tail -n +2) ||
                { echo "schema $schema: /$d differs between -n 1 and -n $n"; exit 1; }
        done
        for c in "$J"/out1/*.csv; do cmp "$c" "$J/out$n/$(basename "$c")"; done
    done
done
[ $rc = 0 ] || exit 1
echo "ground truth recovered for schemas 3, 2, 1 under -n 1/2/3/4/8"
