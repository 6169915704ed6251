#!/bin/bash
# TraceLens's collective test vector (spec/collectives.md §3.9) through the
# CLI: four hand-written one-kernel-pair traces, analysed under mpirun -n 1,
# 2 and 4; the CSV sheets must carry TraceLens's numbers, and its node
# columns once GPUs per node are known (option or deviceProperties).
set -eu
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
# mpirun waits 2 s before reaping a job with a non-zero exit otherwise
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/tracelens
rm -rf "$W"; mkdir -p "$W/traces"

kernel() { # ts dur correlation
    printf '{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":7,"ts":%s,"dur":%s,"args":{"External id":%s,"device":0,"stream":7,"correlation":%s,"Collective name":"allreduce","In msg nelems":1024,"Out msg nelems":1024,"Group size":4,"dtype":"Float","In split size":"[]","Out split size":"[]","Process Group Name":"0","Process Group Description":"default_pg","Process Group Ranks":"[0, 1, 2, 3]"}}' "$1" "$2" "$3" "$3"
}
ts0=(100 110 130 100); dur0=(50 40 20 50)
for r in 0 1 2 3; do
    { printf '{"distributedInfo":{"backend":"nccl","rank":%d,"world_size":4},"traceEvents":[' "$r"
      kernel "${ts0[$r]}" "${dur0[$r]}" 1; printf ','
      kernel 1000 30 2; printf ']}\n'; } > "$W/traces/rank${r}_trace.json"
done

# n = 0: without mpirun (singleton MPI, every trace in one process)
for n in 0 1 2 4 6; do
    out="$W/out$n"; mkdir -p "$out"
    if [ $n = 0 ]; then
        "$TLMPI" --trace_dir "$W/traces" --output "$out/t.h5" --quiet
    else
        "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$W/traces" \
            --output "$out/t.h5" --quiet
    fi
    cd "$out"
    /usr/bin/python3 - <<'PY'
import csv, math
rows = {r["collective_id"]: r for r in csv.DictReader(open("nccl_implicit_sync.csv"))}
a, b = rows["0_0"], rows["0_1"]
def eq(r, k, v):
    assert r[k] == v, (k, r[k], v)
eq(a, "Process Group Ranks", "[0, 1, 2, 3]")
eq(a, "comm_latency", "20.0"); eq(a, "skew in start time", "30.0")
eq(a, "earliest arrival rank", "3"); eq(a, "avg_wait_time", "20.0")
eq(a, "skew in end time", "0.0")
assert abs(float(a["algo bw (GB/s)"]) - 0.190735) < 1e-6, a
assert abs(float(a["bus bw (GB/s)"]) - 0.286102) < 1e-6, a
assert [a["rank_%d_wait_time" % r] for r in range(4)] == ["30.0", "20.0", "0.0", "30.0"], a
assert [a["rank_%d_ts" % r] for r in range(4)] == ["100.0", "110.0", "130.0", "100.0"], a
eq(b, "comm_latency", "30.0"); eq(b, "skew in start time", "0.0")
eq(b, "earliest arrival rank", "3")
assert abs(float(b["algo bw (GB/s)"]) - 0.127157) < 1e-6, b
s = list(csv.DictReader(open("nccl_summary_implicit_sync.csv")))
assert len(s) == 1, s
s = s[0]
eq(s, "comm_latency_mean", "25.0"); eq(s, "skew in start time_mean", "15.0")
eq(s, "count", "2"); eq(s, "Total comm latency (ms)", "0.05")
assert abs(float(s["algo bw (GB/s)_mean"]) - 0.158946) < 1e-6, s
assert abs(float(s["bus bw (GB/s)_mean"]) - 0.238419) < 1e-6, s
PY
    want='rank,total_wait_time_us,mean_wait_time_us,times_arrived_last,times_arrived_first,pct_arrived_last,num_collectives,total_nccl_dur_us
2,0.0,0.0,1,0,50.0,2,50.0
1,20.0,10.0,0,0,0.0,2,70.0
0,30.0,15.0,1,0,50.0,2,80.0
3,30.0,15.0,0,2,0.0,2,80.0'
    [ "$(cat straggler_summary.csv)" = "$want" ] ||
        { echo "straggler_summary (n=$n):"; cat straggler_summary.csv; exit 1; }
    [ -s report.md ] && grep -q '^# tlmpi report' report.md
    cd - >/dev/null
done
# the sheets do not depend on the number of MPI ranks
for s in nccl_implicit_sync nccl_long nccl_summary_long straggler_summary \
         nccl_summary_implicit_sync; do
    for n in 0 2 4 6; do cmp "$W/out1/$s.csv" "$W/out$n/$s.csv"; done
done
# node columns (TraceLens's add_node_span_columns): none without GPUs per
# node (these traces have no deviceProperties), node_id = rank / G and
# node_span of "Process Group Ranks" with --gpus_per_node G, or with G the
# length of the first trace's deviceProperties (the option overrides it)
if head -n 1 "$W/out1/nccl_long.csv" | grep -q node; then
    echo "node columns without GPUs per node"; exit 1
fi
grep -q 'GPUs per node: unknown' "$W/out1/report.md"
node_run() { # node_run DIR TRACES [OPTION...]
    local out="$1" tr="$2"
    shift 2
    mkdir -p "$out"
    "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$tr" --output "$out/t.h5" --quiet "$@"
}
node_run "$W/g2" "$W/traces" --gpus_per_node 2
want='rank,total_wait_time_us,mean_wait_time_us,times_arrived_last,times_arrived_first,pct_arrived_last,num_collectives,total_nccl_dur_us,node_id
2,0.0,0.0,1,0,50.0,2,50.0,1
1,20.0,10.0,0,0,0.0,2,70.0,0
0,30.0,15.0,1,0,50.0,2,80.0,0
3,30.0,15.0,0,2,0.0,2,80.0,1'
[ "$(cat "$W/g2/straggler_summary.csv")" = "$want" ] ||
    { echo "straggler_summary with node_id:"; cat "$W/g2/straggler_summary.csv"; exit 1; }
head -n 1 "$W/g2/nccl_long.csv" | grep -q ',ts,dur,node_id,node_span$'
grep -q '^0_1,1,3,.*,1,inter_node$' "$W/g2/nccl_long.csv"
head -n 1 "$W/g2/nccl_implicit_sync.csv" | grep -q ',rank_3_wait_time,node_span$'
[ "$(tail -n +2 "$W/g2/nccl_implicit_sync.csv" | grep -c ',inter_node$')" = 2 ]
grep -q 'GPUs per node: 2 (from `--gpus_per_node`)' "$W/g2/report.md"
# the same traces with four GPUs in deviceProperties: one node
mkdir -p "$W/dev"
for r in 0 1 2 3; do
    sed 's/^{"distributedInfo"/{"deviceProperties":[{"id":0,"name":"G"},{"id":1,"name":"G"},{"id":2,"name":"G"},{"id":3,"name":"G"}],"distributedInfo"/' \
        "$W/traces/rank${r}_trace.json" > "$W/dev/rank${r}_trace.json"
done
node_run "$W/d4" "$W/dev"
grep -q 'GPUs per node: 4 (from the deviceProperties' "$W/d4/report.md"
[ "$(tail -n +2 "$W/d4/nccl_long.csv" | grep -c ',0,intra_node$')" = 8 ]
[ "$(tail -n +2 "$W/d4/straggler_summary.csv" | grep -c ',0$')" = 4 ]
node_run "$W/d1" "$W/dev" --gpus_per_node 1
[ "$(tail -n +2 "$W/d1/nccl_implicit_sync.csv" | grep -c ',inter_node$')" = 2 ]
echo "TraceLens test vector reproduced without mpirun and under -n 1, 2, 4, 6;"
echo "node columns from --gpus_per_node and from deviceProperties"
