#!/bin/bash
# HTA's tables (docs/hta.md) against HTA's own output
# (shared/traces/<folder>/hta_csvs, spec/hta.md §12), table by table and
# key by key (compare_hta.py): `tlmpi report --hta` on the three single
# traces, and the 8-rank DLRM job under mpirun -n 1, 2, 4 and 8 (CSVs and
# HDF5 /hta, which must hold the same rows), with the kernel sequences of
# rank 0.  Needs TLM_SHARED_DIR (skipped without it).
set -u
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
S=${TLM_SHARED_DIR:-}/traces
[ -n "${TLM_SHARED_DIR:-}" ] && [ -d "$S/dlrm_v100_8rank/hta_csvs" ] || {
    echo "TLM_SHARED_DIR/traces absent: skipped"; exit 77; }
PY=/usr/bin/python3
"$PY" -c 'import pandas, h5py' 2>/dev/null || { echo "skip: no pandas"; exit 77; }
CMP="$SRC/tests/integration/compare_hta.py"
W="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$W"
mkdir -p "$W"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# single traces
for t in qwen_h100/trace.json.gz nccl_a100/nccl_data.json.gz \
         resnet_mi300/resnet_act_checkpoint.json.gz; do
    d=$(dirname "$t")
    if ! "$TLMPI" report "$S/$t" --output_csvs_dir "$W/$d" --hta --quiet \
            > "$W/$d.log" 2>&1; then
        bad "report --hta $t: $(tail -3 "$W/$d.log")"
        continue
    fi
    "$PY" "$CMP" "$W/$d/hta" "$S/$d/hta_csvs" || bad "$d differs from HTA"
    grep -q '^## HTA' "$W/$d/report.md" || bad "$d: no HTA section"
done
# Q1/Q2 on the H100 trace: counted in report.md
grep -q '1975 events had duration -1 us' "$W/qwen_h100/report.md" ||
    bad "qwen: Q1 count missing"
grep -q 'Q2: temporal_breakdown has a negative time' \
    "$W/qwen_h100/report.md" || bad "qwen: Q2 note missing"
# Q8: ROCm launches counted on MI300 (HTA has no rows there)
[ "$(wc -l < "$W/resnet_mi300/hta/cuda_kernel_launch_stats.csv")" -gt 1 ] ||
    bad "resnet: no ROCm launch rows"
# --hta_time ns keeps nanoseconds: no -1 durations noted
"$TLMPI" report "$S/qwen_h100/trace.json.gz" --output_csvs_dir "$W/ns" \
    --hta --hta_time ns --quiet > "$W/ns.log" 2>&1 || bad "--hta_time ns"
grep -q 'duration -1 us' "$W/ns/report.md" && bad "--hta_time ns rounded"

# the 8-rank DLRM job
D="$S/dlrm_v100_8rank"
for n in 1 2 4 8; do
    o="$W/job$n"
    if ! "$MPIEXEC" -n $n "$TLMPI" --trace_dir "$D" --hta \
            --hta_kernel_sequences autograd::engine::evaluate_function \
            --output "$o/out.h5" --output_dir "$o" --quiet \
            > "$W/job$n.log" 2>&1; then
        bad "job -n $n: $(tail -3 "$W/job$n.log")"
        continue
    fi
    "$PY" "$CMP" "$o/hta" "$D/hta_csvs" || bad "job -n $n differs from HTA"
    "$PY" - "$o/out.h5" "$o/hta" <<'PY' || bad "job -n $n: HDF5 /hta != CSVs"
import sys, os, math, h5py, pandas as pd
f = h5py.File(sys.argv[1], "r")
for name in sorted(os.listdir(sys.argv[2])):
    t = name[:-4]
    c = pd.read_csv(os.path.join(sys.argv[2], name), keep_default_na=False,
                    na_values=[""])
    d = f["hta/" + t]
    assert list(d.dtype.names) == list(c.columns), (t, d.dtype.names)
    assert "doc" in d.attrs and "units" in d.attrs, t
    h = pd.DataFrame(d[()])
    assert len(h) == len(c), (t, len(h), len(c))
    for col in c.columns:
        for x, y in zip(h[col], c[col]):
            if isinstance(x, bytes):
                s = x.decode()
                if isinstance(y, float) and math.isnan(y):
                    assert s == "", (t, col, x, y)  # empty cell
                elif isinstance(y, (int, float)):  # digits read as numbers
                    assert float(s) == float(y), (t, col, x, y)
                else:
                    assert s == str(y), (t, col, x, y)
            elif not (isinstance(y, float) and math.isnan(y)):
                assert abs(float(x) - float(y)) <= 1e-9 * max(1, abs(float(y))), (t, col, x, y)
PY
done
for n in 2 4 8; do
    for f in "$W/job1/hta/"*.csv; do
        cmp -s "$f" "$W/job$n/hta/$(basename "$f")" ||
            bad "job -n $n: $(basename "$f") differs from -n 1"
    done
done
grep -q '^## HTA' "$W/job4/report.md" || bad "job: no HTA section"
# --hta_rank 3: the kernel sequences of rank 3 alone (its own rows)
if "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" --hta --hta_rank 3 \
        --hta_kernel_sequences autograd::engine::evaluate_function \
        --output "$W/r3/out.h5" --output_dir "$W/r3" --quiet \
        > "$W/r3.log" 2>&1; then
    n3=$(($(wc -l < "$W/r3/hta/frequent_cuda_kernel_sequences.csv") - 1))
    [ "$n3" -gt 0 ] || bad "--hta_rank 3: no kernel sequences"
    cmp -s "$W/r3/hta/frequent_cuda_kernel_sequences.csv" \
        "$W/job2/hta/frequent_cuda_kernel_sequences.csv" &&
        bad "--hta_rank 3 gave rank 0's sequences"
    cmp -s "$W/r3/hta/idle_time_breakdown.csv" \
        "$W/job2/hta/idle_time_breakdown.csv" ||
        bad "--hta_rank changed the per-rank tables"
else
    bad "--hta_rank 3: $(tail -3 "$W/r3.log")"
fi
[ $fail = 0 ] && echo "HTA tables agree with HTA"
exit $fail
