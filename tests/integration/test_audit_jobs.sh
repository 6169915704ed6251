#!/bin/bash
# tlmpi audit compares like with like (issue 32, item 8):
#   - two 8-rank jobs of different shapes side by side under the root
#     (ROOT/megatron, ROOT/moe) are two jobs: each its own base, nothing
#     "slow for its size", stragglers not summed across them;
#   - the same two runs in one job folder (ROOT/train/...) are one job but
#     two series (their collective signatures differ), said in audit.md;
#   - a run of one series faster than ideal (both efficiencies > 1.1) is
#     flagged, not ranked as low or high efficiency;
#   - with ../shared, the DLRM job (V100) beside a Megatron-like synthetic
#     job, both side by side and in one folder.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED="${TLM_SHARED_DIR:-$SRC/../shared}/traces"
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/audit_jobs
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
synth() { # out [options]
    mkdir -p "$(dirname "$1")"
    "$TLMPI_SYNTH" --out "$1" --quiet --steps 2 "${@:2}"
}
megatron() { synth "$1" --world_size 8 --tp 8 --layers 8 --seed 3 \
    --straggler 5 --straggler_delay_us 800; }
moe() { synth "$1" --world_size 8 --tp 2 --layers 1 --seed 4 \
    --straggler 3 --straggler_delay_us 300; }
audit() { # root out
    "$MPIEXEC" -n 2 "$TLMPI" audit "$1" --output_dir "$2" --quiet \
        2> "$2.err" || { cat "$2.err"; fail "audit of $1 failed"; }
}
check() { # audit.h5 side_by_side|one_folder|flag
    PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$@" <<'PY'
import sys, tlmpi_h5
path, case = sys.argv[1], sys.argv[2]
a = tlmpi_h5.load(path)
runs = a["runs"].set_index("run")
jobs = a["scaling/jobs"].set_index("run")
st = a["scaling/stragglers"]
bad = []
def want(cond, msg):
    if not cond:
        bad.append(msg)
names = sorted(runs.index)
if case in ("side_by_side", "one_folder"):
    for r in names:
        job = r if case == "side_by_side" else r.split("/")[0]
        want(runs.loc[r, "job"] == job, "%s: job %r" % (r, runs.loc[r, "job"]))
        # its own series and base: never compared with the other job
        want(jobs.loc[r, "series"] == r, "%s: series %r" % (r, jobs.loc[r, "series"]))
        want(jobs.loc[r, "base_run"] == r, "%s: base %r" % (r, jobs.loc[r, "base_run"]))
        want(jobs.loc[r, "eff_weak"] == 1.0, "%s: eff %r" % (r, jobs.loc[r, "eff_weak"]))
        want(not jobs.loc[r, "stands_out"] & (2 | 4 | 64),
             "%s stands out for its size or efficiency (%d)" %
             (r, jobs.loc[r, "stands_out"]))
        # stragglers: only this run's waits, counted over this run
        mine = st[st.series == r]
        want(len(mine) > 0 and (mine.runs == 1).all(), "%s: runs %s" %
             (r, list(mine.runs)))
        top = mine.sort_values("wait_caused_ns").iloc[-1]
        want(top.wait_caused_ns == runs.loc[r, "straggler_cost_ns"],
             "%s: stragglers summed across runs (%d, run's own %d)" %
             (r, top.wait_caused_ns, runs.loc[r, "straggler_cost_ns"]))
    want(len(set(st.series)) == len(names), "straggler rows: %s" %
         sorted(set(st.series)))
else:  # flag: llama/n8 faster than ideal against llama/n4
    e = jobs.loc["llama/n8"]
    want(e.base_run == "llama/n4", "n8 base %r" % e.base_run)
    want(e.eff_weak > 1.1 and e.eff_strong > 1.1, "n8 effs %r %r" %
         (e.eff_weak, e.eff_strong))
    want(e.stands_out & 64 and not e.stands_out & 4,
         "n8 stands_out %d" % e.stands_out)
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%s: %s ok" % (path, case))
PY
}

# two jobs of different shapes side by side: two jobs
megatron "$W/r1/megatron"
moe "$W/r1/moe"
audit "$W/r1" "$W/a1"
check "$W/a1/audit.h5" side_by_side || fail "side by side"
grep -q 'slow for its size' "$W/a1/audit.md" && fail "a1: slow for its size"
grep -q 'heads a series' "$W/a1/audit.md" && fail "a1: series note for two jobs"

# the same runs in one job folder: one job, two series, said in audit.md
mkdir -p "$W/r2/train"
cp -r "$W/r1/megatron" "$W/r1/moe" "$W/r2/train/"
audit "$W/r2" "$W/a2"
check "$W/a2/audit.h5" one_folder || fail "one folder"
grep -q '^- job train: train/moe heads a series of its own (against train/megatron: collectives differ, `' \
    "$W/a2/audit.md" || { cat "$W/a2/audit.md"; fail "a2: the split not said"; }

# more than ideal: flagged, not ranked
synth "$W/r3/llama/n4" --world_size 4 --tp 2 --layers 4 --seed 1
synth "$W/r3/llama/n8" --world_size 8 --tp 2 --layers 1 --seed 2
audit "$W/r3" "$W/a3"
check "$W/a3/audit.h5" flag || fail "flag"
grep -q '^| llama | llama/n8 | 8 | [0-9.]* | [0-9.]* (flagged) | [0-9.]* (flagged) |' \
    "$W/a3/audit.md" || { cat "$W/a3/audit.md"; fail "a3: not flagged"; }
grep -q '^| llama/n8 | efficiency above 1.1 (flagged, not ranked' \
    "$W/a3/audit.md" || fail "a3: not in the runs that stand out"

# the shared DLRM job beside a Megatron-like one
D=$SHARED/dlrm_v100_8rank
if [ -d "$D" ]; then
    for r in r4 r5/train; do
        mkdir -p "$W/$r/dlrm"
        ln -s "$D"/*.json "$W/$r/dlrm/"
        megatron "$W/$r/megatron"
    done
    audit "$W/r4" "$W/a4"
    check "$W/a4/audit.h5" side_by_side || fail "DLRM side by side"
    audit "$W/r5" "$W/a5"
    check "$W/a5/audit.h5" one_folder || fail "DLRM in one folder"
    grep -q '^- job train: train/megatron heads a series of its own (against train/dlrm: collectives differ' \
        "$W/a5/audit.md" || fail "a5: the split not said"
else
    echo "($D absent: DLRM part skipped)"
fi
echo "audit jobs ok"
