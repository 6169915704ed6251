#!/bin/bash
# TraceLens's --comparison_json_path T2 in `tlmpi report` (tracediff.md
# §10.2, docs/cli.md "TraceLens's command line"): TraceDiff of the trace
# against T2 in memory; the diff_stats sheet (the same text as `tlmpi
# diff`'s diff_stats.csv) right after unified_perf_summary; the seven
# columns after Kernel Time (µs)_sum with their values on a pair whose
# LCAs are known (tests/data/diff: a kernel pair, a trace-1-only root);
# a trace compared with itself; the workbook; T2 never overwritten; a T2
# that is not a trace or has no cpu ops; other sheets unchanged.
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
exit $fail
