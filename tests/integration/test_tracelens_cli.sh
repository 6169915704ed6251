#!/bin/bash
# TraceLens's perf-report command line (issue 15 item 3, docs/cli.md
# "TraceLens's command line"): each option of perfreport.md §8 accepted by
# `tlmpi report` with its meaning checked on the output, the refused ones'
# messages (exit 2, the option named, the reason), bad values and files,
# an unknown option, and the tlmpi-tracelens wrapper (TraceLens's
# defaults: sheet set, compat values, workbook beside the trace).
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
T="$WORK/small.json"
cp "$S/tests/data/report_small.json" "$T"
R() { "$TLMPI" report --quiet "$@"; }

# ---- options that map onto tlmpi's report
check "--profile_json_path + --output_csvs_dir" R --profile_json_path "$T" --output_csvs_dir "$WORK/p"
check "... the report of that trace" grep -q "^total_time,0.10425,100.0$" "$WORK/p/gpu_timeline.csv"
R "$T" --profile_json_path "$WORK/other.json" --output_csvs_dir "$WORK/x" 2> "$WORK/e"
check "two traces: exit 2" test $? -eq 2
check "--output_xlsx_path" R --profile_json_path "$T" --output_xlsx_path "$WORK/o.xlsx"
check "... workbook only (no CSV folder, no report.md)" test -s "$WORK/o.xlsx" -a ! -e "$WORK/o.md"
check "--enable_kernel_summary" R "$T" --disable_kernel_summary --enable_kernel_summary --output_csvs_dir "$WORK/ks"
check "... kernel_summary written" test -s "$WORK/ks/kernel_summary.csv"
check "--short_kernel_study --short_kernel_threshold_us 5" R "$T" --disable_short_kernel_study --short_kernel_study --short_kernel_threshold_us 5 --output_csvs_dir "$WORK/sk"
check "... one kernel under 5 us summarised" test "$(tail -n +2 "$WORK/sk/short_kernels_summary.csv" | wc -l)" -eq 1
check "--short_kernel_histogram_bins 4" R "$T" --short_kernel_threshold_us 100 --short_kernel_histogram_bins 4 --output_csvs_dir "$WORK/sb"
check "... 4 bins" test "$(tail -n +2 "$WORK/sb/short_kernel_histogram.csv" | wc -l)" -eq 4
check "--topk_short_kernels 1" R "$T" --short_kernel_threshold_us 100 --topk_short_kernels 1 --output_csvs_dir "$WORK/st"
check "... one row kept" test "$(tail -n +2 "$WORK/st/short_kernels_summary.csv" | wc -l)" -eq 1
check "--micro_idle_thresh_us 1" R "$T" --micro_idle_thresh_us 1 --output_csvs_dir "$WORK/mi"
check "... micro/macro idle rows" grep -q "^micro_idle_time," "$WORK/mi/gpu_timeline.csv"
check "--disable_coll_analysis" R "$T" --disable_coll_analysis --output_csvs_dir "$WORK/dc"
check "--include_unlinked_kernels" R "$T" --include_unlinked_kernels --output_csvs_dir "$WORK/iu"
check "--gpu_arch_platform MI300X" R "$T" --gpu_arch_platform MI300X --output_csvs_dir "$WORK/pl"
check "... roofline against TraceLens's MI300X file" grep -q "^## Roofline (MI300X-MAF: 5300 GB/s)" "$WORK/pl/report.md"
check "... GEMM has Pct Roofline" grep -q "Pct Roofline" "$WORK/pl/GEMM.csv"
R "$T" --gpu_arch_platform NoSuch --output_csvs_dir "$WORK/x" 2> "$WORK/e"
check "unknown platform: exit 2" test $? -eq 2
check "... named" grep -q -- "--gpu_arch_platform NoSuch: unknown platform" "$WORK/e"
echo '{"name":"G","mem_bw_gbps":1000,"max_achievable_tflops":{"matrix_fp32":10}}' > "$WORK/a.json"
R "$T" --gpu_arch_platform MI300X --gpu_arch_json_path "$WORK/a.json" --output_csvs_dir "$WORK/x" 2> "$WORK/e"
check "platform + arch JSON: exit 2" test $? -eq 2
check "... mutually exclusive" grep -q "mutually exclusive" "$WORK/e"
R "$T" --topk_ops 5 --topk_roofline_ops 3 --output_csvs_dir "$WORK/tk" 2> "$WORK/e"
check "--topk_ops, --topk_roofline_ops: exit 0" test $? -eq 0
check "... said to have no effect, as in TraceLens" grep -q -- "--topk_ops 5 has no effect" "$WORK/e"
check "... same sheets as without" diff -q "$WORK/tk/ops_summary.csv" "$WORK/p/ops_summary.csv"
R "$T" --topk_ops many --output_csvs_dir "$WORK/x" 2> /dev/null
check "--topk_ops many: exit 2" test $? -eq 2

# ---- a missing or unreadable arch JSON: named, before any work
R "$T" --gpu_arch_json_path "$WORK/nope.json" --output_csvs_dir "$WORK/aj" 2> "$WORK/e"
check "missing arch JSON: exit 1" test $? -eq 1
check "... names the option and the file" grep -q -- "--gpu_arch_json_path $WORK/nope.json" "$WORK/e"
check "... nothing written" test ! -e "$WORK/aj"
echo '{"name":' > "$WORK/bad.json"
R "$T" --gpu_arch_json_path "$WORK/bad.json" --output_csvs_dir "$WORK/aj" 2> "$WORK/e"
check "malformed arch JSON: exit 1" test $? -eq 1
check "... names the file" grep -q "bad.json" "$WORK/e"

# ---- refused: Python code, one sentence each
# (--enable_pseudo_ops: test_tracelens_pseudo_ops.sh)
for o in "--extension_file ext.py" "--python_path /usr/bin/python3" \
         --enable-origami; do
    # shellcheck disable=SC2086
    R "$T" $o --output_csvs_dir "$WORK/ref" 2> "$WORK/e"
    rc=$?
    name=${o%% *}
    check "$name refused: exit 2" test $rc -eq 2
    check "$name: named, with the reason" grep -q -- "^tlmpi report: $name.*: not supported: " "$WORK/e"
done
check "refused: nothing written" test ! -e "$WORK/ref"

# ---- an unknown option
R "$T" --enable_something --output_csvs_dir "$WORK/u" 2> "$WORK/e"
check "unknown option: exit 2" test $? -eq 2
check "... named" grep -q -- "unknown option --enable_something" "$WORK/e"

# ---- the wrapper: TraceLens's arguments and defaults
W="$S/scripts/tlmpi-tracelens"
mkdir -p "$WORK/wr"
cp "$T" "$WORK/wr/t.json"
TLMPI="$TLMPI" "$W" --profile_json_path "$WORK/wr/t.json" 2> "$WORK/wr.err"
check "wrapper: exit 0" test $? -eq 0
check "wrapper: workbook beside the trace" test -s "$WORK/wr/t_perf_report.xlsx"
TLMPI="$TLMPI" "$W" --profile_json_path "$WORK/wr/t.json" --output_csvs_dir "$WORK/wr/c" 2> /dev/null
check "wrapper: TraceLens's sheet set (no kernel_summary, no short kernels)" \
    test ! -e "$WORK/wr/c/kernel_summary.csv" -a ! -e "$WORK/wr/c/short_kernel_histogram.csv"
check "wrapper: TraceLens's columns only (no findings.csv)" test ! -e "$WORK/wr/c/findings.csv"
check "wrapper: only CSVs when a CSV folder is named" test "$(ls "$WORK/wr" | grep -c xlsx)" -eq 1
TLMPI="$TLMPI" "$W" --profile_json_path "$WORK/wr/t.json" --output_csvs_dir "$WORK/wr/k" --enable_kernel_summary --short_kernel_study 2> /dev/null
check "wrapper: --enable_kernel_summary" test -s "$WORK/wr/k/kernel_summary.csv"
check "wrapper: --short_kernel_study" test -s "$WORK/wr/k/short_kernels_summary.csv"
check "wrapper: TraceLens's kernel_summary columns" test "$(head -n 1 "$WORK/wr/k/kernel_summary.csv" | grep -c 'Kernel category')" -eq 0
TLMPI="$TLMPI" "$W" --profile_json_path "$WORK/wr/t.json" --extension_file x.py 2> "$WORK/e"
check "wrapper: refused option exit 2" test $? -eq 2
check "wrapper --help" bash -c "\"\$0\" --help > /dev/null" "$W"
exit $fail
