#!/bin/bash
# tlmpi diff (TraceDiff, docs/diff.md): a hand-made pair with a renamed
# kernel, an inserted op and a deleted root (tests/data/diff, made by
# make_pair.py): exact merged tree, key rows of diff_stats.csv and
# diff_summary.csv; a trace against itself; bad input (missing file,
# corrupt JSON, outputs exist without --force, no GPU op, no cpu_op);
# two shared traces when ../shared is present.
set -u
TLMPI="${TLMPI:?TLMPI not set}"
SRC="${TLM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
WORK="${TLM_WORK_DIR:-$(mktemp -d)}"
rm -rf "$WORK"
mkdir -p "$WORK"
fail=0
check() { # check DESC CMD...
    local desc="$1"
    shift
    if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fail=1; fi
}
D="$SRC/tests/data/diff"
O="$WORK/out"

"$TLMPI" diff "$D/a.json" "$D/b.json" --output_dir "$O" 2> "$WORK/err"
check "diff exits 0" test $? -eq 0
check "summary on stderr" grep -q "3 roots in trace1, 2 in trace2" "$WORK/err"
check "merged tree exact" cmp -s "$O/merged_tree_output.txt" "$D/expected_tree.txt"
for f in diff_stats.csv diff_stats_unique_args_summary.csv cpu_op_map.json \
         cpu_op_map_trace1.json cpu_op_map_trace2.json diff_summary.csv; do
    check "$f written" test -s "$O/$f"
done
check "renamed kernel compared at its LCA" grep -qx 'gemm_kernel_b,aten::addmm,1,trace2,"((8, 16), (16, 4))",,"('"'"'float'"'"', '"'"'float'"'"')",,42.0,42.0,gemm_kernel_a | gemm_kernel_b,3.0,5,root,root' "$O/diff_stats.csv"
check "inserted op under its parent" grep -q '^bias_kernel,aten::bias_add,6,trace2,.*,3.0,3.0,aten::linear,0.0,10,root,root$' "$O/diff_stats.csv"
check "deleted root without LCA" grep -q '^add_kernel,aten::add,11,trace1,.*,2.25,2.25,,,15,root,root$' "$O/diff_stats.csv"
check "diff_stats rows = 6" test "$(tail -n +2 "$O/diff_stats.csv" | wc -l)" -eq 6
check "diff_summary addmm" grep -qx 'aten::addmm,1,1,30.5,42.0,11.5,37.7' "$O/diff_summary.csv"
check "diff_summary deleted add" grep -qx 'aten::add,1,0,2.25,0.0,-2.25,-100.0' "$O/diff_summary.csv"
check "json has no trailing newline" test "$(tail -c 1 "$O/cpu_op_map.json")" = "}"

# identical traces: no source column, trace1 rows only
"$TLMPI" diff "$D/a.json" "$D/a.json" --output_dir "$WORK/same" --quiet
check "diff A A exits 0" test $? -eq 0
check "identical: no source column" grep -q '^name,cpu_op_name,cpu_op_uid,Input Dims,' "$WORK/same/diff_stats.csv"
check "identical: 3 rows" test "$(tail -n +2 "$WORK/same/diff_stats.csv" | wc -l)" -eq 3

# bad input: exit 1, file named, nothing written
"$TLMPI" diff "$D/a.json" "$WORK/nope.json" --output_dir "$WORK/bad1" 2> "$WORK/err"
check "missing file: exit 1" test $? -eq 1
check "missing file named" grep -q "nope.json" "$WORK/err"
check "missing file: nothing written" test -z "$(ls -A "$WORK/bad1" 2>/dev/null)"
printf '{"traceEvents":[{"ph":"X",' > "$WORK/corrupt.json"
"$TLMPI" diff "$WORK/corrupt.json" "$D/b.json" --output_dir "$WORK/bad2" 2> "$WORK/err"
check "corrupt JSON: exit 1" test $? -eq 1
check "corrupt JSON: file and offset" grep -q "corrupt.json.*offset" "$WORK/err"
"$TLMPI" diff "$D/a.json" "$D/b.json" --output_dir "$O" 2> "$WORK/err"
check "outputs exist: refused" test $? -eq 1
check "outputs exist: says --force" grep -q -- "--force" "$WORK/err"
"$TLMPI" diff "$D/a.json" "$D/b.json" --output_dir "$O" --force --quiet
check "--force replaces" test $? -eq 0
cat > "$WORK/nogpu.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":0,"dur":5}
]}
JSON
"$TLMPI" diff "$WORK/nogpu.json" "$WORK/nogpu.json" --output_dir "$WORK/nogpu" 2> "$WORK/err"
check "no GPU ops: exit 0" test $? -eq 0
check "no GPU ops: said on stderr" grep -q "no GPU op" "$WORK/err"
check "no GPU ops: tree written" grep -qx '└── aten::empty' "$WORK/nogpu/merged_tree_output.txt"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}' \
    > "$WORK/nocpu.json"
"$TLMPI" diff "$D/a.json" "$WORK/nocpu.json" --output_dir "$WORK/nocpu" 2> "$WORK/err"
check "no cpu_op: exit 1" test $? -eq 1
check "no cpu_op: file named" grep -q "nocpu.json: no cpu_op" "$WORK/err"
check "no cpu_op: nothing written" test -z "$(ls -A "$WORK/nocpu" 2>/dev/null)"
"$TLMPI" diff "$D/a.json" --output_dir "$WORK/x" 2> /dev/null
check "one trace: usage error" test $? -eq 2

# shared traces: completes, consistent files
SH="${TLM_SHARED_DIR:-$SRC/../shared}/traces/dlrm_v100_8rank"
if ls "$SH"/worker0_*.json > /dev/null 2>&1; then
    "$TLMPI" diff "$SH"/worker0_*.json "$SH"/worker1_*.json \
        --output_dir "$WORK/dlrm" 2> "$WORK/err"
    check "dlrm worker0 vs worker1" test $? -eq 0
    rows=$(tail -n +2 "$WORK/dlrm/diff_stats.csv" | wc -l)
    n1=$(sed -n 's/.*rows \([0-9]*\) (trace1) + \([0-9]*\) (trace2).*/\1/p' "$WORK/err")
    n2=$(sed -n 's/.*rows \([0-9]*\) (trace1) + \([0-9]*\) (trace2).*/\2/p' "$WORK/err")
    check "dlrm: rows = trace1 + trace2 ($rows)" test "$rows" -eq $((n1 + n2))
    check "dlrm: summary not longer than stats" test \
        "$(tail -n +2 "$WORK/dlrm/diff_stats_unique_args_summary.csv" | wc -l)" -le "$rows"
else
    echo "skip shared traces (not found)"
fi
exit $fail
