#!/bin/bash
# HTA's tables on odd input (issue 23, "Bad input"; docs/hta.md): a trace
# without GPU events (every table header-only, report.md says why), zero
# kernel time (empty percentage cells, no division fault), duplicated
# correlation ids, negative and missing durations (counted), an operator
# that matches nothing (empty kernel-sequence table), option errors, and
# the job-level iteration filter (two ranks with one ProfilerStep name
# each: filtered as a job, not alone).
set -u
: "${TLMPI:?}" "${MPIEXEC:=mpirun}"
W="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$W"
mkdir -p "$W"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
sq() { sed "s/'/\"/g" > "$1"; } # JSON written with ' for "

K="'ph':'X','cat':'kernel','pid':0,'tid':7"
R="'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel','pid':1,'tid':1"
sq "$W/nogpu.json" <<'J'
{"traceEvents":[{'ph':'X','cat':'cpu_op','name':'aten::add','pid':1,'tid':1,'ts':1,'dur':5}]}
J
cat > "$W/zero.json" <<J
{"traceEvents":[{$R,'ts':1,'dur':2,'args':{'correlation':1}},
{$K,'name':'k','ts':5,'dur':0,'args':{'correlation':1,'stream':7}}]}
J
cat > "$W/odd.json" <<J
{"traceEvents":[{$R,'ts':1,'dur':2,'args':{'correlation':1}},
{$R,'ts':2,'dur':2,'args':{'correlation':1}},
{$K,'name':'k1','ts':5,'dur':3,'args':{'correlation':1,'stream':7}},
{$K,'name':'k2','ts':9,'dur':-2,'args':{'correlation':1,'stream':7}},
{$K,'name':'k3','ts':12,'args':{'correlation':1,'stream':7}},
{$K,'name':'orphan','ts':20,'dur':1,'args':{'correlation':99,'stream':7}}]}
J
for r in 0 1; do
cat > "$W/job_$r.json" <<J
{"distributedInfo":{'rank':$r,'world_size':2},"traceEvents":[
{'ph':'X','cat':'user_annotation','name':'ProfilerStep#$((r + 1))','pid':1,'tid':1,'ts':10,'dur':100},
{$R,'ts':2,'dur':2,'args':{'correlation':1}},
{$K,'name':'before','ts':5,'dur':3,'args':{'correlation':1,'stream':7}},
{$R,'ts':20,'dur':2,'args':{'correlation':2}},
{$K,'name':'in_last_step','ts':30,'dur':3,'args':{'correlation':2,'stream':7}}]}
J
done
sed -i "s/'/\"/g" "$W"/*.json

rep() { # rep NAME [options]
    local n="$1"
    shift
    "$TLMPI" report "$W/$n.json" --output_csvs_dir "$W/o_$n" --hta --quiet \
        "$@" > "$W/$n.log" 2>&1 || bad "report $n: $(tail -2 "$W/$n.log")"
}
rows() { echo $(($(wc -l < "$1") - 1)); }

# no GPU events: the analysis mode takes such a trace, HTA's tables
# header-only
"$MPIEXEC" -n 1 "$TLMPI" "$W/nogpu.json" --hta --output "$W/o_nogpu/out.h5" \
    --output_dir "$W/o_nogpu" --hta_kernel_sequences nothing_matches \
    --quiet > "$W/nogpu.log" 2>&1 || bad "nogpu: $(tail -2 "$W/nogpu.log")"
for f in temporal_breakdown idle_time_breakdown comm_comp_overlap \
         queue_length_summary gpu_kernel_breakdown cuda_kernel_launch_summary \
         frequent_cuda_kernel_sequences; do
    [ -f "$W/o_nogpu/hta/$f.csv" ] || { bad "nogpu: no $f.csv"; continue; }
    [ "$(rows "$W/o_nogpu/hta/$f.csv")" = 0 ] || bad "nogpu: $f has rows"
done
grep -q 'have no GPU events' "$W/o_nogpu/report.md" || bad "nogpu: no reason"
# ... and so does `tlmpi report --hta`: no TraceLens sheet, HTA's tables
# header-only, report.md says why, exit 0; without --hta still an error
"$TLMPI" report "$W/nogpu.json" --output_csvs_dir "$W/r_nogpu" --hta \
    --hta_kernel_sequences nothing_matches > "$W/r_nogpu.log" 2>&1 ||
    bad "report nogpu --hta: $(tail -2 "$W/r_nogpu.log")"
for f in temporal_breakdown idle_time_breakdown comm_comp_overlap \
         queue_length_summary gpu_kernel_breakdown cuda_kernel_launch_summary \
         frequent_cuda_kernel_sequences; do
    [ -f "$W/r_nogpu/hta/$f.csv" ] || { bad "report nogpu: no $f.csv"; continue; }
    [ "$(rows "$W/r_nogpu/hta/$f.csv")" = 0 ] || bad "report nogpu: $f has rows"
done
grep -q 'No GPU events in this trace' "$W/r_nogpu/report.md" ||
    bad "report nogpu: no reason in report.md"
[ -e "$W/r_nogpu/gpu_timeline.csv" ] && bad "report nogpu: a TraceLens sheet"
"$TLMPI" report "$W/nogpu.json" --output_csvs_dir "$W/r_nogpu2" \
    > "$W/r_nogpu2.log" 2>&1 && bad "report nogpu without --hta: exit 0"
grep -q 'no GPU events' "$W/r_nogpu2.log" || bad "report nogpu: no message"

rep zero
# kernel_time 0: percentages empty; no communication: overlap empty
grep -qx '0,0.0,0.0,0.0,0.0,,,' "$W/o_zero/hta/temporal_breakdown.csv" ||
    bad "zero: $(cat "$W/o_zero/hta/temporal_breakdown.csv")"
grep -qx '0,' "$W/o_zero/hta/comm_comp_overlap.csv" || bad "zero: overlap"

rep odd
grep -q 'correlation ids shared by several events' "$W/o_odd/report.md" ||
    bad "odd: duplicated correlation not counted"
grep -q '1 events with a negative duration in the trace' \
    "$W/o_odd/report.md" || bad "odd: negative duration not counted"
grep -q 'k3' "$W/o_odd/hta/gpu_kernel_breakdown.csv" &&
    bad "odd: an event without dur was kept"
grep -q '^k2,-2.0' "$W/o_odd/hta/gpu_kernel_breakdown.csv" ||
    bad "odd: negative duration not kept as given"
grep -q '1 GPU events without their launch' "$W/o_odd/report.md" ||
    bad "odd: orphan kernel not counted"

# option errors: exit 2, nothing written
"$TLMPI" report "$W/zero.json" --hta > /dev/null 2>&1
[ $? = 2 ] || bad "--hta without --output_csvs_dir"
"$TLMPI" report "$W/zero.json" --output_csvs_dir "$W/x" --hta \
    --hta_time ms > /dev/null 2>&1
[ $? = 2 ] || bad "--hta_time ms accepted"
"$TLMPI" report "$W/zero.json" --output_csvs_dir "$W/x" \
    --hta_rank 1 > /dev/null 2>&1
[ $? = 2 ] || bad "--hta_rank without --hta accepted"
"$TLMPI" report "$W/zero.json" --output_csvs_dir "$W/x" --hta \
    --hta_critical_path 'ProfilerStep:3-1' > /dev/null 2>&1
[ $? = 2 ] || bad "--hta_critical_path 3-1 accepted"
[ -e "$W/x" ] && bad "an option error wrote $W/x"
# an HTA table already there: refused before any work (exit 1), kept
mkdir -p "$W/pre/hta"
echo keep > "$W/pre/hta/queue_length_summary.csv"
"$TLMPI" report "$W/zero.json" --output_csvs_dir "$W/pre" --hta \
    --quiet > "$W/pre.log" 2>&1
[ $? = 1 ] || bad "an existing hta/ table was not refused"
[ "$(cat "$W/pre/hta/queue_length_summary.csv")" = keep ] ||
    bad "an existing hta/ table was replaced"
[ -e "$W/pre/gpu_timeline.csv" ] && bad "outputs written after the refusal"

# the job: ProfilerStep#1 on rank 0, #2 on rank 1 -> two names, filtered;
# alone each trace has one name and is not filtered
rep job_0
grep -q in_last_step "$W/o_job_0/hta/gpu_kernel_breakdown.csv" ||
    bad "job_0 alone was filtered"
if "$MPIEXEC" -n 2 "$TLMPI" "$W/job_0.json" "$W/job_1.json" --hta \
        --output "$W/job/out.h5" --output_dir "$W/job" --quiet \
        > "$W/job.log" 2>&1; then
    grep -q in_last_step "$W/job/hta/gpu_kernel_breakdown.csv" &&
        bad "job: the last step's kernel survived the job's filter"
    [ "$(grep -c '^before,' "$W/job/hta/gpu_kernel_breakdown.csv")" = 2 ] ||
        bad "job: $(cat "$W/job/hta/gpu_kernel_breakdown.csv")"
else
    bad "job: $(tail -3 "$W/job.log")"
fi
[ $fail = 0 ] && echo "HTA bad-input cases ok"
exit $fail
