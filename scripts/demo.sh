#!/usr/bin/env bash
# Demo: installs what is missing, builds, synthesizes an 8-rank training job
# (one Kineto trace per rank, with a straggler and per-node clock offsets),
# analyses it with `mpirun -n 8 tlmpi --trace_dir <job>`, and says where the
# outputs are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
. "$root/scripts/env.sh"
BUILD_DIR=$root/build "$root/scripts/build.sh" >/dev/null
bin=$root/build
job=${DEMO_DIR:-$root/build/demo/job}
rm -rf "$job"
mkdir -p "$(dirname "$job")"

echo "== synthesizing an 8-rank job in $job"
"$bin/tlmpi-synth" --out "$job" --world_size 8 --tp 4 --steps 3 --layers 4 \
    --seed 7 --gzip --gpus_per_node 4 --node_offset_us 0,250 \
    --straggler 5 --straggler_delay_us 800

echo "== one trace at a glance: tlmpi inspect"
"$bin/tlmpi" inspect "$job"/rank0_trace.json.gz

out=$(dirname "$job")/out
rm -rf "$out"
mkdir -p "$out"
echo "== the job: mpirun -n 8 tlmpi --trace_dir $job --output $out/tlmpi.h5"
mpirun -n 8 "$bin/tlmpi" --trace_dir "$job" --output "$out/tlmpi.h5" \
    --gpus_per_node 4

echo
echo "== $out/report.md (first lines)"
head -n 40 "$out/report.md"

echo
echo "== the HDF5 file in pandas (scripts/tlmpi_h5.py)"
/usr/bin/python3 - "$root/scripts" "$out/tlmpi.h5" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tlmpi_h5
tables = tlmpi_h5.load(sys.argv[2])
for name, df in sorted(tables.items()):
    print(f"  {name:28s} {len(df):7d} rows x {len(df.columns):3d} columns")
PY

echo
echo "outputs:"
echo "  $out/tlmpi.h5      merged tables (load with scripts/tlmpi_h5.py)"
echo "  $out/report.md     the job at a glance"
echo "  $out/*.csv         TraceLens-named collective sheets"
echo "  $job/ground_truth.json   what the generator injected (straggler rank 5, node 1 clock +250 us)"
