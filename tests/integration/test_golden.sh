#!/bin/bash
# Golden outputs: the bytes tlmpi writes must not drift.  Runs the demo job
# (tlmpi-synth, then mpirun -n 2 and -n 4 tlmpi --trace_dir), tlmpi report /
# tree / modules on a synthetic trace, and, when ../shared/traces exists,
# tlmpi report on the real traces and the 8-rank DLRM job; every CSV,
# Markdown page, viewer output, synthesized trace and HDF5 dataset (h5dump)
# is normalised (timings, paths) and its SHA-256 compared with
# tests/data/golden/outputs.sha256, recorded from an earlier build.
#
# The normalised outputs stay in $TLM_WORK_DIR/norm/ for diffing against a
# run of an older build.  To record a deliberate change of the outputs:
#   TLM_GOLDEN_RECORD=1 TLMPI=build/tlmpi TLMPI_SYNTH=build/tlmpi-synth \
#       MPIEXEC=mpirun bash tests/integration/test_golden.sh
# The hashes of the real traces' outputs are recorded, never the outputs.
set -u
TLMPI=$(realpath "${TLMPI:?TLMPI not set}")
SYNTH=$(realpath "${TLMPI_SYNTH:?TLMPI_SYNTH not set}")
MPIEXEC="${MPIEXEC:-mpirun}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
SHARED="${TLM_SHARED_DIR:-$SRC/../shared}/traces"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
MANIFEST="$SRC/tests/data/golden/outputs.sha256"
rm -rf "$WORK"
mkdir -p "$WORK/norm"
cd "$WORK" || exit 1
fail=0
run() { # run DESC CMD...: a step that must exit 0
    local desc="$1"
    shift
    if ! "$@" > "$WORK/last.log" 2>&1; then
        echo "FAIL $desc"
        sed 's/^/    /' "$WORK/last.log" | head -n 20
        fail=1
    fi
}

# Timings, rates and the number of MPI ranks vary from run to run.
norm_text() { # norm_text FILE NAME
    sed -E -e 's/[0-9]+(\.[0-9]+)? (s|MB\/s)\b/<t> \2/g' \
        -e 's/by [0-9]+ MPI ranks/by <n> MPI ranks/' \
        -e "s#$SHARED/##g" "$1" > "$WORK/norm/$2"
}
norm_h5() { # norm_h5 FILE NAME: every dataset and attribute, in order
    h5dump "$1" | sed -e '1d' -e "s#$SHARED/##g" \
        -e "/ATTRIBUTE \"command_line\"/,/^   }/d" > "$WORK/norm/$2"
}
norm_dir() { # norm_dir DIR PREFIX: every output of one run
    local f
    for f in "$1"/*; do
        case "$f" in
        *.h5) norm_h5 "$f" "$2.$(basename "$f").dump" ;;
        *) norm_text "$f" "$2.$(basename "$f")" ;;
        esac
    done
}

# ------------------------------------------------------- the demo job
run "synthesize the demo job" "$SYNTH" --out job --world_size 8 --tp 4 \
    --steps 3 --layers 4 --seed 7 --gzip --gpus_per_node 4 \
    --node_offset_us 0,250 --straggler 5 --straggler_delay_us 800
for f in job/*; do
    case "$f" in
    *.gz) gzip -dc "$f" > "$WORK/norm/synth.$(basename "$f" .gz)" ;;
    *) cp "$f" "$WORK/norm/synth.$(basename "$f")" ;;
    esac
done
# -n 2 is recorded; -n 4 must write the same outputs
for n in 2 4; do
    mkdir -p "out$n"
    run "mpirun -n $n tlmpi --trace_dir job" "$MPIEXEC" -n "$n" "$TLMPI" \
        --trace_dir job --output "out$n/tlmpi.h5" --gpus_per_node 4
    norm_dir "out$n" "job$n"
    sed -i "s#out$n/#out/#" "$WORK/norm/job$n.report.md"
done
for f in "$WORK"/norm/job4.*; do
    cmp -s "$f" "${f/job4./job2.}" ||
        { echo "FAIL $(basename "$f") differs from the -n 2 output"; fail=1; }
    rm -f "$f"
done

# ------------------------------------------------ one synthetic trace
run "synthesize one trace" "$SYNTH" --out one --world_size 8 --tp 4 \
    --target_size 2M --seed 11 --ranks 0
T=one/rank0_trace.json
run "report (synthetic)" "$TLMPI" report "$T" --output_csvs_dir rs --quiet
norm_dir rs "synth_report"
run "report --gpu_arch H100 --threads 1 (synthetic)" "$TLMPI" report "$T" \
    --output_csvs_dir rs1 --gpu_arch H100 --threads 1 --quiet
norm_dir rs1 "synth_report_h100"
run "report --tracelens_compat all (synthetic)" "$TLMPI" report "$T" \
    --output_csvs_dir rsc --tracelens_compat all --quiet
norm_dir rsc "synth_report_compat"
"$TLMPI" tree "$T" --name 'aten::mm' --parents > "$WORK/norm/synth.tree_mm.txt" 2>&1
"$TLMPI" modules "$T" > "$WORK/norm/synth.modules.txt" 2>&1
"$TLMPI" inspect "$T" 2>&1 | norm_text /dev/stdin synth.inspect.txt

# ------------------------------------------------ the shared real traces
if [ -d "$SHARED" ]; then
    real() { # real NAME TRACE [report options]
        local name="$1" t="$SHARED/$2"
        shift 2
        run "report $name" "$TLMPI" report "$t" --output_csvs_dir "r_$name" \
            --quiet "$@"
        norm_dir "r_$name" "shared.$name"
    }
    real qwen qwen_h100/trace.json.gz
    real qwen_h100 qwen_h100/trace.json.gz --gpu_arch H100
    real resnet_mi300x resnet_mi300/resnet_act_checkpoint.json.gz --gpu_arch MI300X
    real nccl nccl_a100/nccl_data.json.gz
    real dlrm0 dlrm_v100_8rank/worker0_step_12.1694128201545.pt.trace.json
    mkdir -p dlrm
    run "mpirun -n 2 tlmpi --trace_dir dlrm" "$MPIEXEC" -n 2 "$TLMPI" \
        --trace_dir "$SHARED/dlrm_v100_8rank" --output dlrm/tlmpi.h5
    norm_dir dlrm "shared.dlrm_job"
else
    echo "skip the shared traces: $SHARED not found"
fi

# ------------------------------------------------ compare or record
(cd "$WORK/norm" && sha256sum -- * | sort -k2) > "$WORK/actual.sha256"
if [ "${TLM_GOLDEN_RECORD:-0}" = 1 ]; then
    if [ ! -d "$SHARED" ] || [ "$fail" != 0 ]; then
        echo "refusing to record: a step failed or no shared traces" >&2
        exit 1
    fi
    mkdir -p "$(dirname "$MANIFEST")"
    cp "$WORK/actual.sha256" "$MANIFEST"
    echo "recorded $(wc -l < "$MANIFEST") outputs in $MANIFEST"
    exit "$fail"
fi
checked=0
while read -r sum name; do
    case "$name" in
    shared.*) [ -d "$SHARED" ] || continue ;;
    esac
    checked=$((checked + 1))
    got=$(grep -F "  $name" "$WORK/actual.sha256" | awk -v n="$name" '$2 == n {print $1}')
    if [ -z "$got" ]; then
        echo "FAIL $name: not written"
        fail=1
    elif [ "$got" != "$sum" ]; then
        echo "FAIL $name: differs from the recorded output (see $WORK/norm/$name)"
        fail=1
    fi
done < "$MANIFEST"
while read -r _ name; do
    grep -q "  $name\$" "$MANIFEST" ||
        { echo "FAIL $name: new output, not in the manifest"; fail=1; }
done < "$WORK/actual.sha256"
echo "checked $checked outputs against $MANIFEST"
[ "$checked" -gt 40 ] || { echo "FAIL too few outputs checked"; fail=1; }
exit "$fail"
