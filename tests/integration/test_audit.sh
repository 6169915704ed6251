#!/bin/bash
# tlmpi audit over a root of synthetic runs (tlmpi-synth) of several world
# sizes, named in real-world styles, with an injected straggler and clock
# offsets, one truncated trace, one missing rank, a folder of non-traces
# and a run reached through symbolic links:
#   - exit status 3 (published, some runs failed), each offender named on
#     stderr and in /runs.reason;
#   - every /runs column of every ok run against the generator's ground
#     truth (world size, traces, instances, bus bandwidth per kind, arrival
#     skew, clock offsets, straggler), the step time against the
#     ProfilerStep spans read from the raw traces here, and the GPU
#     timeline means against the run's own tlmpi.h5;
#   - the same tables under mpirun -n 2 and -n 4; each run's tlmpi.h5
#     equal to a single analysis of its folder; --baseline; the loader's
#     load_run/load_runs from another folder.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/audit
rm -rf "$W"; mkdir -p "$W"
R=$W/root
fail() { echo "FAIL: $*"; exit 1; }

synth() { # out [options]
    mkdir -p "$(dirname "$1")"
    "$TLMPI_SYNTH" --out "$1" --quiet --steps 3 --layers 2 "${@:2}"
}
synth "$R/llama/n4" --world_size 4 --tp 2 --seed 1
synth "$R/llama/n8" --world_size 8 --tp 2 --seed 2 --straggler 5 \
    --straggler_delay_us 800 --gpus_per_node 4 --node_offset_us 0,250
synth "$R/llama/n16" --world_size 16 --tp 4 --seed 3 \
    --gpus_per_node 8 --clock_offset_us 300 --jitter_us 20
synth "$R/moe/megatron" --world_size 4 --tp 2 --seed 4 \
    --name_pattern 'megatron_kineto_{r}.json'
synth "$W/perrank" --world_size 4 --tp 2 --seed 5
for r in 0 1 2 3; do
    mkdir -p "$R/moe/perrank/rank$r"
    mv "$W/perrank/rank${r}_trace.json" "$R/moe/perrank/rank$r/trace.json"
done
mv "$W/perrank/ground_truth.json" "$R/moe/perrank/"
synth "$R/gz" --world_size 4 --tp 2 --seed 6 --gzip \
    --name_pattern 'rank-{r}.json.gz'
synth "$R/tb" --world_size 4 --tp 2 --seed 7 \
    --name_pattern 'worker{r}_step_12.1694128201545.pt.trace.json'
synth "$R/broken" --world_size 4 --tp 2 --seed 8
head -c 20000 "$R/broken/rank2_trace.json" > "$W/cut"
mv "$W/cut" "$R/broken/rank2_trace.json"
synth "$R/missing" --world_size 4 --tp 2 --seed 9
rm "$R/missing/rank3_trace.json"
mkdir -p "$R/notes" "$R/link"
echo "# notes" > "$R/notes/README.md"
echo '{"lr": 0.1, "events": []}' > "$R/notes/config.json"
printf '\211HDF\r\n\032\n' > "$R/notes/old.h5"
: > "$R/notes/empty.json"
for r in 0 1 2 3; do
    ln -s "../llama/n4/rank${r}_trace.json" "$R/link/rank${r}_trace.json"
done

run_audit() { # nprocs out [options]
    local n=$1 out=$2 rc=0
    shift 2
    "$MPIEXEC" -n "$n" "$TLMPI" audit "$R" --output_dir "$out" "$@" \
        2> "$out.err" || rc=$?
    [ $rc = 3 ] || { cat "$out.err"; fail "-n $n: exit $rc, expected 3"; }
}
# sanitizer builds (several times slower) check -n 2 only
SAN=0
grep -qs '^TLM_SANITIZER:STRING=.' "${TLM_BUILD_DIR:-/nonexistent}/CMakeCache.txt" &&
    SAN=1
run_audit 2 "$W/a2"
[ $SAN = 1 ] || run_audit 4 "$W/a4" --quiet
err=$W/a2.err
grep -q 'run broken: FAILED: .*broken/rank2_trace.json' "$err" ||
    { cat "$err"; fail "the truncated trace is not named"; }
grep -q 'run missing: FAILED: .*3' "$err" ||
    { cat "$err"; fail "the missing rank is not named"; }
grep -q 'notes/README.md' "$err" || fail "non-traces not listed on stderr"
for f in audit.h5 audit.md runs.csv runs/llama/n8/tlmpi.h5 \
         runs/llama/n8/report.md runs/moe/perrank/tlmpi.h5; do
    [ -f "$W/a2/$f" ] || fail "missing output $f"
done
[ ! -e "$W/a2/runs/broken/tlmpi.h5" ] || fail "a failed run left a file"
if ls -a "$W/a2" "$W/a2/runs"/* | grep -q 'tlmpi-.*\.tmp'; then
    fail "temporaries left"
fi

# every column against the ground truth
PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$R" "$W/a2/audit.h5" <<'PY'
import json, math, os, sys
import tlmpi_h5
root, path = sys.argv[1], sys.argv[2]
a = tlmpi_h5.load(path)
runs = a["runs"].set_index("run")
bad = []
def check(run, col, want, tol=0.0):
    got = runs.loc[run, col]
    ok = (abs(got - want) <= tol * max(1.0, abs(want))) if tol else got == want
    if not ok:
        bad.append("%s.%s = %r, expected %r" % (run, col, got, want))
order = list(a["runs"]["run"])
if order != sorted(order) or list(a["runs"]["index"]) != list(range(len(order))):
    bad.append("runs not numbered in path order: %s" % order)
want_status = {"broken": "failed", "missing": "failed"}
for run in ["llama/n4", "llama/n8", "llama/n16", "moe/megatron",
            "moe/perrank", "gz", "tb", "link", "broken", "missing"]:
    if run not in runs.index:
        bad.append("run %s not found" % run)
        continue
    check(run, "status", want_status.get(run, "ok"))
if "notes" in runs.index:
    bad.append("notes/ became a run")
for run, needle in [("broken", "rank2_trace.json"), ("missing", "3")]:
    if needle not in runs.loc[run, "reason"]:
        bad.append("%s: reason %r lacks %r" % (run, runs.loc[run, "reason"],
                                               needle))
for run, other in [("link", "llama/n4"), ("llama/n4", "link")]:
    if "also in run " + other not in runs.loc[run, "reason"]:
        bad.append("%s: reason %r does not name %s" %
                   (run, runs.loc[run, "reason"], other))
skipped = set(a["skipped"]["path"])
for f in ["notes/README.md", "notes/config.json", "notes/old.h5",
          "notes/empty.json"]:
    if f not in skipped:
        bad.append("%s not in /skipped" % f)

def step_truth(folder):
    """dur_max_ns of every ProfilerStep#N, read from the raw traces of the
    run (decimal microseconds, exact): the slowest rank's span per step."""
    import decimal, glob, gzip
    worst = {}
    for f in glob.glob(os.path.join(folder, "**", "*"), recursive=True):
        if os.path.basename(f) == "ground_truth.json" or os.path.isdir(f):
            continue
        op = gzip.open if f.endswith(".gz") else open
        with op(f, "rt") as fh:
            doc = json.load(fh, parse_float=decimal.Decimal)
        seen = {}
        for e in doc["traceEvents"]:
            n = e.get("name", "")
            if e.get("ph") == "X" and n.startswith("ProfilerStep#"):
                a, b = e["ts"], e["ts"] + e["dur"]
                lo, hi = seen.get(n, (a, b))
                seen[n] = (min(lo, a), max(hi, b))
        for n, (a, b) in seen.items():
            ns = int((decimal.Decimal(b) - decimal.Decimal(a)) * 1000)
            worst[n] = max(worst.get(n, 0), ns)
    return sorted(worst.values())

kind = {"allreduce": "allreduce", "_allgather_base": "allgather",
        "_reduce_scatter_base": "reducescatter", "all_to_all": "alltoall",
        "all_to_allv": "alltoallv", "broadcast": "broadcast", "send": "p2p"}
SYNC = {"allreduce", "allgather", "reducescatter", "alltoall", "alltoallv"}
def factor(k, n):
    if k == "allreduce":
        return 2.0 * (n - 1) / n
    return 1.0 if k in ("broadcast", "p2p") else (n - 1.0) / n

def waits(gt):
    """Per rank: wait it caused (the others' waits where it arrived last,
    ties split) and the all-members collectives it joined."""
    caused, joined = {}, {}
    for c in gt["collectives"]:
        if kind.get(c["name"]) not in SYNC or len(c["ranks"]) < 2:
            continue
        m = c["members"]
        last = max(x["start_ns"] for x in m)
        tied = [x["rank"] for x in m if x["start_ns"] == last]
        w = sum(last - x["start_ns"] for x in m)
        for x in m:
            joined[x["rank"]] = joined.get(x["rank"], 0) + 1
        for r in tied:
            caused[r] = caused.get(r, 0) + w / len(tied)
    return caused, joined
for run in ["llama/n4", "llama/n8", "llama/n16", "moe/megatron",
            "moe/perrank", "gz", "tb"]:
    gt = json.load(open(os.path.join(root, run, "ground_truth.json")))
    p = gt["params"]
    w = p["world_size"]
    for col in ["world_size", "ranks_read", "n_files"]:
        check(run, col, w)
    check(run, "instances", gt["n_collectives"])
    check(run, "incomplete", 0)
    check(run, "unmatched", 0)
    num, den = {}, {}
    for c in gt["collectives"]:
        k = kind.get(c["name"])
        if k:
            num[k] = num.get(k, 0.0) + c["bytes"] * factor(k, len(c["ranks"]))
            den[k] = den.get(k, 0.0) + c["comm_ns"]
    if "alltoallv" in num: # busiest sender: not from the truth here
        num.pop("alltoall", None)
        num.pop("alltoallv")
    for k in num:
        check(run, "busbw_%s_gbps" % k, num[k] / den[k], 0.01)
    sync = sorted(c["skew_ns"] for c in gt["collectives"]
                  if kind.get(c["name"]) in SYNC and len(c["ranks"]) > 1)
    check(run, "max_start_skew_ns", sync[-1], 0.01)
    check(run, "p95_start_skew_ns",
          sync[max(0, math.ceil(0.95 * len(sync)) - 1)], 0.01)
    caused, joined = waits(gt)
    top = min(caused, key=lambda r: (-caused[r], r))
    check(run, "straggler_cost_ns", caused[top], 0.01)
    check(run, "straggler_wait_ns", caused[top] / joined[top], 0.01)
    # a run directly under the root is its own job
    check(run, "job", run.rsplit("/", 1)[0] if "/" in run else run)
    check(run, "gpu_arch", "H100")
    check(run, "h5", "runs/%s/tlmpi.h5" % run)
    off = max(abs(r["clock_offset_ns"]) for r in gt["ranks"])
    check(run, "clock_offset_max_ns", off, 0.01)
    check(run, "straggler_rank",
          p["straggler_rank"] if p.get("straggler_delay_ns", 0) > 0 else -1)
    t = tlmpi_h5.load_run(path, run)
    tl = t["timeline"]
    check(run, "gpu_total_ns", int(tl["total_ns"].sum()) // len(tl))
    check(run, "exposed_comm_ns", int(tl["exposed_comm_ns"].sum()) // len(tl))
    check(run, "comm_ns", int(tl["total_comm_ns"].sum()) // len(tl))
    check(run, "straggler_cost_share", caused[top] / int(tl["total_ns"].sum()),
          0.01)
    check(run, "bytes_on_disk", int(t["traces"]["bytes_on_disk"].sum()))
    ss = t["steps/summary"]
    check(run, "comm_share", ss["exposed_comm_max_ns"].sum() /
          ss["dur_max_ns"].sum(), 1e-12)
    d = step_truth(os.path.join(root, run))
    med = d[len(d) // 2] if len(d) % 2 else d[len(d) // 2 - 1] + \
        (d[len(d) // 2] - d[len(d) // 2 - 1]) // 2
    check(run, "step_time_ns", med)
    check(run, "n_steps", p["steps"])
# the scaling table: llama's base is its 4-rank run
jobs = a["scaling/jobs"].set_index("run")
if jobs.loc["llama/n8", "base_run"] != "llama/n4":
    bad.append("llama/n8's base run is %r" % jobs.loc["llama/n8", "base_run"])
e = jobs.loc["llama/n8"]
if abs(e.eff_weak - e.base_step_time_ns / e.step_time_ns) > 1e-12:
    bad.append("eff_weak of llama/n8")
if not jobs.loc["llama/n8", "stands_out"] & 1:
    bad.append("llama/n8 with its straggler does not stand out")
st = a["scaling/stragglers"]
s5 = st[(st.job == "llama") & (st.trace_rank == 5)]
if len(s5) != 1 or s5.iloc[0].runs_named != 1:
    bad.append("rank 5 of llama not a straggler in /scaling/stragglers")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("audit: %d runs checked against the ground truth" % len(runs))
PY

# the same tables whatever the number of processes
[ $SAN = 1 ] ||
for d in runs scaling/jobs scaling/collectives scaling/stragglers skipped; do
    cmp <(h5dump -d "/$d" "$W/a2/audit.h5" | tail -n +2) \
        <(h5dump -d "/$d" "$W/a4/audit.h5" | tail -n +2) ||
        fail "/$d differs between -n 2 and -n 4"
done

# a run's file is the single analysis of its folder
"$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$R/llama/n8" --output "$W/solo.h5" \
    --no_report --quiet
for d in traces timeline collectives/instances collectives/per_rank \
         collectives/clock stragglers steps/summary ops/merged; do
    cmp <(h5dump -d "/$d" "$W/solo.h5" | tail -n +2) \
        <(h5dump -d "/$d" "$W/a2/runs/llama/n8/tlmpi.h5" | tail -n +2) ||
        fail "/$d of llama/n8 differs from its single analysis"
done

# --baseline: the comparison table and the efficiencies against it
"$MPIEXEC" -n 2 "$TLMPI" audit "$R" --output_dir "$W/ab" --quiet \
    --baseline llama/n4 || [ $? = 3 ] || fail "--baseline run failed"
# the loader from another folder (external links are relative)
(cd / && PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W/ab/audit.h5" <<'PY'
import sys, tlmpi_h5
a = tlmpi_h5.load(sys.argv[1])
cmp = a["comparison"]
runs = set(cmp["run"])
ok = set(a["runs"][a["runs"].status == "ok"]["run"]) - {"llama/n4"}
assert runs == ok, (runs, ok)
row = cmp[(cmp.run == "llama/n8") & (cmp.metric == "step_time_ns")].iloc[0]
r = a["runs"].set_index("run")
assert row.baseline == r.loc["llama/n4", "step_time_ns"], row
assert row.value == r.loc["llama/n8", "step_time_ns"], row
# the baseline is the base of its own series only
j = a["scaling/jobs"].set_index("run")
assert set(j[j.job == "llama"]["base_run"]) == {"llama/n4"}, j
other = j[j.job != "llama"]
assert (other.base_run == other.series).all(), other
tl = tlmpi_h5.load_runs(sys.argv[1], "timeline")
assert len(tl) == 4 + 8 + 16 + 4 * 5, len(tl)
assert list(tl.columns[:2]) == ["run", "trace_rank"]
print("baseline comparison and loader ok")
PY
)
echo "audit ok: -n 2 and -n 4, ground truth, single analysis, baseline"
