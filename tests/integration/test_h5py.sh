#!/bin/bash
# The notebook contract: scripts/tlmpi_h5.py under Debian's /usr/bin/python3
# (h5py + pandas) loads every dataset of a tlmpi file into DataFrames with
# decoded strings, units and attributes; the files of -n 1 and -n 4 load
# equal; docs/hdf5-schema.md carries the schema that `tlmpi --print_schema`
# prints (the same X-macro lists that define the file).
set -eu
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null || {
    echo "h5py/pandas missing for /usr/bin/python3: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/h5py
rm -rf "$W"; mkdir -p "$W/traces"

kernel() { # ts dur id pg
    printf '{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)","pid":0,"tid":7,"ts":%s,"dur":%s,"args":{"External id":%s,"stream":7,"correlation":%s,"Collective name":"allreduce","In msg nelems":4096,"Out msg nelems":4096,"Group size":4,"dtype":"BFloat16","Process Group Name":"%s","Process Group Description":"default_pg","Process Group Ranks":"[0, 1, 2, 3]"}}' "$1" "$2" "$3" "$3" "$4"
}
for r in 0 1 2 3; do
    { printf '{"distributedInfo":{"rank":%d,"world_size":4},"baseTimeNanoseconds":1700000000000000000,"traceEvents":[' "$r"
      kernel $((100 + 7 * r)).125 $((60 - 7 * r)) 1 0; printf ','
      kernel 1000.5 30.25 2 0; printf ','
      kernel 2000 $((40 + r)) 3 0; printf ']}\n'; } > "$W/traces/rank${r}.json"
done
"$MPIEXEC" -n 1 "$TLMPI" --trace_dir "$W/traces" --output "$W/n1.h5" --quiet --no_report
"$MPIEXEC" -n 4 "$TLMPI" --trace_dir "$W/traces" --output "$W/n4.h5" --quiet --no_report
[ ! -e "$W/report.md" ] || { echo "--no_report wrote report.md"; exit 1; }

PYTHONPATH="$SRC/scripts" /usr/bin/python3 - "$W/n1.h5" "$W/n4.h5" <<'PY'
import sys
import numpy as np
import tlmpi_h5
a = tlmpi_h5.load(sys.argv[1])
b = tlmpi_h5.load(sys.argv[2])
want = {"traces", "timeline", "ops/per_rank", "ops/merged", "ops_unique_args",
        "kernels", "collectives/instances", "collectives/per_rank",
        "collectives/unmatched", "collectives/summary", "collectives/clock",
        "stragglers", "straggler_causes", "steps/per_rank", "steps/summary",
        "findings"}
assert set(a) == want, sorted(a)
assert a.attrs["schema_version"] == 1 and a.attrs["world_size"] == 4
assert a.attrs["n_traces"] == 4
assert "--trace_dir" in a.attrs["command_line"]
inst = a["collectives/instances"]
assert len(inst) == 3, inst
assert inst.pg_name.tolist() == ["0", "0", "0"]          # decoded str
assert isinstance(inst.dtype.iloc[0], str) and inst.dtype.iloc[0] == "BFloat16"
assert inst.seq_src.tolist() == ["ordinal"] * 3
assert inst.coll.tolist() == ["allreduce"] * 3
assert inst.bytes.tolist() == [8192] * 3
# exact nanoseconds: first collective, ranks start at 100.125 + 7r us and
# all end at 160.125 us: comm latency = min dur = 39 us, skew = 21 us
first = inst.sort_values("first_start_ns").iloc[0]
assert first.comm_latency_ns == 39000, first
assert first.start_skew_ns == 21000, first
assert first.first_start_ns == 1700000000000000000 + 100125, first.first_start_ns
assert first.last_rank == 3 and first.first_rank == 0
assert inst.dtypes["comm_latency_ns"] == np.int64
assert a.units["collectives/instances"]["comm_latency_ns"] == "ns"
assert a.units["collectives/instances"]["busbw_gbps"] == "GB/s"
assert "collective instance" in a.docs["collectives/instances"]
per = a["collectives/per_rank"]
assert len(per) == 12 and per.trace_rank.tolist() == sorted(per.trace_rank)
tr = a["traces"]
assert tr.trace_rank.tolist() == [0, 1, 2, 3]
assert tr.file.str.endswith(".json").all()
assert (tr.base_time_ns == 1700000000000000000).all()
for k in want:
    x, y = a[k], b[k]
    assert list(x.columns) == list(y.columns), k
    assert x.equals(y), (k, x, y)
print("loader ok:", ", ".join("%s=%d" % (k, len(a[k])) for k in sorted(a)))
PY

# docs/hdf5-schema.md holds exactly what --print_schema prints
"$TLMPI" --print_schema > "$W/schema.md"
/usr/bin/python3 - "$W/schema.md" "$SRC/docs/hdf5-schema.md" <<'PY'
import sys
gen, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert gen.strip() and gen in doc, "docs/hdf5-schema.md is out of date: " \
    "regenerate its dataset part with `tlmpi --print_schema`"
PY
echo "h5py/pandas loader and schema docs ok"
