#!/bin/bash
# TraceLens's --comparison_json_path T2 and --inductor_cache_dir D in
# `tlmpi report` (docs/cli.md "TraceLens's command line").
# --comparison_json_path (tracediff.md §10.2): TraceDiff of the trace
# against T2 in memory; the diff_stats sheet (the same text as `tlmpi
# diff`'s diff_stats.csv) right after unified_perf_summary; the seven
# columns after Kernel Time (µs)_sum with their values on a pair whose
# LCAs are known (tests/data/diff: a kernel pair, a trace-1-only root);
# a trace compared with itself; the workbook; T2 never overwritten; a T2
# that is not a trace or has no cpu ops; other sheets unchanged.
# --inductor_cache_dir (the Triton model's V1 fallback): Triton ops without
# arguments get FLOPs, bytes and perf_params from the wrapper in
# tests/data/inductor/cache, an op not in it stays without a model, ops
# are unchanged without the option, a missing folder exits 1.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
S="${TLM_SOURCE_DIR:?}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
A="$S/tests/data/diff/a.json"
B="$S/tests/data/diff/b.json"
R() { "$TLMPI" report --quiet "$@"; }
col() { # col FILE ROW NAME: the cell (python csv, /usr/bin/python3)
    /usr/bin/python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
print(rows[int(sys.argv[2])][sys.argv[3]])' "$@"
}

check "--comparison_json_path: exit 0" R "$A" --comparison_json_path "$B" --output_csvs_dir "$WORK/c"
check "... diff_stats.csv written" test -s "$WORK/c/diff_stats.csv"
"$TLMPI" diff "$A" "$B" --output_dir "$WORK/d" > /dev/null 2>&1
check "... the same text as tlmpi diff's diff_stats.csv" cmp -s "$WORK/c/diff_stats.csv" "$WORK/d/diff_stats.csv"
U="$WORK/c/unified_perf_summary.csv"
hdr=$(head -n 1 "$U")
check "... the seven columns right after Kernel Time (µs)_sum" \
    grep -q "Kernel Time (µs)_sum,speedup (trace2/trace1),delta_us (trace2 - trace1),lca_count_trace2,lca_id,lca_name,lca_total_kernel_time_trace1_us,lca_total_kernel_time_trace2_us," <<< "$hdr"
check "... aten::addmm: LCA 3 (gemm_kernel_a | gemm_kernel_b)" test "$(col "$U" 0 lca_id)|$(col "$U" 0 lca_name)" = "3.0|gemm_kernel_a | gemm_kernel_b"
check "... speedup 42.0 / 30.5" test "$(col "$U" 0 'speedup (trace2/trace1)')" = "1.3770491803278688"
check "... delta 42.0 - the row's 30.5" test "$(col "$U" 0 'delta_us (trace2 - trace1)')" = "11.5"
check "... totals and count" test "$(col "$U" 0 lca_total_kernel_time_trace1_us),$(col "$U" 0 lca_total_kernel_time_trace2_us),$(col "$U" 0 lca_count_trace2)" = "30.5,42.0,1.0"
check "... aten::add (a trace-1-only root, no LCA): empty" test "$(col "$U" 2 name)|$(col "$U" 2 lca_id)|$(col "$U" 2 'speedup (trace2/trace1)')" = "aten::add||"
R "$A" --output_csvs_dir "$WORK/plain"
for f in gpu_timeline ops_summary ops_unique_args kernel_summary; do
    check "... $f.csv unchanged" cmp -s "$WORK/plain/$f.csv" "$WORK/c/$f.csv"
done
check "without the option: no diff_stats, no columns" test ! -e "$WORK/plain/diff_stats.csv" -a "$(head -n 1 "$WORK/plain/unified_perf_summary.csv" | grep -c lca_id)" -eq 0

check "a trace against itself: exit 0" R "$A" --comparison_json_path "$A" --output_csvs_dir "$WORK/same"
check "... diff_stats without source (TraceLens's identical traces)" test "$(head -n 1 "$WORK/same/diff_stats.csv" | grep -c ',source,')" -eq 0
check "... speedup 1.0, delta 0.0" test "$(col "$WORK/same/unified_perf_summary.csv" 0 'speedup (trace2/trace1)'),$(col "$WORK/same/unified_perf_summary.csv" 0 'delta_us (trace2 - trace1)')" = "1.0,0.0"

check "workbook: exit 0" R "$A" --comparison_json_path "$B" --output_xlsx_path "$WORK/w.xlsx"
if [ -x /usr/bin/unzip ] || command -v unzip > /dev/null; then
    check "... a diff_stats worksheet" bash -c 'unzip -p "$0" xl/workbook.xml | grep -q "name=\"diff_stats\""' "$WORK/w.xlsx"
fi

cp "$B" "$WORK/b.json"
R "$A" --comparison_json_path "$WORK/b.json" --output_xlsx_path "$WORK/b.json" --force 2> "$WORK/e"
check "T2 as the output: refused (exit 1)" test $? -eq 1
check "... T2 untouched" cmp -s "$B" "$WORK/b.json"
R "$A" --comparison_json_path "$WORK/nope.json" --output_csvs_dir "$WORK/n" 2> "$WORK/e"
check "missing T2: exit 1" test $? -eq 1
check "... names the file" grep -q "nope.json" "$WORK/e"
check "... nothing written" test ! -e "$WORK/n/gpu_timeline.csv"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}' > "$WORK/gpu.json"
R "$A" --comparison_json_path "$WORK/gpu.json" --output_csvs_dir "$WORK/g" 2> "$WORK/e"
check "T2 without cpu ops: exit 1" test $? -eq 1
check "... TraceDiff's reason, the option named" grep -q -- "--comparison_json_path: .*root node" "$WORK/e"
R "$A" --comparison_json_path 2> /dev/null
check "no value: exit 2" test $? -eq 2

# ---- --inductor_cache_dir D
IT="$S/tests/data/inductor/triton_noargs.json"
IC="$S/tests/data/inductor/cache"
check "--inductor_cache_dir: exit 0" R "$IT" --inductor_cache_dir "$IC" --output_csvs_dir "$WORK/i1"
R "$IT" --output_csvs_dir "$WORK/i0"
U1="$WORK/i1/unified_perf_summary.csv"
U0="$WORK/i0/unified_perf_summary.csv"
check "... pointwise op: has_perf_model, 2 x 1024 FLOPs, 3 x 1024 x 2 bytes" \
    test "$(col "$U1" 0 name)|$(col "$U1" 0 has_perf_model)|$(col "$U1" 0 GFLOPS)|$(col "$U1" 0 'Data Moved (MB)')" = "triton_poi_fused_add_mul_0|True|2.048e-06|0.005859375"
check "... its perf_params from the wrapper" test "$(col "$U1" 0 perf_params)" = "{'fused_ops': 'aten.add, aten.mul', 'xnumel': 1024, 'rnumel': 1}"
check "... reduction: (n-1) x r b + x b bytes" test "$(col "$U1" 1 name)|$(col "$U1" 1 'Data Moved (MB)')" = "triton_red_fused_sum_1|0.062744140625"
check "... an op not in the cache: no model" test "$(col "$U1" 2 name)|$(col "$U1" 2 has_perf_model)" = "triton_poi_fused_cos_2|False"
check "without the option: no model" test "$(col "$U0" 0 has_perf_model)|$(col "$U0" 1 has_perf_model)" = "False|False"
R "$IT" --inductor_cache_dir "$WORK/nodir" --output_csvs_dir "$WORK/i2" 2> "$WORK/e"
check "missing folder: exit 1" test $? -eq 1
check "... named" grep -q -- "--inductor_cache_dir: " "$WORK/e"
check "... nothing written" test ! -e "$WORK/i2/gpu_timeline.csv"
exit $fail
