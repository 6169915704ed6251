#!/bin/bash
# P2P kept as the trace says (issue 32, item 4).  A synthetic 8-rank job
# whose send/recv carry trace-given sequence numbers with gaps (Seq 1, 4, 7:
# tlmpi-synth --p2p_seq 1:3), rank 2's first 11 collectives clipped (its
# first recv from rank 0 is missing): /collectives/instances.seq of every
# send/recv instance is the trace's Seq (match_seq keeps tlmpi's own
# order), its members are the ground truth's members of that Seq, the
# merged trace's kernel args carry the trace's Seq, and every flow joins the
# kernels of one instance.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${TLM_WORK_DIR:-$(mktemp -d)}/p2p_seq
rm -rf "$W"; mkdir -p "$W"

"$TLMPI_SYNTH" --out "$W/job" --world_size 8 --tp 2 --steps 3 --layers 1 \
    --seed 3 --clip_first 2:11 --p2p_seq 1:3 --quiet
grep -q '"Seq": 4, "Src Rank": 0' "$W/job/rank2_trace.json"
if grep -q '"Seq": 1, "Src Rank": 0' "$W/job/rank2_trace.json"; then
    echo "FAIL: rank 2's first recv was not clipped"; exit 1
fi
for n in 1 2; do
    "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$W/job" --output "$W/j$n.h5" \
        --output_dir "$W/out$n" --merged_trace "$W/m$n.json.gz" --quiet
    PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W/j$n.h5" \
        "$W/m$n.json.gz" "$W/job/ground_truth.json" <<'PY'
import collections, gzip, json, sys
import tlmpi_h5
h5, mt, gtp = sys.argv[1:4]
gt = json.load(open(gtp))
d = tlmpi_h5.load(h5)
bad = []
inst, mem = d["collectives/instances"], d["collectives/per_rank"]
gtp2p = {(c["pg_name"], c["seq"]): c for c in gt["collectives"]
         if c["name"] == "send"}
p2p = inst[inst.seq_src == "p2p"]
got = set(zip(p2p.pg_name, p2p.seq))
want = {k for k, c in gtp2p.items()
        if any(m.get("kept", True) for m in c["members"])}
if got != want:
    bad.append("p2p (pg, seq) %s, ground truth %s"
               % (sorted(got - want)[:4], sorted(want - got)[:4]))
for pg, g in p2p.groupby("pg_name"):
    if sorted(g.match_seq) != list(range(len(g))):
        bad.append("pg %s: match_seq %s" % (pg, sorted(g.match_seq)))
# members at (pg, seq, rank) start where the ground truth says (one clock)
gstart = {(c["pg_name"], c["seq"], m["rank"]): m["start_ns"]
          for c in gt["collectives"] for m in c["members"]}
sh = [r.start_ns - gstart[(r.pg_name, r.seq, r.trace_rank)]
      for r in mem.itertuples() if (r.pg_name, r.seq, r.trace_rank) in gstart]
pm = mem[mem.coll.isin(["send", "recv"])]
s0 = sorted(sh)[len(sh) // 2]
off = [r for r in pm.itertuples()
       if abs(r.start_ns - s0 - gstart.get((r.pg_name, r.seq, r.trace_rank),
                                          -10**18)) > 1000]
if off or len(pm) < 8:
    bad.append("%d of %d p2p members off their ground-truth instance"
               % (len(off), len(pm)))
# merged trace: each flow chain's kernels belong to one gt instance
doc = json.loads(gzip.open(mt).read())
ev = doc["traceEvents"]
byrank = collections.defaultdict(list)  # rank -> (start_ns, key)
for c in gtp2p.values():
    for m in c["members"]:
        byrank[m["rank"]].append((m["start_ns"], (c["pg_name"], c["seq"])))
sl = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X" and "coll" in (e.get("args") or {}):
        sl[(e["pid"], e["tid"])].append(e)
kts = [round(e["ts"] * 1000) for v in sl.values() for e in v]
ch = collections.defaultdict(list)
for e in ev:
    if e.get("ph") in ("s", "t", "f"):
        x = [k for k in sl[(e["pid"], e["tid"])]
             if k["ts"] <= e["ts"] <= k["ts"] + k["dur"]][0]
        ch[e["id"]].append((e["pid"], round(x["ts"] * 1000), x["args"]))
# one clock shift: the merged time of a kernel whose args name its instance
t0 = []
for v in sl.values():
    for e in v:
        a = e["args"]
        k = (a["pg"], a["seq"], e["pid"])
        if a["coll"] not in ("send", "recv") and k in gstart:
            t0.append(round(e["ts"] * 1000) - gstart[k])
t0 = sorted(t0)[len(t0) // 2]
n_mixed = n_p2p = 0
for v in ch.values():
    if v[0][2]["coll"] not in ("send", "recv"):
        continue
    keys = set()
    for pid, ts, a in v:
        best = min(byrank[pid], key=lambda p: abs(p[0] + t0 - ts))
        keys.add(best[1])
        if abs(best[0] + t0 - ts) > 1000:
            bad.append("no p2p member of rank %d at %d" % (pid, ts))
        if (a["pg"], a["seq"]) != best[1]:
            bad.append("merged trace args pg %s seq %s on the kernel of "
                       "pg %s seq %s" % (a["pg"], a["seq"], *best[1]))
    n_p2p += 1
    n_mixed += len(keys) != 1
if n_mixed:
    bad.append("%d of %d p2p flows join kernels of different instances"
               % (n_mixed, n_p2p))
if n_p2p < 4:
    bad.append("only %d p2p flows" % n_p2p)
if bad:
    print("p2p check: FAIL: " + "; ".join(bad[:6]))
    sys.exit(1)
print("p2p check: ok: %d p2p instances, %d flows (%d p2p)"
      % (len(p2p), len(ch), n_p2p))
PY
done
