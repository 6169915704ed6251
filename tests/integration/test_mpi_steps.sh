#!/bin/bash
# Per-step analysis (docs/metrics-steps.md) on a synthesized 4-rank job of
# 6 steps whose step 4 is slow (tlmpi-synth --slow_step): under mpirun -n 1,
# 2, 4 and 8 the per-step tables are identical, step 4 alone is flagged as
# an outlier, the per-rank rows are consistent (compute, collective and
# exposed communication within the GPU busy time, idle = step - busy), and
# report.md shows the section; --steps restricts the tables to the steps
# it names and a bad --steps is a usage error.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/scripts/env.sh"
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
command -v h5dump >/dev/null || { echo "h5dump missing: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/steps
rm -rf "$W"; mkdir -p "$W"
J=$W/job
"$TLMPI_SYNTH" --out "$J" --world_size 4 --tp 2 --steps 6 --layers 1 \
    --hidden 256 --heads 4 --seq_len 64 --vocab 1024 --jitter_us 5 \
    --slow_step 4 --slow_step_delay_us 1000 >/dev/null

run() { # n output-tag [options...]
    local n=$1 tag=$2
    shift 2
    "$MPIEXEC" -n "$n" "$TLMPI" --trace_dir "$J" --output "$W/$tag.h5" \
        --output_dir "$W/$tag" --quiet "$@"
}

for n in 1 2 4 8; do run $n n$n; done
for n in 2 4 8; do
    for d in steps/per_rank steps/summary; do
        cmp <(h5dump -d "/$d" "$W/n1.h5" | tail -n +2) \
            <(h5dump -d "/$d" "$W/n$n.h5" | tail -n +2) ||
            { echo "/$d differs between -n 1 and -n $n"; exit 1; }
    done
    cmp <(sed -n '/^## Steps/,/^## Top ops/p' "$W/n1/report.md") \
        <(sed -n '/^## Steps/,/^## Top ops/p' "$W/n$n/report.md") ||
        { echo "report.md's steps differ between -n 1 and -n $n"; exit 1; }
done

check() { # h5 expected-steps(comma list) expected-outliers
    PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$@" <<'PY'
import sys
import tlmpi_h5
t = tlmpi_h5.load(sys.argv[1])
want = [int(x) for x in sys.argv[2].split(",")]
outl = [int(x) for x in sys.argv[3].split(",") if x]
pr, sm, tl = t["steps/per_rank"], t["steps/summary"], t["timeline"]
def ok(cond, what):
    if not cond:
        sys.exit("%s: %s" % (sys.argv[1], what))
ok(len(pr) == 4 * len(want), "per_rank rows %d" % len(pr))
ok(list(pr.trace_rank) == sorted(pr.trace_rank), "per_rank not by rank")
for r, g in pr.groupby("trace_rank"):
    ok(list(g.step) == want, "rank %d steps %s" % (r, list(g.step)))
ok(list(sm.step) == want, "summary steps %s" % list(sm.step))
ok((sm.n_ranks == 4).all(), "n_ranks")
ok((pr.dur_ns > 0).all(), "step time")
ok((pr.gpu_busy_ns > 0).all(), "GPU busy")
ok((pr.idle_ns == pr.dur_ns - pr.gpu_busy_ns).all(), "idle")
for c in ("compute_ns", "comm_ns"):
    ok((pr[c] <= pr.gpu_busy_ns).all(), c + " > busy")
ok((pr.exposed_comm_ns <= pr.comm_ns).all(), "exposed > comm")
ok((pr.comm_ns > 0).all(), "no collective time")
busy = pr.groupby("trace_rank").gpu_busy_ns.sum()
for r in tl.itertuples():
    ok(busy[r.trace_rank] <= r.busy_ns, "steps busier than the timeline")
for s in sm.itertuples():
    g = pr[pr.step == s.step]
    ok(s.dur_max_ns == g.dur_ns.max(), "dur_max")
    ok(s.slowest_rank == g[g.dur_ns == g.dur_ns.max()].trace_rank.min(),
       "slowest rank")
    ok(s.dur_median_ns == g.dur_ns.median(), "median")
ok(sorted(sm[sm.outlier == 1].step) == outl,
   "outliers %s" % list(sm[sm.outlier == 1].step))
PY
}
check "$W/n1.h5" 1,2,3,4,5,6 4
grep -q '^## Steps (ms)' "$W/n1/report.md"
grep -q '^| 4 | 4 | .*| \*\*yes\*\* |$' "$W/n1/report.md" ||
    { echo "report.md does not flag step 4"; exit 1; }
[ "$(grep -c '\*\*yes\*\*' "$W/n1/report.md")" = 1 ]

# --steps: per-step tables of those steps only, same under -n 1 and -n 4
run 1 sel1 --steps 2,4-5
run 4 sel4 --steps=2,4-5
check "$W/sel1.h5" 2,4,5 4
for d in steps/per_rank steps/summary; do
    cmp <(h5dump -d "/$d" "$W/sel1.h5" | tail -n +2) \
        <(h5dump -d "/$d" "$W/sel4.h5" | tail -n +2)
done
grep -q -- '--steps 2,4-5' "$W/sel1/report.md"
# a stricter threshold flags nothing
run 2 loose --step_outlier_pct 100000
PYTHONPATH="$SRC/scripts" /usr/bin/python3 -c '
import sys, tlmpi_h5
s = tlmpi_h5.load(sys.argv[1])["steps/summary"]
assert len(s) == 6 and (s.outlier == 0).all()' "$W/loose.h5"
# no step selected: empty tables, the report says so
run 2 none --steps 99
PYTHONPATH="$SRC/scripts" /usr/bin/python3 -c '
import sys, tlmpi_h5
t = tlmpi_h5.load(sys.argv[1])
assert len(t["steps/per_rank"]) == 0 and len(t["steps/summary"]) == 0' \
    "$W/none.h5"
grep -q 'No ProfilerStep#N spans selected by --steps 99' "$W/none/report.md"
# bad selections are usage errors
for bad in 5-3 x 1,,2; do
    rc=0
    "$MPIEXEC" -n 1 "$TLMPI" --trace_dir "$J" --output "$W/bad.h5" \
        --steps "$bad" 2>"$W/bad.err" || rc=$?
    [ $rc = 2 ] || { echo "--steps $bad: exit $rc, expected 2"; exit 1; }
    grep -q -- "--steps '$bad'" "$W/bad.err"
    [ ! -e "$W/bad.h5" ]
done
echo "per-step tables identical under -n 1/2/4/8; outlier step 4 found;" \
     "--steps selects"
