#!/bin/bash
# CLI of the single-trace report and the tree viewers, without MPI:
#   tlmpi report / tree / modules on a small trace written here, usage
#   errors (exit 2), bad input (exit 1, message, no half-written output),
#   CSV names and headers (TraceLens Appendix A), report.md sections.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}

T="$WORK/small.json"
cat > "$T" <<'JSON'
{"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python3"}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},
{"ph":"X","cat":"python_function","name":"nn.Module: Net_0","pid":1,"tid":1,"ts":0,"dur":300},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":50,
 "args":{"Input Dims":[[64,32],[32,16]],"Input type":["float","float"],
 "Input Strides":[[32,1],[16,1]],"Concrete Inputs":["",""]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":11}},
{"ph":"s","cat":"ac2g","name":"ac2g","id":11,"pid":1,"tid":1,"ts":2},
{"ph":"f","cat":"ac2g","name":"ac2g","id":11,"pid":0,"tid":7,"ts":10,"bp":"e"},
{"ph":"X","cat":"kernel","name":"sgemm_kernel","pid":0,"tid":7,"ts":10,"dur":30.5,"args":{"correlation":11,"stream":7,"device":0}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":100,"dur":20,
 "args":{"Input Dims":[[64,16],[64,16],[]],"Input type":["float","float","Scalar"],
 "Input Strides":[[16,1],[16,1],[]],"Concrete Inputs":["","","1"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":101,"dur":3,"args":{"correlation":12}},
{"ph":"s","cat":"ac2g","name":"ac2g","id":12,"pid":1,"tid":1,"ts":101},
{"ph":"f","cat":"ac2g","name":"ac2g","id":12,"pid":0,"tid":7,"ts":110,"bp":"e"},
{"ph":"X","cat":"kernel","name":"void at::native::elementwise_kernel<128, 4>","pid":0,"tid":7,"ts":110,"dur":4.25,"args":{"correlation":12,"stream":7,"device":0}}
]}
JSON

OUT="$WORK/out"
check "report exits 0" "$TLMPI" report "$T" --output_csvs_dir "$OUT" --quiet
for s in gpu_timeline ops_summary_by_category ops_summary ops_unique_args \
         unified_perf_summary GEMM BinaryElementwise kernel_summary \
         short_kernel_histogram short_kernels_summary; do
    check "writes $s.csv" test -s "$OUT/$s.csv"
done
check "no temporary files left" test -z "$(ls -A "$OUT" | grep '\.tmp$')"
check "gpu_timeline header" test "$(head -n 1 "$OUT/gpu_timeline.csv")" = "type,time ms,percent"
check "ops_summary header" test "$(head -n 1 "$OUT/ops_summary.csv")" = \
    "name,total_direct_kernel_time_sum,total_subtree_kernel_time_sum,total_direct_kernel_time_ms,total_subtree_kernel_time_ms,Count,Categories,Percentage (%),Cumulative Percentage (%)"
check "kernel_summary header" test "$(head -n 1 "$OUT/kernel_summary.csv")" = \
    "Parent op category,Parent cpu_op,Kernel name,Kernel stream,Kernel duration (µs)_sum,Kernel duration (µs)_count,Kernel duration (µs)_mean,Kernel duration (µs)_min,Kernel duration (µs)_max,Percent of kernels time (%),Percent of total time (%),Kernel category"
check "busy time = 30.5 + 4.25 us" grep -qx "busy_time,0.03475,.*" "$OUT/gpu_timeline.csv"
check "total time 104.25 us" grep -q "^total_time,0.10425,100.0$" "$OUT/gpu_timeline.csv"
check "GEMM row M=64 N=16 K=32" grep -q '^aten::mm,64,16,32,False' "$OUT/GEMM.csv"
check "kernel category of the GEMM" grep -q '^GEMM,aten::mm,sgemm_kernel,7,30.5,.*,GEMM$' "$OUT/kernel_summary.csv"
check "report.md has findings" grep -q "^## Findings" "$OUT/report.md"
check "report.md's findings name the heaviest op" grep -q "^| 1 | aten::mm | " "$OUT/report.md"
check "findings.csv written" test -s "$OUT/findings.csv"

# roofline with a bundled GPU
check "report --gpu_arch H100" "$TLMPI" report "$T" --output_csvs_dir "$WORK/h100" --gpu_arch H100 --quiet
check "GEMM has roofline columns" grep -q "Roofline Bound_first" "$WORK/h100/GEMM.csv"
check "report.md roofline section" grep -q "^## Roofline" "$WORK/h100/report.md"

# roofline with a TraceLens arch JSON
cat > "$WORK/arch.json" <<'JSON'
{"name": "TestGPU", "mem_bw_gbps": 1000,
 "max_achievable_tflops": {"matrix_fp32": 100, "vector_fp32": 50}}
JSON
check "report --gpu_arch_json_path" "$TLMPI" report "$T" --output_csvs_dir "$WORK/aj" --gpu_arch_json_path "$WORK/arch.json" --quiet
check "arch JSON: MEMORY_BOUND GEMM" grep -q "MEMORY_BOUND" "$WORK/aj/GEMM.csv"
check "arch JSON named in report.md" grep -q "^## Roofline (TestGPU: 1000 GB/s)" "$WORK/aj/report.md"
"$TLMPI" report "$T" --output_csvs_dir "$WORK/x" --gpu_arch H100 --gpu_arch_json_path "$WORK/arch.json" 2> /dev/null
check "both arch options: exit 1" test $? -eq 1

# usage errors and bad input
"$TLMPI" report > /dev/null 2>&1; check "no args: exit 2" test $? -eq 2
"$TLMPI" report "$T" --output_csvs_dir "$WORK/x" --gpu_arch NoSuchGPU --quiet 2> "$WORK/err.txt"
check "unknown GPU: exit 1" test $? -eq 1
check "unknown GPU: message" grep -q "unknown GPU" "$WORK/err.txt"
"$TLMPI" report "$T" --output_csvs_dir "$WORK/x" --tracelens_compat bogus 2> /dev/null
check "bad compat item: exit 2" test $? -eq 2
printf '{"traceEvents":[{"ph":"X",' > "$WORK/bad.json"
"$TLMPI" report "$WORK/bad.json" --output_csvs_dir "$WORK/bad" 2> "$WORK/err.txt"
check "truncated trace: exit 1" test $? -eq 1
check "truncated trace: says where" grep -q "bad.json" "$WORK/err.txt"
check "truncated trace: no CSVs" test -z "$(ls -A "$WORK/bad" 2>/dev/null | grep csv)"

# tree and modules
"$TLMPI" tree "$T" --uid 3 --shapes > "$WORK/tree.txt"
check "tree --uid exit 0" test $? -eq 0
check "tree shows the kernel" grep -q "UID: 7, Category: kernel, Name: sgemm_kernel, Duration: 30.5" "$WORK/tree.txt"
check "tree shows shapes" grep -q "|   Input Dims: \[\[64, 32\], \[32, 16\]\]" "$WORK/tree.txt"
"$TLMPI" tree "$T" --name 'elementwise' --parents > "$WORK/par.txt"
check "tree --name --parents" grep -q "^1-up:" "$WORK/par.txt"
check "parents reach aten::add" grep -q "Name: aten::add" "$WORK/par.txt"
"$TLMPI" tree "$T" --uid 99999 > /dev/null 2>&1; check "tree bad uid: exit 1" test $? -eq 1
"$TLMPI" modules "$T" > "$WORK/mod.txt"
check "modules exit 0" test $? -eq 0
check "modules GPU time" grep -q "Name: nn.Module: Net_0, GPU Time: 34.75 µs" "$WORK/mod.txt"
exit $fail
