#!/bin/bash
# tlmpi compare (TraceLens_compare_perf_reports_pytorch) against an
# independent pandas oracle, compare_ref.py (spec compare.md), each output
# folder checked by same_csvs.py: the same CSV files, headers in the same
# order, rows in the same order, numbers within 1e-6, text exact.
#   a. the shared TraceLens reports (qwen_h100 vs resnet_mi300), and the
#      qwen trace against its own TraceLens CSVs (everything intersects);
#   b. synthetic pairs (tlmpi-synth): report folders and the traces
#      themselves give the same outputs; an injected slow kernel shows up
#      as a positive diff and a C2 finding (when tlmpi-synth has it);
#   c. three reports: one split triple per variant, diff block grouped
#      metric then tag;
#   d. a handcrafted pair (tests/data/compare): the three-way split,
#      Cartesian duplicates, int -> float, base 0, all-empty key column,
#      an empty split metric on one side, plus hand-checked cells;
#   e. a missing sheet, --sheets, --tracelens_compat all;
#   f. bad input: tags, corrupt workbooks, report kinds, existing
#      outputs, spreadsheet formulas, Markdown escaping;
#   g. the workbook (-o); report workbooks read back (csvs_to_xlsx.py).
# Under sanitizers (TLM_SANITIZER in the build's cache) a and c are left
# out, and the real-report workbook of g.
set -u
: "${TLMPI:?TLMPI not set}"
SRC=${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
$PY -c 'import pandas' 2>/dev/null || {
    echo "pandas missing for /usr/bin/python3: skipped"; exit 77; }
W=${TLM_WORK_DIR:-$(mktemp -d)}/compare
rm -rf "$W"
mkdir -p "$W"
D=$SRC/tests/data/compare
SH=${TLM_SHARED_DIR:-$SRC/../shared}/traces
SAN=0
grep -qs '^TLM_SANITIZER:STRING=.' "${TLM_BUILD_DIR:-/nonexistent}/CMakeCache.txt" && SAN=1
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
ref() { $PY -W ignore "$SRC/tests/integration/compare_ref.py" "$@"; }
same() { $PY "$SRC/tests/integration/same_csvs.py" "$1" "$2" --ignore findings_; }
cmpq() { "$TLMPI" compare --quiet "$@"; }
# oracle DESC OUT REPORT... [options]: tlmpi (default mode) and the oracle
# (with tlmpi's skips) on the same arguments, outputs equal.
oracle() {
    local desc="$1" out="$2"
    shift 2
    if ! cmpq "$@" --output_csvs_dir "$out"; then
        echo "FAIL $desc: tlmpi compare failed"; fail=1; return
    fi
    if ! ref "$@" --out "$out.ref" --skip_missing > /dev/null; then
        echo "FAIL $desc: the oracle failed"; fail=1; return
    fi
    check "$desc" same "$out.ref" "$out"
}
no_files() { # absent, or left empty (the output rules create the folder first)
    local d
    for d in "$@"; do
        [ ! -e "$d" ] || [ -z "$(ls -A "$d")" ] || return 1
    done
}
only_empty() { # every only_* split of folder $1 is the 1-byte empty table
    local f
    for f in "$1"/*_only_*.csv; do
        [ "$(od -An -c "$f" | tr -d ' ')" = '\n' ] || { echo "  $f"; return 1; }
    done
}

# MARK: d. handcrafted pair -------------------------------------------------
H=$W/hand
oracle "d: handcrafted pair equals the oracle" "$H" "$D/base" "$D/var"
check "d: gpu_timeline diff/pct (busy 8 -> 11 ms)" \
    grep -qx 'busy_time,3.0,37.5,8.0,80.0,11.0,91.66666666666667' "$H/gpu_timeline.csv"
check "d: base 0 -> empty pct (Q6)" \
    grep -qx 'exposed_comm_time,0.0,,0.0,0.0,0.0,0.0' "$H/gpu_timeline.csv"
check "d: rows in key order" test "$(cut -d, -f1 "$H/gpu_timeline.csv" | tr '\n' ' ')" = \
    "type busy_time exposed_comm_time idle_time total_time "
check "d: kernel_summary 2 x 2 duplicate pairs (Q3)" \
    test "$(grep -c '^add_k,' "$H/kernel_summary.csv")" = 4
check "d: kernel pair 600 -> 300 us: -50 %, count -24.0 (float)" \
    grep -q '^add_k,-300.0,-50.0,[^,]*,[^,]*,-24.0,-40.0,aten::add,7.0,600.0,' "$H/kernel_summary.csv"
check "d: kernel rows sorted by the baseline sum, baseline-less last" \
    test "$(cut -d, -f1 "$H/kernel_summary.csv" | tr '\n' ' ')" = \
    "Kernel name gemm_k add_k add_k base_k add_k add_k var_k "
check "d: ops_summary: variant loses Cumulative Percentage" \
    test "$(head -1 "$H/ops_summary.csv" | grep -o 'Cumulative Percentage' | wc -l)" = 1
check "d: zero base: diff 2.0, pct empty" \
    grep -q '^aten::zero_,.*,2.0,,0.4,,0.0,0.0,' "$H/ops_unique_args_intersect_var.csv"
check "d: metric empty on the variant side -> only_baseline (Q8)" \
    grep -q '^aten::copy_,' "$H/ops_unique_args_only_baseline_var.csv"
check "d: metric empty on both sides -> in no split" \
    test -z "$(cat "$H"/ops_unique_args_*.csv | grep 'empty_both')"
check "d: all-empty key column dropped from only_variant (Q4)" \
    test "$(head -1 "$H/ops_unique_args_only_variant_var.csv" | cut -d, -f1-5)" = \
    "name,Input type,Input Dims,Input Strides,var::op category"
check "d: only_variant has no baseline or diff columns" \
    test -z "$(head -1 "$H/ops_unique_args_only_variant_var.csv" | grep -e 'base::' -e '_diff')"
check "d: int column with a missing row prints 48.0 beside 48 (Q5)" \
    grep -q '^aten::mm,.*,GEMM,11.0,48.0,83.33333333333333,.*,GEMM,21,48,104.16666666666667' \
    "$H/unified_perf_summary_intersect_var.csv"
check "d: missing keys match missing keys" \
    grep -q '^nccl:barrier,,,,,5.0,33.33333333333333,' "$H/unified_perf_summary_intersect_var.csv"
check "d: empty split is a 1-byte file" \
    test "$(od -An -c "$H/unified_perf_summary_only_baseline_var.csv" | tr -d ' ')" = '\n'
check "d: roofline keys: name + common param columns by code point" \
    test "$(head -1 "$H/GEMM_intersect_var.csv" | cut -d, -f1-5)" = \
    "name,param: K,param: M,param: N,param: bias"
check "d: a param column of one report is data; variant loses GFLOPS_first" \
    test "$(head -1 "$H/GEMM_only_variant_var.csv" | grep -c 'var::param: transpose' )$(grep -c 'var::GFLOPS_first' "$H/GEMM_intersect_var.csv")" = 10

# MARK: d2. duplicate-key ties in TraceLens's order (issue 34) ------------
# kernel_summary with kernel names repeated on both sides (m x n rows) and
# sums drawn from three values: --tracelens_compat all orders the tied rows
# as pandas' default sort_values (numpy's introsort), the oracle with
# --quicksort; the default mode keeps them stable.
T2=$W/ties
$PY - "$T2" <<'PYEOF2'
import os, random, sys
out = sys.argv[1]
hdr = ("Parent op category,Parent cpu_op,Kernel name,Kernel stream,"
       "Kernel duration (\u00b5s)_sum,Kernel duration (\u00b5s)_count,"
       "Kernel duration (\u00b5s)_mean,Kernel duration (\u00b5s)_min,"
       "Kernel duration (\u00b5s)_max,Percent of kernels time (%),"
       "Percent of total time (%)")
rnd = random.Random(34)
for side, reps in (("base", (3, 2, 4, 1, 3, 2, 5)),
                   ("var", (2, 3, 2, 2, 1, 3, 2))):
    d = os.path.join(out, side)
    os.makedirs(d, exist_ok=True)
    rows = []
    for k, m in enumerate(reps):
        for i in range(m):
            s = float(rnd.choice((100, 200, 300)))
            rows.append("elementwise,op_%s_%d_%d,kern_%d,%d,%s,4,%s,1.0,2.0,"
                        "1.0,1.0" % (side[0], k, i, k, 7 + i, s, s / 4))
    rows.append("other,op_%s_only,%s_only_k,7,150.0,1,150.0,1.0,2.0,1.0,1.0"
                % (side[0], side))
    rnd.shuffle(rows)
    with open(os.path.join(d, "kernel_summary.csv"), "w", encoding="utf-8") as f:
        f.write(hdr + "\n" + "\n".join(rows) + "\n")
PYEOF2
cmpq "$T2/base" "$T2/var" --sheets kernel_summary --tracelens_compat all -o "$T2/c.xlsx" \
    --output_csvs_dir "$T2/c"
check "d2: compat: exit 0" test $? -eq 0
ref "$T2/base" "$T2/var" --sheets kernel_summary --out "$T2/rq" --quicksort > /dev/null
ref "$T2/base" "$T2/var" --sheets kernel_summary --out "$T2/rs" > /dev/null
check "d2: the pair has ties whose order the sort decides (quicksort != stable)" \
    test "$(cut -d, -f1-30 "$T2/rq/kernel_summary.csv" | md5sum)" != \
    "$(cut -d, -f1-30 "$T2/rs/kernel_summary.csv" | md5sum)"
check "d2: 44 rows (m x n pairs)" test "$(wc -l < "$T2/c/kernel_summary.csv")" -eq 44
check "d2: compat rows in pandas' sort_values order" same "$T2/rq" "$T2/c"
oracle "d2: default mode: stable ties" "$T2/d" "$T2/base" "$T2/var" --sheets kernel_summary

# MARK: e. missing sheet, --sheets, compat -----------------------------------
E=$W/e
mkdir -p "$E"
cp -r "$D/var" "$E/noops"
rm "$E/noops/ops_summary.csv"
"$TLMPI" compare "$D/base" "$E/noops" --output_csvs_dir "$E/out1" 2> "$E/err1"
check "e: variant without ops_summary: exit 1" test $? -eq 1
check "e: ... names the variant and the sheet" grep -q "noops.*ops_summary" "$E/err1"
check "e: ... no output files" no_files "$E/out1"
mkdir -p "$E/out2"
echo keep > "$E/out2/keep.txt"
"$TLMPI" compare "$D/base" "$E/noops" --output_csvs_dir "$E/out2" 2> /dev/null
check "e: ... existing folder: no new files" test "$(ls -A "$E/out2")" = keep.txt
oracle "e: --sheets gpu_timeline kernel_summary" "$E/sk" "$D/base" "$D/var" \
    --sheets gpu_timeline kernel_summary
check "e: ... only those two sheets" test "$(ls "$E/sk" | grep -c csv)" = 3  # + findings
"$TLMPI" compare "$D/base" "$D/var" --sheets gpu_timeline nonsense --output_csvs_dir "$E/x" 2> /dev/null
check "e: unknown --sheets word: exit 2" test $? -eq 2
cp -r "$D/base" "$E/nokern"
rm "$E/nokern/kernel_summary.csv"
oracle "e: --sheets all, baseline without kernel_summary: skipped" "$E/nk" \
    "$E/nokern" "$D/var" --sheets all
"$TLMPI" compare "$E/nokern" "$D/var" --output_csvs_dir "$E/nk2" 2> "$E/err2"
check "e: ... with a note" grep -q "note: kernel_summary" "$E/err2"
"$TLMPI" compare "$E/nokern" "$D/var" --output_csvs_dir "$E/nk3" --sheets all \
    --tracelens_compat all -o "$E/nk3.xlsx" 2> "$E/err3"
check "e: ... --tracelens_compat all fails as TraceLens does (Q2)" test $? -ne 0
check "e: ... 'kernel_summary sheet not found in'" \
    grep -q "kernel_summary sheet not found in .*nokern" "$E/err3"
check "e: ... nothing written" no_files "$E/nk3" "$E/nk3.xlsx"
"$TLMPI" compare "$E/nokern" "$D/var" --output_csvs_dir "$E/nk4" \
    --sheets kernel_summary 2> /dev/null
check "e: kernel_summary asked for by name: fails" test $? -ne 0
cp -r "$D/var" "$E/nogemm"
rm "$E/nogemm/GEMM.csv"
oracle "e: roofline sheet missing from the variant: skipped" "$E/ng" \
    "$D/base" "$E/nogemm"
"$TLMPI" compare "$D/base" "$E/nogemm" --output_csvs_dir "$E/ng2" \
    --tracelens_compat all -o "$E/ng2.xlsx" 2> "$E/err4"
check "e: ... fails in compat mode, naming the file" \
    grep -q "nogemm has no 'GEMM.csv'" "$E/err4"

cp -r "$D/var" "$E/hdr"
head -n 1 "$D/var/ops_unique_args.csv" > "$E/hdr/ops_unique_args.csv"
oracle "e: variant sheet with a header and no rows compares" "$E/hd" "$D/base" "$E/hdr"

# MARK: f. bad input -----------------------------------------------------------
F=$W/f
mkdir -p "$F/a" "$F/b"
cp -r "$D/base" "$F/a/x"
cp -r "$D/var" "$F/b/x"
"$TLMPI" compare "$F/a/x" "$F/b/x" --output_csvs_dir "$F/o" 2> "$F/err"
check "f: duplicate tags: non-zero" test $? -ne 0
check "f: ... 'Tags must be unique'" grep -q "Tags must be unique" "$F/err"
check "f: ... --names fixes it" cmpq "$F/a/x" "$F/b/x" --names a b --output_csvs_dir "$F/o"
check "f: ... tags in the file names" test -s "$F/o/ops_unique_args_intersect_b.csv"
"$TLMPI" compare "$D/base" "$D/var" --names '' b --output_csvs_dir "$F/o2" 2> "$F/err"
check "f: empty tag: non-zero" test $? -ne 0
check "f: ... 'empty tag'" grep -q "empty tag" "$F/err"
"$TLMPI" compare "$D/base" "$D/var" --names a --output_csvs_dir "$F/o2" 2> /dev/null
check "f: --names count mismatch: exit 2" test $? -eq 2
"$TLMPI" compare "$D/base" > /dev/null 2>&1
check "f: one report: exit 2" test $? -eq 2
head -c 3000 /dev/urandom > "$F/rand.xlsx"
"$TLMPI" compare "$F/rand.xlsx" "$D/var" --output_csvs_dir "$F/o3" 2> "$F/err"
check "f: random bytes .xlsx: exit 1" test $? -eq 1
check "f: ... names the file" grep -q "rand.xlsx" "$F/err"
check "f: ... nothing written" no_files "$F/o3"
cmpq "$D/base" "$D/var" --output_csvs_dir "$F/o4" -o "$F/book.xlsx"
head -c "$(($(stat -c %s "$F/book.xlsx") / 2))" "$F/book.xlsx" > "$F/cut.xlsx"
"$TLMPI" compare "$D/base" "$F/cut.xlsx" --output_csvs_dir "$F/o5" 2> "$F/err"
check "f: truncated .xlsx: exit 1" test $? -eq 1
check "f: ... names the file" grep -q "cut.xlsx" "$F/err"
mkdir -p "$F/roc1" "$F/roc2"
printf 'type,time ms,percent\ntotal_time,10.0,100.0\nkernel,8.0,80.0\nmemory,0.5,5.0\nbusy_time,8.5,85.0\nidle,1.5,15.0\n' > "$F/roc1/gpu_timeline.csv"
printf 'type,time ms,percent\ntotal_time,9.0,100.0\nkernel,7.0,77.8\nmemory,0.5,5.6\nbusy_time,7.5,83.3\nidle,1.5,16.7\n' > "$F/roc2/gpu_timeline.csv"
KL='name,Count,Total Kernel Time (ms),Total Kernel Time (µs),Mean Kernel Time (µs),Median Kernel Time (µs),Std Kernel Time (µs),Min Kernel Time (µs),Max Kernel Time (µs),Category,Percentage (%),Cumulative Percentage (%)'
printf '%s\nk_gemm,10,6.0,6000.0,600.0,600.0,1.0,599.0,601.0,GEMM,75.0,75.0\nk_add,20,2.0,2000.0,100.0,100.0,1.0,99.0,101.0,elementwise,25.0,100.0\n' "$KL" > "$F/roc1/kernel_summary.csv"
printf '%s\nk_add,20,2.5,2500.0,125.0,125.0,1.0,124.0,126.0,elementwise,35.7,35.7\nk_gemm,10,4.5,4500.0,450.0,450.0,1.0,449.0,451.0,GEMM,64.3,100.0\n' "$KL" > "$F/roc2/kernel_summary.csv"
"$TLMPI" compare "$F/roc1" "$D/var" --output_csvs_dir "$F/o6" 2> "$F/err"
check "f: rocprof vs PyTorch report: non-zero" test $? -ne 0
check "f: ... 'reports of different kinds'" grep -q "reports of different kinds" "$F/err"
oracle "f: two rocprof reports: legacy kernel_summary (spec 8.4)" "$F/roc" \
    "$F/roc1" "$F/roc2" --sheets gpu_timeline kernel_summary
check "f: ... Count diff stays an integer" grep -q '^k_gemm,-1.5,-25.0,-150.0,-25.0,0,0.0,' "$F/roc/kernel_summary.csv"
check "f: ... rocprof timeline order" test "$(cut -d, -f1 "$F/roc/gpu_timeline.csv" | tr '\n' ' ')" = \
    "type busy_time idle kernel memory total_time "
"$TLMPI" compare "$D/base" "$D/var" --output_csvs_dir "$F/o4" 2> "$F/err"
check "f: existing outputs refused without --force" test $? -ne 0
check "f: ... --force replaces them" cmpq "$D/base" "$D/var" --output_csvs_dir "$F/o4" --force
# hostile names: formulas and Markdown
for s in base var; do
    cp -r "$D/$s" "$F/h$s"
    t=1.0
    [ $s = var ] && t=9.0
    printf '"=HYPERLINK(""x"")",1.0,1.0,%s,1.0,3,[],1.0,1.0\n@SUM(1),1.0,1.0,0.5,1.0,3,[],1.0,1.0\n"a|b`c`<script>x</script>",1.0,1.0,%s,1.0,3,[],1.0,1.0\n' "$t" "$t" >> "$F/h$s/ops_summary.csv"
done
cmpq "$F/hbase" "$F/hvar" --output_csvs_dir "$F/hd"
check "f: formula guarded in default mode" grep -q "^\"'=HYPERLINK(\"\"x\"\")\"," "$F/hd/ops_summary.csv"
check "f: ... @ too" grep -q "^'@SUM(1)," "$F/hd/ops_summary.csv"
check "f: verbatim with --tracelens_compat all, equal to the oracle" \
    cmpq "$F/hbase" "$F/hvar" --output_csvs_dir "$F/hc" --tracelens_compat all -o "$F/hc.xlsx"
check "f: ... =HYPERLINK verbatim" grep -q '^"=HYPERLINK(""x"")",' "$F/hc/ops_summary.csv"
check "f: ... @SUM verbatim" grep -q '^@SUM(1),' "$F/hc/ops_summary.csv"
ref "$F/hbase" "$F/hvar" --out "$F/hc.ref" > /dev/null
check "f: ... compat outputs equal the oracle" same "$F/hc.ref" "$F/hc"
check "f: Markdown: the op is listed, escaped" \
    grep -qF 'a\|b\`c\`\<script\>x\</script\>' "$F/hd/comparison.md"
check "f: ... no raw <script>" test -z "$(grep -E '(^|[^\\])<script' "$F/hd/comparison.md")"

# keys that are not text (numbers, booleans) in comparison.md
mkdir -p "$F/n1" "$F/n2"
for i in 1 2; do
    printf 'type,time ms,percent\nTrue,%s.0,50.0\nFalse,1.0,50.0\n' "$i" > "$F/n$i/gpu_timeline.csv"
    printf 'name,total_direct_kernel_time_sum,total_direct_kernel_time_ms,Count\n1,1.0,0.%s,1\n2.5,2.0,0.002,2\n' "$i" > "$F/n$i/ops_summary.csv"
done
oracle "f: numeric and boolean keys" "$F/nk" "$F/n1" "$F/n2" --sheets gpu_timeline ops_summary
check "f: ... listed in comparison.md" grep -q '^| True | 1.000 | 2.000 |' "$F/nk/comparison.md"
check "f: ... op names printed as numbers" grep -q '^| 1.0 | 0.100 | 0.200 |' "$F/nk/comparison.md"

# MARK: g. workbook ------------------------------------------------------------
check "g: -o writes the workbook" test -s "$F/book.xlsx"
check "g: one worksheet per result, names <= 31 chars, unique" $PY - "$F/book.xlsx" "$F/o4" <<'EOF'
import os, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
sheets = [n for n in z.namelist() if re.match(r"xl/worksheets/sheet\d+\.xml$", n)]
names = re.findall(r'<sheet [^>]*name="([^"]*)"', z.read("xl/workbook.xml").decode())
csvs = [f for f in os.listdir(sys.argv[2]) if f.endswith(".csv") and not f.startswith("findings_")]
ok = len(sheets) == len(names) == len(csvs) and len(set(names)) == len(names)
ok = ok and all(len(n) <= 31 for n in names) and z.testzip() is None
sys.exit(0 if ok else 1)
EOF

# a report workbook (a CSV folder written as TraceLens stores its .xlsx:
# numbers, booleans, shared and inline strings) against its CSV folder:
# the same result as the folder against itself (integral floats of a
# workbook read as integers, as pandas' read_excel does)
X2=$SRC/tests/integration/csvs_to_xlsx.py
$PY "$X2" "$D/base" "$F/base.xlsx"
check "g: a report workbook is read" cmpq "$F/base.xlsx" "$D/var" --names base var \
    --output_csvs_dir "$F/bx"
check "g: ... as its CSV folder" $PY "$SRC/tests/integration/same_csvs.py" "$H" "$F/bx" \
    --ignore findings_ --loose_ints
if [ $SAN = 0 ] && [ -d "$SH/qwen_h100/tracelens_csvs" ]; then
    $PY "$X2" "$SH/qwen_h100/tracelens_csvs" "$F/qwen.xlsx"
    check "g: TraceLens's qwen report as a workbook vs its CSVs" cmpq "$F/qwen.xlsx" \
        "$SH/qwen_h100/tracelens_csvs" --names book csv --output_csvs_dir "$F/qx"
    check "g: ... everything intersects" only_empty "$F/qx"
    cmpq "$SH/qwen_h100/tracelens_csvs" "$SH/qwen_h100/tracelens_csvs" --names book csv \
        --output_csvs_dir "$F/qx2"
    check "g: ... the same as the CSV folder against itself" \
        $PY "$SRC/tests/integration/same_csvs.py" "$F/qx2" "$F/qx" --ignore findings_ --loose_ints
fi

# MARK: b, c. synthetic reports -------------------------------------------------
if [ -n "${TLMPI_SYNTH:-}" ] && [ -x "$TLMPI_SYNTH" ]; then
    B=$W/syn
    mkdir -p "$B"
    syn() { "$TLMPI_SYNTH" --quiet --world_size 1 --tp 1 --steps 2 --out "$@"; }
    syn "$B/t1" --layers 2 --seed 1
    syn "$B/t2" --layers 3 --seed 2 --seq_len 1024
    syn "$B/t3" --layers 2 --seed 3 --hidden 2048
    for i in 1 2 3; do
        cmpq_r=$("$TLMPI" report "$B/t$i/rank0_trace.json" --output_csvs_dir "$B/r$i" --quiet 2>&1) ||
            { echo "FAIL b: report $i: $cmpq_r"; fail=1; }
    done
    oracle "b: synthetic pair equals the oracle" "$B/c12" "$B/r1" "$B/r2"
    check "b: ... some shapes intersect" test "$(wc -l < "$B/c12/ops_unique_args_intersect_r2.csv")" -gt 2
    check "b: ... some only in the baseline" test "$(wc -l < "$B/c12/ops_unique_args_only_baseline_r2.csv")" -gt 2
    check "b: ... some only in the variant" test "$(wc -l < "$B/c12/ops_unique_args_only_variant_r2.csv")" -gt 2
    check "b: traces compared directly" cmpq "$B/t1/rank0_trace.json" "$B/t2/rank0_trace.json" \
        --names r1 r2 --output_csvs_dir "$B/c12t"
    check "b: ... the same CSVs byte for byte as their report folders" \
        diff -r -x comparison.md -x 'findings_*' "$B/c12" "$B/c12t"
    # the same job with its flash-attention forward kernels 10x slower:
    # tlmpi-synth --slow_kernel where it has it, else the trace edited
    if "$TLMPI_SYNTH" --help 2>&1 | grep -q -- --slow_kernel; then
        syn "$B/t1s" --layers 2 --seed 1 --slow_kernel flash_fwd --slow_kernel_factor 10
    else
        mkdir -p "$B/t1s"
        $PY - "$B/t1/rank0_trace.json" "$B/t1s/rank0_trace.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("cat") == "kernel" and "flash_fwd" in e.get("name", ""):
        e["dur"] *= 10
json.dump(t, open(sys.argv[2], "w"))
EOF
    fi
    check "b: injected slow kernel" cmpq "$B/t1/rank0_trace.json" \
        "$B/t1s/rank0_trace.json" --names fast slow --output_csvs_dir "$B/slow"
    check "b: ... positive diff of its op" $PY - "$B/slow/ops_summary.csv" <<'EOF'
import csv, sys
rows = {r["name"]: r for r in csv.DictReader(open(sys.argv[1], encoding="utf-8"))}
d = float(rows["aten::_flash_attention_forward"]["total_direct_kernel_time_ms__slow_diff"])
sys.exit(0 if d > 0 else 1)
EOF
    check "b: ... a C2 finding names it" \
        grep -q '^P[0-9]*,C2,.*flash_attention' "$B/slow/findings_slow.csv"
    check "b: ... comparison.md: unexpected-slowdown of flash attention" \
        grep -q 'C2 `unexpected-slowdown`.*flash.*attention' "$B/slow/comparison.md"
    if [ $SAN = 0 ]; then
        oracle "c: three reports equal the oracle" "$B/c123" "$B/r1" "$B/r2" "$B/r3"
        check "c: one split triple per variant" \
            test "$(ls "$B/c123" | grep -c '^ops_unique_args_.*_r[23]\.csv$')" = 6
        check "c: diff block grouped metric then tag" \
            test "$(head -1 "$B/c123/ops_summary.csv" | cut -d, -f2-9)" = \
            "total_direct_kernel_time_ms__r2_diff,total_direct_kernel_time_ms__r2_pct,total_direct_kernel_time_ms__r3_diff,total_direct_kernel_time_ms__r3_pct,Count__r2_diff,Count__r2_pct,Count__r3_diff,Count__r3_pct"
        check "c: a split holds only its two tags" \
            test -z "$(head -1 "$B/c123/ops_unique_args_intersect_r3.csv" | grep 'r2')"
    else
        echo "skip c under sanitizers"
    fi
else
    echo "skip b, c: tlmpi-synth not built"
fi

# MARK: a. shared traces ----------------------------------------------------------
if [ $SAN = 1 ]; then
    echo "skip a under sanitizers"
elif [ -d "$SH/qwen_h100/tracelens_csvs" ] && [ -d "$SH/resnet_mi300/tracelens_csvs" ]; then
    A=$W/shared
    oracle "a: TraceLens reports qwen_h100 vs resnet_mi300" "$A/hm" \
        "$SH/qwen_h100/tracelens_csvs" "$SH/resnet_mi300/tracelens_csvs" --names h100 mi300
    check "a: the qwen trace vs its TraceLens CSVs" cmpq "$SH/qwen_h100/trace.json.gz" \
        "$SH/qwen_h100/tracelens_csvs" --output_csvs_dir "$A/q"
    check "a: ... everything intersects" only_empty "$A/q"
    check "a: ... intersect files written" test -s "$A/q/ops_unique_args_intersect_tracelens_csvs.csv"
    "$TLMPI" report "$SH/qwen_h100/trace.json.gz" --output_csvs_dir "$A/qr" --quiet
    ref "$A/qr" "$SH/qwen_h100/tracelens_csvs" --names trace tracelens_csvs \
        --skip_missing --out "$A/q.ref" > /dev/null
    check "a: ... equals the oracle on tlmpi's report folder" same "$A/q.ref" "$A/q"
else
    echo "skip a: ../shared/traces absent"
fi
exit $fail
