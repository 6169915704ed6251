#!/bin/bash
# What an unknown GPU leaves out (issue 32, item 7): a job whose
# deviceProperties name a GPU outside the bundled table says so in
# report.md, naming the device, the analyses it skips (M3, the roofline)
# and the option that enables each; a bundled GPU matched from its driver
# name (Tesla V100-SXM2-32GB) gets its figures and the bus-bandwidth
# finding M3 against its link peak; the single-trace report says the same
# of the roofline.  The shared DLRM job (V100s) when ../shared exists.
set -eu
: "${TLMPI:?}" "${TLMPI_SYNTH:?}" "${MPIEXEC:=mpirun}"
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED="${TLM_SHARED_DIR:-$SRC/../shared}/traces"
W=${TLM_WORK_DIR:-$(mktemp -d)}/gpu_unknown
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }

job() { # name device [tlmpi options]
    "$TLMPI_SYNTH" --out "$W/$1" --quiet --world_size 4 --tp 4 --steps 2 \
        --layers 1 --seed 5 --device_name "$2"
    "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$W/$1" --output "$W/$1.h5" \
        --output_dir "$W/$1.out" --quiet "${@:3}" 2> "$W/$1.err" ||
        { cat "$W/$1.err"; fail "$1: tlmpi failed"; }
}

# an unbundled GPU: named as deviceProperties name it, with what it skips
job a10g "NVIDIA A10G"
md=$W/a10g.out/report.md
grep -q '^- GPU: none (source: none; deviceProperties: "NVIDIA A10G")$' "$md" ||
    { grep GPU "$md"; fail "A10G: GPU line"; }
grep -q '^- \*\*GPU not in tlmpi.s table\*\*: "NVIDIA A10G" .*M3 is skipped .*`--link_peak_gbps X`.* no roofline (give `--gpu_arch_json_path FILE`)$' "$md" ||
    { grep GPU "$md"; fail "A10G: the skipped analyses are not named"; }
grep -q '| M3 |' "$md" && fail "A10G: an M3 finding without a link peak"

# with --link_peak_gbps, M3 runs and only the roofline is said missing
job a10g_peak "NVIDIA A10G" --link_peak_gbps 1000
md=$W/a10g_peak.out/report.md
grep -q 'GPU not in tlmpi.s table.*no roofline' "$md" ||
    fail "A10G + --link_peak_gbps: roofline note missing"
grep -q 'M3 is skipped' "$md" && fail "A10G + --link_peak_gbps: M3 said skipped"
grep -q '| M3 |' "$md" || fail "A10G + --link_peak_gbps 1000: no M3 finding"

# a bundled GPU matched from its driver name: no note, M3 at its peak
job v100 "Tesla V100-SXM2-32GB"
md=$W/v100.out/report.md
grep -q '^- GPU: V100-SXM2-32GB (source: trace; deviceProperties: "Tesla V100-SXM2-32GB")$' "$md" ||
    { grep GPU "$md"; fail "V100: GPU line"; }
grep -q 'not in tlmpi.s table\|No link peak' "$md" && fail "V100: a note"
if grep -q '| M3 |' "$md"; then
    grep -q "of the link's 150 GB/s peak" "$md" ||
        fail "V100: M3 not against 150 GB/s"
fi
# the whole name is matched: an A10 is no A100
job a10 "NVIDIA A10"
grep -q '^- GPU: A10 (source: trace' "$W/a10.out/report.md" ||
    fail "A10: not matched"

# the single-trace report names the device and the option
"$TLMPI" report "$W/a10g/rank0_trace.json" --output_csvs_dir "$W/one" \
    > /dev/null 2>&1 || fail "tlmpi report failed"
grep -q 'GPU: none (source: none; deviceProperties: "NVIDIA A10G"). Not in tlmpi.s GPU table: no roofline (give --gpu_arch_json_path FILE' \
    "$W/one/report.md" || { grep GPU "$W/one/report.md"; fail "single-trace GPU line"; }
"$TLMPI" report "$W/v100/rank0_trace.json" --output_csvs_dir "$W/onev" \
    > /dev/null 2>&1 || fail "tlmpi report (V100) failed"
grep -q '^GPU: V100-SXM2-32GB (source: trace' "$W/onev/report.md" ||
    fail "single-trace V100 line"

# the shared DLRM job on V100s: its figures and M3 against NVLink 2
D=$SHARED/dlrm_v100_8rank
if [ -d "$D" ]; then
    "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" --output "$W/dlrm.h5" \
        --output_dir "$W/dlrm" --quiet 2> /dev/null || fail "DLRM failed"
    grep -q '^- GPU: V100-SXM2-32GB (source: trace; deviceProperties: "Tesla V100-SXM2-32GB")$' \
        "$W/dlrm/report.md" || fail "DLRM: GPU line"
    grep -q "| M3 | .*allreduce 1.5 MiB.*of the link's 150 GB/s peak" \
        "$W/dlrm/report.md" || fail "DLRM: no M3 finding at 150 GB/s"
else
    echo "($D absent: DLRM part skipped)"
fi
echo "gpu_unknown ok"
