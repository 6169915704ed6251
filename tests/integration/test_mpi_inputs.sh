#!/bin/bash
# The four ways of naming a job's traces (--trace_dir, --trace_pattern,
# --trace_glob + --rank_regex, file arguments) give the same analysis; the
# rank comes from distributedInfo or, without it, from the file name; more
# MPI ranks than traces leave ranks idle.
set -eu
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/inputs
rm -rf "$W"; mkdir -p "$W/dir" "$W/tb/node0" "$W/tb/node1"

kernel() { # ts dur id
    printf '{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllGather_RING_LL(x)","pid":0,"tid":7,"ts":%s,"dur":%s,"args":{"External id":%s,"stream":7,"correlation":%s,"Collective name":"_allgather_base","In msg nelems":256,"Out msg nelems":1024,"Group size":4,"dtype":"Float","Process Group Name":"0","Process Group Ranks":"[0, 1, 2, 3]"}}' "$1" "$2" "$3" "$3"
}
body() { # rank
    kernel $((100 + 10 * $1)) $((80 - 10 * $1)) 1; printf ','
    kernel 500 20 2
}
for r in 0 1 2 3; do
    # with distributedInfo, under names that carry no rank
    { printf '{"distributedInfo":{"rank":%d,"world_size":4},"traceEvents":[' $r
      body $r; printf ']}\n'; } > "$W/dir/host$((7 - r))_trace.json"
    # tensorboard style, no distributedInfo: the rank is in the name only
    { printf '{"traceEvents":['; body $r; printf ']}\n'; } \
        > "$W/tb/node$((r / 2))/rank[$r].pt.trace.json"
done
cp "$W/tb/node0/rank[0].pt.trace.json" "$W/p_0.json"
cp "$W/tb/node0/rank[1].pt.trace.json" "$W/p_1.json"
cp "$W/tb/node1/rank[2].pt.trace.json" "$W/p_2.json"
cp "$W/tb/node1/rank[3].pt.trace.json" "$W/p_3.json"

run() { # name nprocs args...
    local name=$1 n=$2; shift 2
    "$MPIEXEC" -n "$n" "$TLMPI" "$@" --output "$W/$name.h5" --no_report --quiet
    h5dump -d /collectives/instances "$W/$name.h5" | tail -n +2 > "$W/$name.inst"
    h5dump -d /collectives/per_rank "$W/$name.h5" | tail -n +2 >> "$W/$name.inst"
}
run dir 2 --trace_dir "$W/dir"
run glob 3 --trace_glob "$W/tb/*/rank*.json" --rank_regex 'rank\[(?P<rank>\d+)\]'
run globdef 4 --trace_glob "$W/tb/node?/*.json"
run pattern 8 --trace_pattern "$W/p_*.json" --world_size 4
run patglob 1 --trace_pattern "$W/p_*.json"
run files 6 "$W/tb/node1/rank[3].pt.trace.json" "$W/tb/node0/rank[0].pt.trace.json" \
    "$W/tb/node1/rank[2].pt.trace.json" "$W/tb/node0/rank[1].pt.trace.json"
for m in glob globdef pattern patglob files; do
    cmp "$W/dir.inst" "$W/$m.inst" || { echo "--$m differs from --trace_dir"; exit 1; }
done
grep -q '"trace_rank"' "$W/dir.inst"
# the instance really has four members, ranks 0..3
/usr/bin/python3 - "$W/glob.h5" <<'PY' || exit 1
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    inst = f["collectives/instances"][()]
    tr = f["traces"][()]
assert len(inst) == 2 and list(inst["n_members"]) == [4, 4], inst
assert list(tr["trace_rank"]) == [0, 1, 2, 3] and list(tr["name_rank"]) == [0, 1, 2, 3]
assert list(tr["dist_rank"]) == [-1, -1, -1, -1]
PY
echo "input modes agree: dir, glob (+regex), pattern (with/without --world_size), files"
