#!/bin/bash
# The report's workbook (issue 15 item 2, docs/report.md "Workbook"):
#   --output_xlsx_path beside --output_csvs_dir: one worksheet per CSV in
#   TraceLens's order, then findings.csv's (issue 34: every CSV a sheet), the same
#   cells (xlsx_vs_csv.py, an independent stdlib reader), header frozen,
#   no formula; the workbook alone (no report.md without a CSV folder, as
#   TraceLens); TraceLens's default path beside the trace; an existing workbook kept without --force; an
#   unwritable workbook folder refused before any work, naming the option
#   and the file, nothing written; the perf-model coverage in report.md
#   and on stderr; a folder that cannot be made and a bad trace write
#   nothing; the shared Qwen trace's workbook against its CSVs; the
#   multi-rank analysis' workbook (--output_xlsx_path): the collective
#   sheets = their CSVs, then the per-rank summaries; refused with
#   --no_report; a job with all_to_allv collectives: nccl_summary_all2allv
#   and nccl_all2allv in TraceLens's order.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
S="${TLM_SOURCE_DIR:?}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
PY=/usr/bin/python3
CHECK="$S/tests/integration/xlsx_vs_csv.py"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
T="$WORK/small.json"
cp "$S/tests/data/report_small.json" "$T"

# ---- workbook beside the CSVs: same sheets, same order, same cells
check "report CSVs + workbook: exit 0" "$TLMPI" report "$T" \
    --output_csvs_dir "$WORK/c" --output_xlsx_path "$WORK/w/r.xlsx" --quiet
check "workbook written" test -s "$WORK/w/r.xlsx"
"$PY" "$CHECK" "$WORK/w/r.xlsx" "$WORK/c" > "$WORK/sheets.txt" 2> "$WORK/diff.txt"
check "workbook cells = CSV cells" test $? -eq 0
cat "$WORK/diff.txt"
check "sheets in TraceLens's order" test "$(tr '\n' ' ' < "$WORK/sheets.txt")" = \
    "gpu_timeline ops_summary_by_category ops_summary ops_unique_args unified_perf_summary GEMM BinaryElementwise kernel_summary short_kernel_histogram short_kernels_summary findings "
check "the same sheets as the CSV folder (findings included)" test \
    "$(sort "$WORK/sheets.txt" | tr '\n' ' ')" = \
    "$(cd "$WORK/c" && ls *.csv | sed 's/\.csv$//' | sort | tr '\n' ' ')"
"$PY" - "$WORK/w/r.xlsx" <<'PYEOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith("xl/worksheets/sheet"):
        x = z.read(n).decode()
        assert 'ySplit="1"' in x and 'state="frozen"' in x, n
        assert "<f>" not in x, n
PYEOF
check "header rows frozen, no formula" test $? -eq 0
check "the workbook alone" "$TLMPI" report "$T" --output_xlsx_path "$WORK/alone.xlsx" --quiet
check "... written, no report.md without a folder" test -s "$WORK/alone.xlsx" -a ! -e "$WORK/alone.md" -a ! -e "$WORK/report.md"
check "... no CSV" test -z "$(ls "$WORK" | grep '\.csv$')"
check "report.md stays in the CSV folder" test -s "$WORK/c/report.md"
check "no report.md beside a named workbook with a CSV folder" \
    test ! -e "$WORK/w/r.md"
check "no temporaries left" test -z "$(ls -A "$WORK/w" "$WORK/c" | grep -e '\.tmp$' -e '\.old$')"
# the checker is not blind: a changed CSV cell is found
sed -i '2s/^computation_time,[^,]*,/computation_time,0.5,/' "$WORK/c/gpu_timeline.csv"
"$PY" "$CHECK" "$WORK/w/r.xlsx" "$WORK/c" > /dev/null 2>&1
check "checker finds a changed cell" test $? -eq 1

# ---- TraceLens's default: <trace>_perf_report.xlsx beside the trace
mkdir -p "$WORK/d"
gzip -c "$T" > "$WORK/d/run.json.gz"
"$TLMPI" report "$WORK/d/run.json.gz" 2> "$WORK/d.err"
check "default workbook: exit 0" test $? -eq 0
check "default workbook beside the trace" test -s "$WORK/d/run_perf_report.xlsx"
check "no report.md beside it" test ! -e "$WORK/d/run_perf_report.md"
check "stderr says where the workbook went" grep -q \
    "run_perf_report.xlsx (beside the trace" "$WORK/d.err"
check "nothing else written" test "$(ls "$WORK/d" | wc -l)" -eq 2
"$TLMPI" report "$WORK/d/run.json.gz" --output_csvs_dir "$WORK/dc" --quiet
"$PY" "$CHECK" "$WORK/d/run_perf_report.xlsx" "$WORK/dc" > /dev/null
check "default workbook = the CSVs" test $? -eq 0
before=$(stat -c %Y.%s "$WORK/d/run_perf_report.xlsx")
"$TLMPI" report "$WORK/d/run.json.gz" 2> "$WORK/d2.err"
check "existing workbook without --force: exit 1" test $? -eq 1
check "... names the option" grep -q -- "--output_xlsx_path" "$WORK/d2.err"
check "... workbook untouched" test "$(stat -c %Y.%s "$WORK/d/run_perf_report.xlsx")" = "$before"
check "--force replaces it" "$TLMPI" report "$WORK/d/run.json.gz" --force --quiet

# ---- a workbook folder that cannot be written: refused before any work
echo x > "$WORK/notadir"
"$TLMPI" report "$T" --output_csvs_dir "$WORK/nc" \
    --output_xlsx_path "$WORK/notadir/r.xlsx" 2> "$WORK/nd.err"
check "unwritable workbook folder: exit 1" test $? -eq 1
check "... names the option" grep -q -- "--output_xlsx_path" "$WORK/nd.err"
check "... names the file" grep -q "notadir/r.xlsx" "$WORK/nd.err"
check "... no CSV written" test -z "$(ls -A "$WORK/nc" 2>/dev/null)"

"$TLMPI" report "$T" --output_xlsx_path /proc/no/such/x.xlsx --quiet 2> "$WORK/pr.err"
check "folder that cannot be made: exit 1" test $? -eq 1
check "... names it" grep -q "/proc/no" "$WORK/pr.err"
"$TLMPI" report "$S/tests/data/bad_truncated.json" --output_csvs_dir \
    "$WORK/bad" --output_xlsx_path "$WORK/bad.xlsx" --quiet 2> /dev/null
check "bad trace: exit 1" test $? -eq 1
check "bad trace: no workbook" test ! -e "$WORK/bad.xlsx"
check "bad trace: no temporaries" test -z "$(ls -A "$WORK" | grep 'bad\.xlsx\..*\.tmp$')"

# ---- coverage: the ops without a perf model
check "coverage on stderr" grep -q "perf-model coverage: 0 op names without a model (0 of 2 ops" "$WORK/d.err"
check "coverage in report.md: all modelled" grep -q \
    "^Every op with GPU time has a perf model (2 ops" "$WORK/dc/report.md"

# ---- the shared Qwen trace: workbook = CSVs, coverage lists aten::cat
Q="${TLM_SHARED_DIR:-$S/../shared}/traces/qwen_h100/trace.json.gz"
if [ -f "$Q" ]; then
    "$TLMPI" report "$Q" --output_csvs_dir "$WORK/q" \
        --output_xlsx_path "$WORK/q.xlsx" --gpu_arch H100 2> "$WORK/q.err"
    check "qwen: exit 0" test $? -eq 0
    "$PY" "$CHECK" "$WORK/q.xlsx" "$WORK/q" > "$WORK/q.sheets" 2> "$WORK/q.diff"
    check "qwen: workbook cells = CSV cells" test $? -eq 0
    head -n 5 "$WORK/q.diff"
    check "qwen: 14 sheets (findings the last)" test "$(wc -l < "$WORK/q.sheets")" -eq 14 -a "$(tail -n 1 "$WORK/q.sheets")" = findings
    check "qwen: the same sheets as the CSV folder" test \
        "$(sort "$WORK/q.sheets" | tr '\n' ' ')" = \
        "$(cd "$WORK/q" && ls *.csv | sed 's/\.csv$//' | sort | tr '\n' ' ')"
    # (which ops lack a model moves with the op registry: read it back)
    top=$(sed -n 's/.*perf-model coverage: .*; top: \([^ ]*\) (.*/\1/p' "$WORK/q.err")
    check "qwen: coverage on stderr names the top op" test -n "$top"
    check "qwen: ... and report.md's table too" grep -q "^| $top | [0-9.]* | [0-9.]* | [0-9]* |$" "$WORK/q/report.md"
    check "qwen: coverage total" grep -q \
        "^| \*\*total without a model\*\* | [0-9.]* | [0-9.]* | [0-9]* |$" "$WORK/q/report.md"
    row=$(grep -m1 "^$top," "$WORK/q/unified_perf_summary.csv")
    check "qwen: the top op has no perf model in unified_perf_summary" \
        bash -c '[[ "$0" == *",False,"* ]]' "$row"
else
    echo "skip qwen: $Q absent"
fi
# ---- the multi-rank analysis' workbook
MPIEXEC=${MPIEXEC:-mpirun}
"$TLMPI" --trace_dir "$WORK" --no_report --output_xlsx_path "$WORK/m.xlsx" 2> "$WORK/m.err"
check "analysis: --output_xlsx_path with --no_report: exit 2" test $? -eq 2
check "... says why" grep -q -- "--output_xlsx_path and --no_report exclude" "$WORK/m.err"
D="${TLM_SHARED_DIR:-$S/../shared}/traces/dlrm_v100_8rank"
if [ -d "$D" ]; then
    timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$D" --output "$WORK/m/t.h5" \
        --output_dir "$WORK/m" --output_xlsx_path "$WORK/m/w.xlsx" --quiet 2> /dev/null
    check "analysis with a workbook: exit 0" test $? -eq 0
    "$PY" "$CHECK" "$WORK/m/w.xlsx" "$WORK/m" --skip-missing > "$WORK/m.sheets" 2> "$WORK/m.diff"
    check "analysis: collective sheets = their CSVs" test $? -eq 0
    head -n 5 "$WORK/m.diff"
    check "analysis: collective sheets, then per-rank summaries" test \
        "$(tr '\n' ' ' < "$WORK/m.sheets")" = \
        "nccl_summary_implicit_sync nccl_summary_long nccl_long nccl_implicit_sync straggler_summary findings traces timeline steps step_summary "
    check "analysis: every CSV of the folder is a sheet" test -z \
        "$(cd "$WORK/m" && ls *.csv | sed 's/\.csv$//' | grep -vxF -f "$WORK/m.sheets")"
else
    echo "skip the analysis workbook: $D absent"
fi
# a job with all_to_allv collectives: TraceLens's two all_to_allv sheets in
# its order (summaries first, then the per-instance sheets)
if [ -n "${TLMPI_SYNTH:-}" ] && "$TLMPI_SYNTH" --out "$WORK/a2a" --world_size 4 \
        --tp 2 --gpus_per_node 2 --steps 1 --layers 1 --seed 3 --quiet; then
    timeout 120 "$MPIEXEC" -n 2 "$TLMPI" --trace_dir "$WORK/a2a" \
        --output "$WORK/a/t.h5" --output_dir "$WORK/a" \
        --output_xlsx_path "$WORK/a/w.xlsx" --quiet 2> /dev/null
    check "all_to_allv job with a workbook: exit 0" test $? -eq 0
    "$PY" "$CHECK" "$WORK/a/w.xlsx" "$WORK/a" --skip-missing > "$WORK/a.sheets" 2> "$WORK/a.diff"
    check "all_to_allv job: sheets = their CSVs" test $? -eq 0
    head -n 5 "$WORK/a.diff"
    check "all_to_allv job: TraceLens's sheet order" test \
        "$(tr '\n' ' ' < "$WORK/a.sheets")" = \
        "nccl_summary_implicit_sync nccl_summary_long nccl_summary_all2allv nccl_long nccl_implicit_sync nccl_all2allv straggler_summary findings traces timeline steps step_summary "
else
    echo "FAIL synthesize the all_to_allv job"
    fail=1
fi
exit $fail
