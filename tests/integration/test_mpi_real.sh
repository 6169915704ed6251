#!/bin/bash
# Real traces from ../shared/traces (skipped when absent):
#  - dlrm_v100_8rank: 8 ranks, each with 8 NCCL kernels without collective
#    metadata (5 ncclKernel_SendRecv for all-to-all, 3 ncclKernel_AllReduce):
#    8 instances of 8 members, matched by order, nothing unmatched; the file
#    is identical under -n 1, 3 and 8;
#  - nccl_a100: rank 0 of 2 alone (--allow_missing): 21 NCCL kernels (15
#    all-reduce, 6 broadcast) -> 21 incomplete instances.
set -eu
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
S=${TLM_SHARED_DIR:-}/traces
[ -n "${TLM_SHARED_DIR:-}" ] && [ -d "$S/dlrm_v100_8rank" ] && [ -d "$S/nccl_a100" ] || {
    echo "TLM_SHARED_DIR/traces absent: skipped"; exit 77; }
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${TLM_WORK_DIR:-$(mktemp -d)}/real
rm -rf "$W"; mkdir -p "$W"

for n in 1 3 8; do
    "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$S/dlrm_v100_8rank" \
        --output "$W/dlrm$n.h5" --output_dir "$W/dlrm$n" --quiet
done
PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W/dlrm1.h5" <<'PY'
import sys, tlmpi_h5
t = tlmpi_h5.load(sys.argv[1])
tr, inst = t["traces"], t["collectives/instances"]
assert list(tr.trace_rank) == list(range(8)), tr
assert list(tr.dist_rank) == list(range(8))
assert all(tr.n_coll_records == 8), tr.n_coll_records
assert len(inst) == 8, inst
assert sorted(inst.coll.value_counts().items()) == [("allreduce", 3), ("alltoall", 5)], inst.coll
assert all(inst.n_members == 8) and all(inst.incomplete == 0)
assert list(inst.seq_src.unique()) == ["ordinal"]
assert len(t["collectives/per_rank"]) == 64
assert len(t["collectives/unmatched"]) == 0
assert len(t["timeline"]) == 8 and all(t["timeline"].busy_ns > 0)
assert t.attrs["world_size"] == 8 and t.attrs["schema_version"] == 1
PY
for n in 3 8; do
    for d in traces timeline collectives/instances collectives/per_rank \
             collectives/unmatched collectives/summary collectives/clock \
             stragglers; do
        cmp <(h5dump -d "/$d" "$W/dlrm1.h5" | tail -n +2) \
            <(h5dump -d "/$d" "$W/dlrm$n.h5" | tail -n +2) ||
            { echo "/$d differs between -n 1 and -n $n"; exit 1; }
    done
    for c in "$W"/dlrm1/*.csv; do cmp "$c" "$W/dlrm$n/$(basename "$c")"; done
done

"$MPIEXEC" -n 2 "$TLMPI" "$S/nccl_a100/nccl_data.json.gz" --allow_missing \
    --output "$W/a100.h5" --output_dir "$W/a100" --quiet
PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W/a100.h5" <<'PY'
import sys, tlmpi_h5
t = tlmpi_h5.load(sys.argv[1])
inst = t["collectives/instances"]
assert len(t["traces"]) == 1 and t.attrs["world_size"] == 2
assert len(inst) == 21, inst
assert sorted(inst.coll.value_counts().items()) == [("allreduce", 15), ("broadcast", 6)]
assert all(inst.incomplete == 1) and all(inst.n_members == 1)
PY
echo "real traces: dlrm 8 instances x 8 ranks (same under -n 1/3/8), nccl_a100 21"
